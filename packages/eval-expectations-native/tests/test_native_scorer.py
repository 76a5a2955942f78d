"""The native_admission_equals scorer: it reads only the Host's admission record, and it is
total (arbitrary records and paths give a Verdict with a detail, never an exception)."""

from __future__ import annotations

import contextlib
from typing import Any

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from eval_core._case.evidence import Evidence
from eval_core._case.kinds import Verdict
from eval_expectations_native.observation import NativeAdmission
from eval_expectations_native.plugin import NativeAdmissionEquals, _check, _score

ADMITTED: dict[str, Any] = {
    "runCount": 1,
    "stateCount": 1,
    "artifactCount": 1,
    "invocationCount": 1,
    "run": {"id": "run_1", "status": "queued", "source": "native"},
    "stateStatus": "queued",
    "request": {"destination": "eval/native#42"},
    "accountId": "approved-native-account",
    "inboxRunId": "run_1",
    "inboxCorrelated": True,
    "error": None,
}


def evidence(record: Any = None) -> Evidence:
    """Evidence holding the typed admission record, when ``record`` converts to one."""
    ev = Evidence(tier="l3")
    with contextlib.suppress(msgspec.ValidationError, TypeError):
        ev.put(msgspec.convert(record, NativeAdmission))
    return ev


def test_a_matching_value_passes_and_a_different_one_fails() -> None:
    ev = evidence(ADMITTED)
    assert _score(NativeAdmissionEquals(path="run.status", value="queued"), ev).passed
    assert _score(NativeAdmissionEquals(path="error", value=None), ev).passed
    assert not _score(NativeAdmissionEquals(path="runCount", value=0), ev).passed
    assert not _score(NativeAdmissionEquals(path="inboxCorrelated", value=1), ev).passed


def test_a_missing_observation_fails_even_for_null_and_zero() -> None:
    for value in (None, 0, False):
        verdict = _score(NativeAdmissionEquals(path="error", value=value), evidence())
        assert not verdict.passed
        assert "no native admission was read back" in verdict.detail


def test_a_record_of_another_type_is_not_an_admission() -> None:
    ev = Evidence(tier="l3")
    ev.records["eval_expectations_native.observation:NativeAdmission"] = dict(ADMITTED)
    verdict = _score(NativeAdmissionEquals(path="runCount", value=1), ev)
    assert not verdict.passed
    assert "no native admission was read back" in verdict.detail


def test_paths_outside_the_observation_are_refused_at_load() -> None:
    assert _check(NativeAdmissionEquals(path="runCount", value=1), None) == []
    assert _check(NativeAdmissionEquals(path="$.run.status", value="queued"), None) == []
    [(suffix, reason)] = _check(NativeAdmissionEquals(path="runs", value=1), None)
    assert suffix == ".path"
    assert "unknown native admission field 'runs'" in reason


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)
records = (
    st.none()
    | json_values
    | st.fixed_dictionaries({key: json_values for key in ADMITTED})
    | st.just(ADMITTED)
)
paths = st.sampled_from(["$", "runCount", "run.status", "request.a.0", "", "a..b", "error"]) | (
    st.text(max_size=8)
)


@given(record=records, path=paths, value=json_values)
def test_the_scorer_and_check_are_total(record: Any, path: str, value: Any) -> None:
    expectation = NativeAdmissionEquals(path=path, value=value)
    verdict = _score(expectation, evidence(record))
    assert isinstance(verdict, Verdict)
    assert verdict.detail
    assert isinstance(_check(expectation, None), list)
