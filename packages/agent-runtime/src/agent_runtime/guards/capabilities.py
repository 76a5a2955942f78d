"""An Agent's capability restrictions and autonomy ceiling: what it may call, decided at the gate.

Restrictions are data in the Agent's front matter (``capabilityRestrictions``), so the runtime
decides them rather than the model reading its own prompt. The gate reads them with the call's
arguments, before the approval wait and before any executor: a forbidden call never becomes a
choice for a person, nor work for a Tool. An Agent that authored no restrictions is
unrestricted.

Autonomy is a ceiling on the ladder ``manual < approval-required < supervised < full``; at the
gate only ``approval-required`` changes anything: a mutating Tool then waits for a person (unless
the Tool opts out of approval).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, cast

import msgspec

Autonomy = Literal["full", "supervised", "approval-required", "manual"]
AUTONOMY_LEVELS: tuple[Autonomy, ...] = ("manual", "approval-required", "supervised", "full")
"""The autonomy ladder, least authority first."""

FLOW_CONTROL_TOOLS = frozenset(
    {"complete_state", "complete_task", "present", "request_input", "update_presentation"}
)
"""Tools that end a State or a task or draw the Surface: a blanket rule (an ``allow`` list,
``allowMutating: false``) never takes them away; only an explicit ``deny`` names them."""

RECORD_ACTIONS: Mapping[str, str] = {
    "record_list": "list",
    "record_search": "search",
    "record_get": "read",
    "record_create": "create",
    "record_update": "update",
    "record_delete": "delete",
}
RESOURCE_TYPE_ACTIONS: Mapping[str, str] = {
    "list_resource_types": "list",
    "resource_type_schema": "read",
    "create_resource_type": "create",
    "resource_type_update": "update",
}
SKILL_TOOL = "skill"
"""The Tool that loads a Skill into a Turn, by its ``name``."""

_RECORD_VERBS = frozenset(RECORD_ACTIONS.values())
_RESOURCE_TYPE_VERBS = frozenset(RESOURCE_TYPE_ACTIONS.values())


class RestrictionError(ValueError):
    """A malformed ``capabilityRestrictions`` block: ``key`` is its dotted path."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


class NameRule(msgspec.Struct, frozen=True):
    """``allow`` (None: no allow list) and ``deny`` names."""

    allow: frozenset[str] | None = None
    deny: frozenset[str] = frozenset()


class ToolRule(msgspec.Struct, frozen=True):
    allow: frozenset[str] | None = None
    deny: frozenset[str] = frozenset()
    allow_mutating: bool | None = None


class ActionRule(msgspec.Struct, frozen=True):
    """Actions allowed/denied, scoped to ``scope`` (record types or resource type names)."""

    actions: NameRule = NameRule()
    scope: frozenset[str] | None = None


class CapabilityRestrictions(msgspec.Struct, frozen=True):
    tools: ToolRule | None = None
    skills: NameRule | None = None
    records: ActionRule | None = None
    resource_types: ActionRule | None = None

    @classmethod
    def parse(cls, data: Any, key: str = "capabilityRestrictions") -> CapabilityRestrictions:
        """Validate the front matter block; unknown keys and wrong shapes are refused."""
        block = _mapping(data, key, {"tools", "skills", "records", "resourceTypes"})
        return cls(
            tools=_tool_rule(block.get("tools"), f"{key}.tools"),
            skills=_name_rule(block.get("skills"), f"{key}.skills"),
            records=_action_rule(
                block.get("records"), f"{key}.records", "resourceTypes", _RECORD_VERBS
            ),
            resource_types=_action_rule(
                block.get("resourceTypes"), f"{key}.resourceTypes", "names", _RESOURCE_TYPE_VERBS
            ),
        )

    def denial(self, tool: str, mutating: bool, arguments: Any) -> str | None:
        """Why this Agent may not make this call (the original's wording), or None."""
        return (
            self._tool_denial(tool, mutating)
            or self._skill_denial(tool, arguments)
            or _action_denial(tool, arguments, self.records, RECORD_ACTIONS, "type")
            or _action_denial(tool, arguments, self.resource_types, RESOURCE_TYPE_ACTIONS, "name")
        )

    def _tool_denial(self, tool: str, mutating: bool) -> str | None:
        rule = self.tools
        if rule is None:
            return None
        if tool in rule.deny:
            return f'tool "{tool}" is denied by this Agent\'s capability restrictions'
        if tool in FLOW_CONTROL_TOOLS:
            return None
        if rule.allow is not None and tool not in rule.allow:
            return f'tool "{tool}" is outside this Agent\'s allowed Tools'
        if rule.allow_mutating is False and mutating:
            return f'mutating tool "{tool}" is denied by this Agent\'s capability restrictions'
        return None

    def _skill_denial(self, tool: str, arguments: Any) -> str | None:
        rule = self.skills
        if rule is None or tool != SKILL_TOOL:
            return None
        name = _argument(arguments, "name")
        if name is None:
            if rule.allow is None:
                return None
            return "this Agent is restricted to named Skills, and this call names none"
        if name in rule.deny:
            return f'Skill "{name}" is denied by this Agent\'s capability restrictions'
        if rule.allow is not None and name not in rule.allow:
            return f'Skill "{name}" is outside this Agent\'s allowed Skills'
        return None


