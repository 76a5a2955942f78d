"""A Host's load-time answers are a plug-in's: one that raises, or answers something of the
wrong type, is a refusal in one line naming the Host and the method, never a traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from eval_core._case.case import ToolDecl
from eval_core._loading.opening import Refused, open_corpus
from test_tool_names import MapHost, TravelHost, _map_plugins, _travel_case, _travel_plugins


def _raises(self: TravelHost, *args: Any) -> Any:
    raise KeyError("the registry is gone")


def _none(self: TravelHost, *args: Any) -> Any:
    return None


def _text(self: TravelHost, *args: Any) -> Any:
    return "not a collection of the expected kind"


GROUNDED = [{"kind": "output_contains", "text": "You book trips."}]
"""An Expectation that must be found in the Host's given text (so the loader asks for it)."""
MAPS = [{"role": "user", "content": "Find places on the map."}]
"""An input the maps fixture applies to: it needs a service (so the loader asks for them)."""


@pytest.mark.parametrize("answer", [_raises, _none, _text], ids=["raises", "None", "a string"])
@pytest.mark.parametrize(
    "method", ["agents", "platform_tools", "context_rules", "given_text", "services"]
)
def test_a_host_answering_wrong_at_load_is_a_refusal_naming_it(
    tmp_path: Path, method: str, answer: Callable[..., Any]
) -> None:
    maps = method == "services"
    host = MapHost if maps else TravelHost
    found = _map_plugins() if maps else _travel_plugins(True)
    corpus = _travel_case(tmp_path / "corpus", expect=GROUNDED, **({"input": MAPS} if maps else {}))
    original = host.__dict__[method]
    setattr(host, method, answer)
    try:
        with pytest.raises(Refused) as refused:
            open_corpus(corpus, "travel-host", False, check_lock=False, found=found)
    finally:
        setattr(host, method, original)
    said = str(refused.value)
    assert "Traceback" not in said
    [line] = [x for x in said.splitlines() if f"{method} of Host 'travel-host'" in x]
    assert ("KeyError" if answer is _raises else "returned") in line, line


def test_a_host_answering_a_list_of_the_wrong_things_names_what_it_holds(tmp_path: Path) -> None:
    """Sample 16's ``turn/context.py:172`` mutant made the given text ``(None,)``: the refusal
    says what the container held, not only that it was a tuple."""
    corpus = _travel_case(tmp_path / "corpus", expect=GROUNDED)
    original = TravelHost.given_text
    TravelHost.given_text = lambda self, case: (None,)  # type: ignore[method-assign,assignment,return-value]
    try:
        with pytest.raises(Refused) as refused:
            open_corpus(corpus, "travel-host", False, check_lock=False, found=_travel_plugins(True))
    finally:
        TravelHost.given_text = original  # type: ignore[method-assign]
    assert (
        "given_text of Host 'travel-host' returned tuple holding NoneType, not a list of text"
        in (str(refused.value))
    )


def test_a_host_declaring_a_tool_of_the_wrong_shape_is_a_refusal_naming_the_field(
    tmp_path: Path,
) -> None:
    """A ToolDecl is built unchecked (a Struct): its fields are checked as a Case file's are,
    before any text of it is searched."""
    corpus = _travel_case(tmp_path / "corpus", expect=GROUNDED)
    bent = ToolDecl(name="book_trip", input_schema={"type": "object"}, description={"x": 1})  # type: ignore[arg-type]
    original = TravelHost.platform_tools
    TravelHost.platform_tools = lambda self: {"book_trip": bent}  # type: ignore[method-assign]
    try:
        with pytest.raises(Refused) as refused:
            open_corpus(corpus, "travel-host", False, check_lock=False, found=_travel_plugins(True))
    finally:
        TravelHost.platform_tools = original  # type: ignore[method-assign]
    assert str(refused.value) == (
        "platform_tools of Host 'travel-host' returned Tool 'book_trip': "
        "Expected `str | null`, got `object` - at `$.description`"
    )


WAITS = [{"name": "book_trip", "approvalId": "a1"}, {"name": "book_trip", "retryWaitId": "w1"}]
"""Tool results scripted to wait: on an approval, and to be retried."""


@pytest.mark.parametrize("parks", [None, False, True])
def test_a_case_scripting_a_wait_loads_only_on_a_host_that_parks_calls(
    tmp_path: Path, parks: bool | None
) -> None:
    """On a Host that parks no call the Case would FAIL for the Host's lack, not the agent's:
    refused at load, at each result's own field (``parks_calls`` absent means it parks none)."""
    corpus = _travel_case(tmp_path / "corpus", toolResults=WAITS, platformTools=["book_trip"])
    if parks is not None:
        TravelHost.parks_calls = parks  # type: ignore[attr-defined]
    try:
        if parks:
            open_corpus(corpus, "travel-host", False, check_lock=False, found=_travel_plugins(True))
            return
        with pytest.raises(Refused) as refused:
            open_corpus(corpus, "travel-host", False, check_lock=False, found=_travel_plugins(True))
    finally:
        if parks is not None:
            del TravelHost.parks_calls  # type: ignore[attr-defined]
    said = str(refused.value)
    for at, field in ((0, "approvalId"), (1, "retryWaitId")):
        assert (
            f"$.toolResults[{at}].{field}: Host 'travel-host' parks no Tool call: {field} needs a "
            "runtime that waits for an approval or a retry"
        ) in said, said


def test_a_host_whose_parks_calls_is_not_a_bool_is_refused_naming_it(tmp_path: Path) -> None:
    corpus = _travel_case(tmp_path / "corpus")
    TravelHost.parks_calls = "yes"  # type: ignore[attr-defined]
    try:
        with pytest.raises(Refused) as refused:
            open_corpus(corpus, "travel-host", False, check_lock=False, found=_travel_plugins(True))
    finally:
        del TravelHost.parks_calls  # type: ignore[attr-defined]
    assert "parks_calls of Host 'travel-host'" in str(refused.value), str(refused.value)
