"""Every plug-in callable is guarded: a bug in a plug-in is named, never a crash or a verdict.

At load, a raising check, Case-field text, fixture predicate or hook is a refusal (exit 2) naming
the distribution, its version, what raised and the file:line in the plug-in's code. At run, a
raising scorer, seam, guard gate or fixture errors that Trial (never the Sweep) with the same,
and every other Expectation keeps its verdict. The plug-in here is a real distribution
(``acme-faults 1.2.3``), installed into a site directory and found by importlib-metadata.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from eval_core._plugins.plugins import PluginError, load_plugins
from tests.conftest import Site, WriteCase, load_refused, minimal_case, sweep_dir

FAULTY = """
from collections.abc import Iterator

from eval_core._case.case import CaseField
from eval_core._plugins.fixtures import TrialFixture
from eval_core._plugins.hookspecs import hookimpl
from eval_core._case.kinds import Expectation, KindSpec, Verdict


class Boom(Expectation, tag="acme_boom", frozen=True):
    where: str = ""


def fail_in(place, value):
    if value == place:
        raise RuntimeError(f"boom in the {place}")


def score(e, evidence):
    fail_in("scorer", e.where)
    if e.where == "empty":
        return Verdict(False, " ")
    if e.where == "none":
        return None
    return Verdict(False, "acme wanted another answer")


def check(e, case):
    fail_in("check", e.where)
    return []


def seam(e, evidence):
    fail_in("seam", e.where)
    return True


def gate(e):
    fail_in("gate", e.where)
    return False


def given(value):
    fail_in("given", value)
    return [value]


def first(value):
    fail_in("first", value)
    return []


def note(request) -> Iterator[None]:
    fail_in("setup", request.value)
    yield
    fail_in("readback", request.value)


def nothing(request) -> Iterator[None]:
    yield


@hookimpl
def eval_kinds():
    return [KindSpec(struct=Boom, scorer=score, check=check, seam=seam, guard_gate=gate)]


@hookimpl
def eval_case_fields():
    return [CaseField(name="acme_note", type=str, given_text=given, first_request_text=first)]


@hookimpl
def eval_fixtures():
    return [
        TrialFixture(name="note", field="acme_note", run=note),
        TrialFixture(name="picky", run=nothing, applies=lambda c: fail_in("acme-applies", c.id)),
    ]


@hookimpl
def eval_check_case(case, context):
    fail_in("acme-check-case", case.id)
    return []


@hookimpl
def eval_probabilistic(case):
    fail_in("acme-probabilistic", case.id)
    return False
