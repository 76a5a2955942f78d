"""The transcript read back: a Trial's recorded Evidence, checked, decoded and typed.

The Sweep writes transcripts (``eval_core.records``: :class:`~eval_core.records.Transcript`,
its :class:`~eval_core.records.Pointer` and side file) and never reads one; what reads them is
here, beside the report: ``eval report`` (the evidence a failed Expectation links to),
``eval rescore`` (each Trial re-scored by the installed plug-ins) and ``eval record`` (a Case's
script from what a Trial did), each importing this public module.

A reader refuses what it cannot decode faithfully (:class:`TranscriptRefused`, naming it): bytes
that do not match their pointer's SHA-256, a format it does not read (:data:`READS`), a family
record whose type is not installed or whose schema changed since it was recorded.

Every place in a transcript has an anchor (:func:`anchor`, :func:`anchors`): each request, Tool
call, denial, guard decision, event and record, and the answer, so that an Expectation's
``at`` (:class:`~eval_core.records.Location`) names a target a report can open.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
from msgspec.structs import replace

from eval_core.records import (
    MAX_JSON_DEPTH,
    MAX_RECORD_BYTES,
    TRANSCRIPT_FORMAT,
    Evidence,
    Location,
    NotReadable,
    Pointer,
    TooDeep,
    Transcript,
    check_json_depth,
    read_regular,
)
from eval_core.records import transcript_schema_hash as schema_hash

READS = frozenset({1, 2, 3})  # format 1 stored nothing once, 2 no prompt apart (Transcript.prompt)
_DEPTH = 2 * MAX_JSON_DEPTH  # a transcript wraps input material (Tool outputs) a few levels deep

__all__ = [
    "READS",
    "Reader",
    "RecordTypes",
    "TranscriptRefused",
    "anchor",
    "anchors",
    "decode",
    "record_types",
    "typed",
]


class TranscriptRefused(Exception):  # noqa: N818 - it names an outcome
    """A transcript that cannot be read back faithfully: the message names what and why."""


@cache
def _decoder() -> msgspec.json.Decoder[Transcript]:
    """Made when a transcript is first read: a decoder of the whole Evidence type costs a
    millisecond to make."""
    return msgspec.json.Decoder(Transcript)


class Reader:
    """A side file read whole; :meth:`get` checks each transcript against its pointer, and
    each prompt stored apart against the SHA-256 its transcript names it by."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._data = read_regular(path, MAX_RECORD_BYTES)
        except NotReadable as exc:
            raise TranscriptRefused(f"{path}: cannot read the transcripts: {exc}") from None
        self._prompts: dict[str, bytes] | None = None

    def prompt(self, sha256: str) -> bytes:
        """The line holding the prompt whose SHA-256 is ``sha256`` (a JSON string: the only
        lines that start with a quote, found the first time one is asked for)."""
        if self._prompts is None:
            data = self._data
            starts = [0] if data.startswith(b'"') else []
            at = data.find(b'\n"')  # a transcript holds no raw line break: a line starts here
            while at >= 0:
                starts.append(at + 1)
                at = data.find(b'\n"', at + 1)
            self._prompts = {}
            for start in starts:
                end = data.find(b"\n", start)
                line = data[start:] if end < 0 else data[start:end]
                self._prompts[hashlib.sha256(line).hexdigest()] = line
        found = self._prompts.get(sha256)
        if found is None:
            raise TranscriptRefused(
                f"{self.path}: no prompt line has the SHA-256 {sha256[:16]} a transcript names "
                "(the file was changed or cut short)"
            )
        return found

    def raw(self, pointer: Pointer) -> bytes:
        data = self._data[pointer.at : pointer.at + pointer.size]
        if len(data) != pointer.size or hashlib.sha256(data).hexdigest() != pointer.sha256:
            raise TranscriptRefused(
                f"{self.path}: the transcript at byte {pointer.at} does not match its "
                f"SHA-256 {pointer.sha256[:16]} (the file was changed or cut short)"
            )
        return data

    def get(self, pointer: Pointer) -> Transcript:
        return decode(self.raw(pointer), f"{self.path}: byte {pointer.at}", self.prompt)


Prompts = Callable[[str], bytes]
"""A side file's prompt line by its SHA-256 (:meth:`Reader.prompt`)."""


def decode(data: bytes, where: str, prompts: Prompts | None = None) -> Transcript:
    """A stored transcript, its family records still plain JSON values (see :func:`typed`);
    a prompt stored apart is read from ``prompts`` (the transcript's own side file)."""
    try:
        check_json_depth(data, _DEPTH)
        transcript = _decoder().decode(data)
    except TooDeep as exc:
        raise TranscriptRefused(f"{where}: {exc.path}: {exc.reason}") from None
    except msgspec.MsgspecError as exc:
        raise TranscriptRefused(
            f"{where}: not a transcript of format {TRANSCRIPT_FORMAT} ({exc}): it was recorded "
            "by an incompatible Evidence schema"
        ) from None
    if transcript.format not in READS:
        raise TranscriptRefused(
            f"{where}: transcript format {transcript.format}, and this harness reads "
            f"{', '.join(map(str, sorted(READS)))}"
        )
    if transcript.prompt is not None:
        transcript.evidence.system_prompt = _prompt(transcript.prompt, where, prompts)
        transcript.prompt = None
    _restore(transcript)
    return transcript


