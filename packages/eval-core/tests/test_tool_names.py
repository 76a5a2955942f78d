"""Tool names checked at load against what the Host offers the Case's agent, and a Corpus
without an Eval Soul for a Host that owns its agents.

Through the real loader: the reference runtime (``agent-runtime``, through the kit) where the
agent's Tools are the Case's own, and a tiny Host of our own that owns its agents (its Tools
fixed per agent, as a framework's are) where the Soul is optional. One test goes through the
command line for the exit code.
"""

from __future__ import annotations

import json
import types
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_cli import cli
from eval_core._case.case import CaseBase, ToolDecl
from eval_core._loading.corpus import CorpusError
from eval_core._loading.loader import Loader
from eval_core._loading.opening import Opened, Refused, open_corpus
from eval_core._loading.tool_names import did_you_mean, named
from eval_core._plugins.fixtures import TrialFixture
from eval_core._plugins.hookspecs import hookimpl
from eval_core._plugins.host import AgentTools, ContextRules, HostTrial, ModelSession, owns_agents
from eval_core._plugins.plugin_set import PluginSet
from eval_core._plugins.plugins import build, discover
from eval_kit import Kit

ROOT = Path(__file__).resolve().parents[3]


def decl(name: str) -> dict[str, Any]:
    return {"name": name, "description": f"The {name} Tool.", "inputSchema": {"type": "object"}}


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Kit:
    return Kit(tmp_path_factory.mktemp("kit"))


def book(kit: Kit, *expect: Mapping[str, Any], **overrides: Any) -> dict[str, Any]:
    """A Case whose agent is offered book_trip and get_weather (its own ``tools``)."""
    fields: dict[str, Any] = {"tools": [decl("book_trip"), decl("get_weather")], **overrides}
    return kit.case(*expect, **fields)


RUNTIME_TOOLS = "it has: book_trip, get_weather"


def test_a_misspelt_tool_in_an_expectation_is_refused_with_a_did_you_mean(kit: Kit) -> None:
    problems = kit.problems(book(kit, {"kind": "tool_not_called", "name": "book_trips"}))
    assert problems == [
        "$.expect[0].name: 'book_trips' is not a Tool of agent 'assistant' in this Case (its "
        f"tools and platformTools); {RUNTIME_TOOLS}; did you mean 'book_trip'?"
    ]


@pytest.mark.parametrize(
    ("expectation", "path"),
    [
        ({"kind": "tool_called", "name": "get_wether"}, "$.expect[0].name"),
        ({"kind": "tool_call_order", "names": ["get_weather", "bok_trip"]}, "$.expect[0].names[1]"),
        ({"kind": "tool_call_count", "count": 0, "name": "book_trp"}, "$.expect[0].name"),
        ({"kind": "tool_argument_equals", "name": "bookTrip", "path": "a", "value": 1}, None),
        ({"kind": "tool_denied", "name": "book-trip", "path": "a", "value": 1}, None),
    ],
)
def test_every_tool_naming_kind_is_checked(
    kit: Kit, expectation: dict[str, Any], path: str | None
) -> None:
    [problem] = kit.problems(book(kit, expectation))
    assert problem.startswith(f"{path or '$.expect[0].name'}: ")
    assert "is not a Tool of agent 'assistant'" in problem and "did you mean" in problem


def test_a_kind_without_a_tool_name_is_not_asked(kit: Kit) -> None:
    assert kit.problems(book(kit, {"kind": "tool_call_count", "count": 0})) == []


def test_a_misspelt_tool_in_a_scripted_call_names_the_unoffered_spelling(kit: Kit) -> None:
    script = [
        {"kind": "tool_calls", "calls": [{"callId": "c1", "name": "get_weathr", "arguments": {}}]},
        {"kind": "text", "text": "Sunny."},
    ]
    [problem] = kit.problems(
        book(kit, {"kind": "loop_status", "status": "completed"}, script=script)
    )
    assert problem.startswith("$.script[0].calls[0].name: 'get_weathr' is not a Tool of agent")
    assert "did you mean 'get_weather'?" in problem and '"unoffered": true' in problem


