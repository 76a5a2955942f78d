"""The Scorecard: one Sweep's result, an artifact other programs parse (JSON) and people read.

Counts are of gating Trials: a probabilistic Trial (a rate a plug-in reports in its section)
is counted apart and never passes or fails the Sweep. A Case's verdict folds its Trials: no
Trial ``-``, any error ``ERR``, any vacuous ``VAC``, all unexercised ``UNEX``, all passed
``PASS``, else ``FAIL``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import msgspec
from msgspec.structs import replace

from eval_core._case.evidence import Location, Usage
from eval_core._case.sections import Section
from eval_core._running.scoring import ExpectationResult
from eval_core._running.trial import TrialResult
from eval_core._util.safe_text import clean, clean_builtins, clean_optional, unsafe_json

SCHEMA_VERSION = 2
"""2: ``caches`` and ``dropped``. Every reader takes 1 as well (both then read as empty)."""
CaseVerdict = Literal["PASS", "FAIL", "ERR", "VAC", "UNEX", "-"]
COMPARABLE: frozenset[str] = frozenset({"PASS", "FAIL", "VAC"})


class Spend(msgspec.Struct, kw_only=True, rename="camel"):
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float = 0.0
    unpriced: int = 0
    resumed: int = 0
    """Trials read back from the trial log (``--resume``), not run by this process: counted
    here with the others, so calls, tokens and dollars are all of every Trial in the
    Scorecard."""

    def add(self, usage: Usage, calls: int) -> None:
        self.calls += calls
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cache_read_tokens += usage.cache_read_tokens
        self.cache_write_tokens += usage.cache_write_tokens
        self.reasoning_tokens += usage.reasoning_tokens


class Noise(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The noise floor: Cases whose scoreable Trials disagreed with each other."""

    repeats: int
    measured: list[str]
    flapping: list[str]


class Scorecard(msgspec.Struct, kw_only=True, rename="camel"):
    schema_version: int = SCHEMA_VERSION
    corpus_hash: str
    suite: str
    model_id: str
    binding: str
    host: str
    corpus_commit: str = "unknown"
    """The git commit of the work tree that holds the Corpus (the system under test), with
    ``-dirty`` when that tree had changes (the harness's own outputs apart), ``unknown`` outside
    git. Scorecards before it recorded ``harnessVersion`` (the commit where ``eval`` ran), read
    here as ``unknown``."""
    harness: dict[str, str] = msgspec.field(default_factory=dict)
    """What ran the Sweep besides the kinds' and Case fields' plug-ins (those are ``plugins``):
    ``eval-core``, the Host's distribution and the model source's, each by its version."""
    started_at: str
    duration_ms: float = 0.0
    corpus_cases: int
    selected: list[str] = msgspec.field(default_factory=list)
    planned: int = 0
    trials: list[TrialResult] = msgspec.field(default_factory=list)
    passed: int = 0
    failed: int = 0
    errored: int = 0
    unexercised: int = 0
    vacuous: int = 0
    skipped: int = 0
    probabilistic: int = 0
    noted: int = 0
    """Trials that carry a NOTE (a recorded script that drifted): never a verdict."""
    spend: Spend = msgspec.field(default_factory=Spend)
    noise: Noise | None = None
    unlocked: bool = False
    plugins: list[dict[str, Any]] = msgspec.field(default_factory=list)
    case_hashes: dict[str, str] = msgspec.field(default_factory=dict)
    """Each Case's digest by id (:func:`~eval_core._util.hashing.case_digests`), every Case of the
    Corpus: when two corpusHashes differ, the Cases added, removed and changed. Empty in a
    Scorecard saved before it was recorded (still read; the refusal then says it cannot tell)."""
    model_version: str | None = None
    model_dated: bool | None = None
    effort: str | None = None
    temperature: float | None = None
    """The pin's sampling temperature, when it set one (else the server's default was used)."""
    seed: int | None = None
    request_options: str | None = None
    """The pin's other request switches that were set (``tool_choice=required  ...``)."""
    aborted_reason: str | None = None
    sections: list[Section] = msgspec.field(default_factory=list)
    caches: dict[str, str] = msgspec.field(default_factory=dict)
    """Which caches the Sweep used and how (``hit``, ``miss``, ``partial``, ``off``), by name
    (:mod:`eval_core._util.cache_use`): a cache never changes a verdict, but it explains a
    Sweep's time. Empty in a Scorecard saved before it was recorded."""
    dropped: dict[str, int] = msgspec.field(default_factory=dict)
    """Third-party log records the Host kept off stderr, by logger: every Trial's ``dropped``
    summed."""

    @property
    def partial(self) -> bool:
        """A Sweep of a selection, or one that stopped early: never promotable."""
        return bool(self.selected) or self.skipped > 0 or self.aborted_reason is not None

    def tally(self) -> None:
        """Recompute the counts from the Trials (the one place counts are derived)."""
        gating = [t for t in self.trials if not t.probabilistic]
        self.passed = sum(t.outcome == "passed" and not t.vacuous for t in gating)
        self.failed = sum(t.outcome == "failed" for t in gating)
        self.errored = sum(t.outcome == "errored" for t in self.trials)
        self.unexercised = sum(t.outcome == "unexercised" for t in gating)
        self.vacuous = sum(t.vacuous for t in gating)
        self.probabilistic = len(self.trials) - len(gating)
        self.noted = sum(bool(t.notes) for t in self.trials)
        self.skipped = max(0, self.planned - len(self.trials))

    def case_ids(self) -> list[str]:
        seen: dict[str, None] = {}
        for trial in self.trials:
            seen.setdefault(trial.case_id)
        return list(seen)

    def verdicts(self) -> dict[str, CaseVerdict]:
        by_case: dict[str, list[TrialResult]] = defaultdict(list)
        for trial in self.trials:
            by_case[trial.case_id].append(trial)
        return {case_id: case_verdict(trials) for case_id, trials in by_case.items()}


