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
