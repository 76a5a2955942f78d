"""The kind reference rendered: the same :class:`~eval_cli.reference.Entry` as
Markdown (``docs/kinds.md``, built by a docs hook) and as plain text (``eval plugins --kind``).

Apart from :mod:`eval_cli.reference`, which reads the entries from the plug-in set:
what a reference says is one concern, how a page or a terminal shows it another.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from typing import Any

from eval_cli.examples import CASE_EXAMPLE
from eval_cli.reference import Definition, Entry, Field, Reference, prose
from eval_core.commands import PluginSet
from eval_core.kinds import json_name


def example_json(example: Any, width: int = 88, indent: int = 0) -> str:
    """An example as JSON: each object or list on one line when it fits, opened otherwise."""
    one = json.dumps(example, ensure_ascii=False)
    if len(one) + indent <= width or not isinstance(example, dict | list) or not example:
        return one
    pad = " " * (indent + 2)
    if isinstance(example, dict):
        items = [
            f"{pad}{json.dumps(k, ensure_ascii=False)}: "
            + example_json(v, width, indent + 2).lstrip()
            for k, v in example.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + example_json(v, width, indent + 2).lstrip() for v in example]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def _field_line(field: Field, code: str = "`") -> str:
    need = "required" if field.required else ""
    said = ", ".join(x for x in (need, *field.notes) if x)
    line = f"{code}{field.name}{code}: {code}{field.type}{code}" + (f" ({said})" if said else "")
    return line + (f". {field.description}" if field.description else "")


def markdown(entry: Entry, level: int = 3) -> str:
    """One entry as a Markdown section (its heading at ``level``)."""
    lines = [f"{'#' * level} `{entry.name}`", ""]
    if entry.provider:
        lines += [f"*{entry.what}, from {entry.provider}*", ""]
    lines += [entry.description or "(no description)", ""]
    facts: list[tuple[str, str]] = []
    if entry.type:
        facts.append(("Type", f"`{entry.type}`"))
    if entry.tiers:
        facts.append(("Tiers", ", ".join(entry.tiers)))
    facts += list(entry.facts)
    lines += [f"- **{label}**: {text}" for label, text in facts]
    if entry.what == "Expectation kind":
        if entry.fields:
            lines.append("- **Fields** (besides `kind`):")
            lines += [f"    - {_field_line(f)}" for f in entry.fields]
        else:
            lines.append("- **Fields**: none besides `kind`")
    lines += _markdown_definitions(entry.definitions)
    for example in entry.examples[:1]:
        lines += ["", "```json", example_json(example), "```"]
    return "\n".join(lines) + "\n"


def _markdown_definitions(definitions: Sequence[Definition]) -> list[str]:
    lines: list[str] = []
    for definition in definitions:
        head = f"- **`{definition.name}`**"
        if definition.type:
            head += f": `{definition.type}`"
        if definition.description:
            head += f". {definition.description}"
        lines.append(head)
        lines += [f"    - {_field_line(f)}" for f in definition.fields]
    return lines


def text(entry: Entry, width: int = 100) -> str:
    """One entry as plain text for a terminal (what ``eval plugins --kind`` prints), wrapped."""

    def wrap(line: str, indent: str = "") -> list[str]:
        more = indent + "    "
        said = line.replace("`", "")
        return textwrap.wrap(said, width, initial_indent=indent, subsequent_indent=more) or [""]

    lines = wrap(
        f"{entry.name}  ({entry.what}" + (f", {entry.provider})" if entry.provider else ")")
    )
    lines += [*wrap(entry.description or "(no description)", "  "), ""]
    if entry.type:
        lines += wrap(f"Type: {entry.type}")
    if entry.tiers:
        lines.append(f"Tiers: {', '.join(entry.tiers)}")
    for label, said in entry.facts:
        lines += wrap(f"{label}: {said}")
    if entry.what == "Expectation kind":
        lines.append("Fields (JSON names, besides kind):" if entry.fields else "Fields: none")
        for field in entry.fields:
            lines += wrap(_field_line(field, ""), "  ")
    for definition in entry.definitions:
        head = f"{definition.name}" + (f": {definition.type}" if definition.type else "")
        lines += wrap(head + (f". {definition.description}" if definition.description else ""))
        for field in definition.fields:
            lines += wrap(_field_line(field, ""), "  ")
    for example in entry.examples[:1]:
        lines += ["Example:", *(f"  {line}" for line in example_json(example).splitlines())]
    return "\n".join(lines) + "\n"


def page(plugins: PluginSet) -> str:
    """The generated part of ``docs/kinds.md``: the generic fields, every kind by family, an
    index, then every plug-in Case field."""
    ref = Reference(plugins)
    out = ["## The fields of every Case", ""]
    out += [f"- {_field_line(f)}" for f in ref.generic_fields()]
    out += ["", "Their types:", ""]
    out += _markdown_definitions(ref.generic_definitions())
    out += ["", "A whole Case:", "", "```json", example_json(CASE_EXAMPLE), "```", ""]
    out += ["## Expectation kinds", ""]
    out += [
        "| Kind | What it asserts | Tiers | Witness | Family |",
        "| --- | --- | --- | --- | --- |",
    ]
    by_family: dict[str, list[str]] = {}
    for name in sorted(plugins.kinds):
        spec = plugins.kinds[name]
        owner = plugins.kind_owner.get(name)
        family = owner.distribution if owner is not None else ""
        by_family.setdefault(family, []).append(name)
        tiers = "/".join(sorted(spec.tiers))
        said = prose(spec.description).replace("|", "\\|")
        out.append(f"| [`{name}`](#{name}) | {said} | {tiers} | {spec.witness or '-'} | {family} |")
    for family in sorted(by_family):
        out += ["", f"### {family}", ""]
        out += [markdown(ref.kind(name), level=4) for name in by_family[family]]
    out += ["## Case fields from plug-ins", ""]
    for name in sorted(plugins.fields, key=json_name):
        out.append(markdown(ref.field(name), level=3))
    return "\n".join(out).rstrip("\n") + "\n"
