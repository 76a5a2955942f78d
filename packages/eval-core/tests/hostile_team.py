"""The team-code boundary's fuzz target, shared by the framework Hosts' tests (issue 45, class 3).

:func:`behaviours` draws what a team's Tool does in each Case of a tiny team project (end the
process, raise, hang, leak, return or print too much); :func:`sweep_hostile` runs the real
``eval sweep`` over it and holds it to the boundary's promise: the exit code is the one the
Trials compute, never the team's; a Trial the team's code ended errors in one line; the
Scorecard on stdout is whole; stderr holds no traceback; nothing the Sweep started is left
running; the command ends within its bound.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EVAL = str(Path(sys.executable).parent / "eval")
TIMEOUT = 1
"""The Host's ``timeout`` option, seconds: a hanging Trial's child is killed 2 s after it."""
BOUND = 90
"""Seconds one hostile Sweep may take in all (a few Trials, each within its deadline)."""

BASES = (
    "BaseException",
    "SystemExit",
    "KeyboardInterrupt",
    "GeneratorExit",
    "asyncio.CancelledError",
    "Exception",
    "RuntimeError",
)
ORDINARY = ("Exception", "RuntimeError")


DO = """
def _do(how):
    what, arg = how
    if what == "exit":
        sys.exit(arg)
    if what == "os_exit":
        os._exit(arg)
    if what == "raise":
        base, name = arg
        raise type(name, (eval(base),), {})(name)
    if what == "sleep":
        time.sleep(3600)
    if what == "spin":
        while True:
            pass
    if what == "thread":
        threading.Thread(target=time.sleep, args=(3600,)).start()
    if what == "huge":
        return "x" * arg
    if what == "flood":
        stream, size = arg
        (sys.stdout if stream == "stdout" else sys.stderr).write("flood " * size)
        os.write(1 if stream == "stdout" else 2, b"raw " * size)
    return "done"
"""
"""The body of a team's hostile Tool, as source: ``_do(how)`` does what a drawn
:class:`Behaviour` says; each framework Host's target wraps it in its own Tools and agent."""


@dataclass(frozen=True)
class Behaviour:
    """What one Case's Tool does: ``what`` with ``arg``, from the sync or the async Tool."""

    what: str
    arg: Any = None
    on_loop: bool = False

    @property
    def outcomes(self) -> frozenset[str]:
        """What the Trial may come to: errored when the team's code ends it, passed when the
        Tool returns; an ordinary ``Exception`` is the framework's to report (LangGraph hands
        it to the model as the Tool's error, pydantic-ai ends the run): either, never worse."""
        if self.what in ("thread", "flood", "ok"):
            return frozenset({"passed"})
        if self.what == "huge":  # passed, or past the deadline on a busy machine: bounded
            return frozenset({"passed", "errored"})
        if self.what == "raise" and self.arg[0] in ORDINARY:
            return frozenset({"passed", "errored"})
        return frozenset({"errored"})


_NAMES = st.from_regex(r"[A-Z][a-z]{1,8}", fullmatch=True)
_WHAT = st.one_of(
    st.builds(
        lambda n: ("exit", n),
        st.one_of(st.integers(-(2**40), 2**40), st.none(), st.text(max_size=20)),
    ),
    st.builds(lambda n: ("os_exit", n), st.integers(0, 255)),
    st.builds(lambda b, n: ("raise", [b, n]), st.sampled_from(BASES), _NAMES),
    st.just(("sleep", None)),
    st.just(("spin", None)),
    st.just(("thread", None)),
    st.builds(lambda n: ("huge", n), st.integers(1 << 20, 8 << 20)),
    st.builds(
        lambda s, n: ("flood", [s, n]),
        st.sampled_from(["stdout", "stderr"]),
        st.integers(1, 50_000),
    ),
    st.just(("ok", None)),
)


def behaviours() -> st.SearchStrategy[list[Behaviour]]:
    """Two to four Cases' behaviours (a Sweep each example: kept small)."""
    one = st.builds(lambda w, loop: Behaviour(w[0], w[1], loop), _WHAT, st.booleans())
    return st.lists(one, min_size=2, max_size=4)


