"""The report's plots, as geometry the template draws as inline SVG (no plotting library, no
script, nothing fetched when the page is viewed).

Three questions a person would rather see than read: which families fail (Expectation verdicts
per family), where the time goes (a histogram of Trial durations), what each Case cost
(tokens per Case, the most expensive first).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from eval_core.records import Scorecard

WIDTH = 560
LABEL = 200  # the label column of a horizontal bar chart
ROW = 20
TOP_CASES = 15
EDGES_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    style: str  # a CSS class: pass, fail, leg0..leg3, tin, tout
    title: str  # the tooltip: the exact figure


@dataclass(frozen=True, slots=True)
class Label:
    x: float
    y: float
    text: str
    anchor: str = "start"


@dataclass(slots=True)
class Chart:
    title: str
    height: float
    rects: list[Rect] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    legend: list[tuple[str, str]] = field(default_factory=list)  # (style, words)
    note: str = ""


@dataclass(frozen=True, slots=True)
class Plots:
    families: Chart
    durations: Chart
    spend: Chart

    @property
    def width(self) -> int:
        return WIDTH


def build(cards: Sequence[Scorecard], family_of: Mapping[str, str]) -> Plots:
    return Plots(_families(cards, family_of), _durations(cards), _spend(cards))


def _families(cards: Sequence[Scorecard], family_of: Mapping[str, str]) -> Chart:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for card in cards:
        for trial in card.trials:
            for result in trial.expectations:
                family = family_of.get(result.kind, "unknown")
                key = family if len(cards) == 1 else f"{family} · {card.model_id}"
                counts[key][0 if result.passed else 1] += 1
    legend = [("pass", "passed"), ("fail", "failed")]
    chart = _bars("Expectation verdicts per family", len(counts), legend)
    if not counts:
        chart.note = "no Expectation was scored"
        return chart
    most = max(sum(v) for v in counts.values())
    scale = (WIDTH - LABEL - 70) / most
    for row, (name, (good, bad)) in enumerate(sorted(counts.items())):
        parts = [(good, "pass", f"{good} passed"), (bad, "fail", f"{bad} failed")]
        _bar(chart, row, name, scale, parts, f"{good}/{good + bad}")
    return chart


def _bars(title: str, rows: int, legend: list[tuple[str, str]]) -> Chart:
    """A horizontal bar chart of ``rows`` rows, as yet empty (one row high with none, for its
    note)."""
    return Chart(title, ROW * max(1, rows) + 10, legend=legend)


def _bar(
    chart: Chart,
    row: int,
    name: str,
    scale: float,
    parts: Sequence[tuple[int, str, str]],
    total: str,
) -> None:
    """One row of a horizontal bar chart: its label, its parts end to end (each a value, a
    style and a tooltip), then the total after them."""
    y = row * ROW + 4
    chart.labels.append(Label(LABEL - 6, y + 13, name, "end"))
    x: float = LABEL
    for value, style, title in parts:
        chart.rects.append(Rect(x, y, value * scale, ROW - 6, style, title))
        x += value * scale
    chart.labels.append(
        Label(LABEL + sum(value for value, _, _ in parts) * scale + 6, y + 13, total)
    )


def _durations(cards: Sequence[Scorecard]) -> Chart:
    bins = len(EDGES_MS) + 1
    counts = [[0] * bins for _ in cards]
    for leg, card in enumerate(cards):
        for trial in card.trials:
            counts[leg][bisect.bisect_right(EDGES_MS, trial.duration_ms)] += 1
    height = 150
    chart = Chart(
        "Trial durations (ms)",
        height + 36,
        legend=[(f"leg{i % 4}", c.model_id) for i, c in enumerate(cards)],
    )
    most = max((max(c) for c in counts), default=0)
    if most == 0:
        chart.note = "no Trial ran"
        return chart
    slot = (WIDTH - 40) / bins
    bar = (slot - 4) / max(1, len(cards))
    for leg, found in enumerate(counts):
        for index, n in enumerate(found):
            if not n:
                continue
            h = n / most * height
            x = 30 + index * slot + leg * bar
            chart.rects.append(
                Rect(x, height - h + 4, bar, h, f"leg{leg % 4}", f"{n} Trial(s), {_bin(index)}")
            )
    for index in range(bins):
        chart.labels.append(Label(30 + index * slot + slot / 2, height + 20, _bin(index), "middle"))
    chart.labels.append(Label(0, 14, f"{most}"))
    return chart


def _bin(index: int) -> str:
    """A bin by its lower edge: ms, or s from a second on."""
    if index == 0:
        return f"<{EDGES_MS[0]}ms"
    low = EDGES_MS[index - 1]
    return f"{low // 1000}s" if low >= 1000 else f"{low}"


def _spend(cards: Sequence[Scorecard]) -> Chart:
    per_case: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for card in cards:
        for trial in card.trials:
            found = per_case[(trial.case_id, card.model_id)]
            found[0] += trial.usage.input_tokens
            found[1] += trial.usage.output_tokens
            found[2] += trial.model_calls
    ranked = sorted(per_case.items(), key=lambda item: -(item[1][0] + item[1][1]))
    top = [item for item in ranked if item[1][0] + item[1][1] > 0][:TOP_CASES]
    legend = [("tin", "input tokens"), ("tout", "output tokens")]
    chart = _bars("Spend per Case (tokens, the most expensive first)", len(top), legend)
    if not top:
        chart.note = "no tokens were spent (the scripted binding is free)"
        return chart
    if len(ranked) > len(top):
        chart.note = f"the {len(top)} most expensive of {len(ranked)} Case runs"
    most = max(v[0] + v[1] for _, v in top)
    scale = (WIDTH - LABEL - 120) / most
    for row, ((case_id, model), (tin, tout, calls)) in enumerate(top):
        name = case_id if len(cards) == 1 else f"{case_id} · {model}"
        parts = [(tin, "tin", f"{tin} input tokens"), (tout, "tout", f"{tout} output tokens")]
        _bar(chart, row, _short(name), scale, parts, f"{tin + tout:,} tok, {calls} calls")
    return chart


def _short(text: str, limit: int = 34) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
