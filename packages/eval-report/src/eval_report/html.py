"""Writing the report: the view laid out by the Jinja2 templates shipped in this package.

One file, self-contained: styles and the script are inlined, plots are inline SVG, the data is
one deflated JSON document in the page (:mod:`eval_report.payload`); a Content-Security-Policy
forbids every fetch, so the page works from ``file://`` and can reach no network. Every value
is escaped by the template engine (autoescape), and the script writes text with
``textContent`` only: a model's answer is shown, never run.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import jinja2

from eval_core.records import Output, OutputRefused, check_outputs, one_line, write_atomic
from eval_report.saved import COMPARISON_REFUSED, Refused, gather, read_any
from eval_report.view import Report, build

_CLASS = {"PASS": "pass", "FAIL": "fail", "ERR": "err", "UNEX": "unex", "VAC": "vac"}


@dataclass(frozen=True, slots=True)
class Written:
    cases: int
    trials: int
    size: int


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("eval_report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["verdict_class"] = lambda verdict: _CLASS.get(verdict, "none")
    return env


def render(report: Report) -> str:
    template = environment().get_template("report.html.j2")
    return template.render(
        report=report,
        generated=datetime.now(UTC).isoformat(timespec="seconds"),
        payload=report.payload,
    )


def corpora_around(output: Path) -> list[Path]:
    """The Corpus directories ``output`` would land in (one holding ``eval.lock`` or a Soul):
    a page written there would overwrite a Sweep's input, or be read as one."""
    found = []
    for directory in Path(output).absolute().parents:
        if (directory / "eval.lock").is_file() or (directory / "soul").is_dir():
            found.append(directory)
    return found


def write_report(inputs: list[Path], output: Path, baselines: list[Path]) -> Written:
    """Read the Sweeps, check the output path first, write the page atomically."""
    try:
        check_outputs(
            [Output("--output", output)],
            [("an input", p) for p in [*inputs, *baselines]],
            protected=[("a Corpus", corpus) for corpus in corpora_around(output)],
        )
    except OutputRefused as exc:
        raise Refused(f"output refused: {exc}") from None
    sweeps = gather(inputs)
    bases = [read_any(path) for path in baselines]
    for base in bases:
        mine = next((s for s in sweeps if s.card.model_id == base.card.model_id), None)
        if mine is None or mine.card.corpus_hash != base.card.corpus_hash:
            why = (
                f"no Sweep of model {one_line(base.card.model_id)} was given"
                if mine is None
                else f"different Corpora: corpusHash {base.card.corpus_hash[:16]} vs "
                f"{mine.card.corpus_hash[:16]}"
            )
            raise Refused(
                f"REFUSED  no delta computed: {base.sources[0]}: {why}", COMPARISON_REFUSED
            )
    report = build(sweeps, bases)
    page = render(report).encode()
    try:
        write_atomic(output, page)
    except OSError as exc:
        raise Refused(f"--output {output} could not be written: {exc.strerror or exc}") from None
    return Written(cases=len(report.cases), trials=report.trials, size=len(page))
