"""When the installed plug-ins drift from eval.lock, every message names the plug-in and the
right next step: install what the lock pins, or re-pin with ``eval lock`` (which refuses a set
that cannot load the Corpus); an unknown kind names the distribution the lock says owned it;
``eval compare`` explains a corpusHash mismatch by the plug-ins the two Scorecards used.
"""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path

import pytest

from eval_core._loading.corpus import CorpusError
from eval_core._loading.loader import Loader
from eval_core._loading.opening import Refused, open_corpus
from eval_core._plugins import lock
from eval_core._plugins.plugins import load_plugins
from tests.conftest import Site, WriteCase, minimal_case
from tests.test_code_pins import SHORT

KIND = {"kind": "acme_answer_is_short", "maxChars": 200}


def install(site: Site, version: str) -> None:
    for old in site.root.glob("acme_short-*.dist-info"):
        shutil.rmtree(old)
    site.install("acme-short", version, "acme_short", SHORT)
    importlib.invalidate_caches()


def uninstall(site: Site) -> None:
    for old in site.root.glob("acme_short-*.dist-info"):
        shutil.rmtree(old)
    importlib.invalidate_caches()


def refusal(corpus: Path) -> str:
    with pytest.raises(Refused) as refused:
        open_corpus(corpus, "agent-runtime", False).host.close()
    return str(refused.value)


@pytest.fixture
def pinned(site: Site, corpus_dir: Path, write_case: WriteCase) -> Path:
    """A Corpus using acme-short's kind, locked with acme-short 1.0 installed."""
    install(site, "1.0")
    write_case(minimal_case(expect=[KIND]))
    lock.write(corpus_dir / lock.LOCK_NAME, load_plugins(), "agent-runtime")
    return corpus_dir


def test_locked_but_not_installed_says_to_install_what_the_lock_pins(
    site: Site, pinned: Path
) -> None:
    uninstall(site)
    message = refusal(pinned)
    assert (
        "  - acme-short 1.0 (entry point 'acme_short') is locked but not installed: install it "
        "(acme-short==1.0); if the Corpus no longer needs it, `eval lock` re-pins without it"
    ) in message
    assert message.endswith(
        "each line says its next step; --unlocked runs anyway (the Scorecard records it)"
    )


def test_an_unknown_kind_names_the_distribution_the_lock_pins_it_to(
    site: Site, pinned: Path
) -> None:
    uninstall(site)
    plugins = load_plugins()
    host = plugins.hosts["agent-runtime"](pinned / "soul")
    try:
        with pytest.raises(CorpusError) as refused:
            owners = lock.owners(lock.read(pinned / lock.LOCK_NAME))
            Loader(plugins, host, judge="no-judge", locked=owners).load(pinned)
    finally:
        host.close()
    [problem] = refused.value.problems
    assert (problem.path, problem.reason) == (
        "$.expect[0].kind",
        "unknown kind 'acme_answer_is_short': eval.lock pins it to acme-short 1.0, which is not "
        "installed (install acme-short==1.0)",
    )
    message = str(refused.value)
    assert "output_contains" not in message  # the known kinds are not repeated on every line
    assert message.count("`eval plugins` lists what is installed") == 1


def test_an_unknown_kind_nobody_pinned_suggests_the_closest_installed_one(
    corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(minimal_case(expect=[{"kind": "output_contain", "text": "tulip bulbs"}]))
    with pytest.raises(Refused) as refused:
        open_corpus(corpus_dir, "agent-runtime", True, check_lock=False).host.close()
    assert (
        "$.expect[0].kind: unknown kind 'output_contain': no installed plug-in provides it; "
        "did you mean 'output_contains'?"
    ) in str(refused.value)


def test_a_new_version_says_both_ways_forward(site: Site, pinned: Path) -> None:
    install(site, "1.1")
    assert (
        "  - acme-short: locked 1.0, installed 1.1: `eval lock` pins 1.1 (the corpusHash moves "
        "with it), or install acme-short==1.0"
    ) in refusal(pinned)


def test_installed_but_not_locked_and_an_old_lock_format(site: Site, pinned: Path) -> None:
    data = json.loads((pinned / lock.LOCK_NAME).read_text())
    data["plugins"] = [p for p in data["plugins"] if p["distribution"] != "acme-short"]
    (pinned / lock.LOCK_NAME).write_text(json.dumps(data))
    assert (
        "  - acme-short 1.0 (entry point 'acme_short') is installed but not locked: `eval lock` "
        "pins it (or uninstall it)"
    ) in refusal(pinned)
    data["lockVersion"] = 1
    (pinned / lock.LOCK_NAME).write_text(json.dumps(data))
    assert (
        "lock version 1 (it pins no code fingerprints), expected 2: run `eval lock` to re-pin"
    ) in refusal(pinned)


def test_eval_lock_refuses_to_pin_a_set_that_cannot_load_the_corpus(
    site: Site, pinned: Path
) -> None:
    before = (pinned / lock.LOCK_NAME).read_bytes()
    uninstall(site)
    refused = site.eval("lock", pinned)
    assert refused.returncode == 2
    assert "Traceback" not in refused.stderr
    assert refused.stderr.startswith(
        f"eval lock refused: the installed plug-ins cannot load {pinned}, so pinning them "
        "would pin a broken release:"
    )
    assert "eval.lock pins it to acme-short 1.0, which is not installed" in refused.stderr
    assert (pinned / lock.LOCK_NAME).read_bytes() == before


def test_compare_explains_a_corpus_hash_mismatch_by_the_plugins(
    site: Site, pinned: Path, tmp_path: Path
) -> None:
    first = tmp_path / "first.json"
    swept = site.eval("sweep", pinned, "--save", first, "--log", tmp_path / "1.jsonl")
    assert swept.returncode == 0, swept.stderr
    install(site, "1.1")
    second = tmp_path / "second.json"
    site.eval("sweep", pinned, "--unlocked", "--save", second, "--log", tmp_path / "2.jsonl")
    (site.root / "acme_short.py").write_text(SHORT.replace("n <= e.max_chars", "n < e.max_chars"))
    third = tmp_path / "third.json"
    site.eval("sweep", pinned, "--unlocked", "--save", third, "--log", tmp_path / "3.jsonl")

    bumped = site.eval("compare", first, second)
    assert bumped.returncode == 3
    assert "REFUSED  no delta computed: different Corpora: corpusHash" in bumped.stderr
    assert "  - plug-in acme-short: version 1.0 -> 1.1" in bumped.stderr
    edited = site.eval("compare", second, third)
    assert edited.returncode == 3
    assert (
        "  - plug-in acme-short 1.1: its code changed without a version bump (code "
    ) in edited.stderr
    assert "the measuring stick moved, not the system under test" in edited.stderr
