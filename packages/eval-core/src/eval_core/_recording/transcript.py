"""The transcript: a Trial's whole Evidence as the trial log keeps it, and read back by type.

A failed Case is understood from what happened (the prompt as sent, each Tool call and result,
denials, guard decisions, run events, each family's read-back), and a saved Sweep can be
re-scored by another plug-in set with no model and no Host (``eval rescore``). So every Trial
that got as far as Evidence records, with the Expectations it was scored by, a transcript.

Transcripts live in a side file beside the log (``LOG`` + ``.transcripts``), one JSON line
each, so the log's own lines stay small and streamable; a log line points at its transcript by
SHA-256, byte offset and size (:class:`Pointer`), and an identical transcript (a ``--repeat``
of a deterministic Case) is stored once. Before it is hashed a transcript is scrubbed of
credentials (the Sweep's :class:`~eval_core._util.redaction.Redactor`), its text made safe
(:mod:`eval_core._util.safe_text`), and a very large part capped: a string over :data:`MAX_CHARS`
characters or a list over :data:`MAX_ITEMS` items keeps its head, and :attr:`Transcript.capped`
names each cut, so a reader (and a re-score) knows the record is not whole.

A family record (``Evidence.records``) is encoded under its key
(:func:`~eval_core._case.evidence.record_key`) with the fingerprint of its type's schema, and
decoded
back into that type only from the installed plug-ins' own packages; the format itself is
versioned by :data:`FORMAT`. A reader refuses what it cannot decode faithfully, naming it.

Every place in a transcript has an anchor (:func:`anchor`, :func:`anchors`): each request, Tool
call, denial, guard decision, event and record, and the answer, so that an Expectation's
``at`` (:class:`~eval_core._case.evidence.Location`) names a target a report can open.
"""

from __future__ import annotations

import errno
import hashlib
import importlib
import os
import stat
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import IO, Any

import msgspec

from eval_core._case.evidence import Evidence, Location
from eval_core._recording import stored_once
from eval_core._util.input_files import MAX_RECORD_BYTES, NotReadable, read_regular
from eval_core._util.limits import MAX_DEPTH, TooDeep, check_json_depth
from eval_core._util.safe_text import clean_value, unsafe_json

FORMAT = 2  # 2 keeps the offered Tools and the testimony's prompt once (stored_once)
READS = frozenset({1, 2})  # a format-1 transcript simply has nothing stored once but the prompt
SUFFIX = ".transcripts"
MAX_CHARS = 256 * 1024
MAX_ITEMS = 5_000
_DEPTH = 2 * MAX_DEPTH  # a transcript wraps input material (Tool outputs) a few levels deep


class Capped(msgspec.Struct, frozen=True, kw_only=True):
    """One part cut when recorded: where (JSON path), how large it was, how much is kept."""

    path: str
    size: int
    kept: int


class Transcript(msgspec.Struct, kw_only=True, rename="camel", omit_defaults=True):
    """What one Trial observed and what it was scored by, as recorded."""

    format: int = FORMAT
    expect: list[Any]
    evidence: Evidence
    record_schemas: dict[str, str] = msgspec.field(default_factory=dict)
    capped: list[Capped] = msgspec.field(default_factory=list)
    # What is stored once (:mod:`eval_core._recording.stored_once`), restored by :func:`decode`.
    system_shared: list[int] = msgspec.field(default_factory=list)
    offered_shared: list[int] = msgspec.field(default_factory=list)
    testimony_shared: bool = False


class Pointer(msgspec.Struct, frozen=True, kw_only=True):
    """Where a log line's transcript is: its SHA-256, and its bytes in the side file."""

    sha256: str
    at: int
    size: int


class TranscriptRefused(Exception):  # noqa: N818 - it names an outcome
    """A transcript that cannot be read back faithfully: the message names what and why."""


def pack_path(log: Path) -> Path:
    """The side file of the trial log ``log``."""
    return log.with_name(log.name + SUFFIX)


_SCHEMAS: dict[type, str] = {}


def schema_hash(kind: type) -> str:
    """A short fingerprint of a type's JSON Schema: a record decodes only into its own."""
    found = _SCHEMAS.get(kind)
    if found is None:
        try:
            schema = msgspec.json.schema(kind)
        except (TypeError, ValueError):
            found = "unknown"
        else:
            found = hashlib.sha256(msgspec.json.encode(schema, order="sorted")).hexdigest()[:16]
        _SCHEMAS[kind] = found
    return found


def evidence_schema() -> str:
    """:func:`schema_hash` of :class:`Evidence`, which every trial log's header records: kept
    in the cache directory under the interpreter, msgspec and the core's code
    (:func:`~eval_core._util.cache_key.common`; deriving it costs a Sweep ~5 ms)."""
    from eval_core._util import cache_entry, cache_use, cachedir
    from eval_core._util.cache_key import common
    from eval_core._util.cachedir import cache_dir

    if not cachedir.enabled():
        cache_use.note("evidence-schema", "off")
        return schema_hash(Evidence)
    name = hashlib.sha256(msgspec.json.encode(common())).hexdigest()[:32]
    path = cache_dir() / "schemas" / f"evidence-{name}"
    kept = cache_entry.read_entry(path, 64) or b""
    if len(kept) == 16 and all(c in b"0123456789abcdef" for c in kept):
        cache_use.note("evidence-schema", "hit")
        return kept.decode("ascii")
    cache_use.note("evidence-schema", "miss")
    found = schema_hash(Evidence)
    cache_entry.write_entry(path, found.encode("ascii"))
    return found


def _opaque(value: Any) -> str:
    return f"<{type(value).__name__}: not encodable>"


