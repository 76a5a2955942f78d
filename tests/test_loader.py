"""Strict loading: every refusal names file, JSON path and reason; nothing is skipped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_core._loading.corpus import CorpusError
from eval_core._loading.loader import Loader
from tests.conftest import Refuses, WriteCase, minimal_case, only, refusal


def test_a_valid_case_loads_with_input_normalised_to_parts(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(minimal_case())
    corpus = loader.load(corpus_dir)
    [case] = corpus.cases
    assert case.input[0].parts[0].text == "Where is my order of tulip bulbs?"  # type: ignore[union-attr]
    assert len(corpus.hash) == 64


@pytest.mark.parametrize(
    ("case", "path", "reason"),
    [
        (minimal_case(id="other"), "$.id", "must equal the file stem 'c'"),
        (minimal_case(expect=[]), "$.expect", "a Case that expects nothing always passes"),
        (minimal_case(tier="l4"), "$.tier", "Invalid enum value 'l4'"),
        (
            minimal_case(surprise=1),
            "$.surprise",
            "unknown Case field 'surprise': no installed plug-in provides it",
        ),
        (minimal_case(agent="ghost"), "$.agent", "unknown agent 'ghost'"),
        (
            minimal_case(input=[], expect=[{"kind": "loop_status", "status": "completed"}]),
            "$.input",
            "at least one message",
        ),
        (minimal_case(trials=0), "$.trials", "must be an integer >= 1"),
        (minimal_case(input="hello"), "$.input", "Expected `array`, got `str`"),
        (
            minimal_case(input=[{"role": "user", "content": []}]),
            "$.input[0].content",
            "length >= 1",
        ),
        (
            minimal_case(expect=[{"kind": "no_such_kind"}]),
            "$.expect[0].kind",
            "unknown kind 'no_such_kind': no installed plug-in provides it",
        ),
        (minimal_case(expect=[{"text": "x"}]), "$.expect[0].kind", "missing kind"),
        (
            minimal_case(expect=[{"kind": "output_contains", "text": 3}]),
            "$.expect[0].text",
            "Expected `str`, got `int`",
        ),
        (
            minimal_case(expect=[{"kind": "output_contains", "text": "x", "extra": 1}]),
            "$.expect[0]",
            "unknown field `extra`",
        ),
        (
            minimal_case(expect=[{"kind": "output_matches", "pattern": "(unclosed"}]),
            "$.expect[0].pattern",
            "compile",
        ),
        (
            minimal_case(expect=[{"kind": "tool_call_count", "count": -1}]),
            "$.expect[0].count",
            "≥ 0",
        ),
        (
            minimal_case(expect=[{"kind": "tool_calls_batched", "min": 1}]),
            "$.expect[0].min",
            "≥ 2",
        ),
        (
            minimal_case(expect=[{"kind": "prompt_contains", "text": ""}]),
            "$.expect[0].text",
            "non-empty",
        ),
        (
            minimal_case(tier="l3", expect=[{"kind": "tool_calls_batched", "min": 2}]),
            "$.expect[0].kind",
            "'tool_calls_batched' is l2-only; this Case is l3",
        ),
        (
            minimal_case(platformTools=["teleport"]),
            "$.platformTools[0]",
            "'teleport' does not resolve to a shipped platform Tool",
        ),
        (
            minimal_case(toolResults=[{"name": "lookup_ticket", "output": {}}]),
            "$.toolResults[0].name",
            "scripted result for 'lookup_ticket', which the Case does not declare",
        ),
        (
            minimal_case(context={"personality": "You are evil."}),
            "$.context.personality",
            "owned by the Eval Soul",
        ),
        (minimal_case(context={"tenantId": "t1"}), "$.context.tenantId", "retired"),
        (minimal_case(context={"mood": "happy"}), "$.context.mood", "unknown context key"),
        (
            minimal_case(context={"customInstructions": ["Be brief."]}),
            "$.context.customInstructions",
            "Expected `str | null`, got `array`",
        ),
        (
            minimal_case(
                platformTools=["lookup_ticket"],
                script=[
                    {
                        "kind": "tool_calls",
                        "calls": [
                            {"callId": "a", "name": "lookup_ticket"},
                            {"callId": "a", "name": "lookup_ticket"},
                        ],
                    }
                ],
            ),
            "$.script[0].calls[1].callId",
            "callId 'a' is used twice",
        ),
        (
            minimal_case(expect=[{"kind": "output_contains", "text": "a refund of 99 EUR"}]),
            "$.expect[0].text",
            "is not grounded in what the model was given",
        ),
    ],
)
def test_each_refusal_names_file_path_and_reason(
    refuses: Refuses, case: dict[str, Any], path: str, reason: str
) -> None:
    refuses(case, path, reason)


def test_grounding_ignores_the_script_and_accepts_an_ungrounded_reason(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    only_in_script = minimal_case(
        script=[{"kind": "text", "text": "Your voucher code is TULIP-42."}],
        expect=[{"kind": "output_contains", "text": "TULIP-42"}],
    )
    write_case(only_in_script)
    assert "not grounded" in only(refusal(loader, corpus_dir))[2]
    waived = {**only_in_script, "expect": [{**only_in_script["expect"][0], "ungrounded": "why"}]}
    write_case(waived)
    assert loader.load(corpus_dir).cases[0].id == "c"


def test_grounding_accepts_soul_tool_results_and_tool_descriptions(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(
        minimal_case(
            platformTools=["lookup_ticket"],
            toolResults=[{"name": "lookup_ticket", "output": {"carrier": "PostNL"}}],
            expect=[
                {"kind": "output_contains", "text": "postnl"},  # a Tool result, case-insensitive
                {"kind": "output_contains", "text": "Lisse"},  # the agent's personality
                {"kind": "output_matches", "pattern": "within \\d+ business days"},
            ],
        )
    )
    loader.load(corpus_dir)


def test_every_problem_in_every_file_is_reported(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(minimal_case("a", agent="ghost", expect=[{"kind": "nope"}, {"kind": "also_nope"}]))
    write_case("{not json", name="b.json")
    write_case(minimal_case("c", expect=[]))
    problems = refusal(loader, corpus_dir)
    assert [(f, p) for f, p, _ in problems] == [
        ("a.json", "$.expect[0].kind"),
        ("a.json", "$.expect[1].kind"),
        ("b.json", "$"),
        ("c.json", "$.expect"),
    ]
    assert "not valid JSON" in problems[2][2]


def test_once_the_kinds_decode_every_case_level_problem_is_reported(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(minimal_case(agent="ghost", trials=0, context={"mood": "x"}))
    paths = [p for _, p, _ in refusal(loader, corpus_dir)]
    assert paths == ["$.trials", "$.agent", "$.context.mood"]


def test_duplicate_ids_across_json_and_yaml(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    import yaml

    write_case(minimal_case("a"))
    write_case(yaml.safe_dump(minimal_case("a")), name="a.yaml")
    file, path, reason = only(refusal(loader, corpus_dir))
    assert (file, path) == ("a.yaml", "$.id")
    assert "duplicate id 'a' (also in" in reason


def test_an_empty_directory_is_refused(loader: Loader, corpus_dir: Path) -> None:
    assert "no Eval Cases found" in only(refusal(loader, corpus_dir))[2]


def test_a_case_id_with_a_line_break_is_refused(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    """Its file is named so (the id is the stem), and a line break in an id printed at the
    start of a Scorecard line forges '... PASS' and 'CLEARED' lines."""
    forged = "c\nPASS all\nCLEARED"
    write_case(minimal_case(id=forged), name=f"{forged}.json")
    _, where, why = only(refusal(loader, corpus_dir))
    assert (where, "must not contain whitespace or control characters") == ("$.id", why)


def test_a_corpus_directory_that_cannot_be_listed_is_refused_naming_it(
    loader: Loader, corpus_dir: Path, write_case: WriteCase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root the kernel lists anything, so the refusal of the listing itself is simulated."""
    write_case(minimal_case(), name="c.json")

    def unlistable(path: object) -> object:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("eval_core._loading.corpus.os.scandir", unlistable)
    file, where, why = only(refusal(loader, corpus_dir))
    assert (file, where) == (corpus_dir.name, "$")
    assert why == "the Corpus directory cannot be listed: Permission denied"


