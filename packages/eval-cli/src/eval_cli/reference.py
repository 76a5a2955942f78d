"""The reference of every Expectation kind and Case field, read from the installed plug-ins.

What a Case author needs to write one without copying an example: who provides it, what it
asserts, its fields as JSON spells them (types, required or default, rules, descriptions), the
tiers it may appear at, the witness its scorer reads, its grounding rule, where its evidence
lives, and an example (one the loader accepts: :mod:`eval_cli.examples`). The types
and per-field prose come from the Case's JSON Schema (:func:`~eval_cli.case_schema.
case_schema`, what an editor shows on hover), so the two never disagree. One :class:`Entry`
is rendered as Markdown for the docs (``docs/kinds.md``, built by a docs hook) and as plain
text for ``eval plugins --kind NAME``: the same content.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal

import msgspec

from eval_cli.case_schema import GENERIC, case_schema
from eval_core.commands import WITNESSES, PluginInfo, PluginSet
from eval_core.kinds import KindSpec, Location, json_name

PARTS: Mapping[str, str] = {
    "request": "the model requests (as the binding received them)",
    "tool_call": "the Tool calls",
    "denial": "the denials",
    "guard": "the guard decisions",
    "event": "the run events",
    "record": "a family record",
    "answer": "the answer",
}


class Field(msgspec.Struct, frozen=True):
    """One field of a kind or definition, as JSON spells it."""

    name: str
    type: str
    required: bool
    notes: tuple[str, ...] = ()
    description: str = ""


class Definition(msgspec.Struct, frozen=True):
    """A named type a field refers to (an object's fields, or an enumeration)."""

    name: str
    description: str = ""
    type: str = ""
    fields: tuple[Field, ...] = ()


class Entry(msgspec.Struct, frozen=True):
    """The reference of one kind or Case field."""

    name: str
    what: Literal["Expectation kind", "Case field", "generic Case field"]
    description: str
    provider: str = ""
    type: str = ""  # a Case field's value type
    fields: tuple[Field, ...] = ()
    definitions: tuple[Definition, ...] = ()
    tiers: tuple[str, ...] = ()
    facts: tuple[tuple[str, str], ...] = ()  # (label, text): witness, grounding, evidence...
    examples: tuple[Any, ...] = ()


class UnknownName(LookupError):  # noqa: N818 - it names an outcome
    """No installed kind or Case field has the name; the message has a did-you-mean."""


class Reference:
    """The entries of one plug-in set, their types read from its Case JSON Schema once."""

    def __init__(self, plugins: PluginSet) -> None:
        self.plugins = plugins
        self._defs: dict[str, Any] = case_schema(plugins)["$defs"]
        self._case = self._defs["Case"]
        self._by_tag = {
            str(d["properties"]["kind"]["enum"][0]): d
            for d in self._defs.values()
            if len(d.get("properties", {}).get("kind", {}).get("enum", ())) == 1
        }

    def names(self) -> list[str]:
        """Every name :meth:`entry` answers: kinds, plug-in Case fields, the generic fields."""
        return [*self.plugins.kinds, *(json_name(n) for n in self.plugins.fields), *GENERIC]

    def entry(self, name: str) -> Entry:
        """The entry of a kind, or of a Case field by its JSON (or Python) name."""
        if name in self.plugins.kinds:
            return self.kind(name)
        for field in self.plugins.fields:
            if name in (field, json_name(field)):
                return self.field(field)
        if name in GENERIC:
            return self.generic(name)
        close = difflib.get_close_matches(name, self.names(), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UnknownName(
            f"no installed kind or Case field is named {name!r}{hint} (`eval plugins` lists them)"
        )

    def kind(self, name: str) -> Entry:
        spec = self.plugins.kinds[name]
        definition = self._by_tag.get(name, {})
        properties = {k: v for k, v in definition.get("properties", {}).items() if k != "kind"}
        required = set(definition.get("required", ()))
        fields = tuple(_field(k, v, k in required) for k, v in properties.items())
        return Entry(
            name=name,
            what="Expectation kind",
            description=prose(spec.description),
            provider=_provider(self.plugins.kind_owner.get(name)),
            fields=fields,
            definitions=tuple(self._definitions(properties.values())),
            tiers=tuple(sorted(spec.tiers)),
            facts=tuple(_kind_facts(spec)),
            examples=tuple(_plain(e) for e in spec.examples),
        )

    def field(self, name: str) -> Entry:
        field = self.plugins.fields[name]
        node = self._case["properties"].get(json_name(name), {})
        facts = []
        if not field.runs_model:
            facts.append(("Runs a model", "no: a Case that sets it runs no model (no script)"))
        if field.given_text is not None or field.first_request_text is not None:
            first = field.first_request_text is not None
            where = "in the first request" if first else "when the Trial gives it"
            facts.append(("Given text", f"its text counts as given to the model ({where})"))
        return Entry(
            name=json_name(name),
            what="Case field",
            description=prose(field.description),
            provider=_provider(self.plugins.field_owner.get(name)),
            type=type_of(_present(node)),
            fields=(),
            definitions=tuple(self._definitions([node])),
            tiers=tuple(sorted(field.tiers)),
            facts=tuple(facts),
            examples=tuple(_plain(e) for e in field.examples),
        )

    def generic(self, name: str) -> Entry:
        node = self._case["properties"][name]
        field = self._generic_field(name)
        definitions = () if name == "expect" else tuple(self._definitions([node]))
        rules = ", ".join(("required", *field.notes) if field.required else field.notes)
        return Entry(
            name=name,
            what="generic Case field",
            description=field.description,
            provider="eval-core",
            type=field.type,
            definitions=definitions,
            tiers=("l2", "l3"),
            facts=tuple(_generic_facts(name, rules)),
        )

    def generic_fields(self) -> list[Field]:
        """The fields every Case has, whatever plug-ins are installed, in the Case's order."""
        plugin = {json_name(n) for n in self.plugins.fields}
        return [self._generic_field(n) for n in self._case["properties"] if n not in plugin]

    def _generic_field(self, name: str) -> Field:
        node = self._case["properties"][name]
        required = name in self._case.get("required", ())
        kind = "list[Expectation]" if name == "expect" else type_of(_present(node))
        return Field(
            name, kind, required, _notes(node, required), prose(node.get("description", ""))
        )

    def generic_definitions(self) -> list[Definition]:
        plugin = {json_name(n) for n in self.plugins.fields}
        nodes = [
            n for k, n in self._case["properties"].items() if k not in plugin and k != "expect"
        ]
        return list(self._definitions(nodes))

    def _definitions(self, nodes: Iterable[Any]) -> Iterator[Definition]:
        """Every definition the nodes refer to, directly or through another, once each."""
        seen: list[str] = []
        pending = [ref for node in nodes for ref in _refs(node)]
        while pending:
            name = pending.pop(0)
            if name in seen or name not in self._defs:
                continue
            seen.append(name)
            found = self._defs[name]
            pending.extend(_refs(found))
            properties = found.get("properties")
            required = set(found.get("required", ()))
            yield Definition(
                name=name,
                description=prose(found.get("description", "")),
                type="" if properties is not None else type_of(found),
                fields=tuple(_field(k, v, k in required) for k, v in (properties or {}).items()),
            )


def _generic_facts(name: str, rules: str) -> Iterator[tuple[str, str]]:
    if rules:
        yield "Rules", rules
    if name == "expect":
        yield (
            "Kinds",
            "each item's `kind` names one (`eval plugins` lists them, docs/kinds.md shows them)",
        )


def _provider(owner: PluginInfo | None) -> str:
    if owner is None:
        return ""
    return f"{owner.distribution} {owner.version} (entry point {owner.entry_point!r})"


def _kind_facts(spec: KindSpec) -> Iterator[tuple[str, str]]:
    if spec.witness is None:
        yield "Witness", "undeclared"
    else:
        said = WITNESSES.get(spec.witness, "not a known witness")
        yield "Witness", f"{spec.witness}: {said}"
    grounding = spec.grounding
    if grounding is None:
        yield "Grounding", "none"
    else:
        what = "must match" if grounding.regex else "must appear in"
        scope = "the first request" if grounding.scope == "first_request" else "what the model"
        scope += "" if grounding.scope == "first_request" else " was given"
        waiver = "; an `ungrounded` reason waives it" if grounding.waivable else "; not waivable"
        yield "Grounding", f"`{json_name(grounding.field)}` {what} {scope}{waiver}"
    compare = "case-insensitive" if spec.text_compare == "casefold" else "exact"
    yield "Text compared", compare
    yield "Evidence", _location(spec.evidence_at)


def _location(at: Location | None) -> str:
    if at is None:
        return "undeclared (the report shows no link)"
    said = PARTS.get(at.part, at.part)
    return f"{said} ({at.record})" if at.record else said


ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|exc|obj):`~?([^`]+)`")


def prose(said: Any) -> str:
    """A description on one line, Markdown: a docstring's reST ``x`` and :meth:`x` as `x`."""
    flat = " ".join(str(said).split())
    return ROLE.sub(r"`\1`", flat).replace("``", "`")


