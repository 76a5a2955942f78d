"""Releases pin code, not prose: the lock and the corpusHash move with a plug-in's code.

A scorer edited without a version bump is refused by ``eval check`` (naming the plug-in) and
moves the corpusHash; a docstring or comment edit moves nothing, and neither does a docstring
on an Expectation class (schema fingerprints hold no prose). One source gives one fingerprint,
installed from a wheel (its RECORD) or editable (its source tree).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import msgspec

from eval_core._case.kinds import Expectation, KindSpec, Verdict
from eval_core._plugins.plugins import kind_schema_hash
from eval_core._util.code import fingerprint
from tests.conftest import Site, WriteCase, minimal_case

SHORT = '''
"""A family of one kind: the answer is short."""

from eval_core._plugins.hookspecs import hookimpl
from eval_core._case.kinds import Expectation, KindSpec, Verdict


class AnswerIsShort(Expectation, tag="acme_answer_is_short", frozen=True):
    max_chars: int


def score(e, evidence):
    """Total: never raises."""
    if evidence.output_text is None:
        return Verdict(False, "no answer observed")
    n = len(evidence.output_text)
    return Verdict(n <= e.max_chars, f"answer has {n} chars")  # at most max_chars


@hookimpl
def eval_kinds():
    return [KindSpec(struct=AnswerIsShort, scorer=score)]
'''


def test_a_scorer_edit_is_refused_and_moves_the_hash_but_prose_moves_nothing(
    site: Site, corpus_dir: Path, write_case: WriteCase
) -> None:
    module = site.install("acme-short", "1.0", "acme_short", SHORT)
    write_case(minimal_case(expect=[{"kind": "acme_answer_is_short", "maxChars": 200}]))
    assert site.eval("lock", corpus_dir).returncode == 0
    locked = site.eval("check", corpus_dir)
    assert locked.returncode == 0, locked.stderr
    digest = locked.stdout.splitlines()[-1].removeprefix("corpusHash ")  # `eval check` says it
    assert digest == site.eval("hash", corpus_dir).stdout.strip()

    module.write_text(
        SHORT.replace('"""Total: never raises."""', '"""Total, and it never raises: reworded."""')
        .replace("# at most max_chars", "# reworded comment")
        .replace('"""A family of one kind', '"""One family, one kind')
    )
    prose = site.eval("check", corpus_dir)
    assert prose.returncode == 0, prose.stderr
    assert prose.stdout.splitlines()[-1] == f"corpusHash {digest}"

    module.write_text(SHORT.replace("n <= e.max_chars", "n < e.max_chars"))
    refused = site.eval("check", corpus_dir)
    assert refused.returncode == 2
    assert "Traceback" not in refused.stderr
    assert "acme-short 1.0: its installed code differs from the lock" in refused.stderr
    assert "bump its version and run `eval lock`" in refused.stderr
    assert site.eval("hash", corpus_dir).stdout.strip() != digest


def kind(doc: str | None, description: str = "") -> KindSpec:
    """The same kind, with or without prose (a class docstring, a description)."""

    class Shout(Expectation, tag="thirdparty_shout", frozen=True):
        text: str

    Shout.__doc__ = doc
    return KindSpec(
        struct=Shout, scorer=lambda e, ev: Verdict(False, "no"), description=description
    )


def test_docstrings_and_descriptions_stay_out_of_schema_fingerprints() -> None:
    plain = kind(None)
    prose = kind("A docstring on the class.", description="Prose, shown on hover only.")
    assert "A docstring on the class." in json.dumps(msgspec.json.schema(prose.struct))
    assert kind_schema_hash(plain) == kind_schema_hash(prose)
    reshaped = KindSpec(
        struct=msgspec.defstruct(
            "Shout", [("text", int)], bases=(Expectation,), tag="thirdparty_shout", frozen=True
        ),
        scorer=plain.scorer,
    )
    assert kind_schema_hash(reshaped) != kind_schema_hash(plain)  # structure still counts


PACKAGE = {
    "acme_pkg/__init__.py": '"""The package."""\n',
    "acme_pkg/plugin.py": SHORT,
    "acme_pkg/table.json": '{"de": "Hallo"}\n',
}


def test_one_source_gives_one_fingerprint_from_a_wheel_record_or_a_source_tree(
    tmp_path: Path,
) -> None:
    import importlib
    import importlib.metadata
    import sys

    roots = {}
    for how in ("wheel", "editable"):
        root = tmp_path / how
        for relative, text in PACKAGE.items():
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_text(textwrap.dedent(text))
        info = root / "acme_pkg-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-pkg\nVersion: 1.0\n")
        if how == "wheel":
            record = [f"{r},sha256=x,1" for r in PACKAGE] + ["acme_pkg-1.0.dist-info/RECORD,,"]
            (info / "RECORD").write_text("\n".join(record) + "\n")
        else:
            url = {"url": "file:///src", "dir_info": {"editable": True}}
            (info / "direct_url.json").write_text(json.dumps(url))
            (info / "RECORD").write_text("acme_pkg-1.0.dist-info/RECORD,,\n__editable__.pth,,\n")
        roots[how] = root
    prints = {}
    for how, root in roots.items():
        sys.path.insert(0, str(root))
        importlib.invalidate_caches()
        try:
            module = importlib.import_module("acme_pkg.plugin")
            prints[how] = fingerprint("acme-pkg", module)
        finally:
            sys.path.remove(str(root))
            for name in [m for m in sys.modules if m.startswith("acme_pkg")]:
                del sys.modules[name]
    assert (prints["wheel"].source, prints["editable"].source) == ("record", "tree")
    assert prints["wheel"].files == prints["editable"].files == 3
    assert prints["wheel"].digest == prints["editable"].digest
    data = roots["wheel"] / "acme_pkg" / "table.json"
    data.write_text('{"de": "Guten Tag"}\n')  # data files are code too: their bytes count
    sys.path.insert(0, str(roots["wheel"]))
    importlib.invalidate_caches()
    try:
        module = importlib.import_module("acme_pkg.plugin")
        assert fingerprint("acme-pkg", module).digest != prints["wheel"].digest
    finally:
        sys.path.remove(str(roots["wheel"]))
        for name in [m for m in sys.modules if m.startswith("acme_pkg")]:
            del sys.modules[name]


def test_the_workspace_plugins_are_pinned_by_their_code_in_the_lock() -> None:
    from tests.conftest import ROOT

    lock = json.loads((ROOT / "corpus" / "eval.lock").read_text())
    assert lock["lockVersion"] == 2
    codes = {p["distribution"]: p["code"] for p in lock["plugins"]}
    assert all(len(code) == 16 for code in codes.values()), codes
