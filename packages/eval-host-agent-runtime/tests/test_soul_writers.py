"""The L3 tier's Soul repository: each writing Trial gets a copy of its own, at the base."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from eval_host_agent_runtime.tier import DurableTier

ROOT = Path(__file__).resolve().parents[3]
SKILL = "---\nname: Bulb storage\ndescription: Keeping bulbs.\n---\nKeep bulbs dry.\n"


@pytest.fixture(scope="module")
def tier() -> Iterator[DurableTier]:
    made = DurableTier(ROOT / "corpus" / "soul")
    yield made
    made.close()


def test_writers_at_once_write_copies_of_their_own(tier: DurableTier) -> None:
    one, two = tier.lend(), tier.lend()
    assert one is not two and one.root != two.root != tier.repo.root
    assert one.head() == two.head() == tier.repo.base
    one.write("Skill", "bulb-storage", SKILL)
    assert two.head() == tier.repo.base  # the other writer's repository did not move
    assert tier.repo.head() == tier.repo.base and not tier.repo.changed()
    tier.give_back(one)
    tier.give_back(two)
    again = {id(tier.lend()), id(tier.lend())}
    assert again == {id(one), id(two)}  # lent again, not made again
    assert one.head() == one.base and not (one.root / "skills" / "bulb-storage").exists()
    tier.give_back(one)
    tier.give_back(two)


def test_an_l3_trial_that_wrote_the_soul_gives_its_copy_back_at_its_base() -> None:
    """Each writing Trial of a Sweep is lent the copy the one before gave back (reset to the
    base), so a Sweep of many such Trials keeps one copy per Trial at once, never one per
    Trial run."""
    from eval_core._loading.loader import Loader
    from eval_core._plugins.plugins import load_plugins
    from eval_core._running.runner import run_sweep
    from eval_core._running.scripted import ScriptedBinding
    from eval_host_agent_runtime.host import AgentRuntimeHost

    writing = (
        "l3-a-soul-write-companion-beside-its-definition-is-committed-and-published",
        "l3-a-soul-author-reads-a-skill-before-writing-its-companion",
    )
    plugins = load_plugins()
    host = AgentRuntimeHost(ROOT / "corpus" / "soul")  # the plug-in the Sweep makes
    try:
        corpus = Loader(plugins, host, judge="no-judge").load(ROOT / "corpus")
        for case in writing:  # one after the other: the second is lent the first's copy
            card = run_sweep(corpus, host, ScriptedBinding(), plugins, select=(case,))
            assert [t.outcome for t in card.trials] == ["passed"], card.trials
        tier = host._durable
        assert tier is not None and tier.made == 1
        (copy,) = tier.idle
        assert copy.head() == tier.repo.base and not copy.changed()
        assert not (copy.root / "skills/ticket-hygiene/references/title-examples.md").exists()
    finally:
        host.close()


def test_a_soul_write_the_case_declares_by_hand_reaches_the_real_writer(tmp_path: Path) -> None:
    """The original's Cases declare ``soul_write`` by hand in ``tools`` rather than naming the
    platform Tool; such a Case loads with a note (so none is in the shipped Corpus) and its
    call is routed by name to the real writer: the Skill is committed and published."""
    import json
    import shutil

    from eval_core._loading.loader import Loader
    from eval_core._plugins.plugins import load_plugins
    from eval_core._running.runner import run_sweep
    from eval_core._running.scripted import ScriptedBinding
    from eval_host_agent_runtime.host import AgentRuntimeHost

    corpus = tmp_path / "corpus"
    shutil.copytree(ROOT / "corpus" / "soul", corpus / "soul")
    plugins = load_plugins()
    host = AgentRuntimeHost(corpus / "soul")
    declared = host.platform_tools()["soul_write"]
    call = {"kind": "Skill", "slug": "bulb-storage", "content": SKILL}
    case = {
        "id": "hand-declared-soul-write",
        "tier": "l3",
        "agent": "soul-author",
        "input": [{"role": "user", "content": "Write a Skill bulb-storage on keeping bulbs."}],
        "tools": [{"name": "soul_write", "inputSchema": declared.input_schema}],
        "script": [
            {
                "kind": "tool_calls",
                "calls": [{"callId": "c1", "name": "soul_write", "arguments": call}],
            },
            {"kind": "text", "text": "The bulb-storage Skill is committed and published."},
        ],
        "expect": [
            {"kind": "soul_committed", "path": "skills/bulb-storage/SKILL.md"},
            {"kind": "soul_published", "artifact": "Skill:bulb-storage"},
        ],
    }
    (corpus / "hand-declared-soul-write.json").write_text(json.dumps(case))
    try:
        loaded = Loader(plugins, host, judge="no-judge").load(corpus)
        assert any("'soul_write' shares a shipped platform Tool's name" in n for n in loaded.notes)
        [trial] = run_sweep(loaded, host, ScriptedBinding(), plugins).trials
    finally:
        host.close()
    assert trial.outcome == "passed", trial


def test_the_publication_read_back_after_a_writing_turn_is_the_commit_that_turn_made() -> None:
    """What ``soul_published`` shows of the active publication: the commit it was published
    at, which after a Turn whose write was committed and published is that write's commit."""
    from eval_core._loading.loader import Loader
    from eval_core._plugins.fixtures import SweepResources, run_with_fixtures
    from eval_core._plugins.plugins import load_plugins
    from eval_core._running.scripted import ScriptedBinding
    from eval_expectations_durable.run_events import RunRecord
    from eval_host_agent_runtime.host import AgentRuntimeHost

    plugins = load_plugins()
    host = AgentRuntimeHost(ROOT / "corpus" / "soul")
    shared = SweepResources()
    try:
        corpus = Loader(plugins, host, judge="no-judge").load(ROOT / "corpus")
        case = corpus.case(
            "l3-a-soul-write-companion-beside-its-definition-is-committed-and-published"
        )
        scope = host.open_trial(case, ScriptedBinding().session(case), 1)
        try:
            evidence = run_with_fixtures(case, 1, scope, host.name, plugins.fixtures, shared)
        finally:
            scope.close()
    finally:
        shared.close()
        host.close()
    record = evidence.record(RunRecord)
    assert record is not None
    [commit] = record.commits
    [publication] = record.publications
    assert (publication.turn_index, publication.commit) == (1, commit.sha)
    assert "Skill:ticket-hygiene" in publication.artifacts
