"""The ports: what a Host (the system under test) and a model binding implement.

The Host runs one Case through its real context assembler and real tool loop and returns the
Evidence it read back. A binding is how that loop reaches a model: the Case's own script, or a
real endpoint. Both are plain protocols so that another team's runtime plugs in unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

import msgspec

from eval_core._case.case import CaseBase, CaseField, ScriptStep, ToolDecl
from eval_core._case.evidence import Evidence, ModelRequest, Usage

if TYPE_CHECKING:
    from eval_core._case.kinds import KindSpec, Tier

F = TypeVar("F", bound=Callable[..., Any])


class ModelError(Exception):
    """A vendor failure. ``reason`` starts with ``model_``; it errors a Trial, never fails it."""

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(f"{reason}: {message}" if message else reason)
        self.reason = reason
        self.message = message


class ModelCallRequest(msgspec.Struct, frozen=True, kw_only=True):
    """One model call: the assembled system prompt, the conversation, the declared Tools.

    ``messages`` use a neutral chat shape: ``{"role": "user", "content": str | [part...]}``,
    ``{"role": "assistant", "content": str | None, "tool_calls"?: [{"call_id", "name",
    "arguments"}]}`` and ``{"role": "tool", "tool_call_id": str, "name": str, "content": str}``
    (the Tool outcome the model sees, as compact JSON). A part is ``{"type": "text", "text"}``
    or ``{"type": "file" | "image", "mediaType", "filename", "data": <base64>}``: a File the
    runtime attached, which a binding sends as the vendor's own binary part.
    """

    system: str
    messages: list[dict[str, Any]]
    tools: list[ToolDecl]


class ModelToolCall(msgspec.Struct, frozen=True, kw_only=True):
    call_id: str
    name: str
    arguments: Any


class ModelReply(msgspec.Struct, frozen=True, kw_only=True):
    text: str | None = None
    tool_calls: list[ModelToolCall] = msgspec.field(default_factory=list)
    structured: Any = None
    usage: Usage = msgspec.field(default_factory=Usage)
    finish_reason: str = "stop"
    model_version: str | None = None


class ModelSession(Protocol):
    """A binding's state for one Trial (the scripted binding keeps its cursor here).

    The session is the billing record: ``usage`` and ``calls`` count every attempt sent to
    the vendor, failed and retried ones included; ``retries`` counts the retried attempts.
    ``sent`` records each request as the binding put it on its transport (once per call, not
    per retried attempt): what the provider-prompt kinds score. A session may also keep
    ``replied``: the call ids of each reply that asked for Tools, in order (the batches the
    model asked for, as the binding received them), and ``handed``: the usage its replies
    carried to the Host (what a Host's reported usage is checked against). A real binding's
    session may also keep ``failure``: the last vendor failure raised, whole (``reason:
    detail``, credential redacted), which the Trial's error then shows instead of the bare
    reason the Host's loop kept.
    """

    usage: Usage
    calls: int
    retries: int
    model_version: str | None
    sent: list[ModelRequest]

    def complete(self, request: ModelCallRequest) -> ModelReply: ...


@runtime_checkable
class TurnScripted(Protocol):
    """A session that replays a script per Turn (the scripted binding).

    A Host running a later Turn of one conversation calls ``begin_turn`` with that Turn's own
    script; ``None`` keeps replaying where the previous Turn stopped. A real model's session
    does not implement it: it answers each Turn on its own.
    """

    def begin_turn(self, steps: Sequence[ScriptStep] | None) -> None: ...


class Binding(Protocol):
    """How Trials reach a model. ``scripted`` is free and deterministic."""

    @property
    def model_id(self) -> str: ...

    @property
    def scripted(self) -> bool: ...

    def session(self, case: CaseBase) -> ModelSession: ...


class ContextRules(msgspec.Struct, frozen=True):
    """Which ``context`` keys a Case may set, derived from the Host's own assembler mapping.

    ``retired`` maps each key an older runtime accepted to where that information lives now
    (the hint a refusal gives). ``types`` gives the value an allowed key takes, as a type msgspec
    converts to strictly (``str | None``, ``Literal["plan"] | None``): the loader refuses any
    other value at ``$.context.KEY``, where it would otherwise load and error the Trial; a key
    without one takes any value."""

    allowed: frozenset[str]
    soul_owned: frozenset[str]
    retired: Mapping[str, str] = msgspec.field(default_factory=dict)
    types: Mapping[str, Any] = msgspec.field(default_factory=dict)


class AgentTools(msgspec.Struct, frozen=True):
    """The Tools a Trial of one Case offers its agent, as the Host knows them at load.

    ``names``: every Tool the model of such a Trial may call and a call can reach: the agent's
    own (a framework agent's function Tools, a graph's ToolNode Tools, MCP Tools listed at
    load) and whatever the Case adds that this Host offers (its ``tools``, its
    ``platformTools``). The loader refuses a Tool name in the Case that is not among them.
    ``owner`` names them in a refusal, in the Host's words (``agent 'travel' of
    weather_agent.agent:AGENTS``, ``this Case's tools and platformTools``). ``more``: when the
    agent gains further Tools at run that the Host cannot list at load (a graph's MCP servers'
    Tools), what they are; a name outside ``names`` is then a load note naming it, never a
    refusal and never silent. ``through``: the Host's own service class those further Tools
    come through (the graph's MCP connections); ``more`` then holds only for a Case a fixture
    of which asks for a service it satisfies, so the Host never reads a family's Case field to
    know whether its agent will gain them.
    """

    names: frozenset[str]
    owner: str
    more: str | None = None
    through: type | None = None


class HostTrial(Protocol):
    """One Trial inside the Host: its services for fixtures, then the run itself.

    The core opens it, lets the Case's fixtures set up through :meth:`services`, calls
    :meth:`run` once, lets the fixtures read back, and always calls :meth:`close`.
    """

    def services(self) -> Sequence[object]:
        """The service objects fixtures of this Trial may ask for (matched by Protocol)."""
        ...

    def run(self) -> Evidence:
        """Run the Case through the real assembler and loop; the Evidence read back."""
        ...

    def close(self) -> None: ...


class Host(Protocol):
    """The system under test, loaded over an Eval Soul directory (or, for a Host that owns
    its agents, over the team's own code: :func:`owns_agents`).

    A Host may also offer ``fingerprint() -> str``: a digest of everything its load-time
    answers (agents, platform Tools, offered Tools, context rules, given text, services) depend
    on besides
    the Soul, its code mostly. With it, a Corpus loaded before from the same inputs is not
    checked again (:mod:`eval_core._util.checked`); without it, every load checks every Case.
    And ``noise() -> Mapping[str, int]``: how many third-party log records (an SDK's, an HTTP
    stack's, an orphaned task's) it has counted and kept off stderr so far in this process, by
    logger; each Trial records what it added (``TrialResult.dropped``) and the Scorecard sums it.
    And ``parks_calls: bool``: ``True`` when a Tool result scripted to wait (``approvalId``,
    ``retryWaitId``) parks the call as a runtime that waits does; without it, a Case scripting
    one is refused at load.

    A Host that runs the team's code (:func:`owns_agents`) is swept on forked children
    (:mod:`eval_core._running.forked`), where that code cannot end or hang the Sweep. Such a
    Host may offer ``trial_deadline: float`` (seconds a Trial may take: its child is killed a
    little after), ``prepare_fork()`` (called before the children are forked: let go of what
    a child cannot share, such as a session on this process's event loop, and make it again
    in the child on first use) and ``unforkable: str | None`` (why it cannot run in a forked
    child, one line: the Sweep then stays in this process, and ``--executor fork`` is refused
    with it).
    """

    @property
    def name(self) -> str: ...

    @property
    def tiers(self) -> frozenset[Tier]:
        """The tiers it runs a Case at (``l2`` in memory, ``l3`` durable); the loader refuses a
        Case of any other at ``$.tier``, in one message for every Host."""
        ...

    @property
    def agents_from(self) -> str:
        """Where its agents come from, in a refusal's words: ``the Eval Soul``,
        ``weather_agent.agent:AGENTS`` (``unknown agent 'travl': not in ...``)."""
        ...

    def agents(self) -> frozenset[str]: ...

    def offered_tools(self, case: CaseBase) -> AgentTools | None:
        """The Tools a Trial of this Case offers the Case's agent (asked per Case, since a Case
        may add Tools), or ``None`` when the Host cannot say: the loader then checks no Tool
        name of the Case and says so in a load note. An unknown agent may answer anything."""
        ...

    def platform_tools(self) -> Mapping[str, ToolDecl]: ...

    def context_rules(self) -> ContextRules: ...

    def given_text(self, case: CaseBase) -> Sequence[str]:
        """Soul material the model is given for this Case (the agent's personality...)."""
        ...

    def services(self, tier: Tier) -> Sequence[type]:
        """The classes of the services a Trial of this tier offers (checked at load)."""
        ...

    def open_trial(self, case: CaseBase, model: ModelSession, trial: int) -> HostTrial:
        """Prepare one Trial of the Case, calling ``model``; nothing runs before ``run()``."""
        ...

    def close(self) -> None: ...


HostFactory = Callable[..., Host]
"""Called with the Eval Soul's directory, and with each ``--host-option KEY=VALUE`` as the
keyword argument ``KEY`` (a string); a factory declares the options it takes as keyword
parameters, and one it does not declare is refused before it is called.

A Host whose agents are the team's own code (a framework Host) marks its factory with
:func:`owns_agents`: its Corpus needs no Eval Soul, and the factory is called with the Corpus
directory that holds ``eval.lock`` (where its project is found upwards) instead."""


def owns_agents(factory: F) -> F:
    """Marks a Host factory whose agents are the team's code, not an Eval Soul's. Its load (the
    team's import and builders) runs under a deadline; a ``framework`` attribute on the factory
    (module names: the Host's own framework) is imported before the deadline starts."""
    factory.owns_agents = True  # type: ignore[attr-defined]
    return factory


def agents_owned(factory: HostFactory) -> bool:
    """Whether the factory's Host owns its agents (:func:`owns_agents`)."""
    return getattr(factory, "owns_agents", False) is True


class HostOptionError(Exception):
    """A Host cannot work with an option it was given (malformed, or naming something it cannot
    reach or use). The message is one line, for people, and never carries a secret."""


class LoadContext(msgspec.Struct):
    """What a load-time check may consult: the Host, the installed kinds, the Case's file and
    the suite it belongs to (``capability`` or ``red-team``)."""

    host: Host
    kinds: Mapping[str, KindSpec]
    file: str = ""
    suite: str = "capability"
    fields: Mapping[str, CaseField] = msgspec.field(default_factory=dict)
    notes: list[str] = msgspec.field(default_factory=list)

    def offers(self, service: type, tier: Tier) -> bool:
        """Whether the Host offers at ``tier`` a service satisfying the Protocol ``service``: a
        family asks before accepting what only such a service can do, instead of the Host
        reading the family's Case field."""
        from eval_core._plugins.host_answers import services
        from eval_core._plugins.services import satisfies

        return any(satisfies(c, service) for c in services(self.host, tier))