def test_a_misspelt_tool_in_tool_results_and_platform_tools_is_refused(kit: Kit) -> None:
    case = book(
        kit,
        {"kind": "loop_status", "status": "completed"},
        toolResults=[{"name": "book_trp", "output": {}}],
        platformTools=["lookup_tickt"],
    )
    problems = kit.problems(case)
    assert (
        "$.platformTools[0]: 'lookup_tickt' does not resolve to a shipped platform Tool; did you "
        "mean 'lookup_ticket'?" in problems
    )
    assert (
        "$.toolResults[0].name: scripted result for 'book_trp', which the Case does not declare "
        "(tools, platformTools); did you mean 'book_trip'?" in problems
    )
    assert len(problems) == 2, problems  # each said once, not again by the names check


def test_an_unoffered_call_may_be_named_and_an_offered_one_may_not_say_so(kit: Kit) -> None:
    hallucinated = [
        {
            "kind": "tool_calls",
            "calls": [{"callId": "c1", "name": "get_time", "arguments": {}, "unoffered": True}],
        },
        {"kind": "text", "text": "I cannot tell the time."},
    ]
    expect = {"kind": "tool_not_called", "name": "get_time"}
    assert kit.problems(book(kit, expect, script=hallucinated)) == []
    hallucinated[0]["calls"][0]["name"] = "get_weather"
    [problem] = kit.problems(
        book(kit, {"kind": "tool_not_called", "name": "get_weather"}, script=hallucinated)
    )
    assert problem.startswith(
        "$.script[0].calls[0].name: 'get_weather' is marked unoffered, but agent 'assistant'"
    )


def test_an_unoffered_call_runs_to_the_runtimes_own_refusal(kit: Kit) -> None:
    """The spelling changes nothing the runtime sees: the call still reaches its unknown-Tool
    check, and the Expectation naming the Tool passes on what happened."""
    script = [
        {
            "kind": "tool_calls",
            "calls": [{"callId": "c1", "name": "get_time", "arguments": {}, "unoffered": True}],
        },
        {"kind": "text", "text": "I cannot tell the time."},
    ]
    result = kit.run(
        book(
            kit,
            {"kind": "tool_not_called", "name": "get_time"},
            {"kind": "model_prompt_contains", "text": "unknown tool get_time: not declared"},
            script=script,
        )
    )
    assert result.outcome == "passed", result.expectations


def test_the_refusal_names_the_file_and_exits_2_on_the_command_line(
    kit: Kit, capfd: pytest.CaptureFixture[str]
) -> None:
    corpus = kit.write([book(kit, {"kind": "tool_not_called", "name": "book_trips"})])
    capfd.readouterr()
    code = cli.invoke(["check", str(corpus), "--unlocked"])
    _, err = capfd.readouterr()
    assert code == 2, err
    assert f"{corpus / 'kit-case.json'}: $.expect[0].name: 'book_trips' is not a Tool" in err
    assert "did you mean 'book_trip'?" in err


def test_did_you_mean_offers_only_a_near_name() -> None:
    assert did_you_mean("book_trips", ["book_trip", "get_weather"]) == "; did you mean 'book_trip'?"
    assert did_you_mean("refund", ["book_trip", "get_weather"]) == ""


# -- the general rule ---------------------------------------------------------------------------

