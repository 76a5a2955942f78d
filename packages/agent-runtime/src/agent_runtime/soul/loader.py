"""The Soul loader: the business, agents, guardrails, skills and Routines read from a directory.

The layout is the original's: ``soul.yaml`` (the business), ``agents/<slug>/AGENT.md``,
``skills/<slug>/SKILL.md``, ``guardrails.yaml``, ``integrations/<slug>/mcp.yaml`` (read by
:mod:`agent_runtime.mcp.integrations`) and ``routines/<slug>/routine.yaml``. An agent's name is
its directory; its front matter is strict (``label, domain, description, model, autonomy,
modelPolicy, capabilityRestrictions, ownership, placeholder, suggestions``) and only its body
reaches the prompt. An agent has no Tool allowlist: the Turn's Tools are the caller's, and what
the agent may call is decided by its ``capabilityRestrictions`` and ``autonomy``
(:mod:`agent_runtime.guards.capabilities`).

A Soul is configuration a Turn trusts, so a malformed file is refused loudly (``SoulError`` names
the file, the key and the problem) instead of silently producing an agent with missing limits.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import msgspec

from agent_runtime.guards.capabilities import (
    Autonomy,
    CapabilityRestrictions,
    RestrictionError,
    parse_autonomy,
)
from agent_runtime.guards.guardrails import GuardrailConfig, GuardrailConfigError
from agent_runtime.mcp.integrations import FILENAME as MCP_FILE
from agent_runtime.mcp.integrations import McpConfigError, McpTool, load_integration
from agent_runtime.soul import files as soul_files
from agent_runtime.soul.default_agent import (
    DEFAULT_AGENT_DESCRIPTION,
    DEFAULT_AGENT_PERSONALITY,
    DEFAULT_AGENT_SLUG,
)

if TYPE_CHECKING:  # Routines load with the first Soul that has a routines/ folder
    from agent_runtime.routines.definitions import Routine

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.DOTALL)
_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")


@functools.lru_cache(maxsize=512)
def _yaml(text: str) -> Any:
    """A YAML document parsed once per distinct text: a durable Turn reloads the Soul, and
    its files rarely change between Turns. Callers only read what it returns."""
    return soul_files.load_yaml(text)


_AGENT_FIELDS = frozenset(
    {
        "label",
        "domain",
        "description",
        "model",
        "autonomy",
        "modelPolicy",
        "capabilityRestrictions",
        "ownership",
        "placeholder",
        "suggestions",
    }
)
_SKILL_FIELDS = frozenset({"name", "description"})
_BUSINESS_FIELDS = ("businessName", "businessDescription", "businessWebsite")
BUSINESS_FILE = "soul.yaml"
DEFAULT_AUTONOMY: Autonomy = "full"
"""An agent that names no ceiling runs at the Turn's own autonomy, which the runtime asks as
``full``: the original's chat does the same."""


class SoulError(ValueError):
    """A Soul file is missing or malformed; the message names the file and the problem."""

    def __init__(self, path: Path, problem: str) -> None:
        problem = " ".join(problem.split())  # one line: a YAML error spans several
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class Agent(msgspec.Struct, frozen=True):
    """One agent, named by its directory: ``restrictions`` bound what it may call, ``autonomy``
    is its ceiling, ``personality`` (the AGENT.md body) is all that reaches the prompt."""

    slug: str
    description: str | None
    autonomy: Autonomy
    restrictions: CapabilityRestrictions | None
    personality: str
    label: str | None = None
    domain: str | None = None
    model: str | None = None
    model_policy: Any = None
    ownership: Any = None
    placeholder: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The agent's name: its directory."""
        return self.slug

    def denial(self, tool: str, mutating: bool, arguments: Any) -> str | None:
        """Why this agent's capability restrictions refuse the call, or None."""
        if self.restrictions is None:
            return None
        return self.restrictions.denial(tool, mutating, arguments)


class Business(msgspec.Struct, frozen=True):
    """``soul.yaml``: the business the Soul belongs to (every field optional)."""

    name: str | None = None
    description: str | None = None
    website: str | None = None


