"""The hashing rule: what makes two Scorecards comparable.

``corpusHash`` is the SHA-256 of a canonical encoding (decoded values, keys sorted at every
depth, no insignificant whitespace) of everything that can change what a Case measures: the
Cases sorted by id, the resolved platform Tool declarations, the Eval Soul's hash, the
fingerprint of the plug-ins whose kinds and fields the Corpus uses (distribution, version, the
digest of their installed code and each schema, prose excluded), and the Judge's identity.
Nothing else.

Each Case's own digest (:func:`case_digests`) is recorded beside it, in the Scorecard: never
a unit of comparability, only the way a refused comparison names the Cases that differ.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from eval_core._util.input_files import NotReadable, read_regular

_ENCODER = msgspec.json.Encoder(order="sorted")


def canonical(value: Any) -> bytes:
    """Compact JSON with keys sorted at every depth; defaults omitted by the Structs themselves."""
    return _ENCODER.encode(value)


def soul_hash(soul_dir: Path) -> str:
    """SHA-256 over the Soul's files sorted by ``/``-path: each path, NUL, its bytes, NUL."""
    digest = hashlib.sha256()
    files = sorted(
        (p.relative_to(soul_dir).as_posix(), p) for p in soul_dir.rglob("*") if p.is_file()
    )
    for rel, path in files:
        digest.update(rel.encode())
        digest.update(b"\0")
        try:  # the bounded reader: a file the Host would refuse is hashed as its reason
            digest.update(read_regular(path))
        except NotReadable as exc:
            digest.update(f"unreadable: {exc}".encode())
        digest.update(b"\0")
    return digest.hexdigest()


def judge_identity(environ: Mapping[str, str] | None = None) -> str:
    """``no-judge``, or ``<EVAL_JUDGE_BASE_URL>|<EVAL_JUDGE_MODEL>`` when a Judge is configured."""
    env = os.environ if environ is None else environ
    url, model = env.get("EVAL_JUDGE_BASE_URL", ""), env.get("EVAL_JUDGE_MODEL", "")
    return f"{url}|{model}" if url or model else "no-judge"


CASE_DIGEST = 16
"""Hex digits kept of a Case's SHA-256: enough to tell that a Case changed, short enough that
a Scorecard of 10,000 Cases stays small. A Case digest is never what makes two Scorecards
comparable (corpusHash is)."""


def case_digests(cases: Iterable[Any]) -> dict[str, str]:
    """Each Case's digest by id: the SHA-256 of its canonical encoding, as it enters the
    corpusHash, cut to :data:`CASE_DIGEST` hex digits."""
    return {case.id: hashlib.sha256(canonical(case)).hexdigest()[:CASE_DIGEST] for case in cases}


def encoded(case: Any) -> tuple[bytes, str]:
    """A Case's canonical encoding, as it enters the corpusHash, and that encoding's SHA-256."""
    data = canonical(case)
    return data, hashlib.sha256(data).hexdigest()


def corpus_hash(
    cases: Sequence[Any],
    platform_decls: Iterable[Any],
    soul: str,
    plugins: Sequence[Mapping[str, Any]],
    judge: str,
    per_case: dict[str, str] | None = None,
    made: Mapping[str, tuple[bytes, str]] | None = None,
) -> str:
    """The corpusHash of already-decoded Cases (sorted here by id, whatever the caller passed).

    ``per_case``, when given, receives each Case's digest by id (see :func:`case_digests`): the
    Cases are encoded one by one and joined as the canonical encoding of their list would be,
    so the corpusHash is the same either way and the digests cost no second encoding. ``made``
    holds, by id, what :func:`encoded` made of those Cases already (the loader's).
    """
    ordered = sorted(cases, key=lambda c: c.id)
    if made is not None:
        pairs = [made.get(case.id) or encoded(case) for case in ordered]
        encodings = [data for data, _ in pairs]
        if per_case is not None:
            per_case.update(
                (case.id, full[:CASE_DIGEST])
                for case, (_, full) in zip(ordered, pairs, strict=True)
            )
    else:
        encodings = [canonical(case) for case in ordered]
        if per_case is not None:
            per_case.update(
                (case.id, hashlib.sha256(data).hexdigest()[:CASE_DIGEST])
                for case, data in zip(ordered, encodings, strict=True)
            )
    digest = hashlib.sha256()
    digest.update(b"[" + b",".join(encodings) + b"]")  # == canonical(ordered), byte for byte
    digest.update(b"\0platform\0")
    digest.update(canonical(sorted(platform_decls, key=lambda d: d.name)))
    digest.update(b"\0soul\0")
    digest.update(soul.encode())
    digest.update(b"\0plugins\0")
    digest.update(canonical(list(plugins)))
    digest.update(b"\0judge\0")
    digest.update(judge.encode())
    return digest.hexdigest()
