"""Mutation tests: break one thing on purpose and watch exactly the Cases that measure it go red.

A Case that stays green when its mechanism is removed measures nothing; a Case that goes red
when an unrelated mechanism is removed is measuring the wrong thing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from eval_core.corpus import Corpus, Loader
from eval_core.plugins import PluginSet
from eval_core.runner import run_sweep
from eval_core.scripted import ScriptedBinding
from tests.conftest import ROOT

GUARDRAILS = yaml.safe_load((ROOT / "corpus" / "soul" / "guardrails.yaml").read_text())
GUARDS = [(stage, entry["guard"]) for stage, entries in GUARDRAILS.items() for entry in entries]


def red_cases(plugins: PluginSet, directory: Path) -> tuple[Corpus, set[str]]:
    host = plugins.hosts["agent-runtime"](directory / "soul")
    corpus = Loader(plugins, host, judge="no-judge").load(directory)
    card = run_sweep(corpus, host, ScriptedBinding(), plugins)
    host.close()
    return corpus, {case for case, verdict in card.verdicts().items() if verdict != "PASS"}


def asserts_guard(corpus: Corpus, stage: str, guard: str) -> set[str]:
    """Cases whose Expectations say this guard refused, or that its stage was checked."""
    ids = set()
    for case in corpus.cases:
        for e in case.expect:
            data = {"kind": e.kind_name, **{f: getattr(e, f) for f in e.__struct_fields__}}
            if data["kind"] == "guardrail_blocked" and data["guard"] == guard:
                ids.add(case.id)
            if data["kind"] == "guardrail_allowed" and data["stage"] == stage:
                ids.add(case.id)
    return ids


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("mutant") / "corpus"
    shutil.copytree(ROOT / "corpus", directory, ignore=shutil.ignore_patterns("red-team"))
    return directory


def test_the_unmutated_corpus_is_green(plugins: PluginSet, copy: Path) -> None:
    assert red_cases(plugins, copy)[1] == set()


@pytest.mark.parametrize(("stage", "guard"), GUARDS, ids=[f"{s}-{g}" for s, g in GUARDS])
def test_removing_a_guard_turns_exactly_its_cases_red(
    plugins: PluginSet, copy: Path, stage: str, guard: str
) -> None:
    mutated = {s: [e for e in entries if e["guard"] != guard] for s, entries in GUARDRAILS.items()}
    path = copy / "soul" / "guardrails.yaml"
    path.write_text(yaml.safe_dump(mutated))
    try:
        corpus, red = red_cases(plugins, copy)
    finally:
        path.write_text(yaml.safe_dump(GUARDRAILS))
    expected = asserts_guard(corpus, stage, guard)
    assert expected, f"no Case asserts {guard} at {stage}"
    assert red == expected


def test_bypassing_the_assembler_turns_the_prompt_cases_red(
    plugins: PluginSet, copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_runtime.loop

    monkeypatch.setattr(
        agent_runtime.loop,
        "assemble_system_prompt",
        lambda *args, **kwargs: "You are a helpful assistant.",
    )
    corpus, red = red_cases(plugins, copy)
    prompt_cases = {
        c.id for c in corpus.cases if any(e.kind_name == "prompt_contains" for e in c.expect)
    }
    assert prompt_cases
    assert prompt_cases <= red
