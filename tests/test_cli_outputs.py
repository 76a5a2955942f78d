"""What `eval` writes and says, end to end through a subprocess: the files' modes, the JUnit
XML, progress, the words of a refused comparison or Baseline, a Case file that does not parse,
and the help that says what the output means. Where an output may go among a Sweep's inputs
is what the command decides and says, so those runs go through the real command line in this
process (``eval_in_process``)."""

from __future__ import annotations

import json
import re
import shutil
import stat
import subprocess
from pathlib import Path

import msgspec
import pytest
from junitparser import Failure, JUnitXml

from tests.conftest import ROOT, WriteCase, eval_in_process, minimal_case, run_eval


def run(cwd: Path, *args: str | Path, umask: int = 0o022) -> subprocess.CompletedProcess[str]:
    """`eval ARGS` in ``cwd`` under ``umask``."""
    return run_eval(*args, cwd=cwd, umask=umask)


@pytest.fixture
def project(corpus_dir: Path) -> Path:
    """The working directory: ``corpus/`` (locked) with one passing Case ``c``."""
    (corpus_dir / "c.json").write_text(json.dumps(minimal_case()))
    assert run(corpus_dir.parent, "lock", "corpus").returncode == 0
    return corpus_dir.parent


def failing(case_id: str) -> dict[str, object]:
    return minimal_case(
        case_id,
        script=[{"kind": "text", "text": "I have no idea where it is, sorry."}],
        expect=[{"kind": "output_contains", "text": "business days"}],
    )


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_outputs_get_the_mode_the_umask_gives_not_mkstemps_0600(project: Path) -> None:
    swept = run(project, "sweep", "corpus", "--save", "card.json", "--junit-xml", "j.xml")
    assert swept.returncode == 0, swept.stderr
    assert mode(project / "card.json") == mode(project / "j.xml") == 0o644
    reported = run(project, "report", "card.json", "-o", "report.html")
    assert reported.returncode == 0, reported.stderr
    assert mode(project / "report.html") == 0o644
    private = run(project, "sweep", "corpus", "--save", "private.json", umask=0o077)
    assert private.returncode == 0 and mode(project / "private.json") == 0o600


def test_junit_classes_each_case_by_its_file_with_types_and_properties(
    project: Path, write_case: WriteCase
) -> None:
    write_case(failing("fails"))
    swept = run(project, "sweep", "corpus", "--junit-xml", "j.xml", "--save", "card.json")
    assert swept.returncode == 1
    card = json.loads((project / "card.json").read_text())
    [suite] = list(JUnitXml.fromfile(str(project / "j.xml")))
    properties = {p.name: p.value for p in suite.properties()}
    assert properties["corpusHash"] == card["corpusHash"]
    assert properties["model"] == "scripted"
    assert properties["corpusCommit"] == card["corpusCommit"]
    cases = {case.name: case for case in suite}
    assert cases["c#1"].classname == "eval.capability.scripted.c"
    assert cases["c#1"]._elem.get("file") == "corpus/c.json"  # from the repository's root
    assert cases["fails#1"]._elem.get("file") == "corpus/fails.json"
    [failure] = cases["fails#1"].result
    assert isinstance(failure, Failure) and failure.type == "output_contains"


def test_progress_counts_trials_as_they_finish_with_rate_and_eta(
    project: Path, write_case: WriteCase
) -> None:
    for case_id in ("a", "b"):
        write_case(minimal_case(case_id))
    swept = run(project, "sweep", "corpus", "--log", "log.jsonl")
    assert swept.returncode == 0, swept.stderr
    lines = (project / "log.jsonl").read_text().splitlines()
    [first] = [n for n, line in enumerate(lines) if json.loads(line).get("caseId") == "a"]
    del lines[first]  # as if the Sweep was cut short before Case a (planned first) finished
    (project / "log.jsonl").write_text("\n".join(lines) + "\n")
    resumed = run(project, "sweep", "corpus", "--resume", "log.jsonl")
    assert resumed.returncode == 0, resumed.stderr
    counted = [line for line in resumed.stderr.splitlines() if line.startswith("[")]
    [line] = counted  # Case a, the first planned: the third done of three
    assert re.fullmatch(r"\[3/3\] a#1 PASS \d+\.\d\ds  [\d.]+ Trials/s  ETA 0s", line), line
    assert resumed.stdout.startswith("Sweep  model=scripted")  # progress never on stdout
    assert "[" not in resumed.stdout.split("\n", 1)[0]


