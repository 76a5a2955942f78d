"""``eval record`` on a real model: SmolLM2-135M behind llama.cpp's own server on 127.0.0.1
(``eval-local-model``, the ``realmodel`` group, as CI's real-model step runs it). A
hand-written input-only Case of the real-model suite (one a 135M model decides reliably: the
server's grammar forces the Tool call) is recorded through the reference runtime, then replays
on the scripted binding with the verdicts of the real run, and without drift."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from record_fixtures import SUITE, logged_path, scorecard, verdicts_in_log
from tests.conftest import judgeless_env, real_model_marks, run_eval

CASE = "clerk-calls-its-tool-with-the-order-number"


pytestmark = real_model_marks()


def test_a_real_model_s_run_is_recorded_and_replays_with_its_verdicts(tmp_path: Path) -> None:
    from eval_local_model import LocalModel

    shutil.copytree(SUITE, tmp_path / "corpus")
    path = tmp_path / "corpus" / f"{CASE}.json"
    case = json.loads(path.read_text())
    del case["script"]  # an input and its Expectations: the model writes the rest
    path.write_text(json.dumps(case, indent=2) + "\n")
    with LocalModel(slots=1) as model:
        models = model.models_file(tmp_path)
        done = run_eval(
            "record", "corpus", "--unlocked", "--model", model.pin_name, "--models", models,
            "--max-tokens-per-trial", "20000", "--jobs", "1",
            cwd=tmp_path, env=judgeless_env(**model.env()), timeout=240,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"RECORDED {CASE}" in done.stdout
    recorded = json.loads(path.read_text())
    assert recorded["recorded"]["model"] == model.pin_name
    assert recorded["script"][0]["kind"] == "tool_calls"  # the call the model made
    assert recorded["script"][0]["calls"][0]["name"] == "lookup_order"
    real = verdicts_in_log(tmp_path / logged_path(done.stdout))[CASE]

    replay = run_eval(
        "sweep", "corpus", "--unlocked", "--case", CASE, "--format", "json", cwd=tmp_path
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr
    [trial] = scorecard(replay.stdout)["trials"]
    assert [(e["kind"], e["passed"]) for e in trial["expectations"]] == real
    assert trial["outcome"] == "passed" and "notes" not in trial  # free, and no drift
