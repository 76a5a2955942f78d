"""Decoding: a Case file's bytes to a typed Case of the installed plug-in set, or its problems.

Limits come first (depth, YAML aliases: :mod:`eval_core._util.limits`), then msgspec decodes
straight from the JSON bytes. Only a file that does not decode is decoded again in parts, so
each Expectation's problem is said apart from the Case's, each at its JSON path, and an unknown
kind or Case field names the next step (what eval.lock pins it to, or a close match).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from eval_core._case.case import CaseBase, json_name
from eval_core._case.kinds import Expectation
from eval_core._loading.problem import Problem
from eval_core._plugins.plugin_set import PluginSet
from eval_core._util.input_files import NotReadable, read_regular
from eval_core._util.limits import TooDeep, check_json_depth, check_yaml

# Patterns of msgspec's messages, read only when a Case is refused: compiled on first use (by
# the re module's cache), not by every command's start-up.
_UNKNOWN_FIELD = r"^Object contains unknown field `(?P<name>[^`]*)`$"
_AT = r"^(?P<reason>.*?)(?: - at `(?P<path>[^`]*)`)?$"
_AT_BYTE = r"^(?:JSON is malformed: )?(?P<reason>.*?) \(byte (?P<at>\d+)\)$"


class Decoder:
    """Decodes Case documents into one plug-in set's Case type. ``unknown`` records that a
    kind or Case field no installed plug-in provides was met, so the refusal's note on what
    to do about it is said once."""

    def __init__(self, plugins: PluginSet, locked: Mapping[str, str] | None = None) -> None:
        self.plugins = plugins
        self.case_type = plugins.case_type
        self.unknown = False
        self._json = msgspec.json.Decoder(self.case_type)
        self._kind_union: Any = self.case_type.__annotations__.get("expect")
        held = [manifest for _, manifest in plugins.pending.values()]  # known, not imported
        self._known_kinds = sorted({*plugins.kinds, *(k for m in held for k in m.kinds)})
        self._known_fields = sorted(
            {json_name(f) for f in [*plugins.fields, *(f for m in held for f in m.fields)]}
        )
        self._locked = dict(locked or {})

    def file(
        self, path: Path, data: bytes | NotReadable | None = None
    ) -> tuple[CaseBase | None, list[Problem]]:
        """One Case file, read now unless ``data`` holds its bytes: the Case, or why not."""
        file = str(path)
        if data is None:
            data = read(path)
        if isinstance(data, NotReadable):
            return None, [Problem(file, "$", str(data))]
        limited = _limit_problem(path, data)
        if limited is not None:
            return None, [limited]
        if path.suffix == ".json":
            try:
                return self._json.decode(data), []
            except msgspec.ValidationError:
                pass
            except msgspec.DecodeError as exc:
                return None, [json_problem(file, data, exc)]
        raw, problem = _raw(path, data)
        if problem is not None:
            return None, [problem]
        return self.detailed(file, raw)

    def detailed(self, file: str, raw: Any) -> tuple[CaseBase | None, list[Problem]]:
        """Convert a raw value, reporting each Expectation's problem apart from the Case's."""
        if not isinstance(raw, dict):
            return None, [Problem(file, "$", f"a Case must be an object, not {_type(raw)}")]
        try:
            return msgspec.convert(raw, self.case_type, str_keys=True), []
        except msgspec.ValidationError:
            pass
        problems: list[Problem] = []
        expect = raw.get("expect")
        if isinstance(expect, list):
            for index, item in enumerate(expect):
                try:
                    msgspec.convert(item, self._kind_item_type(), str_keys=True)
                except msgspec.ValidationError as exc:
                    problems.append(self._kind_problem(file, exc, f"$.expect[{index}]", item))
            rest = {**raw, "expect": []}
        else:
            rest = raw
        try:
            msgspec.convert(rest, self.case_type, str_keys=True)
        except msgspec.ValidationError as exc:
            problems.append(self._field_problem(_validation_problem(file, exc)))
        if not problems:  # defensive: the parts passed but the whole did not
            problems.append(Problem(file, "$", "the Case does not decode"))
        return None, problems

    def _kind_item_type(self) -> Any:
        union = self._kind_union
        return getattr(union, "__args__", (Expectation,))[0]

    def _kind_problem(
        self, file: str, exc: msgspec.ValidationError, prefix: str, item: Any
    ) -> Problem:
        problem = _validation_problem(file, exc, prefix)
        if problem.path == f"{prefix}.kind" and isinstance(item, dict):
            kind = item.get("kind")
            self.unknown = True
            return Problem(file, problem.path, self._unknown_reason("kind", kind))
        if "missing required field `kind`" in problem.reason:
            return Problem(file, f"{prefix}.kind", "missing kind: every Expectation names its kind")
        return problem

    def _field_problem(self, problem: Problem) -> Problem:
        """msgspec's "unknown field" at the top of a Case, said as an unknown Case field."""
        match = re.match(_UNKNOWN_FIELD, problem.reason)
        if match is None or problem.path != "$":
            return problem
        self.unknown = True
        return Problem(
            problem.file, f"$.{match['name']}", self._unknown_reason("Case field", match["name"])
        )

    def _unknown_reason(self, what: str, name: Any) -> str:
        """Why a kind or field is unknown, and the next step: install what eval.lock pins it
        to, or a close match among the installed ones."""
        owner = self._locked.get(str(name))
        if owner is not None:
            return (
                f"unknown {what} {name!r}: eval.lock pins it to {owner}, which is not installed "
                f"(install {owner.replace(' ', '==')})"
            )
        known = self._known_kinds if what == "kind" else self._known_fields
        close = difflib.get_close_matches(str(name), known, n=1, cutoff=0.8)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"unknown {what} {name!r}: no installed plug-in provides it{hint}"


