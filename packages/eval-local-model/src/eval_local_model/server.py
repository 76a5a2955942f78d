"""llama.cpp's OpenAI-compatible server on 127.0.0.1, in this process or as a child process.

:func:`serve` runs the server here (``python -m eval_local_model``); :class:`LocalModel` starts
that command as a child, waits until it listens and hands back its pin, and stops it (and
removes its log) on close: what a test session, a bench or CI holds around its Sweeps.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from eval_local_model.pin import CREDENTIAL_ENV, LOCAL_KEY, MODEL_ID, PIN_NAME, pin_toml
from eval_local_model.weights import chat_template, gguf

HOST = "127.0.0.1"  # never another interface
CONTEXT_PER_SLOT = 4096  # tokens each parallel slot holds (an agent's prompt and its Tools)
READY = "# eval-local-model: serving"


class LocalModelError(Exception):
    """The server did not come up; the message carries the end of its log."""


def default_threads() -> int:
    """One: llama.cpp's threads wait on each other every step, so on a shared CI machine two
    threads that are not both running are slower than one (measured here, other jobs running:
    one call took 25 s with two threads, 6 s with one)."""
    return 1


def serve(*, slots: int = 1, port: int = 0, threads: int | None = None) -> Any:
    """Start the server in this process on ``HOST:port`` (0: a free port); it serves on its own
    threads for as long as the returned server object and this process live."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(gguf())
    params.model_alias = {MODEL_ID}
    params.hostnames = [HOST]
    params.port = port
    params.n_parallel = slots
    params.n_ctx = CONTEXT_PER_SLOT * slots
    params.use_jinja = True
    params.endpoint_metrics = True  # /metrics: the server's own token counts, to check spend by
    params.chat_template = chat_template()
    params.cpuparams.n_threads = threads or default_threads()
    params.cpuparams_batch.n_threads = threads or default_threads()
    return xllamacpp.Server(params)


def announce(base_url: str, slots: int, out: IO[str]) -> None:
    """The ready line and the pin, on ``out``: what a person pastes into a models file."""
    out.write(f"{READY} {MODEL_ID} at {base_url} with {slots} slot(s); Ctrl-C stops it\n")
    out.write(f"# export {CREDENTIAL_ENV}={LOCAL_KEY}  (the server checks no key)\n")
    out.write(pin_toml(base_url, slots=slots) + "\n")
    out.flush()


class LocalModel:
    """The server as a child process: ``with LocalModel(slots=2) as model: model.base_url``."""

    def __init__(
        self, *, slots: int = 1, threads: int | None = None, timeout: float = 120.0
    ) -> None:
        self.slots = slots
        self.threads = threads
        self.timeout = timeout
        self.base_url = ""
        self.pin = ""
        self._work: Path | None = None
        self._child: subprocess.Popen[str] | None = None

    def models_file(self, directory: Path, *, max_output_tokens: int = 64) -> Path:
        """A models file in ``directory`` holding this server's pin (as ``local-smollm2``)."""
        path = directory / "models.toml"
        path.write_text(
            pin_toml(self.base_url, slots=self.slots, max_output_tokens=max_output_tokens)
        )
        return path

    @property
    def pin_name(self) -> str:
        return PIN_NAME

    def env(self) -> dict[str, str]:
        """The environment entries a Sweep of this pin needs (the placeholder credential)."""
        return {CREDENTIAL_ENV: LOCAL_KEY}

    def start(self) -> LocalModel:
        self._work = Path(tempfile.mkdtemp(prefix="eval-local-model-"))
        log = (self._work / "server.log").open("w")
        command = [sys.executable, "-m", "eval_local_model", "--slots", str(self.slots)]
        if self.threads is not None:
            command += ["--threads", str(self.threads)]
        self._child = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=log, text=True, bufsize=1
        )
        log.close()
        self._await_ready()
        return self

    def _await_ready(self) -> None:
        child = self._child
        assert child is not None and child.stdout is not None
        deadline = time.monotonic() + self.timeout
        lines: list[str] = []
        while time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break  # the child exited before it listened
            lines.append(line)
            found = re.search(r"at (http://127\.0\.0\.1:\d+/v1) with", line)
            if line.startswith(READY) and found:
                self.base_url = found.group(1)
            if self.base_url and not line.strip():
                self.pin = "".join(lines)
                return
        tail = self.log()[-2000:]
        self.close()
        raise LocalModelError(f"the local model server did not come up: {tail or 'no log'}")

    def log(self) -> str:
        path = self._work / "server.log" if self._work is not None else None
        return path.read_text(errors="replace") if path is not None and path.exists() else ""

    def close(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            child.terminate()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
            if child.stdout is not None:
                child.stdout.close()
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)
            self._work = None

    def __enter__(self) -> LocalModel:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
