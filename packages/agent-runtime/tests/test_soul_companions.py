"""``soul_write``'s ``companion``: a file beside an artifact's definition, committed on a real
git repository; a path that would leave the artifact's directory is denied."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_runtime.model import ToolCallRequest
from agent_runtime.soul.repo import Commit, Publication, SoulRepo, SoulWriter

SKILL = "---\nname: packing-notes\ndescription: Packing.\n---\nPack in paper.\n"


def _write(repo: SoulRepo, **arguments: str) -> tuple[str, str | None]:
    def published(_commit: Commit, _publication: Publication | None, _why: str | None) -> None:
        return None

    call = ToolCallRequest("c1", "soul_write", {"kind": "Skill", "slug": "packing-notes"})
    call.arguments.update(arguments)
    outcome = SoulWriter(repo, "support", published).execute(call)
    return outcome.status, outcome.reason


def test_a_companion_is_committed_beside_the_definition(tmp_path: Path, soul_copy: Path) -> None:
    repo = SoulRepo(soul_copy, tmp_path / "work")
    assert _write(repo, content=SKILL, companion="SKILL.md")[0] == "succeeded"
    assert _write(repo, content="Licensed.", companion="LICENSE.txt")[0] == "succeeded"
    assert _write(repo, content="Notes.", companion="references/notes.md")[0] == "succeeded"
    paths = [paths for _sha, paths in repo.log(repo.base, repo.head())]
    assert paths == [
        ("skills/packing-notes/SKILL.md",),
        ("skills/packing-notes/LICENSE.txt",),
        ("skills/packing-notes/references/notes.md",),
    ]
    assert (repo.root / "skills/packing-notes/LICENSE.txt").read_text() == "Licensed."


@pytest.mark.parametrize("companion", ["../triage/AGENT.md", "/etc/passwd", "a/./b", "a//b"])
def test_a_companion_outside_the_artifact_is_denied(
    tmp_path: Path, soul_copy: Path, companion: str
) -> None:
    repo = SoulRepo(soul_copy, tmp_path / "work")
    status, reason = _write(repo, content="x", companion=companion)
    assert status == "denied" and reason is not None
    assert reason.startswith("VALIDATION_FAILED: companion") and "invalid_companion at" in reason
    assert repo.log(repo.base, repo.head()) == []


def test_a_surface_component_and_its_code_are_committed_in_its_directory(
    tmp_path: Path, soul_copy: Path
) -> None:
    """The original's ``SurfaceComponent``: ``component.yaml`` is its definition, its code
    view's source and module are companions (``code/web.js``), and the Soul still loads."""
    repo = SoulRepo(soul_copy, tmp_path / "work")
    kind = {"kind": "SurfaceComponent", "slug": "expense-sheet"}
    definition = "name: business.expense-sheet\nversion: '1.0'\npropsSchema: {type: object}\n"
    assert _write(repo, **kind, content=definition)[0] == "succeeded"
    assert _write(repo, **kind, content="render()", companion="code/web.js")[0] == "succeeded"
    assert _write(repo, **kind, content="x", companion="../../agents/x/AGENT.md")[0] == "denied"
    paths = [paths for _sha, paths in repo.log(repo.base, repo.head())]
    assert paths == [
        ("surface-components/expense-sheet/component.yaml",),
        ("surface-components/expense-sheet/code/web.js",),
    ]
    assert repo.publish(repo.head()) is not None
