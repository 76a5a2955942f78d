"""Testimony and witness on the same footing, shared by the framework Hosts' tests: a Case whose
script calls a weather Tool with drawn arguments, a Sweep that keeps each Trial's Evidence, and
the rule a drawn call is held to (as written it agrees, rewritten on the way it is named).

Each Host's test project ships a ``weather`` agent (its Tool's body receives what the model
sent, validated) and a ``rewritten`` one (something between the model and the Tool makes the
city ``Lyon``); what each Host reads its framework's record with stays in its own test.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_core._running.runner import run_sweep
from eval_core._running.scripted import ScriptedBinding
from eval_core.hosts import Evidence, Host, Loader, PluginSet
from eval_core.records import Scorecard

H = TypeVar("H", bound=Host)

CITIES = st.sampled_from(["Paris", "Oslo", "São Paulo", "lyon"])  # never Lyon: the rewrite
ASKED = st.fixed_dictionaries(
    {"city": CITIES},
    optional={
        "day": st.sampled_from(["today", "tomorrow"]),
        "days": st.integers(1, 14).flatmap(lambda n: st.sampled_from([n, str(n), float(n)])),
        "unit": st.sampled_from(["celsius", "fahrenheit"]),
        "note": st.none() | st.text(max_size=8),
    },
)
"""The arguments a model may send the weather Tool: defaults left out, numbers as text."""


def weather_case(
    case_id: str, agent: str, arguments: dict[str, Any], tool: str = "get_weather"
) -> dict[str, Any]:
    """An L2 Case whose script calls ``tool`` once with ``arguments``, then answers."""
    call = {"callId": "c1", "name": tool, "arguments": arguments}
    return {
        "id": case_id,
        "tier": "l2",
        "agent": agent,
        "input": [{"role": "user", "content": "What is the weather?"}],
        "platformTools": [tool],
        "script": [{"kind": "tool_calls", "calls": [call]}, {"kind": "text", "text": "Sunny."}],
        "expect": [{"kind": "tool_called", "name": tool}],
    }


def host_of_project(project: Path, make: Callable[[], H]) -> Iterator[H]:
    """The Host ``make`` builds over the test project ``project`` (importable meanwhile, as its
    agents module is named by import path), closed after the last test that uses it."""
    sys.path.insert(0, str(project))
    made = make()
    try:
        yield made
    finally:
        made.close()
        sys.path.remove(str(project))


def sweep_seen(
    root: Path, host: Any, plugins: PluginSet, cases: list[dict[str, Any]]
) -> tuple[Scorecard, dict[str, Evidence]]:
    """``cases`` written to ``root`` as a Corpus, swept through ``host`` on the scripted binding:
    the Scorecard and each Case's Evidence (what the core compared)."""
    (root / "soul").mkdir(parents=True, exist_ok=True)
    for case in cases:
        (root / f"{case['id']}.json").write_text(json.dumps(case))
    corpus = Loader(plugins, host, judge="no-judge").load(root)
    seen: dict[str, Evidence] = {}
    card = run_sweep(
        corpus, host, ScriptedBinding(), plugins, on_evidence=lambda c, e: seen.__setitem__(c.id, e)
    )
    return card, seen


def the_plain_call_agrees(seen: dict[str, Evidence]) -> None:
    """The ``plain`` Case's call (Paris, ``days`` sent as ``"3"``): what the Tool's body
    received (the witness), the framework's record read by the Tool's validation (the
    testimony) and the Tool's result agree, defaults filled in and the text a number."""
    received = {"city": "Paris", "day": "today", "days": 3, "unit": "fahrenheit", "note": None}
    (call,) = seen["plain"].tool_calls or []
    assert call.arguments == received  # the witness: what the Tool's body received, as JSON
    (said,) = (seen["plain"].testimony and seen["plain"].testimony.tool_calls) or []
    assert said.arguments == received  # the framework's record, read by the Tool's validation
    (result,) = seen["plain"].tool_results or []
    assert result.output == "Paris today: sunny for 72 hours (fahrenheit)"  # the body got 3


def the_rewrite_is_named(root: Path, host: Any, plugins: PluginSet, case_id: str) -> None:
    """A call through the ``rewritten`` agent fails with the one contradiction that names both
    the call the runtime recorded and the one the Tool received."""
    card, _ = sweep_seen(
        root, host, plugins, [weather_case(case_id, "rewritten", {"city": "Paris"})]
    )
    (trial,) = card.trials
    assert trial.outcome == "failed"
    assert trial.contradictions == [
        'recorded call not received: the runtime recorded call c1 of "get_weather" with '
        '{"city":"Paris","day":"today","days":1,"unit":"celsius","note":null}, but the Tool '
        'received {"city":"Lyon","day":"today","days":1,"unit":"celsius","note":null}'
    ]


def contradicted(
    corpus: Any, host: Any, plugins: PluginSet, chosen: list[str]
) -> dict[str, list[str]]:
    """The ``chosen`` Cases of a shipped example swept: each one not passed, its contradictions."""
    card = run_sweep(corpus, host, ScriptedBinding(), plugins, select=chosen)
    return {t.case_id: t.contradictions for t in card.trials if t.outcome != "passed"}


def as_written_and_rewritten(
    root: Path, host: Any, plugins: PluginSet, calls: list[dict[str, Any]]
) -> None:
    """Each drawn call through the ``weather`` agent passes with no contradiction; through the
    ``rewritten`` one it fails with the one contradiction that names the city the Tool got."""
    cases = [weather_case(f"as-written-{i}", "weather", c) for i, c in enumerate(calls)]
    cases += [weather_case(f"rewritten-{i}", "rewritten", c) for i, c in enumerate(calls)]
    card, _ = sweep_seen(root, host, plugins, cases)
    for trial in card.trials:
        if trial.case_id.startswith("as-written"):
            assert (trial.outcome, trial.contradictions) == ("passed", []), trial
        else:
            assert trial.outcome == "failed"
            (contradiction,) = trial.contradictions
            assert 'but the Tool received {"city":"Lyon"' in contradiction


def drawn_calls_agree(max_examples: int, max_size: int) -> Callable[..., None]:
    """A Host's property test over its test module's ``footing_host``: whatever the model leaves
    out or sends as text (up to ``max_size`` calls), the framework's record read by the Tool's
    validation is what the Tool received, and a city changed on the way is always named."""

    @settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(calls=st.lists(ASKED, min_size=1, max_size=max_size))
    def drawn(
        tmp_path_factory: pytest.TempPathFactory,
        footing_host: Host,
        plugins: PluginSet,
        calls: list[dict[str, Any]],
    ) -> None:
        as_written_and_rewritten(tmp_path_factory.mktemp("drawn"), footing_host, plugins, calls)

    return drawn
