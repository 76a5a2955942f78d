"""Recording: a real-model Sweep's Trials written back into their Case files as scripts.

``eval record`` runs the Cases as ``eval sweep --model`` does (the same pins, token ceiling,
spend rules, Host and executor: it *is* that Sweep, its Scorecard on stdout and its trial log
kept), then records from that log exactly as ``eval record --from-log LOG`` does from a saved
one, with no model call. For each Case, one Trial is recorded: the first that passed; with
``--allow-failed`` the first that failed when none passed (the command names the Expectations
it failed); an errored Trial never. The new Case is checked by the loader before it is written
(Tool names against the Host, grounding, the script's rules): a Case that would not load is not
written, its problems listed.
"""

from __future__ import annotations

import difflib
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import msgspec

from eval_core.commands import Opened, Refused, locked_owners, open_corpus
from eval_core.records import (
    CaseBase,
    Corpus,
    Evidence,
    Loader,
    NotReadable,
    Pointer,
    ResumeRefused,
    TrialResult,
    agents_owned,
    clean,
    json_name,
    one_line,
    read_regular,
    transcript_pack_path,
    transcript_schema_hash,
    write_atomic,
)
from eval_core.records import read_trial_log as read_log
from eval_record.rewrite import RewriteRefused, rewrite
from eval_record.script import NotRecordable, as_json, recorded_of, script_of, tool_results_of
from eval_report.transcripts import READS as TRANSCRIPT_READS
from eval_report.transcripts import Reader as TranscriptReader
from eval_report.transcripts import TranscriptRefused

RECORDED, NOT_RECORDED, REFUSED = 0, 1, 2


class RecordRefused(Exception):  # noqa: N818 - it names an outcome
    """Nothing can be recorded (a log without transcripts, another Corpus): one line, exit 2."""

    def __init__(self, message: str, code: int = REFUSED) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Outcome:
    """What became of each Case asked for: recorded, skipped (and why) or refused."""

    recorded: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    @property
    def code(self) -> int:
        if self.refused:
            return REFUSED
        return NOT_RECORDED if self.skipped else RECORDED


@dataclass(frozen=True)
class Asked:
    """What to record from a log: which Cases (empty: every Case the log holds), whether a
    failed Trial may be, which Tools' results to write as ``toolResults``, and whether each
    script's diff is printed."""

    cases: tuple[str, ...] = ()
    allow_failed: bool = False
    tool_results: bool = False
    diff: bool = True


@dataclass(frozen=True)
class _Recording:
    """What every Case's recording from one log shares: the Corpus, the log's header and its
    transcripts, the loader that checks each rewritten Case, what was asked, and the date."""

    corpus: Corpus
    header: Any
    reader: TranscriptReader
    loader: Loader
    asked: Asked
    date: str


def from_log(log: Path, opened: Opened, asked: Asked, out: IO[str] | None = None) -> Outcome:
    """Record the Cases of ``opened`` from the trial log ``log``; each line of what happened
    goes to ``out``."""
    say: Callable[[str], object] = (out or sys.stdout).write
    logged, reader = _read(log)
    header = logged.header
    corpus = opened.corpus
    if header.binding == "scripted" or header.model_id == "scripted":
        raise RecordRefused(
            f"{log}: a Sweep of the scripted binding: its replies are the Cases' own scripts, "
            "there is nothing to record (sweep with --model, or eval record --model)"
        )
    if header.corpus_hash != corpus.hash:
        raise RecordRefused(
            f"{log}: swept a Corpus of another corpusHash ({header.corpus_hash[:16]}; "
            f"{corpus.directory} is {corpus.hash[:16]} now): record from a Sweep of this Corpus"
        )
    if header.host is not None and header.host != opened.host.name:
        raise RecordRefused(
            f"{log}: swept through the Host {header.host!r}, not {opened.host.name!r}: "
            f"give --host {header.host}"
        )
    trials = _by_case(logged.trials, logged.pointers or [])
    wanted = list(asked.cases) or [c.id for c in corpus.cases if c.id in trials]
    loader = Loader(
        opened.plugins,
        opened.host,
        locked=locked_owners(corpus.directory),
        needs_soul=not agents_owned(opened.plugins.hosts[opened.host.name]),
    )
    outcome = Outcome()
    date = datetime.now(UTC).strftime("%Y-%m-%d")
    recording = _Recording(corpus, header, reader, loader, asked, date)
    for case_id in wanted:
        kind, lines = _one(case_id, trials.get(case_id, []), recording)
        getattr(outcome, kind).append(case_id)
        for line in lines:
            say(line + "\n")
    say(
        f"{len(outcome.recorded)} recorded, {len(outcome.skipped)} not recorded, "
        f"{len(outcome.refused)} refused  (from {log})\n"
    )
    return outcome