def _safe_at(at: Location) -> Location:
    """Where the evidence is, made safe as the transcript it points into is."""
    return replace(at, call_id=clean_optional(at.call_id), record=clean_optional(at.record))


_ENCODE = msgspec.json.Encoder().encode
_PASSED: list[tuple[TrialResult | None, bytes]] = [(None, b"")]
"""The last Trial :func:`made_safe` returned as it is, and the JSON it read it from."""


def encoded(result: TrialResult) -> bytes:
    """``result`` as JSON: the bytes :func:`made_safe` read when it is the Trial it has just
    let through (each Trial enters the Scorecard and then its trial log: one encode, not two)."""
    kept, data = _PASSED[0]
    return data if kept is result else _ENCODE(result)


def made_safe(result: TrialResult) -> TrialResult:
    """The Trial as a Scorecard and a trial log keep it: its text made safe (the one place).

    A model's answer, a vendor's error or a scorer's detail may hold lone surrogates, control
    characters or ANSI escapes (see :mod:`eval_core._util.safe_text`); they are made harmless here,
    once, as the Trial enters the Scorecard, so every output made from it (the trial log, the
    JSON, the text, JUnit) can be encoded and shown. The Case id is the Corpus's own (it
    keys resuming) and is escaped where it leaves for a terminal or XML instead.

    A Trial whose every text is clean already (nearly all) is returned as it is: one encode
    and a few byte scans say so, instead of a new record built string by string.
    """
    try:
        data = _ENCODE(result)
        if not unsafe_json(data):
            _PASSED[0] = (result, data)  # a frozen record: these bytes stay its JSON
            return result
    except (TypeError, ValueError, OverflowError):  # a lone surrogate: clean it below
        pass
    return replace(
        result,
        expectations=[
            ExpectationResult(
                kind=clean(e.kind),
                passed=e.passed,
                detail=clean(e.detail),
                expectation=clean_builtins(e.expectation),
                error=e.error,
                at=None if e.at is None else _safe_at(e.at),
            )
            for e in result.expectations
        ],
        loop_status=clean_optional(result.loop_status),
        loop_reason=clean_optional(result.loop_reason),
        output=clean_optional(result.output),
        error=clean_optional(result.error),
        unexercised=clean_optional(result.unexercised),
        contradictions=[clean(line) for line in result.contradictions],
        notes=tuple(clean(line) for line in result.notes),
        model_version=clean_optional(result.model_version),
    )


