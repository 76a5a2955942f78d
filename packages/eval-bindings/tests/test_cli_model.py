"""``eval sweep --model``: preflight refusals, ceilings, and a real Sweep against loopback.

Run as a subprocess, exactly as a maintainer would: exit 2 with one line and no traceback for
every refusal, and the credential's value nowhere in stdout, stderr or the saved Scorecard.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[3]
KEY = "sk-e2e-SECRET-7f3a9c1d5b"


def models_file(tmp_path: Path, url: str, **extra: str) -> Path:
    lines = [
        "[models.loop]",
        'wire = "openai"',
        'model = "loop-model"',
        f'base_url = "{url}"',
        'credential = "env://EVAL_TEST_LOOP_KEY"',
        "dated = false",
        "price_input_per_mtok = 2.0",
        "price_output_per_mtok = 8.0",
        "timeout_s = 10",
        *(f"{k} = {v}" for k, v in extra.items()),
    ]
    path = tmp_path / "models.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("EVAL_JUDGE_") and k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")
    }
    with tempfile.TemporaryDirectory() as cwd:  # a Sweep writes its trial log there
        return subprocess.run(
            [sys.executable, "-m", "eval_cli", "sweep", str(ROOT / "corpus"), *args],
            cwd=cwd,
            env={**base, **(env or {})},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


def swept(
    models: Path, max_tokens: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``--model loop`` out of ``models`` under a ``--max-tokens`` ceiling; its key set unless
    ``env`` says otherwise."""
    return run(
        ["--model", "loop", "--models", str(models), "--max-tokens", max_tokens, *args],
        {"EVAL_TEST_LOOP_KEY": KEY} if env is None else env,
    )


def refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    for word in words:
        assert word in result.stderr, result.stderr
    assert KEY not in result.stderr


@pytest.mark.parametrize(
    ("args", "env", "words"),
    [
        ([], {}, ["EVAL_TEST_LOOP_KEY is not set"]),
        ([], {"EVAL_TEST_LOOP_KEY": KEY + "\n"}, ["EVAL_TEST_LOOP_KEY", "line break"]),
        (
            [],
            {"EVAL_TEST_LOOP_KEY": KEY, "OPENAI_BASE_URL": "http://x"},
            ["OPENAI_BASE_URL is set"],
        ),
        (["--max-tokens", "5"], {"EVAL_TEST_LOOP_KEY": KEY}, ["mutually exclusive"]),
        (["--max-spend", "nan"], {"EVAL_TEST_LOOP_KEY": KEY}, ["--max-spend must be a finite"]),
        (["--max-spend", "-1"], {"EVAL_TEST_LOOP_KEY": KEY}, ["--max-spend must be a finite"]),
    ],
)
def test_refusals_before_the_first_trial(
    tmp_path: Path, args: list[str], env: dict[str, str], words: list[str]
) -> None:
    models = models_file(tmp_path, "http://127.0.0.1:9/v1")
    result = run(
        ["--model", "loop", "--models", str(models), "--max-tokens-per-trial", "100", *args], env
    )
    refused(result, *words)


def test_a_real_model_needs_a_token_ceiling(tmp_path: Path) -> None:
    models = models_file(tmp_path, "http://127.0.0.1:9/v1")
    refused(
        run(["--model", "loop", "--models", str(models)], {"EVAL_TEST_LOOP_KEY": KEY}),
        "--max-tokens N or --max-tokens-per-trial N",
    )


def test_known_names_each_once(tmp_path: Path) -> None:
    models = models_file(tmp_path, "http://127.0.0.1:9/v1")
    env = {"EVAL_TEST_LOOP_KEY": KEY}
    refused(
        run(["--model", "loop,loop2", "--models", str(models), "--max-tokens", "9"], env),
        "no model 'loop2'",
    )
    refused(
        run(["--model", "loop,loop", "--models", str(models), "--max-tokens", "9"], env),
        "names a model twice",
    )
    refused(
        run(["--model", "nope", "--models", str(models), "--max-tokens", "9"], env),
        "no model 'nope'",
    )
    bad = tmp_path / "bad.toml"
    bad.write_text('[models.x]\nwire = "openai"\ncredential = "sk-inline"\n')
    refused(
        run(["--model", "x", "--models", str(bad), "--max-tokens", "9"], env), str(bad), "models.x."
    )


