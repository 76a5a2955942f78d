"""The reference of every kind and Case field (docs/kinds.md, ``eval plugins --kind``): read
from the installed plug-ins, each entry with an example the loader accepts; an entry without
one is named, so the docs build fails on it."""

from __future__ import annotations

import json
import types
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_cli.examples import CASE_EXAMPLE, kind_example_problems, missing
from eval_cli.reference import Reference
from eval_cli.reference_render import example_json, markdown, page, text
from eval_core._plugins.hookspecs import hookimpl
from eval_core._plugins.plugins import PluginSet, build
from eval_core.kinds import TEXT, Expectation, Grounding, KindSpec, passed, rules
from tests.conftest import ROOT, eval_in_process


def test_every_installed_kind_and_case_field_has_an_example_the_loader_accepts(
    plugins: PluginSet,
) -> None:
    assert missing(plugins) == []
    assert len(plugins.kinds) > 60 and len(plugins.fields) > 15
    assert all(spec.examples and spec.description for spec in plugins.kinds.values())


def test_the_page_shows_every_kind_and_case_field_with_its_first_example(
    plugins: PluginSet,
) -> None:
    shown = page(plugins)
    reference = Reference(plugins)
    for name, spec in plugins.kinds.items():
        assert f"#### `{name}`" in shown
        assert f"[`{name}`](#{name})" in shown  # the index links it
        assert example_json(dict(spec.examples[0])) in shown
        assert markdown(reference.kind(name), level=4) in shown
    for name in plugins.fields:
        entry = reference.field(name)
        assert f"### `{entry.name}`" in shown
        assert example_json(entry.examples[0]) in shown
    for name in ("id", "tier", "agent", "input", "expect", "script", "context", "tools"):
        assert f"- `{name}`: " in shown
    for name in ("platformTools", "toolResults", "trials"):
        assert f"- `{name}`: " in shown
    # a tagged union (dispatched on its tag in the schema) reads as its branches, in their order
    assert "- `script`: `list[TextStep | ToolCallsStep | StructuredStep]`" in shown
    assert "`content`: `string | list[TextPart | FilePart]`" in shown
    assert example_json(CASE_EXAMPLE) in shown


def test_an_entry_says_fields_types_tiers_witness_grounding_and_evidence(
    plugins: PluginSet,
) -> None:
    reference = Reference(plugins)
    contains = text(reference.entry("output_contains"))
    assert contains.startswith("output_contains  (Expectation kind, eval-expectations-turn ")
    assert "Tiers: l2, l3\n" in contains
    assert "Witness: answer: what the Host returned to its caller" in contains
    assert "Grounding: text must appear in what the model was given; an ungrounded reason" in (
        contains
    )
    assert "Text compared: case-insensitive\n" in contains
    assert "Evidence: the answer\n" in contains
    assert "  text: string (required, not blank)\n" in contains
    assert "  ungrounded: string (not blank, optional)\n" in contains
    pdf = text(reference.entry("pdf_input_accounted"))
    assert "Tiers: l3\n" in pdf
    assert "  pages: list[PdfPageSize] (required, at least 1 item(s))\n" in pdf
    assert "PdfPageSize. One page's size in points" in pdf  # the nested type, from its docstring
    routine = text(reference.entry("routine"))  # a Case field, by its JSON name
    assert routine.startswith("routine  (Case field, eval-expectations-routine ")
    assert "Runs a model: no" in routine and "Type: RoutineBlock\n" in routine
    assert reference.entry("context_token_budget").name == "contextTokenBudget"  # Python's name
    trials = text(reference.entry("trials"))
    assert "Rules: >= 1, <= 1000, default 1\n" in trials


def test_eval_plugins_kind_prints_one_kind() -> None:
    done = eval_in_process("plugins", "--kind", "tool_called", cwd=ROOT)
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0].startswith("tool_called  (Expectation kind, eval-expectations-turn ")
    assert lines[1] == "  The Tool was called (the call reached the Tool)."
    for line in (
        "Tiers: l2, l3",
        "Witness: tool: each call as the Tool itself received it",
        "Grounding: none",
        "Evidence: the Tool calls",
        "Fields (JSON names, besides kind):",
        "  name: string (required, not blank)",
        "Example:",
    ):
        assert line in lines
    example = json.loads("\n".join(lines[lines.index("Example:") + 1 :]))
    assert example["kind"] == "tool_called"


