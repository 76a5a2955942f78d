"""Fuzzing every file the harness reads: it only ever refuses (with the file and a reason),
never raises anything else, never blocks, never recurses without bound.

Hypothesis generates Case files (JSON and YAML, mutated from a valid Case and from scratch,
nested deep, with anchors and aliases, as raw bytes), Baselines and saved Scorecards (through
``eval compare``'s reader), trial logs (then resumed and appended to), and models files (through
the Sweep's own models step). Bounded: few examples each, no deadline flakiness, well under a
few seconds in all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_bindings.source import PinnedModels
from eval_core._loading.loader import Loader
from eval_core._loading.opening import Refused
from eval_core._plugins.plugins import PluginSet
from eval_core._recording.log_records import LogHeader, ResumeRefused, read
from eval_core._recording.triallog import TrialLog
from eval_core._sweeping.legs import open_legs as _legs
from eval_core._sweeping.options import SweepOptions
from eval_release import baseline
from eval_release.compare import _scorecard_of
from release_fixtures import scorecard, trial
from tests.conftest import SOUL, minimal_case

FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

HOSTILE_CHARS = st.one_of(
    st.characters(),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, categories=["Cs"]),
    st.sampled_from("\x00\x1b\r\n\t\ufffe\u202e[]{}:,&*!|>-#'\"\\"),
)
TEXT = st.text(HOSTILE_CHARS, max_size=30)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=20,
)


def deep(depth: int, inner: bytes = b"1") -> bytes:
    """JSON text (also YAML flow text) nesting ``depth`` levels of objects and arrays."""
    opens = b"".join(b"[" if index % 2 else b'{"k": ' for index in range(depth))
    closes = b"".join(b"]" if index % 2 else b"}" for index in reversed(range(depth)))
    return opens + inner + closes


@st.composite
def mutated_cases(draw: st.DrawFn) -> tuple[Any, str, int]:
    """A valid Case with one field replaced or removed, or anything at all; and a key to bury
    ``depth`` levels deep (built by :func:`assemble`, so a failure report stays printable)."""
    case: dict[str, Any] = minimal_case()
    choice = draw(st.integers(0, 4))
    key = draw(st.sampled_from([*case, "trials", "tools", "context", "expect", "script"]))
    depth = draw(st.one_of(st.just(0), st.integers(50, 3000)))
    if choice == 0:
        case[key] = draw(VALUES)
    elif choice == 1:
        case.pop(key, None)
    elif choice == 3:
        case["expect"] = [{"kind": draw(TEXT), **draw(st.dictionaries(TEXT, VALUES, max_size=3))}]
    elif choice == 4:
        return draw(VALUES), key, 0
    return case, key, depth


def assemble(recipe: tuple[Any, str, int]) -> bytes:
    value, key, depth = recipe
    if depth and isinstance(value, dict):
        return dump_json({**value, key: "@DEEP@"}).replace(b'"@DEEP@"', deep(depth))
    return dump_json(value)


def dump_json(value: Any) -> bytes:
    return json.dumps(value, allow_nan=True).encode("utf-8", "surrogatepass")


@pytest.fixture(scope="module")
def loader(plugins: PluginSet) -> Iterator[Loader]:
    host = plugins.hosts["agent-runtime"](SOUL)
    yield Loader(plugins, host, judge="no-judge")
    host.close()


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def load_case(loader: Loader, path: Path, data: bytes) -> None:
    path.write_bytes(data)
    case, problems = loader.load_file(path)
    assert (case is None) == bool(problems) or problems, problems
    for problem in problems:
        assert problem.file == str(path) and problem.path.startswith("$") and problem.reason


@FUZZ
@given(recipe=mutated_cases())
def test_a_json_case_file_is_loaded_or_refused_never_raises(
    loader: Loader, scratch: Path, recipe: tuple[Any, str, int]
) -> None:
    load_case(loader, scratch / "c.json", assemble(recipe))


@FUZZ
@given(data=st.binary(max_size=200))
def test_json_case_bytes_are_loaded_or_refused(loader: Loader, scratch: Path, data: bytes) -> None:
    load_case(loader, scratch / "c.json", data)


YAML_TEXT = st.text(
    st.one_of(st.sampled_from("&*[]{}:-?|>!%@#'\" \n\tabc01"), HOSTILE_CHARS), max_size=120
)


@FUZZ
@given(recipe=mutated_cases(), text=YAML_TEXT, anchored=st.booleans())
def test_a_yaml_case_file_is_loaded_or_refused_never_raises(
    loader: Loader, scratch: Path, recipe: tuple[Any, str, int], text: str, anchored: bool
) -> None:
    value = recipe[0]
    try:
        dumped = yaml.safe_dump(value).encode("utf-8", "surrogatepass")
    except yaml.YAMLError:
        dumped = b""
    if anchored:
        dumped = b"x: &a [1, 2]\ny: *a\n" + dumped
    for source in (dumped, assemble(recipe), text.encode("utf-8", "surrogatepass")):
        load_case(loader, scratch / "c.yaml", source)


@FUZZ
@given(value=VALUES, depth=st.integers(0, 2000), raw=st.binary(max_size=80))
def test_a_baseline_or_scorecard_is_read_or_refused_never_raises(
    scratch: Path, value: Any, depth: int, raw: bytes
) -> None:
    path = scratch / "b.json"
    good = json.loads(json.dumps({"schemaVersion": 2, "harnessVersion": "h", "savedAt": "t"}))
    good["scorecard"] = json.loads(
        json.dumps(msgspec.to_builtins(scorecard([trial("a", "passed")])))
    )
    candidates = [dump_json(value), deep(depth, dump_json(value)), raw]
    for key in list(good["scorecard"]):
        broken = json.loads(json.dumps(good))
        broken["scorecard"][key] = value
        candidates.append(dump_json(broken))
    for data in candidates:
        path.write_bytes(data)
        try:
            baseline.read(path)
        except baseline.BaselineError as exc:
            assert str(path) in str(exc)
        try:
            _scorecard_of(path)
        except Refused as exc:
            assert str(path) in str(exc)


HEADER = LogHeader(
    corpus_hash="a" * 64, model_id="m", selected=[], repeat=1, started_at="t", corpus_commit="v"
)


@FUZZ
@given(
    lines=st.lists(st.one_of(VALUES.map(dump_json), st.binary(max_size=40)), max_size=4),
    tail=st.binary(max_size=40),
    depth=st.integers(0, 3000),
)
def test_a_trial_log_is_resumed_or_refused_never_raises(
    scratch: Path, lines: list[bytes], tail: bytes, depth: int
) -> None:
    path = scratch / "log.jsonl"
    path.unlink(missing_ok=True)
    log = TrialLog.create(path, HEADER)
    log.append(trial("a", "passed"))
    log.close()
    with path.open("ab") as handle:
        for line in [*lines, deep(depth)]:
            handle.write(line.replace(b"\n", b" ") + b"\n")
        handle.write(tail)
    try:
        logged = read(path)
    except ResumeRefused as exc:
        assert str(path) in str(exc)
        return
    resumed = TrialLog.resume(path, logged)
    resumed.append(trial("z", "failed"))
    resumed.close()
    assert read(path).trials[-1].case_id == "z"  # the repaired log stays readable


TOML_TEXT = st.text(
    st.one_of(st.sampled_from("[]{}=.\"'#\n ,abcxyz019_-:/"), HOSTILE_CHARS), max_size=150
)
PIN = (
    '[models.x]\nwire = "openai"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n'
    'credential = "env://EVAL_FUZZ_KEY_UNSET"\ndated = true\n'
)


@FUZZ
@given(
    text=TOML_TEXT,
    key=st.sampled_from(["model", "timeout_s", "effort", "dated", "zz"]),
    depth=st.integers(0, 3000),
)
def test_a_models_file_is_accepted_or_refused_never_raises(
    scratch: Path, text: str, key: str, depth: int
) -> None:
    path = scratch / "models.toml"
    nested = f"zz = {'[' * depth}{']' * depth}\n"
    for source in (
        text,
        PIN + text,
        PIN.replace(f"\n{key} = ", f"\n{key} = {text!r}\n#"),
        PIN + nested,
        nested,
    ):
        path.write_bytes(source.encode("utf-8", "surrogatepass"))
        options = SweepOptions(models=("x",), models_file=path, max_tokens=9)
        with pytest.raises(Refused):  # the credential variable is unset: never a pass either
            _legs(options, PinnedModels())