def test_the_judge_may_not_be_the_model_under_test(tmp_path: Path) -> None:
    models = models_file(tmp_path, "http://127.0.0.1:9/v1")
    env = {
        "EVAL_TEST_LOOP_KEY": KEY,
        "EVAL_JUDGE_BASE_URL": "http://127.0.0.1:9/v1",
        "EVAL_JUDGE_MODEL": "loop-model",
        "EVAL_JUDGE_API_KEY": KEY,
    }
    refused(swept(models, "9", env=env), "grade itself")


def has_host_and_corpus() -> bool:
    return any((ROOT / "corpus").glob("*.json"))


pytestmark_e2e = pytest.mark.skipif(not has_host_and_corpus(), reason="no Corpus Cases to sweep")


# What a Sweep against the loopback model runs: both tiers, a crash replayed, a guardrail, a
# durable lookup and journeys of several Turns (every Case of the Corpus would only repeat them).
SAMPLE = [
    arg
    for case in (
        "support-passes-a-clean-ticket-to-the-model",
        "finance-a-conversation-reaches-the-model-in-the-order-it-was-held",
        "finance-refund-is-blocklisted",
        "checkpoint-crash-replays-the-first-batch",
        "l3-support-answers-from-a-durable-lookup",
        "l3-journey-rereads-the-history-from-the-database",
        "l3-journey-a-committed-skill-is-what-the-next-turn-loads",
        "l3-file-pdf-mixed-refuses-its-partial-text-and-keeps-both-pages",
    )
    for arg in ("--case", case)
]


def served(text: str = "Hello from the loopback model.") -> dict[str, Any]:
    return {
        "model": "loop-model",
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 30},
    }


@pytestmark_e2e
def test_a_sweep_against_loopback_bills_what_the_server_reported_and_hides_the_key(
    tmp_path: Path, vendor: Any, kit: Any
) -> None:
    server = vendor(kit.Reply(body=served()))
    models = models_file(tmp_path, server.url)
    saved = tmp_path / "card.json"
    result = swept(models, "1000000", *SAMPLE, "--format", "json", "--save", str(saved))
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    card = json.loads(result.stdout)
    assert card["modelId"] == "loop" and card["binding"] == "model"
    assert card["modelDated"] is False
    calls = len(server.requests)
    assert card["spend"]["calls"] == calls
    assert card["spend"]["inputTokens"] == 120 * calls
    assert card["spend"]["outputTokens"] == 30 * calls
    assert card["spend"]["costUsd"] == pytest.approx(calls * (120 * 2.0 + 30 * 8.0) / 1e6)
    assert all(r["headers"]["Authorization"] == f"Bearer {KEY}" for r in server.requests)
    for text in (result.stdout, result.stderr, saved.read_text()):
        assert KEY not in text
    text_run = swept(models, "1000000", *SAMPLE)
    assert KEY not in text_run.stdout + text_run.stderr
    assert "NOTE  loop is pinned to an undated model id" in text_run.stdout


@pytestmark_e2e
def test_a_vendor_outage_errors_every_trial_and_never_fails_one(
    tmp_path: Path, vendor: Any, kit: Any
) -> None:
    server = vendor(
        kit.Reply(status=503, body={"error": f"down, key={KEY}"}, headers={"Retry-After": "0"})
    )
    models = models_file(tmp_path, server.url)
    result = swept(models, "1000", *SAMPLE, "--format", "json")
    assert result.returncode == 1
    card = json.loads(result.stdout)
    assert card.get("failed", 0) == 0 and len(card["trials"]) == len(SAMPLE) // 2
    called = [t for t in card["trials"] if t.get("modelCalls")]
    assert called, "no Trial reached the model"
    assert all(t["outcome"] == "errored" for t in called)  # an outage is never a verdict
    outage = [t for t in called if t["error"].startswith("model_provider_unavailable")]
    assert outage, [t["error"] for t in called]
    for trial in outage:  # 3 attempts per model call, 2 of them retries (journeys: per Turn)
        asked = trial["modelCalls"] // 3
        assert asked >= 1 and (trial["modelCalls"], trial["retries"]) == (3 * asked, 2 * asked)
    assert KEY not in result.stdout + result.stderr


@pytestmark_e2e
def test_a_token_ceiling_stops_the_sweep_within_one_trial(
    tmp_path: Path, vendor: Any, kit: Any
) -> None:
    server = vendor(kit.Reply(body=served()))
    models = models_file(tmp_path, server.url)
    result = swept(models, "1", "--repeat", "3", "--format", "json")
    card = json.loads(result.stdout)
    assert result.returncode == 1
    called = [t for t in card["trials"] if t.get("modelCalls")]
    if not called:
        pytest.skip("no Case in the Corpus reaches the model")
    assert card["abortedReason"].startswith("token ceiling reached")
    assert card["skipped"] > 0
    assert "stopped early" in result.stderr