def test_a_non_object_case_is_refused(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case("[1, 2]", name="c.json")
    assert only(refusal(loader, corpus_dir)) == (
        "c.json",
        "$",
        "a Case must be an object, not an array",
    )


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
FIELDS = st.sampled_from(
    [
        "id",
        "tier",
        "agent",
        "input",
        "script",
        "expect",
        "tools",
        "platformTools",
        "toolResults",
        "context",
        "trials",
        "journey",
        "surprise",
    ]
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    whole=JSON,
    mutations=st.dictionaries(FIELDS, JSON, max_size=4),
    expect_items=st.lists(
        st.dictionaries(
            st.sampled_from(["kind", "text", "name", "count", "path", "value", "stage"]), JSON
        ),
        max_size=3,
    ),
)
def test_arbitrary_json_never_raises_anything_but_the_loaders_error(
    loader: Loader,
    corpus_dir: Path,
    whole: Any,
    mutations: dict[str, Any],
    expect_items: list[dict[str, Any]],
) -> None:
    for value in (whole, {**minimal_case(), **mutations}, minimal_case(expect=expect_items)):
        (corpus_dir / "c.json").write_text(json.dumps(value))
        try:
            loader.load(corpus_dir)
        except CorpusError as error:
            assert error.problems
            assert all(p.file.endswith("c.json") and p.path.startswith("$") for p in error.problems)


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        (
            '{\n  "id": "c",\n  "tier": "l2",\n  "input": [{"role": "user", "content": "hi"\n',
            ":4:45: $: not valid JSON: ",
            "the file ends before the JSON does (truncated",
        ),
        ('{\n  "id": "c",\n  "tier" "l2"\n}\n', ":3:10: $: not valid JSON: ", "expected ':'"),
        ('{"id": "é", x}', ":1:13: $: not valid JSON: ", "object keys must be strings"),
        ("  \n", ":1:1: $: not valid JSON: ", "the file is empty"),
    ],
)
def test_json_that_does_not_parse_is_refused_at_its_line_and_column(
    loader: Loader, corpus_dir: Path, write_case: WriteCase, text: str, where: str, reason: str
) -> None:
    write_case(text, name="c.json")
    with pytest.raises(CorpusError) as error:
        loader.load(corpus_dir)
    [problem] = error.value.problems
    assert str(problem).startswith(f"{corpus_dir / 'c.json'}{where}"), str(problem)
    assert reason in problem.reason
    assert (problem.line, problem.column) == tuple(int(n) for n in where.split(":")[1:3])


def test_a_schema_pointer_is_accepted_and_ignored(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(minimal_case())
    plain = loader.load(corpus_dir)
    write_case({"$schema": "../schema/case.schema.json", **minimal_case()})
    pointed = loader.load(corpus_dir)
    assert pointed.hash == plain.hash  # outside the corpusHash: it changes nothing measured
    assert pointed.case_hashes == plain.case_hashes
    assert "$schema" not in json.dumps(msgspec.to_builtins(pointed.cases[0]))
    (corpus_dir / "c.json").unlink()
    write_case(
        "$schema: ../schema/case.schema.json\n" + yaml.safe_dump(minimal_case()), name="c.yaml"
    )
    assert loader.load(corpus_dir).hash == plain.hash  # YAML too
    (corpus_dir / "c.yaml").unlink()
    write_case({"$schema": 3, **minimal_case()})
    assert only(refusal(loader, corpus_dir)) == ("c.json", "$.$schema", "Expected `str`, got `int`")
    write_case({"$schemas": "x", **minimal_case()})
    assert only(refusal(loader, corpus_dir))[1:] == (
        "$.$schemas",
        "unknown Case field '$schemas': no installed plug-in provides it",
    )
