"""The Soul loader: agents, guardrails, skills and Routines read from a directory, parsed once.

A Soul is configuration a Turn trusts, so a malformed file is refused loudly (``SoulError`` names
the file and the problem) instead of silently producing an agent with missing limits.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import yaml

from agent_runtime.guardrails import GuardrailConfig, GuardrailConfigError
from agent_runtime.routines import Routine, RoutineError
from agent_runtime.routines import parse as parse_routine

Autonomy = Literal["read", "act"]
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.DOTALL)
_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# libyaml's safe loader when it is installed (same schema, a fraction of the cost): a durable
# Turn reloads the Soul with a fresh loader every time, so this is on the hot path.
_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.lru_cache(maxsize=512)
def _yaml(text: str) -> Any:
    """A YAML document parsed once per distinct text: a durable Turn reloads the Soul, and
    its files rarely change between Turns. Callers only read what it returns."""
    return yaml.load(text, Loader=_YAML_LOADER)


_AGENT_FIELDS = frozenset({"name", "description", "roles", "tools", "autonomy"})
_SKILL_FIELDS = frozenset({"name", "description"})


class SoulError(ValueError):
    """A Soul file is missing or malformed; the message names the file and the problem."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Agent:
    """One agent: ``tools`` is its capability allowlist, ``autonomy`` its ceiling."""

    slug: str
    name: str
    description: str
    roles: tuple[str, ...]
    tools: frozenset[str]
    autonomy: Autonomy
    personality: str


@dataclass(frozen=True, slots=True)
class Skill:
    """A Skill: advertised by name and description, its body fetched on demand."""

    slug: str
    name: str
    description: str
    body: str


@dataclass(frozen=True, slots=True)
class Soul:
    """A loaded Soul directory."""

    root: Path
    agents: dict[str, Agent]
    guardrails: GuardrailConfig
    skills: dict[str, Skill]
    routines: dict[str, Routine] = field(default_factory=dict)

    def agent(self, slug: str) -> Agent:
        """The agent ``slug``, or a ``SoulError`` listing the agents there are."""
        try:
            return self.agents[slug]
        except KeyError:
            raise SoulError(
                self.root / "agents", f"no agent {slug!r} (agents: {sorted(self.agents)})"
            ) from None


def load_soul(path: Path) -> Soul:
    """Read and validate a Soul directory."""
    root = Path(path)
    if not root.is_dir():
        raise SoulError(root, "not a directory")
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
    return Soul(root, agents, _load_guardrails(root / "guardrails.yaml"), skills, routines)


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
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SoulError(file, f"unreadable: {error}") from None
    match = _FRONT_MATTER.match(text)
    if match is None:
        raise SoulError(file, "expected YAML front matter between '---' lines, then a body")
    try:
        meta = _yaml(match.group(1))
    except yaml.YAMLError as error:
        raise SoulError(file, f"invalid YAML front matter: {error}") from None
    if not isinstance(meta, dict):
        raise SoulError(file, "front matter must be a mapping")
    if unknown := sorted(str(k) for k in set(meta) - allowed):
        raise SoulError(file, f"unknown front matter field(s) {unknown}")
    body = match.group(2).strip()
    if not body:
        raise SoulError(file, "the body is empty")
    return meta, body


def _text(file: Path, meta: dict[str, Any], key: str) -> str:
    value = meta.get(key)
    if not isinstance(value, str) or not value.strip():
        raise SoulError(file, f"'{key}' must be a non-empty string")
    return value.strip()


def _string_list(file: Path, meta: dict[str, Any], key: str, *, required: bool) -> list[str]:
    value = meta.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise SoulError(file, f"'{key}' must be a list of non-empty strings")
    return cast(list[str], value)


def _load_agent(slug: str, file: Path) -> Agent:
    meta, body = _front_matter(file, _AGENT_FIELDS)
    autonomy = meta.get("autonomy")
    if autonomy not in ("read", "act"):
        raise SoulError(file, f"'autonomy' must be 'read' or 'act', got {autonomy!r}")
    return Agent(
        slug=slug,
        name=_text(file, meta, "name"),
        description=_text(file, meta, "description"),
        roles=tuple(_string_list(file, meta, "roles", required=False)),
        tools=frozenset(_string_list(file, meta, "tools", required=True)),
        autonomy=cast(Autonomy, autonomy),
        personality=body,
    )


def _load_skill(slug: str, file: Path) -> Skill:
    meta, body = _front_matter(file, _SKILL_FIELDS)
    return Skill(slug, _text(file, meta, "name"), _text(file, meta, "description"), body)


ROUTINE_FILE = "routine.yaml"


def _load_routine(file: Path) -> Routine:
    try:
        data = yaml.load(file.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise SoulError(file, f"unreadable: {error}") from None
    try:
        return parse_routine(data)
    except RoutineError as error:
        raise SoulError(file, str(error)) from None


def _load_guardrails(file: Path) -> GuardrailConfig:
    if not file.exists():
        return GuardrailConfig()
    try:
        data = _yaml(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise SoulError(file, f"unreadable: {error}") from None
    try:
        return GuardrailConfig.parse(data)
    except GuardrailConfigError as error:
        raise SoulError(file, str(error)) from None
