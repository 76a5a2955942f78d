"""The JSON Schema says what JSON Schema can say, checked by a real validator (``jsonschema``).

Every shipped Case is valid; every loader refusal the schema can express is refused by both;
the rules it cannot express (an id that is not the file stem, grounding...) are documented in
``eval_cli/case_schema.py`` and shown here to pass the schema but not the loader.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from eval_core._loading.corpus import CorpusError
from eval_core._loading.loader import Loader
from tests.conftest import ROOT, WriteCase, minimal_case

SCHEMA = json.loads((ROOT / "schema" / "case.schema.json").read_text())
VALIDATOR = Draft202012Validator(SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER)


def shipped() -> list[Path]:
    corpus = ROOT / "corpus"
    return sorted(
        p
        for directory in (corpus, corpus / "red-team")
        for p in directory.iterdir()
        if p.suffix in (".json", ".yaml", ".yml")
    )


def test_the_schema_is_a_valid_2020_12_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)


def test_every_shipped_case_is_valid() -> None:
    files = shipped()
    assert len(files) > 100
    for path in files:
        document = yaml.safe_load(path.read_text()) if path.suffix != ".json" else None
        document = document or json.loads(path.read_text())
        errors = [f"{e.json_path}: {e.message}" for e in VALIDATOR.iter_errors(document)]
        assert not errors, (path.name, errors[:3])


@pytest.mark.parametrize(
    ("expectation", "path"),
    [
        ({"kind": "output_contains", "text": 5}, "$.expect[0].text"),
        ({"kind": "output_contains", "txet": "x"}, "$.expect[0]"),
        ({"kind": "no_such_kind"}, "$.expect[0].kind"),
        ({"text": "x"}, "$.expect[0]"),
    ],
)
def test_a_mistake_inside_one_expectation_is_named_where_it_is(
    expectation: dict[str, Any], path: str
) -> None:
    """Dispatched on its ``kind``, an Expectation's mistake is reported at the field itself, as
    an editor shows it, not as "not valid under any of the given schemas" at the Expectation."""
    errors = list(VALIDATOR.iter_errors(minimal_case(expect=[expectation])))
    assert errors and {e.json_path for e in errors} == {path}, [e.message for e in errors]
    assert not any("any of the given schemas" in e.message for e in errors)


def l3(**overrides: Any) -> dict[str, Any]:
    return minimal_case(tier="l3", **overrides)


def call(call_id: str = "c1", name: str = "lookup_ticket") -> dict[str, Any]:
    return {"kind": "tool_calls", "calls": [{"callId": call_id, "name": name}]}


REFUSED: dict[str, tuple[dict[str, Any], str]] = {
    "an empty expect": (minimal_case(expect=[]), "$.expect"),
    "an empty input": (minimal_case(input=[]), "$.input"),
    "no trials": (minimal_case(trials=0), "$.trials"),
    "too many trials": (minimal_case(trials=1001), "$.trials"),
    "an empty agent": (minimal_case(agent=" "), "$.agent"),
    "an unknown field": (minimal_case(surprise=1), "$.surprise"),
    "an unknown kind": (minimal_case(expect=[{"kind": "no_such_kind"}]), "$.expect[0].kind"),
    "a missing kind": (minimal_case(expect=[{"text": "x"}]), "$.expect[0].kind"),
    "a negative count": (
        minimal_case(expect=[{"kind": "tool_call_count", "count": -1}]),
        "$.expect[0].count",
    ),
    "a batch of one": (
        minimal_case(expect=[{"kind": "tool_calls_batched", "min": 1}]),
        "$.expect[0].min",
    ),
    "a blank text": (
        minimal_case(expect=[{"kind": "output_contains", "text": "   "}]),
        "$.expect[0].text",
    ),
    "a regex that does not compile": (
        minimal_case(expect=[{"kind": "output_matches", "pattern": "(", "ungrounded": "x"}]),
        "$.expect[0].pattern",
    ),
    "a dot path with an empty segment": (
        minimal_case(
            expect=[{"kind": "output_field_equals", "path": "a..b", "value": 1}],
            script=[{"kind": "structured", "value": {"a": 1}}],
        ),
        "$.expect[0].path",
    ),
    "a rubric minimum over 5": (
        minimal_case(expect=[{"kind": "rubric_score", "criteria": ["kind"], "min": 6}]),
        "$.expect[0].min",
    ),
    "an L3-only kind in an L2 Case": (
        minimal_case(expect=[{"kind": "run_status", "status": "completed"}]),
        "$.expect[0].kind",
    ),
    "an L3-only field in an L2 Case": (
        minimal_case(journey=[{"input": [{"role": "user", "content": "And now?"}]}]),
        "$.journey",
    ),
    "an empty callId": (
        minimal_case(
            platformTools=["lookup_ticket"],
            toolResults=[{"name": "lookup_ticket", "output": {}}],
            script=[call(""), {"kind": "text", "text": "Your tulip bulbs."}],
        ),
        "$.script[0].calls[0].callId",
    ),
    "a tool_calls step without calls": (
        minimal_case(script=[{"kind": "tool_calls", "calls": []}]),
        "$.script[0].calls",
    ),
    "a Tool without a name": (
        minimal_case(tools=[{"name": "", "inputSchema": {}}]),
        "$.tools[0].name",
    ),
    "a result both denied and failed": (
        minimal_case(
            platformTools=["lookup_ticket"],
            toolResults=[{"name": "lookup_ticket", "denied": "no", "error": "down"}],
        ),
        "$.toolResults[0]",
    ),
}


def _refused_at(
    loader: Loader, corpus_dir: Path, write_case: WriteCase, document: dict[str, Any]
) -> list[str]:
    """The paths the loader names when it refuses ``document`` (it must refuse it)."""
    write_case(document, name="c.json")
    with pytest.raises(CorpusError) as refused:
        loader.load(corpus_dir)
    return [p.path for p in refused.value.problems]


@pytest.mark.parametrize("mistake", sorted(REFUSED))
def test_a_refusal_the_schema_can_express_is_refused_by_both(
    loader: Loader, corpus_dir: Path, write_case: WriteCase, mistake: str
) -> None:
    document, path = REFUSED[mistake]
    assert list(VALIDATOR.iter_errors(document)), f"the schema accepts {mistake}"
    assert path in _refused_at(loader, corpus_dir, write_case, document)


CANNOT_SAY: dict[str, tuple[dict[str, Any], str]] = {
    "an id that is not the file stem": (minimal_case("other"), "$.id"),
    "an agent the Soul lacks": (minimal_case(agent="nobody"), "$.agent"),
    "an ungrounded content Expectation": (
        minimal_case(expect=[{"kind": "output_contains", "text": "a refund of 99 EUR"}]),
        "$.expect[0].text",
    ),
    "a platform Tool that does not resolve": (
        minimal_case(platformTools=["nope"]),
        "$.platformTools[0]",
    ),
}


@pytest.mark.parametrize("rule", sorted(CANNOT_SAY))
def test_what_the_schema_cannot_say_only_the_loader_refuses(
    loader: Loader, corpus_dir: Path, write_case: WriteCase, rule: str
) -> None:
    document, path = CANNOT_SAY[rule]
    assert not list(VALIDATOR.iter_errors(document))
    assert path in _refused_at(loader, corpus_dir, write_case, document)


def test_kinds_and_fields_carry_their_descriptions_and_examples_for_hover() -> None:
    defs = SCHEMA["$defs"]
    by_tag = {
        d["properties"]["kind"]["enum"][0]: d
        for d in defs.values()
        if "kind" in d.get("properties", {})
    }
    contains = by_tag["output_contains"]
    assert "must be grounded in what the model was given" in contains["description"]
    assert by_tag["output_matches"]["properties"]["pattern"]["format"] == "regex"
    assert "(l3 only)" in by_tag["run_status"]["description"]
    assert "(l3 only)" in defs["Case"]["properties"]["journey"]["description"]


def test_a_top_level_schema_pointer_is_allowed_and_nothing_else_unknown() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "eval_cli", "schema"],
        capture_output=True,
        check=True,
        timeout=60,
    )
    emitted = json.loads(done.stdout)  # what `eval schema` prints now, as the file holds
    for schema in (emitted, SCHEMA):
        validator = Draft202012Validator(schema)
        pointed = {"$schema": "../schema/case.schema.json", **minimal_case()}
        assert not list(validator.iter_errors(pointed))
        assert list(validator.iter_errors({**pointed, "$schema": 3}))
        assert list(validator.iter_errors({**minimal_case(), "$schemas": "x"}))