def test_a_saved_scorecard_given_as_the_baseline_is_named_for_what_it_is(project: Path) -> None:
    assert run(project, "sweep", "corpus", "--save", "card.json").returncode == 0
    compared = run(project, "sweep", "corpus", "--baseline", "card.json")
    assert compared.returncode == 3
    assert (
        "REFUSED  no delta computed: card.json is a saved Scorecard, not a Baseline: promote "
        "one with --promote, or compare two Scorecards with eval compare"
    ) in compared.stdout


def test_compare_words_two_scorecards_and_names_the_cases_that_differ(
    project: Path, write_case: WriteCase
) -> None:
    write_case(minimal_case("gone"))
    assert run(project, "sweep", "corpus", "--save", "A.json").returncode == 0
    same = run(project, "compare", "A.json", "A.json")
    assert same.returncode == 0, same.stderr
    assert "Baseline" not in same.stdout
    assert (
        "NOTE  the Scorecard A.json was swept without --repeat: it records no noise floor, so "
        "no delta here is damped"
    ) in same.stdout
    (project / "corpus" / "gone.json").unlink()
    write_case(minimal_case(input=[{"role": "user", "content": "Where are my tulip bulbs?"}]))
    write_case(minimal_case("new"))
    assert run(project, "sweep", "corpus", "--save", "B.json").returncode == 0
    refused = run(project, "compare", "A.json", "B.json")
    assert refused.returncode == 3
    assert "REFUSED  no delta computed: different Corpora: corpusHash" in refused.stderr
    for line in ("1 Case(s) changed: c", "1 Case(s) added: new", "1 Case(s) removed: gone"):
        assert f"  - {line}\n" in refused.stderr, refused.stderr


def test_a_truncated_case_file_is_refused_at_its_line_and_column(
    project: Path, write_case: WriteCase
) -> None:
    write_case('{\n  "id": "cut",\n  "tier": "l2",\n  "input": [', name="cut.json")
    checked = run(project, "check", "corpus")
    assert checked.returncode == 2
    assert (
        "corpus/cut.json:4:13: $: not valid JSON: the file ends before the JSON does (truncated"
    ) in checked.stderr


def test_sweep_help_says_what_the_bracket_is_and_the_real_default_log(project: Path) -> None:
    from eval_core._plugins.commands import DEFAULT_LOG, default_log_help

    helped = run(project, "sweep", "--help").stdout
    assert "The [loop STATUS] after a Trial is how the runtime's tool loop ended" in one_line(
        helped
    )
    squeezed = "".join(helped.split())  # argparse wraps where it likes
    assert "".join(f"default {default_log_help()}.".split()) in squeezed
    swept = run(project, "sweep", "corpus", "-v")
    assert "PASS  c#1  [loop completed]" in swept.stdout
    logged = re.search(r"^trial log  (\S+)$", swept.stderr, re.MULTILINE)
    assert logged is not None, swept.stderr
    pattern = re.escape(DEFAULT_LOG)
    for field, value in (
        ("suite", "capability"),
        ("model", "scripted"),
        ("time", r"\d{8}T\d{6}Z"),
        ("pid", r"\d+"),
        ("random", "[0-9a-f]{6}"),
    ):
        pattern = pattern.replace(re.escape("{" + field + "}"), value)
    assert re.fullmatch(pattern, logged[1]), (logged[1], DEFAULT_LOG)


