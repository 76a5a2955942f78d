"""A held stretch: a signal arriving in it is delivered once it ends, never inside it."""

from __future__ import annotations

import os
import signal
import tempfile

import pytest

from eval_core._util.stopping import held


def test_a_signal_in_a_held_stretch_is_delivered_as_it_ends() -> None:
    steps: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        with held():
            os.kill(os.getpid(), signal.SIGINT)
            steps.append("after the signal")
        steps.append("after the stretch")  # never reached: the Ctrl-C lands first
    assert steps == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_first_mkdtemp_leaves_no_probe_when_interrupted_in_a_held_stretch(
    monkeypatch: pytest.MonkeyPatch, tmp_path: os.PathLike[str]
) -> None:
    """The standard library's first mkdtemp writes and removes a probe file of its own; a
    Ctrl-C as it does so (here: sent while it opens the probe) used to leave the file."""
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.setenv("TMPDIR", os.fspath(tmp_path))
    opened = os.open

    def interrupted(path: str, *args: object, **kwargs: object) -> int:
        fd = opened(path, *args, **kwargs)  # type: ignore[arg-type]
        os.kill(os.getpid(), signal.SIGINT)
        return fd

    monkeypatch.setattr(tempfile._os, "open", interrupted)  # type: ignore[attr-defined]
    made: list[str] = []
    with pytest.raises(KeyboardInterrupt), held():
        made.append(tempfile.mkdtemp(prefix="scratch-"))
    assert [p.name for p in os.scandir(tmp_path)] == [os.path.basename(m) for m in made]
    assert len(made) == 1  # made, recorded, then interrupted
