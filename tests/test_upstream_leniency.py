"""The original's leniencies: what its Cases load with here, each said once as a load note.

A hand-declared Tool sharing a platform Tool's name, an empty retired context key and a Case
without a script (or with one it never replays) load instead of being refused, and the loaded
Corpus carries one note per leniency, naming file and JSON path; a retired key with content is
still refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval_core._loading.loader import Loader
from eval_core._loading.opening import Refused, open_corpus
from tests.conftest import WriteCase, minimal_case, refusal

ROOT = Path(__file__).resolve().parents[1]
LOOKUP = {"name": "lookup_ticket", "inputSchema": {"type": "object"}}


def test_each_leniency_loads_with_one_note(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(minimal_case("a", tools=[LOOKUP]))
    write_case(minimal_case("b", context={"governancePages": [], "memory": []}))
    unscripted = minimal_case("c")
    del unscripted["script"]
    write_case(unscripted)
    corpus = loader.load(corpus_dir)
    assert [c.id for c in corpus.cases] == ["a", "b", "c"]
    notes = "\n".join(corpus.notes)
    assert "a.json: $.tools[0].name: 'lookup_ticket' shares a shipped platform Tool's name" in notes
    assert "b.json: $.context.governancePages: retired and empty, so a no-op here" in notes
    assert "b.json: $.context.memory: retired and empty" in notes
    assert "c.json: $.script: none: the scripted binding has nothing to replay" in notes
    assert len(corpus.notes) == 4
    again = loader.load(corpus_dir)  # from the checked cache: the same notes
    assert again.notes == corpus.notes


def test_a_retired_key_with_content_is_still_refused(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(minimal_case(context={"governancePages": ["Refunds need finance."]}))
    [(file, path, reason)] = refusal(loader, corpus_dir)
    assert (file, path) == ("c.json", "$.context.governancePages")
    assert reason.startswith("'governancePages' is retired: ")


def test_plan_mode_loads_and_an_unknown_mode_is_refused(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    """``context.mode: plan`` is the original's plan mode; any other mode is refused at load,
    naming the modes there are, instead of erroring each Trial at its first prompt."""
    write_case(minimal_case("p", context={"mode": "plan"}))
    assert [c.id for c in loader.load(corpus_dir).cases] == ["p"]
    write_case(minimal_case("q", context={"mode": "chat"}))
    [(file, path, reason)] = refusal(loader, corpus_dir)
    assert (file, path, reason) == (
        "q.json",
        "$.context.mode",
        "Invalid enum value 'chat' (one of: 'plan')",
    )


def test_an_artifact_kind_only_the_original_publishes_is_refused_naming_it(
    corpus_dir: Path, write_case: WriteCase
) -> None:
    """``Integration:``, ``ToolContract:`` and ``ModelProfile:`` are the original's artifacts:
    the refusal says so, instead of a syntax complaint about a well-formed subject."""
    shipped = ROOT / "corpus" / "l3-a-malformed-skill-is-committed-but-never-published.json"
    case = json.loads(shipped.read_text())
    case["id"] = "c"
    case["expect"] = [{"kind": "soul_not_published", "artifact": "Integration:journey-acme"}]
    write_case(case)
    with pytest.raises(Refused) as refused:
        open_corpus(corpus_dir, "agent-runtime", True, check_lock=False).host.close()
    assert (
        "c.json: $.expect[0].artifact: 'Integration:journey-acme': the runtime publishes no "
        "Integration artifacts (an original-only feature, not built here)"
    ) in str(refused.value)
