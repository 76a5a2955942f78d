"""A saved Sweep read back: a trial log (with its transcripts) or a saved Scorecard.

Both commands start from what a Sweep left on disk. A trial log holds every Trial and, beside
it, every transcript; its header says enough (suite, binding, Trials planned, Cases in the
Corpus, the plug-ins' kinds) to judge the Sweep as its Scorecard did, except the price of its
calls, which only the Scorecard (or the pin) knows. A Scorecard or a Baseline holds the
verdicts and the spend, no transcript. Given both for one model, they are read as one Sweep.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import msgspec

from eval_core.records import (
    Logged,
    NotReadable,
    Pointer,
    ResumeRefused,
    Scorecard,
    is_trial_log,
    noise_floor,
    one_line,
    read_trial_log,
    transcript_pack_path,
)
from eval_release.api import BaselineError, read_saved
from eval_report.transcripts import Reader as TranscriptReader
from eval_report.transcripts import TranscriptRefused

REFUSED, COMPARISON_REFUSED = 2, 3


class Refused(Exception):  # noqa: N818 - it names an outcome
    """An input that cannot be read back, or a comparison that is never computed."""

    def __init__(self, message: str, code: int = REFUSED) -> None:
        super().__init__(message)
        self.code = code


@dataclass(slots=True)
class Saved:
    """One Sweep as saved: its Scorecard, and its trial log's transcripts when given."""

    card: Scorecard
    sources: list[Path]
    log: Logged | None = None
    reader: TranscriptReader | None = None
    corpus_commit: str = ""  # a Baseline's own (its Scorecard was saved at this commit)

    def transcripts(self) -> dict[tuple[str, int], Recorded]:
        """Every recorded transcript as stored, by (Case, Trial); refused when one cannot be
        read (a changed or cut side file, a line that is no transcript)."""
        if self.log is None or self.reader is None or self.log.pointers is None:
            return {}
        found: dict[tuple[str, int], Recorded] = {}
        seen: dict[str, Recorded] = {}
        prompts: dict[str, bytes] = {}  # a prompt stored apart, read once for its transcripts
        for trial, pointer in zip(self.log.trials, self.log.pointers, strict=True):
            if pointer is None:
                continue
            known = seen.get(pointer.sha256)
            if known is None:
                known = seen[pointer.sha256] = self._recorded(pointer, prompts)
            found[(trial.case_id, trial.trial)] = known
        return found

    def _recorded(self, pointer: Pointer, prompts: dict[str, bytes]) -> Recorded:
        assert self.reader is not None
        try:
            raw = self.reader.raw(pointer)
            head = _HEAD.decode(raw)
            named = head.prompt
            prompt = None if named is None else prompts.get(named)
            if named is not None and prompt is None:
                prompt = prompts[named] = self.reader.prompt(named)
                msgspec.json.decode(prompt, type=str)  # the page embeds it: a JSON string
        except TranscriptRefused as exc:
            raise Refused(str(exc)) from None
        except (msgspec.MsgspecError, RecursionError) as exc:
            raise Refused(
                f"{self.reader.path}: byte {pointer.at}: not a transcript ({exc})"
            ) from None
        return Recorded(pointer.sha256, raw, head.evidence.tier, named, prompt)


@dataclass(frozen=True, slots=True)
class Recorded:
    """One transcript as stored (its JSON, never re-shaped), and the tier it ran at; its
    prompt, when it was stored apart (transcript format 3), by SHA-256 and as its JSON."""

    sha256: str
    raw: bytes
    tier: str
    prompt_sha256: str | None = None
    prompt: bytes | None = None


class _Tier(msgspec.Struct):
    tier: str = "?"


class _Head(msgspec.Struct):
    evidence: _Tier
    prompt: str | None = None


_HEAD = msgspec.json.Decoder(_Head)


def is_log(path: Path) -> bool:
    """A trial log starts with a one-line Sweep header; a Scorecard is one JSON document."""
    try:
        return is_trial_log(path)
    except NotReadable as exc:
        raise Refused(f"{path}: cannot read: {exc}") from None


