"""``eval record`` end to end through the reference runtime, over a loopback vendor: a
hand-written input-only Case is recorded, replays free with the real run's verdicts, keeps
its comments; ``--from-log`` writes the same with no model call; a prompt change in the
runtime's code is drift, noted on every replay and re-recorded by ``--stale``; a renamed Tool
is refused at load; an errored Trial is never recorded and a failed one only when asked."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from junitparser import JUnitXml

from record_fixtures import (
    BEHAVIOUR,
    CASE_ID,
    INPUT_ONLY,
    KEY,
    Project,
    ScriptedVendor,
    logged_path,
    model_of,
    scorecard,
    verdicts_in_log,
)
from tests.conftest import ROOT, judgeless_env


class Recorded:
    def __init__(self, project: Project, vendor: ScriptedVendor, done: Any) -> None:
        self.project, self.vendor, self.done = project, vendor, done
        self.log = project.root / logged_path(done.stdout)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recorded]:
    vendor = ScriptedVendor([model_of(BEHAVIOUR)])
    project = Project(tmp_path_factory.mktemp("record"), vendor.url)
    done = project.record("--model", "loop")
    try:
        yield Recorded(project, vendor, done)
    finally:
        vendor.close()


def copy_of(recorded: Recorded, into: Path) -> Project:
    shutil.copytree(recorded.project.root, into, dirs_exist_ok=True)
    project = Project.__new__(Project)
    project.root = into
    return project


def test_an_input_only_case_is_recorded_from_the_real_run(recorded: Recorded) -> None:
    done = recorded.done
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"RECORDED {CASE_ID}  2 step(s) from loop (PASS)" in done.stdout
    assert "1 recorded, 0 not recorded, 0 refused" in done.stdout
    case = recorded.project.case()
    assert case["script"] == BEHAVIOUR  # what the model did, as the binding received it
    drift = case["recorded"]
    assert (drift["model"], drift["host"]) == ("loop", "agent-runtime")
    assert [(r["messages"], r["tools"]) for r in drift["requests"]] == [
        (1, ["lookup_order"]),
        (3, ["lookup_order"]),
    ]
    assert set(drift["tools"]) == {"lookup_order"}
    assert all(r["system"] in drift["systems"] for r in drift["requests"])
    assert recorded.vendor.requests == 2
    # only the Cases without a script were recorded: the hand-written ones are untouched
    for path in (recorded.project.root / "corpus").glob("*.json"):
        assert (
            path.read_bytes()
            == (ROOT / "packages/eval-bindings/tests/realmodel_corpus" / path.name).read_bytes()
        )


def test_the_file_keeps_its_comments_and_every_other_line(recorded: Recorded) -> None:
    text = recorded.project.case_file.read_text()
    for line in INPUT_ONLY.splitlines():  # every line as written, comments included
        assert line in text.splitlines(), line
    keys = list(recorded.project.case())
    assert keys == [
        "id",
        "tier",
        "agent",
        "input",
        "script",
        "recorded",
        "tools",
        "toolResults",
        "expect",
    ]


def test_the_recording_replays_free_with_the_real_runs_verdicts(recorded: Recorded) -> None:
    project = recorded.project
    real = verdicts_in_log(recorded.log)[CASE_ID]
    replay = project.eval("sweep", "corpus", "--unlocked", "--case", CASE_ID, "--format", "json")
    assert replay.returncode == 0, replay.stdout + replay.stderr
    [trial] = scorecard(replay.stdout)["trials"]
    assert [(e["kind"], e["passed"]) for e in trial["expectations"]] == real
    assert all(passed for _, passed in real) and trial["outcome"] == "passed"
    assert "notes" not in trial  # nothing drifted
    drift = project.eval("check", "corpus", "--unlocked", "--drift")
    assert drift.returncode == 0, drift.stdout + drift.stderr
    assert "drift: 0 of 1 recorded Case(s) stale" in drift.stdout


def test_from_log_records_the_same_with_no_model_call(recorded: Recorded, tmp_path: Path) -> None:
    project = copy_of(recorded, tmp_path / "again")
    project.case_file.write_text(INPUT_ONLY)  # the Corpus as it was swept
    calls = recorded.vendor.requests
    log = project.root / recorded.log.relative_to(recorded.project.root)
    done = project.eval("record", "corpus", "--unlocked", "--from-log", log)
    assert done.returncode == 0, done.stdout + done.stderr
    assert recorded.vendor.requests == calls  # no model call
    assert project.case_file.read_bytes() == recorded.project.case_file.read_bytes()


MUTATION = (
    'parts = [\n        _section(titles["personality"][0], agent.personality),\n'
    '        _section("Platform instructions", "\\n\\n".join(PLATFORM_RULES)),',
    'parts = [\n        _section(titles["personality"][0], agent.personality),\n'
    '        _section("Platform instructions", "\\n\\n".join([*PLATFORM_RULES, '
    '"Answer every customer in French."])),',
)


def mutated_runtime(into: Path) -> dict[str, str]:
    """A copy of the runtime's ``src/`` with one more platform rule in its system prompt,
    first on ``PYTHONPATH`` (it shadows the editable install, as bench/mutation_table.py
    does): the environment to run ``eval`` with."""
    shutil.copytree(
        ROOT / "packages" / "agent-runtime" / "src",
        into,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    context = into / "agent_runtime" / "turn" / "context.py"
    source = context.read_text()
    old, new = MUTATION
    assert old in source, "the mutation no longer applies: update MUTATION"
    context.write_text(source.replace(old, new))
    return judgeless_env(RECORD_KEY=KEY, PYTHONPATH=str(into))


def test_a_prompt_change_in_the_runtime_is_drift_and_stale_re_records_it(
    recorded: Recorded, tmp_path: Path
) -> None:
    project = copy_of(recorded, tmp_path / "project")
    env = mutated_runtime(tmp_path / "runtime")
    replay = project.eval(
        "sweep", "corpus", "--unlocked", "--case", CASE_ID, "--format", "json",
        "--junit-xml", "junit.xml", env=env,
    )  # fmt: skip
    assert replay.returncode == 0, replay.stdout + replay.stderr  # the verdict stands
    card = scorecard(replay.stdout)
    [trial] = card["trials"]
    assert trial["outcome"] == "passed" and card["noted"] == 1
    said = (
        "the system prompt changed: 1 line(s) added ('Answer every customer in French.'), 0 removed"
    )
    assert trial["notes"] == [f"drift: requests 1, 2: {said}"]
    [suite] = list(JUnitXml.fromfile(str(project.root / "junit.xml")))
    assert {p.name: p.value for p in suite.properties()}["notes"] == "1"
    [case] = list(suite)
    assert [p.get("value") for p in case._elem.find("properties")] == trial["notes"]

    stale = project.record("--stale", "--model", "loop", env=env)
    assert stale.returncode == 0, stale.stdout + stale.stderr
    assert f"STALE  {CASE_ID}\n     drift: requests 1, 2: {said}" in stale.stdout
    assert f"RECORDED {CASE_ID}" in stale.stdout
    assert "(script unchanged)" in stale.stdout  # the model said the same: only the metadata moved
    after = project.eval("check", "corpus", "--unlocked", "--drift", env=env)
    assert after.returncode == 0 and "drift: 0 of 1 recorded Case(s) stale" in after.stdout


def test_a_recorded_call_to_a_tool_that_no_longer_exists_is_refused_naming_it(
    recorded: Recorded, tmp_path: Path
) -> None:
    project = copy_of(recorded, tmp_path / "renamed")
    text = project.case_file.read_text()
    head, _, tail = text.partition("recorded:")
    tail = tail.replace("- name: lookup_order", "- name: find_order")  # the Tool, its result
    tail = tail.replace("name: lookup_order", "name: find_order")  # and the Expectations
    project.case_file.write_text(head + "recorded:" + tail)
    done = project.eval("check", "corpus", "--unlocked")
    assert done.returncode == 2
    assert (
        f"{CASE_ID}.yaml: $.script[0].calls[0].name: 'lookup_order' is not a Tool of agent 'clerk'"
    ) in done.stderr
    assert "it has: find_order" in done.stderr


def test_an_errored_trial_is_never_recorded_and_a_failed_one_only_when_asked(
    tmp_path: Path,
) -> None:
    vendor = ScriptedVendor(
        [model_of(BEHAVIOUR)], replies={CASE_ID: {"kind": "text", "text": "I cannot say."}}
    )
    project = Project(tmp_path, vendor.url)
    try:
        errored = project.record("--model", "down")  # the vendor cannot be reached
        failed = project.record("--model", "loop")
    finally:
        vendor.close()
    assert errored.returncode == 1, errored.stdout + errored.stderr
    assert f"SKIPPED  {CASE_ID}: it errored (model_" in errored.stdout
    assert "never recorded" in errored.stdout
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert f"SKIPPED  {CASE_ID}: it did not pass (tool_called: " in failed.stdout
    assert "--allow-failed records it" in failed.stdout
    assert project.case_file.read_text() == INPUT_ONLY  # nothing written
    log = project.root / logged_path(failed.stdout)
    allowed = project.eval("record", "corpus", "--unlocked", "--from-log", log, "--allow-failed")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert f"RECORDED {CASE_ID}  1 step(s) from loop (FAIL)" in allowed.stdout
    assert "recorded a Trial that did not pass: tool_called: " in allowed.stdout
    assert project.case()["script"] == [{"kind": "text", "text": "I cannot say."}]
