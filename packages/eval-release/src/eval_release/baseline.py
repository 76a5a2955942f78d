"""Baselines: a promoted Scorecard that later Sweeps of the same model are compared with.

Nothing becomes the Baseline on its own. A Baseline records what it measured
(``corpusCommit``: the commit of the git tree holding the Corpus, ``-dirty`` when it had
changes) and when; it lives at a canonical path per model and suite, and per Corpus when the
Corpus is not the project's own (:func:`canonical_in`). A file that is missing,
corrupt, truncated or foreign is refused with its reason, and never overwritten by accident:
promotion always writes the canonical path, atomically.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from eval_core.commands import MAX_PLANNED_TRIALS
from eval_core.hosts import InputRefused, read_json_input
from eval_core.records import Scorecard, write_atomic

BASELINE_SCHEMA = 3
READS = (2, 3)
"""Schema 2 named the commit ``harnessVersion`` (the tree ``eval`` ran in, which was the
Corpus's when the Corpus lived in the harness's repository); it is read as the commit."""
MODEL_ID = re.compile(r"^[a-zA-Z0-9._-]+\Z")
REQUIRED = ("corpusHash", "modelId", "trials", "passed", "failed", "errored", "corpusCases")


class BaselineError(Exception):
    """A Baseline that cannot be used, with the file and the reason."""


class Baseline(msgspec.Struct, kw_only=True, rename="camel", omit_defaults=True):
    schema_version: int
    corpus_commit: str = ""
    legacy_commit: str | None = msgspec.field(default=None, name="harnessVersion")
    saved_at: str
    scorecard: Scorecard

    def __post_init__(self) -> None:
        if not self.corpus_commit:  # a schema-2 Baseline: its commit was harnessVersion
            self.corpus_commit = self.legacy_commit or "unknown"


def canonical_path(root: Path, suite: str, model_id: str) -> Path:
    """``baselines/<model>.json``, or ``baselines/red-team/<model>.json`` for the red-team suite."""
    return canonical_in(root / "baselines", suite, model_id)


def canonical_in(folder: Path, suite: str, model_id: str, corpus: str | None = None) -> Path:
    """``<folder>/<model>.json``, or ``<folder>/red-team/<model>.json`` for the red-team suite
    (``folder``: the project's Baselines folder, ``baselines`` in ``[tool.eval]``); a
    ``corpus`` other than the project's own (see :func:`corpus_key`) keys it one folder deeper,
    ``<folder>/<corpus>/<model>.json``, so two Corpora never share one model's Baseline."""
    if not MODEL_ID.fullmatch(model_id):
        raise BaselineError(f"model id {model_id!r} is not a safe file name ([a-zA-Z0-9._-]+)")
    if corpus is not None:
        if not MODEL_ID.fullmatch(corpus) or corpus in (".", "..", "red-team"):
            raise BaselineError(
                f"the Corpus directory's name {corpus!r} cannot key its Baselines (a safe file "
                "name [a-zA-Z0-9._-]+, not red-team): rename it, or make it the project's "
                "Corpus ([tool.eval] corpus)"
            )
        folder = folder / corpus
    if suite == "red-team":
        folder = folder / "red-team"
    return folder / f"{model_id}.json"


def corpus_key(corpus: Path, own: Path) -> str | None:
    """``None`` for the project's own Corpus ``own`` (its Baselines keep the paths they always
    had), else the name of ``corpus``'s directory (its root: a red-team suite is its parent's)."""
    from eval_core.hosts import corpus_root

    root, mine = corpus_root(corpus).resolve(), corpus_root(own).resolve()
    if root == mine or root == mine / "red-team":  # the project's Corpus, or its red-team suite
        return None
    return root.name


def read(path: Path, data: bytes | None = None) -> Baseline:
    """The Baseline at ``path`` (``data``: its bytes, when the caller read them already);
    refused, as :func:`read_saved` refuses, past :data:`MAX_PLANNED_TRIALS` Trials."""
    if data is None:
        if not path.exists() and not path.is_symlink():
            raise BaselineError(f"{path}: no Baseline here")
        try:
            data = read_json_input(path)
        except InputRefused as exc:
            raise BaselineError(str(exc)) from None
        _counted(path, data)
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise BaselineError(f"{path}: not a Baseline: corrupt or truncated JSON ({exc})") from None
    if not isinstance(raw, dict) or "schemaVersion" not in raw or "scorecard" not in raw:
        raise BaselineError(_what_it_is(path, raw))
    if raw["schemaVersion"] not in READS:
        raise BaselineError(
            f"{path}: Baseline schema {raw['schemaVersion']!r}; this harness reads "
            f"{' and '.join(map(str, READS))}"
        )
    card = raw["scorecard"]
    missing = [k for k in REQUIRED if not isinstance(card, dict) or k not in card]
    if missing:
        raise BaselineError(f"{path}: the Baseline's Scorecard lacks {', '.join(missing)}")
    try:
        return msgspec.convert(raw, Baseline)
    except msgspec.ValidationError as exc:
        raise BaselineError(f"{path}: not a Baseline: {exc}") from None


def read_saved(
    path: Path, expected: str = "a Scorecard or a Baseline"
) -> tuple[Scorecard, str | None]:
    """A saved Scorecard (with no commit), or the Scorecard inside a Baseline with the
    Baseline's ``corpusCommit``; :class:`BaselineError` naming the file and why (``expected``
    says what the caller reads, for that refusal).

    The Trials are counted before any is decoded (each an empty record: 24 bytes, whatever it
    holds), and a file of more than a Sweep may plan (:data:`MAX_PLANNED_TRIALS`) is refused
    in one line: no Sweep wrote it, and decoding a million Trials would take gigabytes. What
    is read is then decoded straight into the Scorecard, never into dicts first."""
    try:
        data = read_json_input(path)
    except InputRefused as exc:
        raise BaselineError(str(exc)) from None
    shape = _counted(path, data)
    if shape is not None and shape.scorecard is not None:
        base = read(path, data)
        return base.scorecard, base.corpus_commit
    try:
        return msgspec.json.decode(data, type=Scorecard), None
    except msgspec.ValidationError as exc:
        raise BaselineError(f"{path}: not {expected}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise BaselineError(f"{path}: $: corrupt or truncated JSON ({exc})") from None


def _counted(path: Path, data: bytes) -> _Shape | None:
    """What ``data`` holds, its Trials counted (not decoded); refused past
    :data:`MAX_PLANNED_TRIALS`. ``None`` when it is not even that shape: the caller's own
    decode says why."""
    try:
        shape: _Shape = msgspec.json.decode(data, type=_Shape)
    except msgspec.MsgspecError:
        return None
    where, count = (
        ("$.scorecard.trials", len(shape.scorecard.trials))
        if shape.scorecard is not None
        else ("$.trials", len(shape.trials))
    )
    if count > MAX_PLANNED_TRIALS:
        raise BaselineError(
            f"{path}: {where}: {count:,} Trials, over the {MAX_PLANNED_TRIALS:,} a Sweep may "
            "plan: no Sweep saved this (never decoded)"
        )
    return shape


class _Trial(msgspec.Struct, gc=False):
    """A Trial, counted and skipped (none of its fields is kept)."""


class _Trials(msgspec.Struct, gc=False):
    trials: list[_Trial] = []


class _Shape(msgspec.Struct, gc=False):
    """What a saved Scorecard or a Baseline is, and how many Trials it holds."""

    trials: list[_Trial] = []
    scorecard: _Trials | None = None


def is_scorecard(raw: object) -> bool:
    """A saved Scorecard (``--save``, ``--save-dir``) as decoded JSON: what a Baseline holds
    under ``scorecard``, on its own."""
    return isinstance(raw, dict) and "scorecard" not in raw and "corpusHash" in raw


def _what_it_is(path: Path, raw: object) -> str:
    """Why a file is not a Baseline, saying what it is when it is something else we know."""
    if is_scorecard(raw):
        return (
            f"{path} is a saved Scorecard, not a Baseline: promote one with --promote, or "
            "compare two Scorecards with eval compare"
        )
    if not isinstance(raw, dict):
        kind = "an array" if isinstance(raw, list) else type(raw).__name__
        return f"{path}: not a Baseline: the JSON is {kind}, not an object"
    missing = " and ".join(k for k in ("schemaVersion", "scorecard") if k not in raw)
    return f"{path}: not a Baseline: no {missing}"


def write(
    path: Path,
    card: Scorecard,
    corpus_commit: str,
    scrub: Callable[[bytes], bytes] | None = None,
) -> Baseline:
    """Write the Baseline atomically; ``scrub`` (credential redaction) sees the bytes first."""
    baseline = Baseline(
        schema_version=BASELINE_SCHEMA,
        corpus_commit=corpus_commit,
        saved_at=datetime.now(UTC).isoformat(timespec="seconds"),
        scorecard=card,
    )
    data = msgspec.json.format(msgspec.json.encode(baseline), indent=2) + b"\n"
    write_atomic(path, scrub(data) if scrub is not None else data)
    return baseline