class Skill(msgspec.Struct, frozen=True):
    """A Skill: advertised by name (its slug unless ``name`` is set) and description, its body
    fetched on demand."""

    slug: str
    name: str
    description: str
    body: str


class Soul(msgspec.Struct, frozen=True):
    """A loaded Soul directory."""

    root: Path
    agents: dict[str, Agent]
    guardrails: GuardrailConfig
    skills: dict[str, Skill]
    routines: dict[str, Routine] = msgspec.field(default_factory=dict)
    business: Business = msgspec.field(default_factory=Business)
    integrations: dict[str, McpTool] = msgspec.field(default_factory=dict)
    """Every published MCP Tool of the Soul's ``integrations/<slug>/mcp.yaml``, by exposed name."""

    def agent(self, slug: str) -> Agent:
        """The agent ``slug`` (the platform's default assistant included), or a ``SoulError``
        listing the agents there are."""
        try:
            return self.agents[slug]
        except KeyError:
            if slug == DEFAULT_AGENT_SLUG:
                return _DEFAULT_AGENT
            raise SoulError(
                self.root / "agents", f"no agent {slug!r} (agents: {sorted(self.agents)})"
            ) from None


_DEFAULT_AGENT = Agent(
    slug=DEFAULT_AGENT_SLUG,
    description=DEFAULT_AGENT_DESCRIPTION,
    autonomy=DEFAULT_AUTONOMY,
    restrictions=None,
    personality=DEFAULT_AGENT_PERSONALITY,
)


def load_soul(path: Path) -> Soul:
    """Read and validate a Soul directory."""
    root = Path(path)
    if not root.is_dir():
        raise SoulError(root, "not a directory")
    try:
        soul_files.check_tree(root)
        return _load(root)
    except soul_files.SoulFileError as error:
        raise SoulError(error.path, error.reason) from None


def _load(root: Path) -> Soul:
    agents = {
        slug: _load_agent(slug, file) for slug, file in _documents(root / "agents", "AGENT.md")
    }
    if not agents:
        raise SoulError(root / "agents", "a Soul needs at least one agents/<slug>/AGENT.md")
    skills = {
        slug: _load_skill(slug, file) for slug, file in _documents(root / "skills", "SKILL.md")
    }
    routines = {
        slug: _load_routine(file) for slug, file in _documents(root / "routines", ROUTINE_FILE)
    }
    guardrails = _load_guardrails(root / "guardrails.yaml")
    integrations: dict[str, McpTool] = {}
    for _slug, file in _documents(root / "integrations", MCP_FILE):
        integrations.update((t.exposed, t) for t in _load_integration(file))
    business = _load_business(root / BUSINESS_FILE)
    return Soul(root, agents, guardrails, skills, routines, business, integrations)


def _load_integration(file: Path) -> list[McpTool]:
    import yaml  # here, where YAML is parsed: a Soul kept by a Host's cache never imports it

    try:
        return load_integration(file)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise SoulError(file, f"unreadable: {error}") from None
    except McpConfigError as error:
        raise SoulError(file, str(error)) from None


def _load_business(file: Path) -> Business:
    if not file.exists():
        return Business()
    data = _read_yaml(file)
    if data is None:
        return Business()
    if not isinstance(data, dict):
        raise SoulError(file, "expected a mapping")
    if unknown := sorted(str(k) for k in set(data) - set(_BUSINESS_FIELDS)):
        raise SoulError(file, f"{unknown[0]}: unknown key (allowed: {list(_BUSINESS_FIELDS)})")
    values = [_optional_text(file, data, key) for key in _BUSINESS_FIELDS]
    return Business(*values)


def _read_yaml(file: Path) -> Any:
    import yaml  # here, where YAML is parsed (as in _load_integration)

    try:
        return _yaml(soul_files.read_text(file))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise SoulError(file, f"unreadable: {error}") from None