def _read(log: Path) -> tuple[Any, TranscriptReader]:
    try:
        logged = read_log(log)
    except ResumeRefused as exc:
        raise RecordRefused(str(exc)) from None
    header = logged.header
    if header.transcripts is None or logged.pointers is None:
        raise RecordRefused(f"{log}: the log records no transcripts: no replies to record")
    if header.transcripts not in TRANSCRIPT_READS:
        raise RecordRefused(
            f"{log}: transcript format {header.transcripts}; this harness reads "
            f"{', '.join(map(str, sorted(TRANSCRIPT_READS)))}"
        )
    if header.evidence_schema != transcript_schema_hash(Evidence):
        raise RecordRefused(
            f"{log}: its Evidence was recorded by another harness (Evidence "
            f"{header.evidence_schema}; this one has {transcript_schema_hash(Evidence)}): its "
            "replies cannot be read back faithfully"
        )
    return logged, TranscriptReader(transcript_pack_path(log))


Found = list[tuple[TrialResult, Pointer | None]]


def _by_case(trials: Sequence[TrialResult], pointers: Sequence[Pointer | None]) -> dict[str, Found]:
    found: dict[str, Found] = {}
    for trial, pointer in zip(trials, pointers, strict=True):
        found.setdefault(trial.case_id, []).append((trial, pointer))
    return found


def chosen(trials: Found, allow_failed: bool) -> tuple[TrialResult | None, str]:
    """The Trial to record, or why none is: the first that passed; with ``allow_failed`` the
    first that failed or went unexercised when none passed; never one that errored."""
    if not trials:
        return None, "the log has no Trial of it"
    for trial, pointer in trials:
        if trial.outcome == "passed" and not trial.vacuous and pointer is not None:
            return trial, ""
    failing = [t for t, p in trials if t.outcome in ("failed", "unexercised") and p is not None]
    errored = [t for t, _ in trials if t.outcome == "errored"]
    if failing and allow_failed:
        return failing[0], ""
    if failing:
        return None, f"it did not pass ({_failures(failing[0])}): --allow-failed records it"
    if errored:
        return None, f"it errored ({one_line(errored[0].error or '')}): never recorded"
    return None, "no Trial of it reached Evidence"


def _failures(trial: TrialResult) -> str:
    failed = [f"{r.kind}: {r.detail}" for r in trial.expectations if not r.passed]
    failed += [f"testimony contradicts a witness: {line}" for line in trial.contradictions]
    if trial.outcome == "unexercised":
        failed.append(f"unexercised: {trial.unexercised}")
    return one_line("; ".join(failed) or trial.outcome)


