"""The shipped capability Corpus, swept on the free scripted binding through the real Host.

Loads ``corpus/`` exactly as ``eval sweep`` does (installed plug-ins, the ``agent-runtime`` Host
over the Eval Soul), runs every Trial, and checks what makes the Corpus worth sweeping: every
Case passes for a real reason (no vacuous or unexercised Trial), ids are file stems, the L2
Cases use every built-in kind, every configured guard is asserted at its stage, blocked and
allowed, and the trial log holds every Trial's transcript, which re-scores to the same verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from agent_runtime.guards.guardrails import STAGE_KEYS
from bench.logged import logged_sweep
from eval_core._case.case import CaseBase
from eval_core._loading.corpus import Corpus, case_files, find_soul
from eval_core._loading.loader import Loader
from eval_core._plugins.plugins import PluginSet, load_plugins
from eval_core._recording import transcript
from eval_core._recording.log_records import read
from eval_core._running.runner import run_sweep
from eval_core._running.scorecard import Scorecard
from eval_core._running.scripted import ScriptedBinding
from eval_report.html import write_report
from eval_report.rescore import rescore
from eval_report.transcripts import Reader

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "corpus"
HOST = "agent-runtime"
BUILT_IN = frozenset(
    {"eval-expectations-turn", "eval-expectations-durable", "eval-expectations-rubric"}
)
NEEDS_A_JUDGE = frozenset({"rubric_score", "rubric_denies"})
MIN_L2_CASES = 30


@dataclass(frozen=True)
class Swept:
    plugins: PluginSet
    corpus: Corpus
    card: Scorecard
    log: Path


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Swept]:
    """The Corpus swept once, every Trial and its transcript in a trial log, as `eval sweep`
    writes it."""
    plugins = load_plugins()
    soul = find_soul(CORPUS)
    assert soul is not None, f"no Eval Soul beside {CORPUS}"
    host = plugins.hosts[HOST](soul)
    path = tmp_path_factory.mktemp("smoke") / "trials.jsonl"
    try:
        corpus = Loader(plugins, host).load(CORPUS)
        _wall, _cpu, card = logged_sweep(
            path, corpus, host, plugins, started_at="t", plugins=[dict(p) for p in corpus.plugins]
        )
    finally:
        host.close()
    yield Swept(plugins, corpus, card, path)


def test_the_trial_log_holds_every_trials_transcript_and_rescores_the_same(
    swept: Swept,
) -> None:
    logged = read(swept.log)
    assert [(t.case_id, t.trial) for t in logged.trials] == [
        (t.case_id, t.trial) for t in swept.card.trials
    ]
    assert logged.pointers is not None and None not in logged.pointers
    reader = Reader(transcript.pack_path(swept.log))
    for trial, pointer in zip(logged.trials, logged.pointers, strict=True):
        assert pointer is not None
        stored = reader.get(pointer)
        assert stored.evidence.tier in ("l2", "l3"), trial.case_id
        sent = stored.evidence.model_requests or []
        assert len(sent) == trial.model_calls, f"{trial.case_id}: a request went unrecorded"
        assert len(stored.expect) == len(trial.expectations)
    again = rescore(swept.log, swept.plugins)  # the recorded Evidence decides as the run did
    assert not again.changed and not again.skipped
    assert [t.outcome for t in again.trials] == [t.outcome for t in swept.card.trials]


def test_eval_report_over_the_corpus_shows_every_case_and_transcript(
    swept: Swept, tmp_path: Path
) -> None:
    page = tmp_path / "corpus.html"
    written = write_report([swept.log], page, [])
    assert (written.cases, written.trials) == (len(swept.corpus.cases), len(swept.card.trials))
    text = page.read_text()
    assert all(f'id="case-{case.id}"' in text for case in swept.corpus.cases)
    assert "CLEARED" in text and "NOT CLEARED" not in text


def _l2(corpus: Corpus) -> list[CaseBase]:
    return [c for c in corpus.cases if c.tier == "l2"]


def test_every_trial_passes_on_the_scripted_binding(swept: Swept) -> None:
    card = swept.card
    assert card.aborted_reason is None, card.aborted_reason
    assert len(card.trials) >= len(swept.corpus.cases)
    problems: list[str] = []
    for trial in card.trials:
        if trial.outcome == "passed":
            continue
        lines = [f"{trial.outcome.upper()}  {trial.case_id}#{trial.trial}  [{trial.loop_status}]"]
        if trial.error:
            lines.append(f"    error: {trial.error}")
        if trial.unexercised:
            lines.append(f"    unexercised: {trial.unexercised}")
        lines.extend(f"    - {r.kind}: {r.detail}" for r in trial.expectations if not r.passed)
        problems.append("\n".join(lines))
    assert not problems, f"{len(problems)} Trial(s) did not pass:\n" + "\n".join(problems)
    assert card.passed == len(card.trials)


def test_no_trial_is_vacuous_or_unexercised(swept: Swept) -> None:
    vacuous = [t.case_id for t in swept.card.trials if t.vacuous or not t.expectations]
    unexercised = [t.case_id for t in swept.card.trials if t.outcome == "unexercised"]
    assert not vacuous, f"vacuous Trials (expected nothing): {vacuous}"
    assert not unexercised, f"unexercised (UNEX) Trials: {unexercised}"
    assert swept.card.vacuous == 0
    assert swept.card.unexercised == 0


def test_every_id_is_its_file_stem(swept: Swept) -> None:
    files = case_files(CORPUS)
    mismatched = []
    for path in files:
        if path.suffix != ".json":
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("id") != path.stem:
            mismatched.append(f"{path.name}: id {data.get('id')!r}")
    assert not mismatched, "ids differ from file stems: " + "; ".join(mismatched)
    assert sorted(c.id for c in swept.corpus.cases) == sorted(p.stem for p in files)


def test_the_l2_corpus_is_large_enough(swept: Swept) -> None:
    l2 = _l2(swept.corpus)
    assert len(l2) >= MIN_L2_CASES, f"only {len(l2)} L2 Cases, want at least {MIN_L2_CASES}"


def test_every_built_in_l2_kind_is_used(swept: Swept) -> None:
    plugins = swept.plugins
    built_in = {
        name
        for name, owner in plugins.kind_owner.items()
        if owner.distribution in BUILT_IN and "l2" in plugins.kinds[name].tiers
    }
    wanted = built_in - NEEDS_A_JUDGE
    assert wanted, f"no kinds owned by {sorted(BUILT_IN)}: are they installed?"
    used = {e.kind_name for c in _l2(swept.corpus) for e in c.expect}
    missing = sorted(wanted - used)
    assert not missing, f"built-in kinds no L2 Case uses: {missing}"


def _configured_guards() -> set[tuple[str, str]]:
    data = yaml.safe_load((CORPUS / "soul" / "guardrails.yaml").read_text(encoding="utf-8"))
    return {
        (STAGE_KEYS[key], entry["guard"])
        for key, entries in (data or {}).items()
        for entry in entries
    }


def test_every_guard_is_asserted_blocked_and_every_stage_allowed(swept: Swept) -> None:
    configured = _configured_guards()
    assert configured, "guardrails.yaml configures no guard"
    blocked: set[tuple[str, str]] = set()
    allowed: set[str] = set()
    for case in _l2(swept.corpus):
        for e in case.expect:
            if e.kind_name == "guardrail_blocked":
                blocked.add((e.stage, e.guard))  # type: ignore[attr-defined]
            elif e.kind_name == "guardrail_allowed":
                allowed.add(e.stage)  # type: ignore[attr-defined]
    never_blocked = sorted(configured - blocked)
    never_allowed = sorted({stage for stage, _ in configured} - allowed)
    assert not never_blocked, f"(stage, guard) never asserted blocked: {never_blocked}"
    assert not never_allowed, f"stages never asserted allowed: {never_allowed}"


def _verdicts(
    card: Scorecard, tier_cases: set[str]
) -> dict[str, tuple[str, list[tuple[str, bool]]]]:
    return {
        t.case_id: (t.outcome, [(e.kind, e.passed) for e in t.expectations])
        for t in card.trials
        if t.case_id in tier_cases
    }


def test_every_l3_case_has_the_same_verdicts_on_postgresql_as_on_sqlite(
    swept: Swept, postgres_url: str
) -> None:
    l3 = {c.id for c in swept.corpus.cases if c.tier == "l3"}
    assert len(l3) >= 40
    soul = find_soul(CORPUS)
    host = swept.plugins.hosts[HOST](soul, store=postgres_url)
    try:
        corpus = Loader(swept.plugins, host).load(CORPUS)
        assert corpus.hash == swept.corpus.hash  # the store is not part of what a Case measures
        card = run_sweep(corpus, host, ScriptedBinding(), swept.plugins, select=sorted(l3))
    finally:
        host.close()
    on_postgres = _verdicts(card, l3)
    assert sorted(on_postgres) == sorted(l3)
    assert on_postgres == _verdicts(swept.card, l3)
    failing = {case: outcome for case, (outcome, _) in on_postgres.items() if outcome != "passed"}
    assert not failing, failing  # the whole L3 Corpus clears on PostgreSQL
