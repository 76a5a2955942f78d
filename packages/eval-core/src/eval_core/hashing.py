"""The hashing rule: what makes two Scorecards comparable.

``corpusHash`` is the SHA-256 of a canonical encoding (decoded values, keys sorted at every
depth, no insignificant whitespace) of everything that can change what a Case measures: the
Cases sorted by id, the resolved platform Tool declarations, the Eval Soul's hash, the
fingerprint of the plug-ins whose kinds and fields the Corpus uses (distribution, version, the
digest of their installed code and each schema, prose excluded), and the Judge's identity.
Nothing else.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

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
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def judge_identity(environ: Mapping[str, str] | None = None) -> str:
    """``no-judge``, or ``<EVAL_JUDGE_BASE_URL>|<EVAL_JUDGE_MODEL>`` when a Judge is configured."""
    env = os.environ if environ is None else environ
    url, model = env.get("EVAL_JUDGE_BASE_URL", ""), env.get("EVAL_JUDGE_MODEL", "")
    return f"{url}|{model}" if url or model else "no-judge"


def corpus_hash(
    cases: Sequence[Any],
    platform_decls: Iterable[Any],
    soul: str,
    plugins: Sequence[Mapping[str, Any]],
    judge: str,
) -> str:
    """The corpusHash of already-decoded Cases (sorted here by id, whatever the caller passed)."""
    digest = hashlib.sha256()
    digest.update(canonical(sorted(cases, key=lambda c: c.id)))
    digest.update(b"\0platform\0")
    digest.update(canonical(sorted(platform_decls, key=lambda d: d.name)))
    digest.update(b"\0soul\0")
    digest.update(soul.encode())
    digest.update(b"\0plugins\0")
    digest.update(canonical(list(plugins)))
    digest.update(b"\0judge\0")
    digest.update(judge.encode())
    return digest.hexdigest()
