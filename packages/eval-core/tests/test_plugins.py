"""A third party adds a kind by shipping a distribution; broken and duplicate plug-ins are refused.

The plug-ins here are real distributions: a module plus a ``.dist-info`` directory with an
``entry_points.txt``, put on ``sys.path``, discovered by importlib-metadata like any install.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from eval_core._plugins.plugins import PluginError, load_plugins

GOOD = """
from eval_core._case.evidence import Evidence
from eval_core._plugins.hookspecs import hookimpl
from eval_core._case.kinds import Expectation, KindSpec, Verdict


class AnswerIsShort(Expectation, tag="answer_is_short"):
    max_chars: int


def score(expectation: AnswerIsShort, evidence: Evidence) -> Verdict:
    if evidence.output_text is None:
        return Verdict(False, "no answer observed")
    n = len(evidence.output_text)
    return Verdict(n <= expectation.max_chars, f"answer has {n} chars")


@hookimpl
def eval_kinds():
    return [KindSpec(struct=AnswerIsShort, scorer=score, witness="answer")]
"""


def make_distribution(root: Path, dist: str, version: str, module: str, source: str) -> None:
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[eval.plugins]\n{module} = {module}\n")


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("thirdparty_")]:
            del sys.modules[name]


def refusal(match: str | None = None) -> str:
    """What loading the installed plug-ins is refused with (matching ``match``)."""
    with pytest.raises(PluginError, match=match) as error:
        load_plugins()
    return str(error.value)


def test_a_third_party_distribution_adds_a_kind(site: Path) -> None:
    make_distribution(site, "thirdparty-short", "1.2.3", "thirdparty_short", GOOD)
    plugins = load_plugins()
    assert "answer_is_short" in plugins.kinds
    owner = plugins.kind_owner["answer_is_short"]
    assert (owner.distribution, owner.version) == ("thirdparty-short", "1.2.3")
    # the core's own families arrive the same way
    assert plugins.kind_owner["output_contains"].distribution == "eval-expectations-turn"


def test_a_broken_plugin_is_refused_naming_distribution_and_entry_point(site: Path) -> None:
    make_distribution(site, "thirdparty-broken", "0.1", "thirdparty_broken", "import nowhere\n")
    message = refusal()
    assert "thirdparty-broken 0.1" in message
    assert "'thirdparty_broken'" in message
    assert "ModuleNotFoundError" in message


def test_two_plugins_claiming_one_kind_are_refused_naming_both(site: Path) -> None:
    make_distribution(site, "thirdparty-a", "1.0", "thirdparty_a", GOOD)
    make_distribution(site, "thirdparty-b", "2.0", "thirdparty_b", GOOD)
    message = refusal()
    assert "answer_is_short" in message
    assert "thirdparty-a 1.0" in message
    assert "thirdparty-b 2.0" in message


def test_a_plugin_claiming_a_builtin_kind_is_refused(site: Path) -> None:
    source = GOOD.replace('tag="answer_is_short"', 'tag="output_contains"')
    make_distribution(site, "thirdparty-clash", "1.0", "thirdparty_clash", source)
    refusal(r"claimed twice.*eval-expectations-turn.*thirdparty-clash")


def test_a_kind_naming_an_unknown_witness_is_refused(site: Path) -> None:
    source = GOOD.replace('witness="answer"', 'witness="hearsay"')
    make_distribution(site, "thirdparty-hearsay", "1.0", "thirdparty_hearsay", source)
    refusal(r"names the witness 'hearsay'; a witness is one of")


def test_a_family_adds_a_witness_check_run_on_every_trial(site: Path) -> None:
    source = GOOD + textwrap.dedent(
        """
        from eval_core._case.witness import WitnessCheck


        @hookimpl
        def eval_witness_checks():
            return [WitnessCheck("short answers", lambda evidence: [])]
        """
    )
    make_distribution(site, "thirdparty-checks", "1.0", "thirdparty_checks", source)
    plugins = load_plugins()
    (check,) = [c for c in plugins.witness_checks if c.name == "short answers"]
    assert check.origin is not None and check.origin.distribution == "thirdparty-checks"


SOURCE = """
from eval_core._plugins.hookspecs import hookimpl


class Source:
    def open_leg(self, models_file, name):
        raise NotImplementedError

    def judge(self, legs, warn):
        return None


@hookimpl
def eval_models():
    return Source()
"""


def test_a_second_model_source_is_refused_naming_both(site: Path) -> None:
    make_distribution(site, "thirdparty-models", "3.0", "thirdparty_models", SOURCE)
    refusal(r"model source .*eval-bindings.*thirdparty-models 3.0")


def test_a_model_source_must_open_legs(site: Path) -> None:
    broken = SOURCE.replace("def open_leg", "def open_legs")
    make_distribution(site, "thirdparty-models", "3.0", "thirdparty_models", broken)
    refusal(r"thirdparty-models 3.0.*not a model source")
