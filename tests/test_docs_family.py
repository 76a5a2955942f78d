"""The plug-in guide's whole family (docs/plugins.md, "A whole family in one file") is real code:
it imports only the public API, is under 60 lines, and each kind keeps the plug-in contract."""

from __future__ import annotations

import ast
import re
import sys
import types

from eval_core.kinds import Evidence, ToolCall
from eval_kit import assert_kind_conforms
from tests.conftest import ROOT

GUIDE = ROOT / "docs" / "plugins.md"


def family() -> tuple[str, types.ModuleType]:
    text = GUIDE.read_text()
    section = text.split("### A whole family in one file", 1)[1]
    source = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert source is not None, "the section has a python block"
    module = types.ModuleType("acme_brevity")
    sys.modules["acme_brevity"] = module  # msgspec resolves the Structs' annotations here
    exec(compile(source.group(1), str(GUIDE), "exec"), module.__dict__)
    return source.group(1), module


def test_the_guides_family_is_short_and_imports_only_the_public_api() -> None:
    source, _ = family()
    assert len(source.splitlines()) < 60
    imported = {
        node.module
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("eval")
    }
    assert imported == {"eval_core.kinds"}


def test_the_guides_family_keeps_the_contract_and_scores_what_it_says() -> None:
    _, module = family()
    specs = module.eval_kinds()
    for spec in specs:
        assert_kind_conforms(spec, examples=25)
    short, once = (spec.scorer for spec in specs)
    answer = Evidence(tier="l2", output_text="Your bulbs ship today.")
    assert short(module.AnswerAtMost(words=4), answer).passed
    verdict = short(module.AnswerAtMost(words=3), answer)
    assert (verdict.passed, verdict.detail) == (
        False,
        "the answer has 4 word(s), at most 3 allowed",
    )
    calls = [ToolCall(call_id=f"c{n}", name="lookup_ticket", arguments={}) for n in range(2)]
    twice = Evidence(tier="l2", tool_calls=calls)
    assert not once(module.ToolCalledAtMost(name="lookup_ticket"), twice).passed
    assert once(module.ToolCalledAtMost(name="x"), answer).detail == "no Tool calls observed"