def _documents(folder: Path, filename: str) -> list[tuple[str, Path]]:
    if not folder.is_dir():
        return []
    found: list[tuple[str, Path]] = []
    for entry in sorted(folder.iterdir()):
        if not entry.is_dir():
            continue
        file = entry / filename
        if not file.is_file():
            raise SoulError(file, "missing")
        if not _SLUG.match(entry.name):
            raise SoulError(file, f"folder name {entry.name!r} is not a lowercase-hyphenated slug")
        found.append((entry.name, file))
    return found


def _front_matter(file: Path, allowed: frozenset[str]) -> tuple[dict[str, Any], str]:
    try:
        text = soul_files.read_text(file)
    except (OSError, UnicodeDecodeError) as error:
        raise SoulError(file, f"unreadable: {error}") from None
    match = _FRONT_MATTER.match(text)
    if match is None:
        raise SoulError(file, "expected YAML front matter between '---' lines, then a body")
    import yaml  # here, where YAML is parsed (as in _load_integration)

    try:
        meta = _yaml(match.group(1))
    except yaml.YAMLError as error:
        raise SoulError(file, f"invalid YAML front matter: {error}") from None
    if not isinstance(meta, dict):
        raise SoulError(file, "front matter must be a mapping")
    if unknown := sorted(str(k) for k in set(meta) - allowed):
        raise SoulError(
            file, f"{unknown[0]}: unknown front matter key (allowed: {sorted(allowed)})"
        )
    body = match.group(2).strip()
    if not body:
        raise SoulError(file, "the body is empty")
    return meta, body


def _text(file: Path, meta: dict[str, Any], key: str) -> str:
    value = meta.get(key)
    if not isinstance(value, str) or not value.strip():
        raise SoulError(file, f"{key}: must be a non-empty string")
    return value.strip()


def _optional_text(file: Path, meta: dict[str, Any], key: str) -> str | None:
    return None if meta.get(key) is None else _text(file, meta, key)


def _load_agent(slug: str, file: Path) -> Agent:
    meta, body = _front_matter(file, _AGENT_FIELDS)
    try:
        autonomy = parse_autonomy(meta.get("autonomy", DEFAULT_AUTONOMY))
        restrictions = (
            None
            if meta.get("capabilityRestrictions") is None
            else CapabilityRestrictions.parse(meta["capabilityRestrictions"])
        )
    except RestrictionError as error:
        raise SoulError(file, str(error)) from None
    model = _optional_text(file, meta, "model")
    if model is not None and any(c.isspace() for c in model):
        raise SoulError(file, "model: must not contain whitespace")
    return Agent(
        slug=slug,
        description=_optional_text(file, meta, "description"),
        autonomy=autonomy,
        restrictions=restrictions,
        personality=body,
        label=_optional_text(file, meta, "label"),
        domain=_optional_text(file, meta, "domain"),
        model=model,
        model_policy=meta.get("modelPolicy"),
        ownership=meta.get("ownership"),
        placeholder=tuple(_strings(file, meta, "placeholder")),
        suggestions=tuple(_strings(file, meta, "suggestions")),
    )


def _strings(file: Path, meta: dict[str, Any], key: str) -> list[str]:
    value = meta.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SoulError(file, f"{key}: must be a list of strings")
    return cast(list[str], value)


def _load_skill(slug: str, file: Path) -> Skill:
    meta, body = _front_matter(file, _SKILL_FIELDS)
    name = _optional_text(file, meta, "name") or slug
    return Skill(slug, name, _text(file, meta, "description"), body)


ROUTINE_FILE = "routine.yaml"


def _load_routine(file: Path) -> Routine:
    from agent_runtime.routines import definitions as routines

    data = _read_yaml(file)
    try:
        return routines.parse(data)
    except routines.RoutineError as error:
        raise SoulError(file, str(error)) from None


def _load_guardrails(file: Path) -> GuardrailConfig:
    if not file.exists():
        return GuardrailConfig()
    data = _read_yaml(file)
    try:
        return GuardrailConfig.parse(data)
    except GuardrailConfigError as error:
        raise SoulError(file, str(error)) from None
