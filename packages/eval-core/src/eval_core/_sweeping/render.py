"""Text for people: the Scorecard as it prints on stdout (JSON is for programs).

Like pytest, it shows what needs a look (every Trial that did not pass, with each failed
Expectation's reason) and the summary; ``verbose`` lists every Trial, as ``pytest -v`` does.
"""

from __future__ import annotations

from eval_core._case.witness import WITNESSED
from eval_core._running.scorecard import Scorecard
from eval_core._running.trial import TrialResult
from eval_core._util.safe_text import one_line

_LABEL = {"passed": "PASS", "failed": "FAIL", "errored": "ERR ", "unexercised": "UNEX"}


def loop_label(status: str) -> str:
    """The tool loop's status as the text Scorecard shows it, ``[loop failed]``: how the
    runtime's loop ended, which is not the verdict (a Case may expect the loop to fail).
    ``eval sweep --help`` says so under ``--verbose``."""
    return f"[loop {status}]"


def trial_line(trial: TrialResult) -> str:
    label = _LABEL[trial.outcome]
    head = f"{label}  {one_line(trial.case_id)}#{trial.trial}"
    if trial.outcome == "errored":
        kept = f"  (kept off stderr: {dropped(trial.dropped)})" if trial.dropped else ""
        return f"{head}  {one_line(str(trial.error))}{kept}"
    extras = f"  {loop_label(trial.loop_status)}" if trial.loop_status else ""
    if trial.vacuous:
        extras += "  (vacuous)"
    if trial.probabilistic:
        extras += "  (probabilistic)"
    if trial.retries:
        extras += f"  ({trial.retries} retried)"
    return head + extras


def dropped(counts: dict[str, int]) -> str:
    """Third-party log records a Host kept off stderr, in words: ``3 records (mcp 2, httpx 1)``."""
    each = ", ".join(f"{one_line(name)} {n}" for name, n in sorted(counts.items()))
    return f"{sum(counts.values())} third-party log records ({each})"


def render_text(card: Scorecard, verbose: bool = False) -> str:
    """The Scorecard for people; every value a Trial or a file carries (a Case id, a kind, a
    detail, a model id) is kept within its row (:func:`one_line`), so none can forge a line."""
    lines = [
        f"Sweep  model={one_line(card.model_id)}"
        + (f"  version={card.model_version}" if card.model_version else "")
        + (f"  effort={card.effort}" if card.effort else "")
        + (f"  temperature={card.temperature:g}" if card.temperature is not None else "")
        + (f"  seed={card.seed}" if card.seed is not None else "")
        + (f"  {card.request_options}" if card.request_options else "")
        + f"  corpus={card.corpus_hash[:16]}  suite={card.suite}  {card.duration_ms:.0f}ms"
    ]
    if card.unlocked:
        lines.append(
            "UNLOCKED  the installed plug-ins differ from eval.lock; this Sweep is not pinned"
        )
    for trial in card.trials:
        if not verbose and trial.outcome == "passed" and not trial.vacuous and not trial.notes:
            continue
        lines.append(trial_line(trial))
        if trial.outcome in ("failed", "unexercised"):
            for result in trial.expectations:
                if not result.passed:
                    lines.append(f"     - {one_line(result.kind)}: {one_line(str(result.detail))}")
            if trial.unexercised:
                lines.append(f"     unexercised: {one_line(trial.unexercised)}")
        if trial.outcome == "failed":
            lines.extend(f"     - {WITNESSED}: {one_line(line)}" for line in trial.contradictions)
        lines.extend(f"     NOTE {one_line(line)}" for line in trial.notes)
    totals = f"{card.passed} passed, {card.failed} failed, {card.errored} errored"
    if card.unexercised:
        totals += f", {card.unexercised} unexercised"
    if card.vacuous:
        totals += f", {card.vacuous} vacuous"
    if card.skipped:
        totals += f", {card.skipped} never run"
    if card.noted:
        totals += f", {card.noted} noted"
    if card.probabilistic:
        totals += f"; {card.probabilistic} probabilistic (reported, never gating)"
    lines.append(totals)
    for section in card.sections:
        lines.extend(section.lines)
    spend = card.spend
    floor = "+" if spend.unpriced else ""
    spend_line = (
        f"Spend  ${spend.cost_usd:.4f}{floor}  {spend.calls} calls  "
        f"{spend.input_tokens} in"
        + (f" ({spend.cache_read_tokens} cached)" if spend.cache_read_tokens else "")
        + f"  {spend.output_tokens} out"
    )
    if spend.unpriced:
        spend_line += f"  {spend.unpriced} unpriced"
    if spend.resumed:
        spend_line += f"  (all {len(card.trials)} Trials, {spend.resumed} resumed from the log)"
    lines.append(spend_line)
    if card.caches:  # every cache off (EVAL_CACHE=off) is said once
        uses = [f"{name}={use}" for name, use in card.caches.items()]
        lines.append(
            "Caches  " + ("off" if set(card.caches.values()) == {"off"} else "  ".join(uses))
        )
    if card.dropped:
        lines.append(f"Kept off stderr  {dropped(card.dropped)}")
    if card.noise is not None:
        noise = card.noise
        lines.append(
            f"Noise  {len(noise.flapping)} of {len(noise.measured)} measured Cases flapped "
            f"over {noise.repeats} repeats"
            + (f": {one_line(', '.join(noise.flapping))}" if noise.flapping else "")
        )
    if card.model_dated is False:
        lines.append(
            f"NOTE  {one_line(card.model_id)} is pinned to an undated model id: the vendor may "
            "move the "
            "alias, so a later Sweep may measure a different model"
        )
    if card.aborted_reason:
        lines.append(f"ABORTED  {card.aborted_reason}")
    return "\n".join(lines) + "\n"


def render_verdict(reasons: list[str]) -> str:
    """The last block: CLEARED, or NOT CLEARED with every reason in words."""
    if not reasons:
        return "CLEARED\n"
    return "NOT CLEARED\n" + "".join(f"  - {reason}\n" for reason in reasons)
