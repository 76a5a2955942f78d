"""The transcript as written: a Trial's whole Evidence, kept by the trial log beside it.

A failed Case is understood from what happened (the prompt as sent, each Tool call and result,
denials, guard decisions, run events, each family's read-back), and a saved Sweep can be
re-scored by another plug-in set with no model and no Host (``eval rescore``). So every Trial
that got as far as Evidence records, with the Expectations it was scored by, a transcript.

Transcripts live in a side file beside the log (``LOG`` + ``.transcripts``), one JSON line
each, so the log's own lines stay small and streamable; a log line points at its transcript by
SHA-256, byte offset and size (:class:`Pointer`), and an identical transcript (a ``--repeat``
of a deterministic Case) is stored once. The Trial's system prompt, a third of an ordinary
transcript and the same for every Trial of an agent, is a line of its own (a JSON string, where
a transcript is an object), written once per side file: a transcript names it by its SHA-256
(:attr:`Transcript.prompt`), never by where it landed, so a transcript's bytes stay a function
of the Trial alone whatever order the Trials finish in, and the reader puts it back. Before it
is hashed a transcript is scrubbed of
credentials (the Sweep's :class:`~eval_core._util.redaction.Redactor`), its text made safe
(:mod:`eval_core._util.safe_text`), and a very large part capped: a string over :data:`MAX_CHARS`
characters or a list over :data:`MAX_ITEMS` items keeps its head, and :attr:`Transcript.capped`
names each cut, so a reader (and a re-score) knows the record is not whole.

A family record (``Evidence.records``) is encoded under its key
(:func:`~eval_core._case.evidence.record_key`) with the fingerprint of its type's schema
(:func:`schema_hash`); the format itself is versioned by :data:`FORMAT`. Only the writing side
is here: the Sweep writes transcripts and never reads one. The reader (decode, the record
types, the anchors a report links to) is ``eval_report.transcripts``, the package of the
commands that read them (``eval report``, ``eval rescore``, ``eval record``).
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

import msgspec
from msgspec.structs import replace

from eval_core._case.evidence import Evidence
from eval_core._recording import stored_once
from eval_core._util.safe_text import clean_value, unsafe_json

FORMAT = 3  # 2 keeps the offered Tools and the testimony's prompt once (stored_once); 3 the
# Trial's prompt once per side file (Transcript.prompt)
SUFFIX = ".transcripts"
MAX_CHARS = 256 * 1024
MAX_ITEMS = 5_000


class Capped(msgspec.Struct, frozen=True, kw_only=True):
    """One part cut when recorded: where (JSON path), how large it was, how much is kept."""

    path: str
    size: int
    kept: int


class Pointer(msgspec.Struct, frozen=True, kw_only=True):
    """Where a log line's transcript is: its SHA-256, and its bytes in the side file."""

    sha256: str
    at: int
    size: int


class Transcript(msgspec.Struct, kw_only=True, rename="camel", omit_defaults=True):
    """What one Trial observed and what it was scored by, as recorded."""

    format: int = FORMAT
    expect: list[Any]
    evidence: Evidence
    record_schemas: dict[str, str] = msgspec.field(default_factory=dict)
    capped: list[Capped] = msgspec.field(default_factory=list)
    # What is stored once (:mod:`eval_core._recording.stored_once`), restored when read.
    system_shared: list[int] = msgspec.field(default_factory=list)
    offered_shared: list[int] = msgspec.field(default_factory=list)
    testimony_shared: bool = False
    prompt: str | None = None
    """The SHA-256 of the line of the side file that holds the Trial's system prompt (a JSON
    string), when it was stored apart: ``evidence.system_prompt`` is then left out, and read
    from there."""


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


def encode(
    expect: Iterable[Any],
    evidence: Evidence,
    scrub: Callable[[bytes], bytes],
    pack: Pack | None = None,
) -> bytes:
    """The transcript of one Trial as stored: scrubbed, made safe, large parts capped; its
    system prompt stored apart in ``pack`` when the pack takes it (:meth:`Pack.prompt`)."""
    evidence, shared = stored_once.strip(evidence)
    prompt = None
    if pack is not None and evidence.system_prompt:
        prompt = pack.prompt(evidence.system_prompt, scrub)
        if prompt is not None:
            evidence = replace(evidence, system_prompt=None)  # a copy: the Trial's is unchanged
    transcript = Transcript(
        expect=list(expect),
        evidence=evidence,
        record_schemas={key: schema_hash(type(value)) for key, value in evidence.records.items()},
        system_shared=shared.system,
        offered_shared=shared.offered,
        testimony_shared=shared.testimony,
        prompt=prompt,
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


PROMPTS_KEPT = 64
"""Prompts a side file remembers having stored (then all forgotten at once, and stored again)."""


class Pack:
    """The side file, appending: each transcript one line, stored once per SHA-256, and each
    Trial's prompt a line of its own, stored once."""

    def __init__(self, path: Path, handle: IO[bytes], end: int) -> None:
        self.path = path
        self._file = handle
        self._end = end
        self._stored: dict[str, Pointer] = {}
        self._prompts: dict[str, str | None] = {}

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

    def prompt(self, text: str, scrub: Callable[[bytes], bytes]) -> str | None:
        """The SHA-256 of the line that holds ``text``, a Trial's prompt (written the first time
        it is asked for: Trials of one agent share one prompt, found again by the string itself,
        not by hashing it); ``None`` when it stays in its transcript: text that is not safe as it
        is (made safe, or capped, with the rest of the transcript there), or too long to be kept
        whole."""
        try:
            return self._prompts[text]
        except KeyError:
            pass
        digest = None
        if len(text) <= MAX_CHARS:
            try:
                data = scrub(_ENCODER.encode(text))
            except UnicodeEncodeError:  # a lone surrogate: made safe in its transcript
                data = None
            if data is not None and data[:1] == b'"' == data[-1:] and not unsafe_json(data):
                digest = self.put(data).sha256  # a line that starts with a quote: a prompt
        if len(self._prompts) >= PROMPTS_KEPT:
            self._prompts.clear()
        self._prompts[text] = digest
        return digest

    def close(self) -> None:
        self._file.close()