TOOLS = ("book_trip", "get_weather", "cancel_trip")
NAMES = st.sampled_from((*TOOLS, "book_trips", "weather", "refund_order"))


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    """A Case declaring some of :data:`TOOLS`, naming Tools (declared or not) in its
    Expectations and script, some calls marked unoffered."""
    declared = draw(st.lists(st.sampled_from(TOOLS), unique=True, max_size=3))
    expect = [
        draw(
            st.one_of(
                st.builds(lambda n: {"kind": "tool_called", "name": n}, NAMES),
                st.builds(lambda n: {"kind": "tool_not_called", "name": n}, NAMES),
                st.builds(
                    lambda ns: {"kind": "tool_call_order", "names": ns},
                    st.lists(NAMES, min_size=1, max_size=3),
                ),
            )
        )
        for _ in range(draw(st.integers(1, 3)))
    ]
    calls = [
        {"callId": f"c{i}", "name": name, "arguments": {}, "unoffered": unoffered}
        for i, (name, unoffered) in enumerate(
            draw(st.lists(st.tuples(NAMES, st.booleans()), max_size=3))
        )
    ]
    script = [{"kind": "tool_calls", "calls": calls}] if calls else []
    return {
        "id": "c",
        "tier": "l2",
        "agent": "assistant",
        "input": [{"role": "user", "content": "Plan my trip."}],
        "tools": [decl(t) for t in declared],
        "script": [*script, {"kind": "text", "text": "Done."}],
        "expect": expect,
    }


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(document=cases())
def test_every_tool_name_in_a_loaded_case_is_one_the_agent_is_offered_or_an_unoffered_call(
    document: dict[str, Any], runtime: Runtime
) -> None:
    plugins, host = runtime.plugins, runtime.host
    corpus = runtime.root / "corpus"  # beside the Soul
    corpus.mkdir(exist_ok=True)
    (corpus / "c.json").write_text(json.dumps(document))
    declared = {t["name"] for t in document["tools"]}
    calls = document["script"][0].get("calls", []) if len(document["script"]) > 1 else []
    unoffered = {c["name"] for c in calls if c["unoffered"]}
    try:
        loaded = Loader(plugins, host, judge="no-judge").load(corpus)
    except CorpusError as refused:
        assert all(p.path.startswith(("$.expect", "$.script")) for p in refused.problems)
        wrong = [
            n
            for e in document["expect"]
            for n in ([e["name"]] if "name" in e else e["names"])
            if n not in declared and n not in unoffered
        ]
        wrong += [c["name"] for c in calls if (c["name"] in declared) == c["unoffered"]]
        assert wrong, refused.problems  # refused only for a name that cannot occur
        return
    [case] = loaded.cases
    offered = host.offered_tools(case).names
    for one in named(case, plugins.kinds, plugins.fields):
        if one.role == "unoffered":
            assert one.name not in offered
        else:
            assert one.name in offered or one.name in unoffered, one


class Runtime:
    """The reference runtime over a one-agent Soul in ``root``, for the property."""

    def __init__(self, root: Path) -> None:
        from eval_kit import Agent, write_soul

        self.root = root
        self.plugins = build(discover())
        self.host = self.plugins.hosts["agent-runtime"](
            write_soul(root / "soul", {"assistant": Agent()})
        )

    def __repr__(self) -> str:
        return f"Runtime({self.root})"


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    made = Runtime(tmp_path_factory.mktemp("runtime"))
    yield made
    made.host.close()


# -- a Host that owns its agents ------------------------------------------------------------------


class TravelHost:
    """The smallest Host that owns its agents: ``travel`` with two Tools, from ``trips.app``.
    Loads only (no Trial runs here)."""

    name = "travel-host"
    tiers = frozenset({"l2"})
    agents_from = "trips.app:AGENTS"

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def agents(self) -> frozenset[str]:
        return frozenset({"travel"})

    def offered_tools(self, case: CaseBase) -> AgentTools | None:
        if case.agent != "travel":
            return None
        return AgentTools(frozenset({"book_trip", "get_weather"}), "agent 'travel' of trips.app")

    def platform_tools(self) -> Mapping[str, ToolDecl]:
        return {"book_trip": ToolDecl(name="book_trip", input_schema={"type": "object"})}

    def context_rules(self) -> ContextRules:
        return ContextRules(allowed=frozenset(), soul_owned=frozenset())

    def given_text(self, case: CaseBase) -> Sequence[str]:
        return ("You book trips.",)

    def services(self, tier: str) -> Sequence[type]:
        return ()

    def open_trial(self, case: CaseBase, model: ModelSession, trial: int) -> HostTrial:
        raise NotImplementedError("loads only")

    def close(self) -> None:
        pass


