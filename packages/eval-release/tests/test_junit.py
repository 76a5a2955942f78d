"""JUnit XML keeps verdicts (<failure>) apart from faults (<error>), read by a real consumer."""

from __future__ import annotations

from pathlib import Path

from junitparser import Error, Failure, JUnitXml, Skipped

from eval_release import junit
from release_fixtures import scorecard, trial


class _Case:
    def __init__(self, case_id: str) -> None:
        self.id = case_id


def test_junitparser_reads_failures_errors_and_skips(tmp_path: Path) -> None:
    card = scorecard(
        [
            trial("ok", "passed"),
            trial("bad", "failed"),
            trial("vendor", "errored"),
            trial("unex", "unexercised"),
        ],
        corpus_cases=5,
    )
    card.aborted_reason = "spend ceiling reached after 4 of 5 Trials"
    planned = [(_Case(c), 1) for c in ("ok", "bad", "vendor", "unex", "never")]
    path = tmp_path / "junit.xml"
    path.write_bytes(junit.render([card], planned))  # type: ignore[arg-type]
    xml = JUnitXml.fromfile(str(path))
    [suite] = list(xml)
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (5, 1, 1, 2)
    results = {case.name: case.result for case in suite}
    assert results["ok#1"] == []
    assert isinstance(results["bad#1"][0], Failure)
    assert "output_contains" in results["bad#1"][0].message
    assert isinstance(results["vendor#1"][0], Error)
    assert results["vendor#1"][0].message == "model_rate_limited"
    assert isinstance(results["unex#1"][0], Skipped)
    assert "unexercised" in results["unex#1"][0].message
    assert "never ran: spend ceiling reached" in results["never#1"][0].message


def test_a_note_is_a_property_of_its_testcase_and_counted_in_the_suite(tmp_path: Path) -> None:
    from msgspec.structs import replace

    note = "drift: request 1: the system prompt changed: 1 line(s) added ('Be brief.'), 0 removed"
    card = scorecard([replace(trial("old", "passed"), notes=[note]), trial("new", "passed")])
    card.tally()
    path = tmp_path / "junit.xml"
    path.write_bytes(junit.render([card], [(_Case("old"), 1), (_Case("new"), 1)]))  # type: ignore[arg-type]
    [suite] = list(JUnitXml.fromfile(str(path)))
    assert {p.name: p.value for p in suite.properties()}["notes"] == "1"
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (2, 0, 0, 0)
    cases = {case.name: case for case in suite}
    assert cases["old#1"].result == [] and cases["new#1"].result == []  # a NOTE is no verdict
    noted = cases["old#1"]._elem.find("properties")
    assert [(p.get("name"), p.get("value")) for p in noted] == [("note", note)]
    assert cases["new#1"]._elem.find("properties") is None


def test_a_contradiction_is_the_failures_first_line(tmp_path: Path) -> None:
    from msgspec.structs import replace

    from eval_core._case.witness import WITNESSED

    line = "denied call received: the runtime recorded call c2 as denied, but the Tool received it"
    card = scorecard([replace(trial("lied", "failed"), contradictions=[line])], corpus_cases=1)
    path = tmp_path / "junit.xml"
    path.write_bytes(junit.render([card], [(_Case("lied"), 1)]))  # type: ignore[arg-type]
    [suite] = list(JUnitXml.fromfile(str(path)))
    [case] = list(suite)
    assert isinstance(case.result[0], Failure)
    assert case.result[0].message == f"{WITNESSED}: {line}"


def test_cases_are_classed_by_their_file_with_failure_types_and_suite_properties(
    tmp_path: Path,
) -> None:
    from msgspec.structs import replace

    from eval_core._case.witness import WITNESSED

    lied = replace(trial("lied", "failed"), contradictions=["denied call received: c2"])
    card = scorecard([trial("ok", "passed"), trial("bad", "failed"), lied], corpus_cases=4)
    files = {
        "ok": "corpus/ok.json",
        "bad": "corpus/bad.yaml",
        "lied": "corpus/lied.json",
        "atk--base64": "corpus/red-team/atk.json",  # a variant: its source Case's file
    }
    planned = [(_Case(c), 1) for c in ("ok", "bad", "lied", "atk--base64")]
    path = tmp_path / "junit.xml"
    path.write_bytes(junit.render([card], planned, files))  # type: ignore[arg-type]
    [suite] = list(JUnitXml.fromfile(str(path)))
    properties = {p.name: p.value for p in suite.properties()}
    assert properties == {
        "corpusHash": card.corpus_hash,
        "suite": "capability",
        "model": "m1",
        "corpusCommit": "abc",
        "notes": "0",
    }
    cases = {case.name: case for case in suite}
    assert {name: case.classname for name, case in cases.items()} == {
        "ok#1": "eval.capability.m1.ok",
        "bad#1": "eval.capability.m1.bad",
        "lied#1": "eval.capability.m1.lied",
        "atk--base64#1": "eval.capability.m1.atk",
    }
    assert {name: case._elem.get("file") for name, case in cases.items()} == {
        f"{c}#1": files[c] for c in files
    }
    [failed] = cases["bad#1"].result
    assert isinstance(failed, Failure) and failed.type == "output_contains"
    [contradicted] = cases["lied#1"].result
    assert isinstance(contradicted, Failure) and contradicted.type == "witness"
    assert contradicted.message == f"{WITNESSED}: denied call received: c2"
    [bare] = list(JUnitXml.fromstring(junit.render([card])))  # no files: classed by Sweep
    unfiled = list(bare)
    assert {case.classname for case in unfiled} == {"eval.capability.m1"}
    assert {case._elem.get("file") for case in unfiled} == {None}


def test_failures_are_typed_by_their_case_against_the_baseline(tmp_path: Path) -> None:
    """With a Baseline: a Case that passed there and fails now is a ``regression``, one that
    failed there too ``known``; the states are the real delta's, not restated here."""
    from eval_release.delta import compare

    before = scorecard(
        [trial("new-break", "passed"), trial("old-break", "failed"), trial("fine", "passed")]
    )
    after = scorecard(
        [trial("new-break", "failed"), trial("old-break", "failed"), trial("fine", "passed")]
    )
    states = {c.case_id: c.state for c in compare(before, after).cases}
    planned = [(_Case(c), 1) for c in ("new-break", "old-break", "fine")]
    path = tmp_path / "junit.xml"
    path.write_bytes(junit.render([after], planned, against=[states]))  # type: ignore[arg-type]
    [suite] = list(JUnitXml.fromfile(str(path)))
    types = {case.name: [r.type for r in case.result] for case in suite}
    assert types == {"new-break#1": ["regression"], "old-break#1": ["known"], "fine#1": []}
    assert {p.name: p.value for p in suite.properties()}["baseline"] == "compared"
    assert all("output_contains" in r.message for case in suite for r in case.result)
    plain = tmp_path / "plain.xml"
    plain.write_bytes(junit.render([after], planned))  # type: ignore[arg-type]
    [suite] = list(JUnitXml.fromfile(str(plain)))  # not compared: the failing kind, as before
    assert {r.type for case in suite for r in case.result} == {"output_contains"}
    assert "baseline" not in {p.name for p in suite.properties()}