def test_an_unknown_kind_is_refused_in_one_line_with_the_closest_name() -> None:
    done = eval_in_process("plugins", "--kind", "tool_caled", cwd=ROOT)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "eval plugins --kind: no installed kind or Case field is named 'tool_caled'; did you "
        "mean 'tool_called'? (`eval plugins` lists them)\n"
    )
    both = eval_in_process("plugins", "--kind", "tool_called", "--check", cwd=ROOT)
    assert both.returncode == 2 and len(both.stderr.splitlines()) == 1


class Terse(Expectation, tag="acme_terse", frozen=True):
    text: str


class Said(Expectation, tag="acme_said", frozen=True):
    text: str
    ungrounded: str | None = None


def _score(_e: Any, _ev: Any) -> Any:
    return passed("always")


def family(**declared: Any) -> PluginSet:
    """A plug-in set of one family whose kinds are ``declared`` (name -> KindSpec kwargs)."""
    module = types.ModuleType("acme_reference_family")
    structs = {"acme_terse": Terse, "acme_said": Said}

    @hookimpl
    def eval_kinds() -> list[KindSpec]:
        return [
            KindSpec(struct=structs[name], scorer=_score, witness="answer", **extra)
            for name, extra in declared.items()
        ]

    module.eval_kinds = eval_kinds  # type: ignore[attr-defined]
    return build([("acme", "acme-reference", "1.0", module)])


def test_a_kind_without_a_description_or_an_example_is_named() -> None:
    found = missing(family(acme_terse={}))
    assert found == [
        "kind 'acme_terse' of acme-reference 1.0: no description (KindSpec/CaseField "
        "description=...)",
        "kind 'acme_terse' of acme-reference 1.0: no example (KindSpec/CaseField examples=[...])",
    ]


def test_an_example_the_loader_refuses_is_named_with_its_path_and_reason() -> None:
    described = {"description": "The answer is terse.", **rules(text=TEXT)}
    wrong_field = missing(family(acme_terse={**described, "examples": [{"kind": "acme_terse"}]}))
    assert wrong_field == [
        "kind 'acme_terse' of acme-reference 1.0: example 1: the example does not decode: "
        "Object missing required field `text`"
    ]
    blank = family(acme_terse={**described, "examples": [{"kind": "acme_terse", "text": " "}]})
    assert [line.split(": example 1: ")[1] for line in missing(blank)] == [
        "$.expect[0].text: must be a non-empty string (in 'example', a l2 Case)",
        "$.expect[0].text: must be a non-empty string (in 'example', a l3 Case)",
    ]
    other_kind = family(acme_terse={**described, "examples": [{"kind": "tool_called"}]})
    assert missing(other_kind)[0].endswith("the example's kind is 'tool_called', not 'acme_terse'")


def test_a_grounded_example_is_given_its_text_as_a_real_case_must_give_it() -> None:
    grounded = {
        "description": "The answer says the text.",
        "grounding": Grounding(field="text"),
        "examples": [{"kind": "acme_said", "text": "Paris"}],
    }
    found = family(acme_said=grounded)
    assert missing(found) == []
    spec = found.kinds["acme_said"]
    plain = msgspec.structs.replace(spec, grounding=Grounding(field="text", scope="given"))
    assert kind_example_problems(found, plain, {"kind": "acme_said", "text": "Paris"}) == []


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(JSON, st.integers(min_value=20, max_value=120))
def test_an_example_is_shown_as_the_json_it_is(value: Any, width: int) -> None:
    shown = example_json(value, width)
    assert json.loads(shown) == value
    one = json.dumps(value, ensure_ascii=False)
    assert (shown == one) == (len(one) <= width or not value or not isinstance(value, dict | list))


@pytest.mark.parametrize("name", ["tool_called", "mcp", "toolResults", "expect"])
def test_the_terminal_and_the_docs_say_the_same(plugins: PluginSet, name: str) -> None:
    entry = Reference(plugins).entry(name)
    said = markdown(entry)
    for line in text(entry, width=10_000).splitlines()[2:]:
        if line.endswith(":") or not line.strip():
            continue  # a heading of the text's own
        words = line.strip().split(": ", 1)[-1] if not line.startswith(" ") else line.strip()
        assert words.replace("`", "") in said.replace("`", "").replace("**", ""), line