def _travel_plugins(owned: bool) -> PluginSet:
    def travel_host(directory: Path) -> TravelHost:
        return TravelHost(directory)

    factory = owns_agents(travel_host) if owned else travel_host

    class Plugin:
        @staticmethod
        @hookimpl
        def eval_hosts() -> dict[str, Any]:
            return {"travel-host": factory}

    module = types.SimpleNamespace(eval_hosts=Plugin.eval_hosts)
    return build([*discover(), ("travel", "travel-host-test", "0.0.0", module)])


def _travel_case(directory: Path, **overrides: Any) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    case = {
        "id": "c",
        "tier": "l2",
        "agent": "travel",
        "input": [{"role": "user", "content": "Book me a trip."}],
        "script": [{"kind": "text", "text": "Booked."}],
        "expect": [{"kind": "tool_called", "name": "book_trip"}],
        **overrides,
    }
    (directory / "c.json").write_text(json.dumps(case))
    return directory


def _opened(corpus: Path, found: PluginSet) -> Opened:
    """The Corpus opened for the travel Host, as ``eval run`` opens it (no lock checked)."""
    return open_corpus(corpus, "travel-host", False, check_lock=False, found=found)


def _refusal(corpus: Path, found: PluginSet) -> str:
    """What opening the Corpus for the travel Host is refused with."""
    with pytest.raises(Refused) as refused:
        _opened(corpus, found)
    return str(refused.value)


def test_a_corpus_without_a_soul_loads_for_a_host_that_owns_its_agents(tmp_path: Path) -> None:
    corpus = _travel_case(tmp_path / "corpus")
    opened = _opened(corpus, _travel_plugins(True))
    assert opened.corpus.soul_dir is None and opened.corpus.soul_hash == ""
    assert [c.id for c in opened.corpus.cases] == ["c"]
    assert opened.host.directory == corpus  # type: ignore[attr-defined]  # where it starts


def test_the_soul_is_in_the_hash_only_when_there_is_one(tmp_path: Path) -> None:
    found = _travel_plugins(True)
    corpus = _travel_case(tmp_path / "corpus")
    without = _opened(corpus, found).corpus
    (corpus / "soul").mkdir()
    (corpus / "soul" / "notes.md").write_text("a placeholder")
    kept = _opened(corpus, found).corpus
    assert kept.soul_hash and kept.hash != without.hash


def test_a_host_that_runs_a_soul_still_refuses_a_corpus_without_one(tmp_path: Path) -> None:
    corpus = _travel_case(tmp_path / "corpus")
    with pytest.raises(Refused, match=r"no Eval Soul: expected soul/ .* runs the Soul's agents"):
        _opened(corpus, _travel_plugins(False))


def test_refusals_speak_the_hosts_words(tmp_path: Path) -> None:
    corpus = _travel_case(
        tmp_path / "corpus",
        agent="travl",
        expect=[{"kind": "tool_not_called", "name": "book_trips"}],
    )
    found = _travel_plugins(True)
    said = _refusal(corpus, found)
    assert (
        "$.agent: unknown agent 'travl': not in trips.app:AGENTS, which has: travel; did you "
        "mean 'travel'?" in said
    )
    assert "Eval Soul" not in said
    _travel_case(corpus, expect=[{"kind": "tool_not_called", "name": "book_trips"}])
    assert (
        f"{corpus / 'c.json'}: $.expect[0].name: 'book_trips' is not a Tool of agent 'travel' of "
        "trips.app; it has: book_trip, get_weather; did you mean 'book_trip'?"
    ) in _refusal(corpus, found)


def test_a_platform_tool_of_the_host_is_checked_per_agent(tmp_path: Path) -> None:
    """The Host ships book_trip as a platform Tool; naming it is fine only for an agent that
    has it, which the Host says per agent."""
    corpus = _travel_case(tmp_path / "corpus", platformTools=["book_trip"])
    found = _travel_plugins(True)
    assert _opened(corpus, found).corpus