def _one(case_id: str, trials: Found, recording: _Recording) -> tuple[str, list[str]]:
    """Record one Case: ``("recorded" | "skipped" | "refused", lines to print)``."""
    corpus, reader, loader = recording.corpus, recording.reader, recording.loader
    asked, header = recording.asked, recording.header
    name = one_line(case_id)
    path = corpus.file(case_id)
    if path is None:
        return "refused", [f"REFUSED  {name}: no Case of {corpus.directory} has this id"]
    if path.stem != case_id:
        return "skipped", [f"SKIPPED  {name}: a variant of {path.name}: record its source Case"]
    trial, why = chosen(trials, asked.allow_failed)
    if trial is None:
        return "skipped", [f"SKIPPED  {name}: {why}"]
    pointer = dict((id(t), p) for t, p in trials)[id(trial)]
    assert pointer is not None
    try:
        stored = reader.get(pointer)
    except TranscriptRefused as exc:
        return "refused", [f"REFUSED  {name}: {exc}"]
    if stored.capped:
        cut = ", ".join(c.path for c in stored.capped)
        return "skipped", [f"SKIPPED  {name}: its Evidence was capped when logged ({cut})"]
    try:
        data = read_regular(path)
    except NotReadable as exc:
        return "refused", [f"REFUSED  {name}: {path}: {one_line(str(exc))}"]
    case, problems = loader.load_file(path, data)  # as it is now: its limits checked again
    if case is None or problems:
        lines = [f"REFUSED  {name}: {path} does not load as it is now:"]
        return "refused", lines + [f"     {one_line(str(p))}" for p in problems]
    own = _scripted_elsewhere(case, loader)
    if own is not None:
        return "skipped", [
            f"SKIPPED  {name}: its {own!r} scripts replies of its own (a later Turn's script): "
            "a recording is one script, so this Case is scripted by hand"
        ]
    try:
        changes = _changes(case, stored.evidence, trial, recording)
    except NotRecordable as exc:
        return "skipped", [f"SKIPPED  {name}: {exc}"]
    try:
        new = rewrite(path, data, changes)
    except RewriteRefused as exc:
        return "refused", [f"REFUSED  {name}: {path}: {one_line(str(exc))}"]
    _, problems = loader.load_file(path, new)
    if problems:
        lines = [f"REFUSED  {name}: the recorded Case would not load, so it is not written:"]
        lines += [f"     {one_line(str(p))}" for p in problems]
        return "refused", lines
    try:
        write_atomic(path, new)
    except OSError as exc:
        return "refused", [f"REFUSED  {name}: {path} could not be written: {exc.strerror}"]
    steps = len(changes["script"])
    verdict = {"passed": "PASS", "failed": "FAIL", "unexercised": "UNEX"}[trial.outcome]
    lines = [f"RECORDED {name}  {steps} step(s) from {header.model_id} ({verdict})  -> {path}"]
    if trial.outcome != "passed":
        lines.append(f"     recorded a Trial that did not pass: {_failures(trial)}")
    if asked.diff:
        lines += _diff(case, changes["script"])
    return "recorded", lines


def _scripted_elsewhere(case: CaseBase, loader: Loader) -> str | None:
    """The JSON name of a plug-in field of the Case that holds a script of its own (a
    journey's later Turn), which a replay switches to: one recorded script cannot stand for
    it."""
    for name in loader.plugins.fields:
        value = case.field(name)
        if value is not None and _has_script(msgspec.to_builtins(value)):
            return json_name(name)
    return None


def _has_script(value: Any) -> bool:
    if isinstance(value, dict):
        return "script" in value or any(_has_script(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_script(v) for v in value)
    return False


def _changes(
    case: CaseBase, evidence: Evidence, trial: TrialResult, recording: _Recording
) -> dict[str, Any]:
    header = recording.header
    changes: dict[str, Any] = {
        "script": as_json(script_of(evidence)),
        "recorded": as_json(
            recorded_of(evidence, header.model_id, recording.date, trial.model_version, header.host)
        ),
    }
    if recording.asked.tool_results:
        names = frozenset(
            [t.name for t in case.tools]
            + list(case.platform_tools)
            + [r.name for r in case.tool_results]
        )
        fresh = tool_results_of(evidence, names)
        replaced = {r.name for r in fresh}
        kept = [r for r in case.tool_results if r.name not in replaced]
        changes["toolResults"] = as_json([*kept, *fresh])
    return changes


def _diff(case: CaseBase, script: Any) -> list[str]:
    """The script's change, as a unified diff of its JSON (a new script: its step count)."""
    if case.script is None:
        return []
    before = json.dumps(as_json(case.script), indent=2, ensure_ascii=False).splitlines()
    after = json.dumps(script, indent=2, ensure_ascii=False).splitlines()
    diff = list(
        difflib.unified_diff(
            before, after, f"{case.id} script (before)", f"{case.id} script (recorded)", lineterm=""
        )
    )
    return [f"     {clean(line)}" for line in diff] if diff else ["     (script unchanged)"]


def opened_corpus(
    corpus: Path, host: str, unlocked: bool, host_options: dict[str, str], project: Any
) -> Opened:
    """The Corpus opened as the Sweep opens it; a refusal as :class:`RecordRefused`."""
    try:
        return open_corpus(corpus, host, unlocked, host_options=host_options, project=project)
    except Refused as exc:
        raise RecordRefused(str(exc), exc.code) from None
