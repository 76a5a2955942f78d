"""One Sweep on the scripted binding into a real trial log with its transcripts, as `eval sweep`
writes it: each Trial appended as it finishes, its Evidence beside it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from eval_core._case.case import CaseBase
from eval_core._case.evidence import Evidence
from eval_core._recording import transcript
from eval_core._recording.log_records import LogHeader
from eval_core._recording.triallog import TrialLog
from eval_core._running.runner import run_sweep
from eval_core._running.scorecard import Scorecard
from eval_core._running.scripted import ScriptedBinding
from eval_core._running.trial import TrialResult


def logged_sweep(
    path: Path, corpus: Any, host: Any, plugins: Any, /, started_at: str = "bench", **header: Any
) -> tuple[float, float, Scorecard]:
    """(wall s, CPU s, Scorecard); ``header`` holds the log header's further fields."""
    log = TrialLog.create(
        path,
        LogHeader(
            corpus_hash=corpus.hash,
            model_id="scripted",
            selected=[],
            repeat=1,
            started_at=started_at,
            transcripts=transcript.FORMAT,
            evidence_schema=transcript.schema_hash(Evidence),
            **header,
        ),
    )
    seen: list[tuple[CaseBase, Evidence]] = []

    def record(index: int, total: int, result: TrialResult) -> None:
        case, evidence = seen.pop()
        log.append(result, case.expect, evidence)

    def observe(case: CaseBase, evidence: Evidence) -> None:
        seen.append((case, evidence))

    wall, cpu = time.perf_counter(), time.process_time()
    card = run_sweep(corpus, host, ScriptedBinding(), plugins, on_trial=record, on_evidence=observe)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    log.close()
    return wall, cpu, card