def _plain(value: Any) -> Any:
    return dict(value) if isinstance(value, Mapping) else value


def _present(node: Mapping[str, Any]) -> Mapping[str, Any]:
    """An optional field's node without its ``null`` branch (an omitted field is absent)."""
    branches = node.get("anyOf")
    if isinstance(branches, list) and node.get("default", 0) is None:
        kept = [b for b in branches if b.get("type") != "null"]
        if len(kept) == 1:
            return {**{k: v for k, v in node.items() if k != "anyOf"}, **kept[0]}
        return {**node, "anyOf": kept}
    return node


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, Mapping):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield ref.rsplit("/", 1)[-1]
        for key, value in node.items():
            if key not in ("examples", "default", "enum", "const"):
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def type_of(node: Mapping[str, Any]) -> str:
    """A JSON Schema node's type, short: ``string``, ``list[Message]``, ``"a" | "b"``."""
    if "$ref" in node:
        return str(node["$ref"]).rsplit("/", 1)[-1]
    if "const" in node:
        return json.dumps(node["const"])
    if "enum" in node:
        return " | ".join(json.dumps(v) for v in node["enum"])
    if "discriminator" in node:  # a tagged union, dispatched on its tag (schema.py)
        branches: Any = [b["then"] for b in node.get("allOf", ()) if "then" in b]
    else:
        branches = node.get("anyOf") or node.get("oneOf")
    if isinstance(branches, list):
        return " | ".join(type_of(b) for b in branches)
    kind = node.get("type")
    if kind == "array":
        items = node.get("items")
        return f"list[{type_of(items) if isinstance(items, Mapping) else 'any'}]"
    if kind == "object":
        values = node.get("additionalProperties")
        if isinstance(values, Mapping) and values:
            return f"map[string, {type_of(values)}]"
        return "object"
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    return str(kind) if kind else "any"


def _field(name: str, node: Mapping[str, Any], required: bool) -> Field:
    shown = _present(node)
    return Field(
        name, type_of(shown), required, _notes(node, required), prose(node.get("description", ""))
    )


def _notes(node: Mapping[str, Any], required: bool) -> tuple[str, ...]:
    """The value rules a field's node says beyond its type, and its default."""
    said: list[str] = []
    if node.get("minLength") == 1 and node.get("pattern") == r"\S":
        said.append("not blank")
    else:
        if "minLength" in node:
            said.append(f"at least {node['minLength']} character(s)")
        if "pattern" in node:
            said.append(f"matches {node['pattern']}")
    for key, text in (
        ("minimum", ">= {}"),
        ("exclusiveMinimum", "> {}"),
        ("maximum", "<= {}"),
        ("exclusiveMaximum", "< {}"),
        ("minItems", "at least {} item(s)"),
        ("maxItems", "at most {} item(s)"),
    ):
        if key in node:
            said.append(text.format(node[key]))
    if node.get("format") == "regex":
        said.append("a regular expression")
    elif "format" in node:
        said.append(f"format {node['format']}")
    if not required:
        default = node.get("default")
        said.append("optional" if default is None else f"default {json.dumps(default)}")
    return tuple(said)
