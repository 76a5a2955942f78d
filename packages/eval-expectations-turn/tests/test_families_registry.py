"""Every built-in family module: its KindSpecs, their metadata, and how its kinds decode."""

from __future__ import annotations

from importlib.metadata import entry_points
from types import ModuleType

import msgspec
import pytest

from eval_core._case.kinds import ALL_TIERS, Expectation, KindSpec
from eval_expectations_turn import guardrails, output, prompt, status, tools
from eval_expectations_turn.output import OutputContains, OutputFieldEquals
from eval_expectations_turn.tools import ToolCallOrder

MODULES: dict[str, ModuleType] = {
    "prompt": prompt,
    "output": output,
    "tools": tools,
    "guardrails": guardrails,
    "status": status,
}

EXPECTED = {
    "prompt": [
        "prompt_contains",
        "prompt_omits",
        "model_prompt_contains",
        "model_prompt_omits",
        "model_messages_in_order",
        "model_not_called",
        "tool_offered",
    ],
    "output": [
        "output_contains",
        "output_omits",
        "output_matches",
        "output_field_equals",
        "output_absent",
    ],
    "tools": [
        "tool_called",
        "tool_not_called",
        "tool_call_order",
        "tool_argument_equals",
        "tool_argument_present",
        "tool_argument_absent",
        "tool_call_count",
        "tool_calls_batched",
        "tool_denied",
    ],
    "guardrails": ["guardrail_blocked", "guardrail_allowed"],
    "status": ["loop_status"],
}
# The model_prompt kinds read the binding's record of each request, which both tiers keep (the
# original refused them at L3, where it did not see the requests).
L2_ONLY = {"tool_calls_batched", "tool_denied"}
SEAM_INDEPENDENT = {
    "model_not_called",
    "model_prompt_omits",
    "tool_not_called",
    "guardrail_blocked",
    "guardrail_allowed",
    "loop_status",
}


def _specs(module: ModuleType) -> list[KindSpec]:
    specs = module.eval_kinds()
    assert all(isinstance(s, KindSpec) for s in specs)
    return list(specs)


@pytest.mark.parametrize("family", sorted(MODULES))
def test_names_match_tags(family: str) -> None:
    specs = _specs(MODULES[family])
    for spec in specs:
        assert issubclass(spec.struct, Expectation)
        tag = spec.struct.__struct_config__.tag
        assert spec.name == tag, f"{spec.struct.__name__}: name {spec.name!r} != tag {tag!r}"
    assert [s.struct.__struct_config__.tag for s in specs] == EXPECTED[family]


@pytest.mark.parametrize("family", sorted(MODULES))
def test_metadata(family: str) -> None:
    for spec in _specs(MODULES[family]):
        tag = spec.struct.__struct_config__.tag
        assert spec.tiers == (frozenset({"l2"}) if tag in L2_ONLY else ALL_TIERS), tag
        assert spec.seam_independent == (tag in SEAM_INDEPENDENT), tag
        assert spec.seam is None, tag
        assert spec.description, tag
        if tag.startswith("output_") and tag not in ("output_field_equals", "output_absent"):
            assert spec.text_compare == "casefold"
            assert spec.grounding is not None and spec.grounding.waivable
            assert spec.grounding.regex == (tag == "output_matches")
        else:
            assert spec.text_compare == "exact"
            assert spec.grounding is None
        assert (spec.guard_gate is not None) == (tag == "guardrail_blocked")


def test_guard_gate_only_where_the_model_may_decline_first() -> None:
    (blocked, _) = _specs(guardrails)
    gate = blocked.guard_gate
    assert gate is not None
    for stage, expected in [
        ("input", False),
        ("tool_result", False),
        ("tool_call", True),
        ("output", True),
    ]:
        assert gate(guardrails.GuardrailBlocked(stage=stage, guard="tool_blocklist")) is expected


def test_entry_points_name_these_modules() -> None:
    eps = {ep.name: ep.value for ep in entry_points(group="eval.plugins")}
    for family, module in MODULES.items():
        assert eps.get(family) == module.__name__


def test_decode_camel_case_and_tag() -> None:
    e = msgspec.json.decode(b'{"kind":"output_contains","text":"x"}', type=OutputContains)
    assert e == OutputContains(text="x")
    e2 = msgspec.json.decode(
        b'{"kind":"output_contains","text":"x","ungrounded":"model invents it"}',
        type=OutputContains,
    )
    assert e2.ungrounded == "model invents it"
    assert msgspec.json.decode(
        b'{"kind":"output_field_equals","path":"a","value":null}', type=OutputFieldEquals
    ) == OutputFieldEquals(path="a", value=None)


def test_decode_refuses_unknown_fields_missing_fields_and_wrong_kind() -> None:
    with pytest.raises(msgspec.ValidationError, match="unknown field"):
        msgspec.json.decode(b'{"kind":"output_contains","text":"x","extra":1}', type=OutputContains)
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"kind":"output_contains"}', type=OutputContains)
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"kind":"output_omits","text":"x"}', type=OutputContains)
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"kind":"output_field_equals","path":"a"}', type=OutputFieldEquals)
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"kind":"tool_call_order","names":"a"}', type=ToolCallOrder)


def test_guard_literals_refuse_unknown_values() -> None:
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(
            b'{"kind":"guardrail_blocked","stage":"nowhere","guard":"content_filter"}',
            type=guardrails.GuardrailBlocked,
        )
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(
            b'{"kind":"guardrail_blocked","stage":"input","guard":"made_up"}',
            type=guardrails.GuardrailBlocked,
        )


def test_every_kind_has_a_json_schema() -> None:
    for module in MODULES.values():
        for spec in _specs(module):
            schema = msgspec.json.schema(spec.struct)
            assert schema  # a JSON Schema can be generated for every kind