"""
LABEL = "plug-in acme-faults 1.2.3"


def line_of(text: str) -> dict[str, int]:
    """The line each ``fail_in("<place>"`` call sits on, by place (what a fault points at)."""
    lines = FAULTY.lstrip("\n").splitlines()
    found = {}
    for number, line in enumerate(lines, start=1):
        for match in re.finditer(r'fail_in\("([^"]+)"', line):
            found[match[1]] = number
    return found


LINES = line_of(FAULTY)
RAISE_LINE = next(
    n for n, line in enumerate(FAULTY.lstrip("\n").splitlines(), 1) if "raise RuntimeError" in line
)


@pytest.fixture
def faulty(site: Site) -> Site:
    site.install("acme-faults", "1.2.3", "acme_faults", FAULTY.lstrip("\n"))
    return site


def boom(where: str = "", case_id: str = "c", **overrides: Any) -> dict[str, Any]:
    return minimal_case(
        case_id,
        expect=[
            {"kind": "output_contains", "text": "tulip bulbs"},
            {"kind": "acme_boom", "where": where},
        ],
        **overrides,
    )


def refusals(corpus_dir: Path) -> list[tuple[str, str]]:
    return [(p.path, p.reason) for p in load_refused(load_plugins(), corpus_dir).problems]


def sweep(corpus_dir: Path) -> dict[str, Any]:
    return {t.case_id: t for t in sweep_dir(load_plugins(), corpus_dir).trials}


@pytest.mark.parametrize(
    ("case", "path", "what"),
    [
        (boom("check"), "$.expect[1]", "the check of kind 'acme_boom'"),
        (boom(acmeNote="given"), "$", "given_text of the Case field 'acmeNote'"),
        (boom(acmeNote="first"), "$", "first_request_text of the Case field 'acmeNote'"),
        (boom(case_id="acme-applies"), "$", "the applies= predicate of fixture 'picky'"),
        (boom(case_id="acme-check-case"), "$", "eval_check_case"),
        (boom(case_id="acme-probabilistic"), "$", "eval_probabilistic"),
    ],
)
def test_a_raising_callable_at_load_is_a_refusal_naming_the_plugin_and_line(
    faulty: Site,
    corpus_dir: Path,
    write_case: WriteCase,
    case: dict[str, Any],
    path: str,
    what: str,
) -> None:
    write_case(case, name=f"{case['id']}.json")
    [(got_path, reason)] = refusals(corpus_dir)
    assert got_path == path
    place = reason.split("boom in the ")[1].split(" ")[0]
    assert reason == (
        f"{LABEL}: {what} raised RuntimeError: boom in the {place} (at acme_faults.py:{RAISE_LINE})"
    )


@pytest.mark.parametrize(
    ("where", "error"),
    [
        ("scorer", f"{LABEL}: the scorer of kind 'acme_boom' raised RuntimeError: boom in the "
                   f"scorer (at acme_faults.py:{RAISE_LINE})"),
        ("empty", f"{LABEL}: the scorer of kind 'acme_boom' returned an empty detail: a verdict "
                  "always says why (defined at acme_faults.py:"),
        ("none", f"{LABEL}: the scorer of kind 'acme_boom' returned None, not a Verdict"),
        ("gate", f"{LABEL}: the guard gate of kind 'acme_boom' raised RuntimeError: boom in the "
                 f"gate (at acme_faults.py:{RAISE_LINE})"),
        ("seam", f"{LABEL}: the seam of kind 'acme_boom' raised RuntimeError: boom in the seam "
                 f"(at acme_faults.py:{RAISE_LINE})"),
    ],
)  # fmt: skip
def test_a_faulty_scorer_seam_or_gate_errors_the_trial_keeping_the_other_verdicts(
    faulty: Site, corpus_dir: Path, write_case: WriteCase, where: str, error: str
) -> None:
    write_case(boom(where, "faulty"))
    write_case(minimal_case("healthy"))
    trials = sweep(corpus_dir)
    assert trials["healthy"].outcome == "passed"  # the Sweep went on
    trial = trials["faulty"]
    assert trial.outcome == "errored"
    assert trial.error is not None and trial.error.startswith(error)
    kept, faulty_one = trial.expectations
    assert (kept.kind, kept.passed, kept.error) == ("output_contains", True, False)
    assert faulty_one.kind == "acme_boom"
    assert faulty_one.error is (where in ("scorer", "empty", "none"))


@pytest.mark.parametrize("phase", ["setup", "readback"])
def test_a_raising_fixture_errors_its_trial_naming_the_plugin_and_line(
    faulty: Site, corpus_dir: Path, write_case: WriteCase, phase: str
) -> None:
    write_case(minimal_case("noted", acmeNote=phase))
    trial = sweep(corpus_dir)["noted"]
    assert trial.outcome == "errored"
    doing = "setting up" if phase == "setup" else "reading back"
    assert trial.error == (
        f"{LABEL}: fixture 'note' ({doing}) raised RuntimeError: boom in the {phase} "
        f"(at acme_faults.py:{RAISE_LINE})"
    )


def test_the_cli_refuses_with_exit_2_and_one_line_and_traceback_shows_the_trace(
    faulty: Site, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(boom("check"))
    refused = faulty.eval("check", str(corpus_dir), "--unlocked", cwd=corpus_dir.parent)
    assert refused.returncode == 2  # refused, not "not cleared"
    assert "Traceback" not in refused.stderr
    assert f"{LABEL}: the check of kind 'acme_boom' raised RuntimeError" in refused.stderr
    traced = faulty.eval(
        "check", str(corpus_dir), "--unlocked", "--traceback", cwd=corpus_dir.parent
    )
    assert traced.returncode == 2
    assert "Traceback (most recent call last)" in traced.stderr
    assert f'acme_faults.py", line {RAISE_LINE}, in fail_in' in traced.stderr


HOOKLESS = {
    "misspelt": (
        """
        from eval_core._plugins.hookspecs import hookimpl

        @hookimpl
        def eval_kind():
            return []
        """,
        "plug-in acme-typo 0.1 (entry point 'acme_typo') implements 'eval_kind', which is not a "
        "hook (did you mean eval_kinds?) (at acme_typo.py:4)",
    ),
    "unmarked": (
        """
        def eval_kinds():
            return []
        """,
        "plug-in acme-typo 0.1 (entry point 'acme_typo') defines eval_kinds: mark it @hookimpl "
        "(from eval_core._plugins.hookspecs import hookimpl) (at acme_typo.py:2)",
    ),
    "empty": (
        """
        VALUE = 1
        """,
        "plug-in acme-typo 0.1 (entry point 'acme_typo') registers no hook: implement one of ",
    ),
    "raising hook": (
        """
        from eval_core._plugins.hookspecs import hookimpl

        @hookimpl
        def eval_kinds():
            return [1 / 0]
        """,
        "plug-in acme-typo 0.1: eval_kinds raised ZeroDivisionError: division by zero "
        "(at acme_typo.py:6) (entry point 'acme_typo')",
    ),
}


@pytest.mark.parametrize("mistake", sorted(HOOKLESS))
def test_a_plugin_whose_hooks_pluggy_would_ignore_is_refused(site: Site, mistake: str) -> None:
    source, message = HOOKLESS[mistake]
    site.install("acme-typo", "0.1", "acme_typo", source)
    with pytest.raises(PluginError) as refused:
        load_plugins()
    assert str(refused.value).startswith(message)


def test_a_third_party_may_not_use_the_reserved_prefix(site: Site) -> None:
    site.install(
        "acme-squatter",
        "0.1",
        "acme_squatter",
        """
        from eval_core._plugins.hookspecs import hookimpl
        from eval_core._case.kinds import Expectation, KindSpec, Verdict

        class Squat(Expectation, tag="eval_answer", frozen=True):
            pass

        @hookimpl
        def eval_kinds():
            return [KindSpec(struct=Squat, scorer=lambda e, ev: Verdict(False, "no"))]
        """,
    )
    with pytest.raises(PluginError, match=r"kind 'eval_answer' uses the reserved prefix 'eval_'"):
        load_plugins()


def test_an_errored_trial_keeps_every_verdict_in_the_scorecard_json(
    faulty: Site, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(boom("scorer"))
    result = faulty.eval(
        "sweep", str(corpus_dir), "--unlocked", "--format", "json", cwd=corpus_dir.parent
    )
    assert result.returncode == 1, result.stderr  # an errored Trial does not clear
    [trial] = json.loads(result.stdout)["trials"]
    assert [(e["kind"], e["passed"], e.get("error", False)) for e in trial["expectations"]] == [
        ("output_contains", True, False),
        ("acme_boom", False, True),
    ]
