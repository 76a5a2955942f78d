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