def _prompt(sha256: str, where: str, prompts: Prompts | None) -> str:
    """The Trial's prompt, stored apart as a JSON string, by its line's SHA-256."""
    if prompts is None:
        raise TranscriptRefused(
            f"{where}: its prompt is stored apart in its side file (SHA-256 {sha256[:16]}), and "
            "no side file was given to read it from"
        )
    try:
        return msgspec.json.decode(prompts(sha256), type=str)
    except msgspec.MsgspecError as exc:
        raise TranscriptRefused(
            f"{where}: its prompt (SHA-256 {sha256[:16]}) is not a JSON string ({exc})"
        ) from None


def _restore(transcript: Transcript) -> None:
    """Put back, in place, what the writer stored once (``eval_core._recording.stored_once``):
    the Trial's prompt in each request that repeated it, the first request's Tools offered in
    each later one that repeated them, and the testimony's prompt."""
    evidence = transcript.evidence
    prompt, requests = evidence.system_prompt, list(evidence.model_requests or [])
    first = requests[0].offered if requests else None
    system = transcript.system_shared
    offered = transcript.offered_shared
    for i in (i for i in system if prompt is not None and 0 <= i < len(requests)):
        requests[i] = replace(requests[i], system=prompt)
    for i in (i for i in offered if first is not None and 0 < i < len(requests)):
        requests[i] = replace(requests[i], offered=first)
    if system or offered:
        evidence.model_requests = requests
    said = evidence.testimony
    if transcript.testimony_shared and said is not None and prompt is not None:
        evidence.testimony = replace(said, system_prompt=prompt)
    transcript.system_shared, transcript.offered_shared, transcript.testimony_shared = [], [], False


_WHOLE = {
    "request": "requests",
    "tool_call": "calls",
    "denial": "denials",
    "guard": "guards",
    "event": "events",
    "record": "records",
    "answer": "answer",
}


def anchor(at: Location) -> str:
    """The anchor of the place ``at`` names: one request (``request-3``, counted from 1 as a
    reader counts), one Tool call (``call-<id>``), denial, guard decision, event
    (``event-<turn>-<seq>``), record (``record-<key>``), or the whole part (``requests``)."""
    if at.part == "request" and at.index is not None:
        return f"request-{at.index + 1}"
    if at.part == "tool_call" and at.call_id is not None:
        return f"call-{at.call_id}"
    if at.part in ("denial", "guard") and at.index is not None:
        return f"{at.part}-{at.index + 1}"
    if at.part == "event" and at.turn is not None and at.seq is not None:
        return f"event-{at.turn}-{at.seq}"
    if at.part == "record" and at.record is not None:
        return f"record-{at.record}"
    return _WHOLE[at.part]


def anchors(evidence: Evidence) -> list[str]:
    """Every anchor a transcript of ``evidence`` has, in the order a report lays them out: each
    part observed (its own anchor), then each of its items; the answer always."""
    found: list[str] = []

    def part(name: str, items: list[str]) -> None:
        found.extend([_WHOLE[name], *items] if items else [])

    requests = evidence.model_requests or []
    part("request", [f"request-{i + 1}" for i in range(len(requests))])
    ids = [c.call_id for c in evidence.tool_calls or []]
    ids += [r.call_id for r in evidence.tool_results or [] if r.call_id not in ids]
    part("tool_call", [f"call-{i}" for i in dict.fromkeys(ids)])
    part("denial", [f"denial-{i + 1}" for i in range(len(evidence.denials or []))])
    part("guard", [f"guard-{i + 1}" for i in range(len(evidence.guard_decisions or []))])
    part("event", [f"event-{e.turn_index}-{e.seq}" for e in evidence.events or []])
    found.append("answer")
    part("record", [f"record-{key}" for key in sorted(evidence.records)])
    return found


RecordTypes = Callable[[str], type | None]


def record_types(packages: Iterable[str]) -> RecordTypes:
    """Find a record's type by its key, only inside ``packages`` (the installed plug-ins'
    top-level packages, and ``eval_core``): a log never names code for the reader to import."""
    allowed = frozenset(packages) | {"eval_core"}

    @cache
    def resolve(key: str) -> type | None:
        module, _, qualname = key.partition(":")
        if module.split(".")[0] not in allowed or not qualname:
            return None
        try:
            found: Any = importlib.import_module(module)
        except Exception:
            return None
        for part in qualname.split("."):
            found = getattr(found, part, None)
        return found if isinstance(found, type) else None

    return resolve


def typed(transcript: Transcript, types: RecordTypes) -> Evidence:
    """The Evidence with every family record decoded into its own type, as scorers read it.

    Refused, naming the record, when its type is not installed, or when the installed type's
    schema differs from the one it was recorded by (a scorer would misread it).
    """
    evidence = transcript.evidence
    records: dict[str, Any] = {}
    for key, raw in evidence.records.items():
        kind = types(key)
        if kind is None:
            raise TranscriptRefused(
                f"record {key}: its type is not installed (the plug-in that recorded it is "
                "missing or moved it)"
            )
        recorded, installed = transcript.record_schemas.get(key, "unknown"), schema_hash(kind)
        if recorded != installed:
            raise TranscriptRefused(
                f"record {key} was recorded by an incompatible record schema {recorded}; the "
                f"installed type has {installed}"
            )
        try:
            records[key] = msgspec.convert(raw, kind)
        except msgspec.ValidationError as exc:
            raise TranscriptRefused(
                f"record {key} does not decode as {kind.__name__}: {exc}"
            ) from None
    evidence.records = records
    return evidence