@pytest.mark.parametrize(
    "target",
    [
        "eval.lock",
        "finance-refund-is-blocklisted.json",
        "soul/soul.yaml",
        "soul/notes.txt",
        "new.json",
        "red-team/new.yaml",
    ],
)
def test_no_output_of_a_sweep_goes_among_its_inputs(tmp_path: Path, target: str) -> None:
    """--save onto eval.lock, a Case file or a Soul file overwrote it; a new file there would
    be read as a Case next time."""
    corpus = tmp_path / "corpus"
    shutil.copytree(ROOT / "corpus", corpus, ignore=shutil.ignore_patterns("red-team"))
    before = {p: p.read_bytes() for p in corpus.rglob("*") if p.is_file()}
    for flag in ("--save", "--junit-xml", "--log"):
        result = eval_in_process(
            "sweep", corpus, "--unlocked", flag, f"corpus/{target}", cwd=tmp_path
        )
        assert result.returncode == 2, result.stdout + result.stderr
        assert "an output never goes among the Sweep's inputs" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert {p: p.read_bytes() for p in corpus.rglob("*") if p.is_file()} == before


def test_an_output_the_corpus_does_not_read_may_sit_beside_its_cases(tmp_path: Path) -> None:
    """A trial log or a saved Scorecard beside the Cases is never read as one (the original's
    conformance runner keeps its log there): it is written, and the Corpus is unchanged."""
    corpus = tmp_path / "corpus"
    shutil.copytree(ROOT / "corpus", corpus, ignore=shutil.ignore_patterns("red-team"))
    for case in sorted(corpus.glob("*.json"))[1:]:
        case.unlink()
    result = eval_in_process(
        "sweep",
        corpus,
        "--unlocked",
        "--quiet",
        "--log",
        "corpus/trials.jsonl",
        "--save",
        "corpus/card.saved",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (corpus / "trials.jsonl").is_file() and (corpus / "card.saved").is_file()


def test_a_host_that_fails_to_close_keeps_the_scorecard_and_says_so_in_one_line(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Host is a plug-in: its ``close`` raising after the last Trial leaves the verdicts
    standing (the Scorecard is on stdout), is one line on stderr and exits 2, never a
    traceback."""
    from eval_host_agent_runtime.host import AgentRuntimeHost

    def broken(self: AgentRuntimeHost) -> None:
        raise AttributeError("'Template' object has no attribute '_out'")

    monkeypatch.setattr(AgentRuntimeHost, "close", broken)
    swept = eval_in_process("sweep", "corpus", "--format", "json", cwd=project)
    assert swept.returncode == 2, swept.stderr
    assert json.loads(swept.stdout)["passed"] == 1
    assert "Traceback" not in swept.stderr
    [line] = [x for x in swept.stderr.splitlines() if "close of Host" in x]
    assert "close of Host 'agent-runtime' raised AttributeError" in line


def test_a_host_whose_fork_preparation_fails_is_refused_in_one_line(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``prepare_fork`` is the Host's code too (sample 15's pydantic-ai ``loop.py:130`` mutant
    raised there): forked workers it cannot prepare are a refusal naming it, exit 2, never a
    traceback, and no Trial is run half-prepared."""
    from eval_host_agent_runtime.host import AgentRuntimeHost

    def broken(self: AgentRuntimeHost) -> None:
        raise TypeError("attribute name must be string, not 'NoneType'")

    monkeypatch.setattr(AgentRuntimeHost, "prepare_fork", broken, raising=False)
    swept = eval_in_process("sweep", "corpus", "--executor", "fork", cwd=project)
    assert swept.returncode == 2, swept.stderr
    assert "Traceback" not in swept.stderr and swept.stdout == ""
    [line] = [x for x in swept.stderr.splitlines() if "prepare_fork" in x]
    assert line.startswith(
        "--executor fork refused: the Host 'agent-runtime' cannot run in a forked worker: "
        "prepare_fork of Host 'agent-runtime' raised TypeError: attribute name must be string"
    ), line


def test_a_host_that_cannot_load_says_so_on_one_line_whatever_its_error_spans(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's message may span lines, with a caret under the fault (sample 16's
    ``store/database.py:66`` mutant on PostgreSQL ended ``eval sweep`` with a lone ``^``): the
    refusal folds it onto its one line."""
    from eval_host_agent_runtime.host import AgentRuntimeHost

    def broken(self: AgentRuntimeHost, *args: object, **kwargs: object) -> None:
        raise RuntimeError('syntax error at or near "\\b"\nLINE 1: CREATE TABLE \\b\n       ^')

    monkeypatch.setattr(AgentRuntimeHost, "__init__", broken)
    swept = eval_in_process("sweep", "corpus", cwd=project)
    assert swept.returncode == 2, swept.stderr
    [line] = swept.stderr.strip().splitlines()
    assert line.endswith(
        "the Host 'agent-runtime' cannot load the Eval Soul: "
        'syntax error at or near "\\b" LINE 1: CREATE TABLE \\b ^'
    ), line


@pytest.mark.parametrize("command", [("check", "corpus"), ("hash", "corpus"), ("lock", "corpus")])
def test_a_host_that_fails_to_close_after_a_load_is_one_line_and_exit_2(
    project: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...]
) -> None:
    """Every command that loads the Corpus closes its Host inside the guard: ``eval check``,
    ``eval hash`` and ``eval lock`` refuse in one line naming the close, never a traceback."""
    from eval_host_agent_runtime.host import AgentRuntimeHost

    def broken(self: AgentRuntimeHost) -> None:
        raise AttributeError("'Template' object has no attribute '_out'")

    monkeypatch.setattr(AgentRuntimeHost, "close", broken)
    done = eval_in_process(*command, cwd=project)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    [line] = [x for x in done.stderr.splitlines() if "close of Host" in x]
    assert "close of Host 'agent-runtime' raised AttributeError" in line


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("output_text", {"queue": "billing"}, "Evidence whose output_text is dict, not text"),
        (
            "tool_calls",
            [{"name": "lookup_ticket"}],
            "Evidence whose tool_calls is a list holding dict, not a list of ToolCall",
        ),
    ],
)
def test_a_host_reporting_misshapen_evidence_errs_its_trial_in_one_line(
    project: Path, monkeypatch: pytest.MonkeyPatch, field: str, value: object, said: str
) -> None:
    """A Host's Evidence is a plug-in's answer, built unchecked (a Struct): an answer object
    where text was due (a pydantic-ai Host handing back its structured output), or dicts where
    ToolCalls were, errs the Trial in one line; the Sweep and its Scorecard go on."""
    from eval_host_agent_runtime.l2 import L2Trial

    ran = L2Trial.run

    def bent(self: L2Trial) -> object:
        evidence = ran(self)
        setattr(evidence, field, value)
        return evidence

    monkeypatch.setattr(L2Trial, "run", bent)
    swept = eval_in_process("sweep", "corpus", "--format", "json", cwd=project)
    assert swept.returncode == 1, swept.stderr
    assert "Traceback" not in swept.stderr
    [trial] = json.loads(swept.stdout)["trials"]
    assert trial["outcome"] == "errored"
    assert said in trial["error"] and "the Host 'agent-runtime' reported" in trial["error"]


def test_a_host_handing_the_model_a_request_without_a_prompt_errs_its_trial_in_one_line(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model request is the Host's (a Struct built unchecked): one whose system prompt is not
    text errs its Trial saying so, before the binding records it."""
    from agent_runtime.model import ModelRequest
    from eval_host_agent_runtime import ports

    asked = ports.ModelPort.complete

    def bent(self: ports.ModelPort, request: ModelRequest) -> object:
        return asked(self, msgspec.structs.replace(request, system=None))

    monkeypatch.setattr(ports.ModelPort, "complete", bent)
    swept = eval_in_process("sweep", "corpus", "--format", "json", cwd=project)
    assert "Traceback" not in swept.stderr
    [trial] = json.loads(swept.stdout)["trials"]
    assert trial["outcome"] == "errored"
    assert trial["error"].startswith(
        "TypeError: the Host handed the model a request whose system prompt is NoneType, not text"
    ), trial["error"]