def read_log(path: Path) -> Saved:
    """A trial log, read by the core's reader (which refuses one of more Trials than a Sweep
    may plan before decoding any), with its transcripts when it kept them."""
    try:
        logged = read_trial_log(path)
    except ResumeRefused as exc:
        raise Refused(str(exc)) from None
    header = logged.header
    reader = None
    if header.transcripts is not None:
        try:
            reader = TranscriptReader(transcript_pack_path(path))
        except TranscriptRefused as exc:
            raise Refused(str(exc)) from None
    trials = logged.trials
    card = Scorecard(
        corpus_hash=header.corpus_hash,
        suite=header.suite or "?",
        model_id=header.model_id,
        binding=header.binding or ("scripted" if header.model_id == "scripted" else "model"),
        host=header.host or "?",
        corpus_commit=header.corpus_commit or "unknown",
        harness=dict(header.harness or {}),
        started_at=header.started_at,
        duration_ms=round(sum(t.duration_ms for t in trials), 1),
        corpus_cases=header.corpus_cases or len({t.case_id for t in trials}),
        selected=list(header.selected),
        planned=header.planned or len(trials),
        trials=trials,
        plugins=header.plugins or [],
    )
    for trial in trials:
        card.spend.add(trial.usage, 0 if card.binding == "scripted" else trial.model_calls)
    if card.binding != "scripted":
        card.spend.unpriced = card.spend.calls  # a log keeps tokens, not prices: a floor
    card.tally()
    card.noise = noise_floor(trials)
    return Saved(card=card, sources=[path], log=logged, reader=reader)


def read_card(path: Path) -> Saved:
    """A saved Scorecard, or the Scorecard inside a Baseline."""
    try:
        card, version = read_saved(path, "a Scorecard, a Baseline or a trial log")
    except BaselineError as exc:
        raise Refused(str(exc)) from None
    return Saved(card=card, sources=[path], corpus_commit=version or "")


def read_any(path: Path) -> Saved:
    return read_log(path) if is_log(path) else read_card(path)


def gather(paths: list[Path]) -> list[Saved]:
    """One Sweep per model, in the order given; a log and a Scorecard of one model are joined.

    Sweeps of different Corpora are never put side by side (exit 3); two Sweeps of one model
    are two points in time, for ``--baseline``, not a Matrix.
    """
    sweeps: list[Saved] = []
    for path in paths:
        saved = read_any(path)
        same = next((s for s in sweeps if s.card.model_id == saved.card.model_id), None)
        if same is None:
            sweeps.append(saved)
            continue
        joined = _join(same, saved)
        if joined is None:
            raise Refused(
                f"{path}: a second Sweep of model {one_line(saved.card.model_id)} (after "
                f"{same.sources[0]}): compare two Sweeps of one model with --baseline"
            )
        sweeps[sweeps.index(same)] = joined
    hashes = {s.card.corpus_hash for s in sweeps}
    if len(hashes) > 1:
        raise Refused(
            "REFUSED  no Matrix computed: different Corpora: corpusHash "
            + " vs ".join(sorted(h[:16] for h in hashes)),
            COMPARISON_REFUSED,
        )
    return sweeps


def _join(first: Saved, second: Saved) -> Saved | None:
    """A trial log and the Scorecard of the same Sweep: the Scorecard's verdicts and spend,
    the log's transcripts. ``None`` when they are not one Sweep (or both are logs)."""
    logs = [s for s in (first, second) if s.log is not None]
    cards = [s for s in (first, second) if s.log is None]
    if len(logs) != 1 or len(cards) != 1:
        return None
    log, card = logs[0], cards[0]
    if card.card.corpus_hash != log.card.corpus_hash:
        return None
    keys = {(t.case_id, t.trial) for t in card.card.trials}
    if keys != {(t.case_id, t.trial) for t in log.card.trials}:
        return None
    return Saved(
        card=card.card,
        sources=[*first.sources, *second.sources],
        log=log.log,
        reader=log.reader,
        corpus_commit=card.corpus_commit,
    )