def probe_settings(module: str, host: str, timeout: float) -> str:
    """The ``pyproject.toml`` of a team project named ``probe``: its agents ``module:AGENTS``
    (beside it), run by ``host`` with ``timeout`` seconds a Trial."""
    return (
        f'[project]\nname = "probe"\nversion = "0"\n\n[tool.eval]\napp = "{module}:AGENTS"\n'
        f'host = "{host}"\npythonpath = ["."]\ntimeout = {timeout}\n'
    )


def probe_case(case_id: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A Case of the ``probe`` agent: one call of ``tool`` with ``arguments``, then ``ok``; it
    expects only that the Tool was called (what the Tool does to the Sweep is the point)."""
    call = {"callId": "c1", "name": tool, "arguments": arguments}
    return {
        "id": case_id,
        "tier": "l2",
        "agent": "probe",
        "input": [{"role": "user", "content": "go"}],
        "platformTools": [tool],
        "script": [{"kind": "tool_calls", "calls": [call]}, {"kind": "text", "text": "ok"}],
        "expect": [{"kind": "tool_called", "name": tool}],
    }


def _project(
    root: Path, cases: list[Behaviour], app: str, host: str, tools: tuple[str, str]
) -> None:
    module = "hostile_app"
    (root / "pyproject.toml").write_text(probe_settings(module, host, TIMEOUT))
    (root / f"{module}.py").write_text(app)
    corpus = root / "corpus"
    corpus.mkdir()
    for at, behaviour in enumerate(cases):
        tool = tools[1] if behaviour.on_loop else tools[0]
        how = json.dumps([behaviour.what, behaviour.arg])
        (corpus / f"c{at}.json").write_text(json.dumps(probe_case(f"c{at}", tool, {"how": how})))


def _marked(mark: str) -> list[int]:
    """Every live process whose environment carries ``mark`` (what the Sweep started)."""
    found = []
    needle = f"EVAL_FUZZ_MARK={mark}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as environ:
                if needle in environ.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def fuzz_target(app: str, host: str, max_examples: int) -> Callable[..., None]:
    """A Host's fuzz test: ``max_examples`` drawn team projects of ``app`` (its Tools ``act``
    and ``act_async``), each swept once through ``host`` by :func:`sweep_hostile`."""

    @settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(behaviours())
    def target(tmp_path_factory: pytest.TempPathFactory, cases: list[Behaviour]) -> None:
        sweep_hostile(tmp_path_factory, cases, app, host=host, tools=("act", "act_async"))

    return target


def sweep_hostile(
    factory: Any, cases: list[Behaviour], app: str, *, host: str, tools: tuple[str, str]
) -> None:
    """Run ``eval sweep`` over a project whose Tools do ``cases`` and check the boundary."""
    root = factory.mktemp("hostile")
    _project(root, cases, app, host, tools)
    mark = uuid.uuid4().hex
    started = time.monotonic()
    done = subprocess.run(
        [EVAL, "sweep", "corpus", "--unlocked", "-q", "--format", "json"],
        cwd=root,
        capture_output=True,
        env={**os.environ, "EVAL_FUZZ_MARK": mark},
        timeout=BOUND,
        check=False,
    )
    took = time.monotonic() - started
    left = _marked(mark)
    for pid in left:  # never leave them to the next example, whatever the verdict
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    stdout = done.stdout.decode("utf-8", "replace")
    stderr = done.stderr.decode("utf-8", "replace")
    assert not left, f"{len(left)} process(es) left running after eval ended"
    assert "Traceback" not in stderr, stderr[-3000:]
    card = json.loads(stdout)  # the Scorecard is whole: no team output within it
    trials = {t["caseId"]: t for t in card["trials"]}
    assert len(trials) == len(cases), (cases, stdout[-2000:])
    for at, behaviour in enumerate(cases):
        trial = trials[f"c{at}"]
        assert trial["outcome"] in behaviour.outcomes, (behaviour, trial)
        if trial["outcome"] == "errored":
            assert trial["error"] and "\n" not in trial["error"], trial
    computed = 0 if all(t["outcome"] == "passed" for t in trials.values()) else 1
    assert done.returncode == computed, (done.returncode, cases, stderr[-2000:])
    assert took < BOUND