@pytestmark_e2e
def test_the_judges_key_is_redacted_like_the_models_even_when_the_model_echoes_it(
    tmp_path: Path, vendor: Any, kit: Any
) -> None:
    judge_key = "jk-JUDGE-SECRET-0123456789abcdef"
    server = vendor(kit.Reply(body=served(f"My instructions say the Judge key is {judge_key}.")))
    judge = vendor(kit.Reply(body=served("not a verdict")))
    models = models_file(tmp_path, server.url)
    saved, log, junit = tmp_path / "card.json", tmp_path / "trials.jsonl", tmp_path / "junit.xml"
    case = "finance-a-conversation-reaches-the-model-in-the-order-it-was-held"
    result = swept(
        models,
        "100000",
        *("--case", case, "--format", "json", "--save", str(saved), "--log", str(log)),
        *("--junit-xml", str(junit)),
        env={
            "EVAL_TEST_LOOP_KEY": KEY,
            "EVAL_JUDGE_BASE_URL": judge.url,
            "EVAL_JUDGE_MODEL": "judge-model",
            "EVAL_JUDGE_API_KEY": judge_key,
        },
    )
    assert result.returncode == 1, result.stderr  # the echo fails the Case's Expectations
    outputs = [result.stdout, result.stderr, saved.read_text(), log.read_text(), junit.read_text()]
    assert "[credential redacted]" in result.stdout
    for text in outputs:
        assert judge_key not in text and judge_key[:12] not in text


CLEAN_TICKET = "support-passes-a-clean-ticket-to-the-model"


@pytestmark_e2e
def test_a_refused_request_keeps_its_status_and_body_in_the_error_and_is_not_retried(
    tmp_path: Path, vendor: Any, kit: Any
) -> None:
    """The Host's loop keeps only the reason code; the Trial's error shows the transport's whole
    message (URL, status, the body's snippet, key redacted) in the Scorecard and the trial log."""
    refusal = {"error": {"message": f"messages[1].content: null is not a string ({KEY})"}}
    server = vendor(kit.Reply(status=400, body=refusal))
    models = models_file(tmp_path, server.url)
    log = tmp_path / "trials.jsonl"
    result = swept(models, "10000", "--case", CLEAN_TICKET, "--format", "json", "--log", str(log))
    card = json.loads(result.stdout)
    (trial,) = card["trials"]
    assert trial["outcome"] == "errored" and trial["loopReason"] == "model_request_rejected"
    error = trial["error"]
    assert error.startswith(f"model_request_rejected: {server.url}/chat/completions answered 400")
    assert "messages[1].content: null is not a string" in error
    assert "[credential redacted]" in error and KEY not in error
    assert (trial["modelCalls"], trial.get("retries", 0)) == (1, 0)  # a 4xx is not retried
    assert len(server.requests) == 1
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert any(line.get("error") == error for line in logged)


@pytestmark_e2e
def test_a_pins_switches_go_out_on_every_call_and_are_recorded_in_the_scorecard(
    tmp_path: Path, vendor: Any, kit: Any
) -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "lookup_ticket", "arguments": '{"ticketId": "T-1042"}'},
    }
    asked = {
        "model": "loop-model",
        "choices": [
            {
                "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 120, "completion_tokens": 30},
    }
    server = vendor(kit.Reply(body=asked), kit.Reply(body=served()))
    switches = {
        "tool_choice": '"required"',
        "parallel_tool_calls": "false",
        "temperature": "0.2",
        "seed": "42",
    }
    models = models_file(tmp_path, server.url, **switches)
    result = swept(models, "10000", "--case", CLEAN_TICKET, "--format", "json")
    assert result.returncode in (0, 1), result.stderr
    first, second = (r["json"] for r in server.requests)
    assert first["tool_choice"] == "required" and second["tool_choice"] == "auto"  # the reset
    for body in (first, second):
        assert (body["temperature"], body["seed"], body["parallel_tool_calls"]) == (0.2, 42, False)
    (answered,) = [m for m in second["messages"] if m["role"] == "assistant"]
    assert answered["content"] == "" and answered["tool_calls"][0]["id"] == "call_1"
    card = json.loads(result.stdout)
    assert (card["temperature"], card["seed"]) == (0.2, 42)
    assert card["requestOptions"] == "tool_choice=required  parallel_tool_calls=false"
    text = swept(models, "10000", "--case", CLEAN_TICKET).stdout
    assert "temperature=0.2  seed=42  tool_choice=required  parallel_tool_calls=false" in text