def read(path: str | Path) -> bytes | NotReadable:
    """A Case file's bytes, or why they cannot be read (a problem, never an exception)."""
    try:
        return read_regular(path)
    except NotReadable as exc:
        return exc


def _validation_problem(file: str, exc: msgspec.MsgspecError, prefix: str = "$") -> Problem:
    """Split msgspec's message into (path, reason); re-root it under ``prefix``."""
    match = re.match(_AT, str(exc), re.DOTALL)
    assert match is not None
    reason, path = match["reason"], match["path"] or "$"
    return Problem(file, prefix + path[1:], reason)


def _limit_problem(path: Path, data: bytes) -> Problem | None:
    """Depth, and YAML aliases, checked before anything is decoded (see :mod:`limits`)."""
    file = str(path)
    if path.suffix == ".json":
        try:
            check_json_depth(data)
        except TooDeep as exc:
            return Problem(file, exc.path, exc.reason)
        return None
    import yaml

    try:
        check_yaml(data)
    except TooDeep as exc:
        return Problem(file, exc.path, exc.reason)
    except yaml.YAMLError as exc:
        return Problem(file, "$", f"not valid YAML: {exc}")
    return None


def _raw(path: Path, data: bytes) -> tuple[Any, Problem | None]:
    file = str(path)
    if path.suffix == ".json":
        try:
            return msgspec.json.decode(data), None
        except msgspec.DecodeError as exc:
            return None, json_problem(file, data, exc)
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(data, Loader=loader), None
    except yaml.YAMLError as exc:
        return None, Problem(file, "$", f"not valid YAML: {exc}")
    except (ValueError, OverflowError) as exc:  # a value the constructor cannot build
        return None, Problem(file, "$", f"not valid YAML: {exc}")


def json_problem(file: str, data: bytes, exc: msgspec.DecodeError) -> Problem:
    """JSON that does not parse, said where it breaks (line and column, from 1, the column
    in characters) and why: msgspec names the byte, or says the input was cut short (the
    place is then just after the file's last character that is not white space)."""
    message = str(exc)
    match = re.match(_AT_BYTE, message)
    if match is not None:
        at, reason = min(int(match["at"]), len(data)), match["reason"]
    elif "truncated" in message:
        at = len(data.rstrip())  # just after the last of it, not after trailing blank lines
        reason = (
            "the file is empty"
            if not data.strip()
            else "the file ends before the JSON does (truncated: an object, array or string "
            "is left open)"
        )
    else:
        at, reason = 0, message
    line = data.count(b"\n", 0, at) + 1
    start = data.rfind(b"\n", 0, at) + 1
    column = len(data[start:at].decode("utf-8", errors="replace")) + 1
    return Problem(file, "$", f"not valid JSON: {reason}", line=line, column=column)


def _type(value: Any) -> str:
    return {dict: "object", list: "an array", str: "a string", type(None): "null"}.get(
        type(value), type(value).__name__
    )