def demands_approval(autonomy: Autonomy, mutating: bool, requires_approval: bool | None) -> bool:
    """Whether this ceiling puts a person between a call and its effect: a mutating Tool under
    ``approval-required``, unless the Tool opted out (``requiresApproval: false``)."""
    return autonomy == "approval-required" and mutating and requires_approval is not False


def approval_reason(tool: str, agent: str, autonomy: Autonomy) -> str:
    """The denial a call gets when its approval cannot be asked for (the original's wording)."""
    return (
        f'tool "{tool}" is mutating and Agent "{agent}" runs at autonomy "{autonomy}", '
        "so it needs an approval before it can execute"
    )


def parse_autonomy(value: Any) -> Autonomy:
    if value not in AUTONOMY_LEVELS:
        raise RestrictionError("autonomy", f"must be one of {list(AUTONOMY_LEVELS)}, got {value!r}")
    return cast(Autonomy, value)


def _argument(arguments: Any, key: str) -> str | None:
    if not isinstance(arguments, dict):
        return None
    value = arguments.get(key)
    return value if isinstance(value, str) and value else None


def _action_denial(
    tool: str, arguments: Any, rule: ActionRule | None, actions: Mapping[str, str], key: str
) -> str | None:
    action = actions.get(tool)
    if action is None or rule is None:
        return None
    target = _argument(arguments, key)
    if rule.scope is not None and target is not None and target not in rule.scope:
        return None  # a named-type restriction says nothing about another type
    if action in rule.actions.deny:
        return f'tool "{tool}" performs "{action}", which this Agent is denied'
    if rule.actions.allow is not None and action not in rule.actions.allow:
        return f'tool "{tool}" performs "{action}", which is outside this Agent\'s allowed actions'
    return None


def _mapping(data: Any, key: str, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise RestrictionError(key, "must be a mapping")
    if unknown := sorted(str(k) for k in set(data) - allowed):
        raise RestrictionError(f"{key}.{unknown[0]}", f"unknown key (allowed: {sorted(allowed)})")
    return data


def _names(value: Any, key: str, vocabulary: frozenset[str] | None = None) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise RestrictionError(key, "must be a list of non-empty strings")
    if vocabulary is not None and (unknown := sorted(set(value) - vocabulary)):
        raise RestrictionError(key, f"unknown action(s) {unknown} (allowed: {sorted(vocabulary)})")
    return frozenset(value)


def _name_rule(data: Any, key: str, vocabulary: frozenset[str] | None = None) -> NameRule | None:
    if data is None:
        return None
    block = _mapping(data, key, {"allow", "deny"})
    allow = block.get("allow")
    return NameRule(
        allow=None if allow is None else _names(allow, f"{key}.allow", vocabulary),
        deny=_names(block.get("deny", []), f"{key}.deny", vocabulary),
    )


def _tool_rule(data: Any, key: str) -> ToolRule | None:
    if data is None:
        return None
    block = _mapping(data, key, {"allow", "deny", "allowMutating"})
    names = _name_rule({k: v for k, v in block.items() if k != "allowMutating"}, key)
    assert names is not None
    allow_mutating = block.get("allowMutating")
    if allow_mutating is not None and not isinstance(allow_mutating, bool):
        raise RestrictionError(f"{key}.allowMutating", "must be true or false")
    return ToolRule(names.allow, names.deny, allow_mutating)


def _action_rule(
    data: Any, key: str, scope_key: str, vocabulary: frozenset[str]
) -> ActionRule | None:
    if data is None:
        return None
    block = _mapping(data, key, {"actions", scope_key})
    actions = _name_rule(block.get("actions", {}), f"{key}.actions", vocabulary)
    assert actions is not None
    scope = block.get(scope_key)
    return ActionRule(
        actions=actions, scope=None if scope is None else _names(scope, f"{key}.{scope_key}")
    )