_ALONE: dict[str, CaseVerdict] = {"passed": "PASS", "failed": "FAIL", "unexercised": "UNEX"}
"""A Case of one Trial, not errored and not vacuous: its verdict is its outcome's."""


def case_verdict(trials: Sequence[TrialResult]) -> CaseVerdict:
    if not trials:
        return "-"
    if len(trials) == 1:  # most Cases (a Scorecard asks once per Case, twice per report)
        only = trials[0]
        if only.outcome != "errored" and not only.vacuous:
            return _ALONE[only.outcome]
    if any(t.outcome == "errored" for t in trials):
        return "ERR"
    if any(t.vacuous for t in trials):
        return "VAC"
    if all(t.outcome == "unexercised" for t in trials):
        return "UNEX"
    return "PASS" if all(t.outcome == "passed" for t in trials) else "FAIL"


def noise_floor(trials: Iterable[TrialResult]) -> Noise | None:
    """None unless some Case ran more than once; else which measured Cases flapped."""
    by_case: dict[str, list[TrialResult]] = defaultdict(list)
    for trial in trials:
        by_case[trial.case_id].append(trial)
    if not by_case or max(len(v) for v in by_case.values()) < 2:
        return None
    measured: list[str] = []
    flapping: list[str] = []
    for case_id, runs in by_case.items():
        scoreable = [t for t in runs if t.scoreable]
        if len(scoreable) < 2:
            continue
        measured.append(case_id)
        if len({t.outcome for t in scoreable}) > 1:
            flapping.append(case_id)
    return Noise(
        repeats=min(len(v) for v in by_case.values()), measured=measured, flapping=flapping
    )


def not_cleared(card: Scorecard, covered: frozenset[str] = frozenset()) -> list[str]:
    """Every reason this Sweep does not clear, in words; empty means cleared.

    ``covered`` are Cases another leg of a Matrix passed: their UNEX here does not count.
    """
    rates = {t.case_id for t in card.trials if t.probabilistic}
    every = card.verdicts()
    verdicts = {
        case: verdict
        for case, verdict in every.items()
        if not (verdict == "UNEX" and case in covered)
        and not (case in rates and verdict in ("PASS", "FAIL", "UNEX"))
    }
    never_ran = (len(card.selected) if card.selected else card.corpus_cases) - len(every)
    reasons: list[str] = []
    counts: dict[str, int] = defaultdict(int)
    for verdict in verdicts.values():
        counts[verdict] += 1
    model = card.model_id
    for verdict, words in (
        ("FAIL", "failed"),
        ("ERR", "errored"),
        ("VAC", "expected nothing"),
        ("UNEX", "never exercised the guard or seam they assert"),
    ):
        if counts[verdict]:
            reasons.append(f"{model}: {counts[verdict]} Case(s) {words}")
    if never_ran > 0:
        reasons.append(f"{model}: {never_ran} Case(s) never ran")
    elif card.skipped:
        reasons.append(f"{model}: {card.skipped} Trial(s) never ran")
    if card.aborted_reason:
        reasons.append(f"{model}: the Sweep stopped early: {card.aborted_reason}")
    reasons.extend(f"{model}: {r}" for section in card.sections for r in section.reasons)
    return reasons


def encode_json(card: Scorecard) -> bytes:
    return msgspec.json.format(msgspec.json.encode(card), indent=2) + b"\n"


def decode_json(data: bytes) -> Scorecard:
    """A Scorecard from JSON, held to the depth limit first (:class:`TooDeep` past it)."""
    from eval_core._util.input_files import decode_json as decode

    card: Scorecard = decode(data, Scorecard)
    return card