def test_a_host_that_cannot_list_tools_leaves_a_note_not_a_silent_pass(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _travel_case(tmp_path / "corpus", expect=[{"kind": "tool_called", "name": "anything"}])
    found = _travel_plugins(True)
    monkeypatch.setattr(TravelHost, "offered_tools", lambda self, case: None)
    opened = _opened(corpus, found)
    assert opened.corpus.notes == (
        "Host 'travel-host' cannot list the Tools its agents are offered: Tool names in Cases "
        "are not checked at load",
    )
    assert "NOTE  Host 'travel-host' cannot list" in capfd.readouterr().err


def test_a_host_whose_listing_raises_is_a_refusal_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _travel_case(tmp_path / "corpus")
    found = _travel_plugins(True)

    def broken(self: TravelHost, case: CaseBase) -> AgentTools:
        raise KeyError("the agent registry is gone")

    monkeypatch.setattr(TravelHost, "offered_tools", broken)
    [line] = [x for x in _refusal(corpus, found).splitlines() if "offered_tools" in x]
    assert line.startswith(f"  {corpus / 'c.json'}: $: ")
    assert "offered_tools of Host 'travel-host'" in line and "KeyError" in line
    # the Host's code is no installed plug-in's: the deepest frame outside the core is named
    assert line.endswith(f"test_tool_names.py:{broken.__code__.co_firstlineno + 1})"), line


# -- Tools the agent gains at run, through a service of the Host ----------------------------------


class MapConnections:
    """The travel Host's own service: map servers a fixture serves its agent at run."""

    def serve_maps(self, url: str) -> None:
        del url


class MapServers(Protocol):
    """What a family's fixture asks for (the Host never imports it)."""

    def serve_maps(self, url: str) -> None: ...


class MapHost(TravelHost):
    def offered_tools(self, case: CaseBase) -> AgentTools | None:
        listed = super().offered_tools(case)
        assert listed is not None
        more = "the map Tools the agent loads at run"
        return AgentTools(listed.names, listed.owner, more, MapConnections)

    def services(self, tier: str) -> Sequence[type]:
        return (MapConnections,)


def _map_plugins() -> PluginSet:
    def serve(request: Any) -> Iterator[None]:
        yield

    class Plugin:
        @staticmethod
        @hookimpl
        def eval_hosts() -> dict[str, Any]:
            return {"travel-host": owns_agents(MapHost)}

        @staticmethod
        @hookimpl
        def eval_fixtures() -> list[TrialFixture]:
            fixture = TrialFixture(
                name="maps",
                run=serve,
                applies=lambda case: "map" in case.input[0].text,
                needs=(MapServers,),
            )
            return [fixture]

    module = types.SimpleNamespace(eval_hosts=Plugin.eval_hosts, eval_fixtures=Plugin.eval_fixtures)
    return build([*discover(), ("travel", "travel-host-test", "0.0.0", module)])


def test_tools_gained_through_a_service_are_a_note_only_where_a_fixture_asks_for_it(
    tmp_path: Path,
) -> None:
    """The Host says its agent gains Tools at run through its MapConnections; a name outside
    its list is a note in a Case whose fixture asks for that service, and refused elsewhere."""
    found = _map_plugins()
    expect = [{"kind": "tool_called", "name": "find_places"}]
    asks = [{"role": "user", "content": "Find places on the map."}]
    served = _travel_case(tmp_path / "served", input=asks, expect=expect)
    opened = _opened(served, found)
    assert opened.corpus.notes == (
        f"{served / 'c.json'}: $.expect[0].name: 'find_places' is not among the Tools of agent "
        "'travel' of trips.app listed at load (book_trip, get_weather); taken as one of the map "
        "Tools the agent loads at run, which the Host cannot list: not checked",
    )
    plain = _travel_case(tmp_path / "plain", expect=expect)
    assert (
        f"{plain / 'c.json'}: $.expect[0].name: 'find_places' is not a Tool of agent 'travel' of "
        "trips.app; it has: book_trip, get_weather"
    ) in _refusal(plain, found)