_ENCODER = msgspec.json.Encoder(enc_hook=_opaque)


@cache
def _decoder() -> msgspec.json.Decoder[Transcript]:
    """Made when a transcript is first read: a Sweep only writes them, and a decoder of the
    whole Evidence type costs a millisecond to make."""
    return msgspec.json.Decoder(Transcript)


def encode(expect: Iterable[Any], evidence: Evidence, scrub: Callable[[bytes], bytes]) -> bytes:
    """The transcript of one Trial as stored: scrubbed, made safe, large parts capped."""
    evidence, shared = stored_once.strip(evidence)
    transcript = Transcript(
        expect=list(expect),
        evidence=evidence,
        record_schemas={key: schema_hash(type(value)) for key, value in evidence.records.items()},
        system_shared=shared.system,
        offered_shared=shared.offered,
        testimony_shared=shared.testimony,
    )
    try:
        data = scrub(_ENCODER.encode(transcript))
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 exists for it
        plain = clean_value(msgspec.to_builtins(transcript, enc_hook=_opaque))
        data = scrub(_ENCODER.encode(plain))
    if len(data) <= MAX_CHARS and not unsafe_json(data):
        return data  # the common case: one encode, a few fast scans
    value = clean_value(msgspec.json.decode(data))
    cuts: list[Capped] = []
    value = _cap(value, "$", cuts)
    if cuts:
        value["capped"] = msgspec.to_builtins(cuts)
    return _ENCODER.encode(value)


def _cap(value: Any, path: str, cuts: list[Capped]) -> Any:
    if isinstance(value, str):
        if len(value) <= MAX_CHARS:
            return value
        cuts.append(Capped(path=path, size=len(value), kept=MAX_CHARS))
        return value[:MAX_CHARS] + f" [capped: {len(value)} characters, the first {MAX_CHARS} kept]"
    if isinstance(value, list):
        if len(value) > MAX_ITEMS:
            cuts.append(Capped(path=path, size=len(value), kept=MAX_ITEMS))
            value = value[:MAX_ITEMS]
        return [_cap(v, f"{path}[{i}]", cuts) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _cap(v, f"{path}.{k}", cuts) for k, v in value.items()}
    return value


class Pack:
    """The side file, appending: each transcript one line, stored once per SHA-256."""

    def __init__(self, path: Path, handle: IO[bytes], end: int) -> None:
        self.path = path
        self._file = handle
        self._end = end
        self._stored: dict[str, Pointer] = {}

    @classmethod
    def create(cls, path: Path) -> Pack:
        """A new side file; ``FileExistsError`` if anything is there."""
        return cls(path, path.open("xb"), 0)

    @classmethod
    def resume(cls, path: Path) -> Pack:
        """Append to ``path`` (made if missing); a torn tail is unreferenced, and stays so.
        Never through a link and never to anything but a regular file (``OSError``): a named
        pipe would block the Sweep, a link would send the Evidence wherever it points."""
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
        descriptor = os.open(path, flags, 0o644)
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            os.close(descriptor)
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.set_blocking(descriptor, True)
        handle = os.fdopen(descriptor, "ab")
        return cls(path, handle, handle.seek(0, 2))

    def put(self, data: bytes) -> Pointer:
        """Store ``data`` (once) and say where it is; flushed before the log line is written."""
        digest = hashlib.sha256(data).hexdigest()
        known = self._stored.get(digest)
        if known is not None:
            return known
        self._file.write(data + b"\n")
        self._file.flush()
        pointer = Pointer(sha256=digest, at=self._end, size=len(data))
        self._end += len(data) + 1
        self._stored[digest] = pointer
        return pointer

    def close(self) -> None:
        self._file.close()


class Reader:
    """A side file read whole; :meth:`get` checks each transcript against its pointer."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._data = read_regular(path, MAX_RECORD_BYTES)
        except NotReadable as exc:
            raise TranscriptRefused(f"{path}: cannot read the transcripts: {exc}") from None

    def raw(self, pointer: Pointer) -> bytes:
        data = self._data[pointer.at : pointer.at + pointer.size]
        if len(data) != pointer.size or hashlib.sha256(data).hexdigest() != pointer.sha256:
            raise TranscriptRefused(
                f"{self.path}: the transcript at byte {pointer.at} does not match its "
                f"SHA-256 {pointer.sha256[:16]} (the file was changed or cut short)"
            )
        return data

    def get(self, pointer: Pointer) -> Transcript:
        return decode(self.raw(pointer), f"{self.path}: byte {pointer.at}")


def decode(data: bytes, where: str) -> Transcript:
    """A stored transcript, its family records still plain JSON values (see :func:`typed`)."""
    try:
        check_json_depth(data, _DEPTH)
        transcript = _decoder().decode(data)
    except TooDeep as exc:
        raise TranscriptRefused(f"{where}: {exc.path}: {exc.reason}") from None
    except msgspec.MsgspecError as exc:
        raise TranscriptRefused(
            f"{where}: not a transcript of format {FORMAT} ({exc}): it was recorded by an "
            "incompatible Evidence schema"
        ) from None
    if transcript.format not in READS:
        raise TranscriptRefused(
            f"{where}: transcript format {transcript.format}, and this harness reads "
            f"{', '.join(map(str, sorted(READS)))}"
        )
    shared = stored_once.Shared(
        system=transcript.system_shared,
        offered=transcript.offered_shared,
        testimony=transcript.testimony_shared,
    )
    stored_once.restore(transcript.evidence, shared)
    transcript.system_shared, transcript.offered_shared, transcript.testimony_shared = [], [], False
    return transcript


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
