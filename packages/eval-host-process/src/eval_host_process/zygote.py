"""The fork-server's zygote, run by the team's own Python (stdlib only, never imported by the
harness): it imports what the agent's module imports, once, then forks one fresh process per
Trial that runs the module as ``__main__``, as ``python -m MODULE`` or ``python PATH`` would.

``python zygote.py LISTENER LIFELINE -m MODULE NONCE`` (or ``path PATH NONCE``): LISTENER is
the harness's listening Unix socket, LIFELINE the read end of a pipe whose other end only the
harness holds (its end of file, the harness gone or done, ends the zygote), NONCE what marks
the zygote's own line on stdout (``ready``, or ``threads N``: then the harness starts the
command per Trial). The zygote never runs the agent's
own module: only the modules it imports at top level (an unguarded script's main code would
otherwise run here), so module state starts as a fresh import left it in every Trial.

Per connection (one Trial), a *supervisor* is forked: it receives the Trial's request (one JSON
line: argv, environment, working directory) with its stdin, stdout and stderr as descriptors,
forks the agent's process (a new session, like ``start_new_session``), reports ``pid AGENT
SUPERVISOR``, waits, reports ``status CODE`` (``Popen.returncode``'s convention) and stays until
the harness hangs up: it is the agent's child subreaper (Linux), so a daemon the agent left
behind is its child, which the harness finds and ends.
"""

from __future__ import annotations

import os
import sys

_MODE = _TARGET = ""  # "-m" and the module, or "path" and the script: what the command runs
if __name__ == "__main__":  # before any other import: this file's folder is no team module's
    _MODE, _TARGET = sys.argv[3], sys.argv[4]
    sys.path[0] = os.getcwd() if _MODE == "-m" else os.path.dirname(os.path.abspath(_TARGET))

import ast  # noqa: E402
import contextlib  # noqa: E402
import importlib  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
from typing import Any, NoReturn  # noqa: E402

SOURCE_BYTES = 4 << 20  # an agent's module larger than this is not read for its imports
REQUEST_BYTES = 1 << 20
SUBREAPER = 36  # prctl's PR_SET_CHILD_SUBREAPER


def _imported(tree: ast.Module, package: str) -> list[str]:
    """The modules a module imports at its top level (and in its top-level ``try``/``if``
    blocks, except ``if __name__ == "__main__"``), absolute, in order."""
    names: list[str] = []
    statements: list[ast.stmt] = list(tree.body)
    while statements:
        node = statements.pop(0)
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                if node.level - 1 > len(parts):
                    continue
                parent = ".".join(parts[: len(parts) - (node.level - 1)])
                base = f"{parent}.{base}".strip(".") if base else parent
            if base and base != "__future__":
                names.append(base)
                names += [f"{base}.{alias.name}" for alias in node.names if alias.name != "*"]
        elif isinstance(node, ast.Try):
            statements[:0] = [*node.body, *node.orelse, *node.finalbody]
        elif isinstance(node, ast.If) and "__main__" not in ast.dump(node.test):
            statements[:0] = [*node.body, *node.orelse]
    return names


def warm(mode: str, target: str) -> None:
    """Import what the agent's module imports; what fails here fails again, visibly, in the
    Trial's own process (which imports it for itself), so nothing is reported here."""
    try:
        if mode == "-m":
            spec = importlib.util.find_spec(target)
            if spec is not None and spec.submodule_search_locations is not None:
                spec = importlib.util.find_spec(f"{target}.__main__")
            if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
                return
            origin, package = spec.origin, target.rpartition(".")[0]
            if spec.name.endswith(".__main__"):
                package = target
        else:
            origin, package = target, ""
        with open(origin, "rb") as file:
            source = file.read(SOURCE_BYTES + 1)
        if len(source) > SOURCE_BYTES:
            return
        names = _imported(ast.parse(source), package)
    except (Exception, SystemExit):
        return
    for name in names:
        try:
            importlib.import_module(name)
        except (Exception, SystemExit):
            continue


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, REQUEST_BYTES, 3)
    while not data.endswith(b"\n") and len(data) < REQUEST_BYTES:
        more = conn.recv(REQUEST_BYTES)
        if not more:
            break
        data += more
    return json.loads(data), list(fds)


def _agent(request: dict[str, Any], fds: list[int]) -> None:
    """In the agent's fresh process: its session, stdio, directory, environment and argv."""
    os.setsid()
    for number, fd in enumerate(fds):
        os.dup2(fd, number)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    if "tempfile" in sys.modules:  # its TMPDIR is the Trial's, not the zygote's
        setattr(sys.modules["tempfile"], "tempdir", None)  # noqa: B010
    sys.argv = [_TARGET, *request["args"]]
    for number in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _supervise(conn: socket.socket) -> bool:
    """The supervisor's part; ``True`` only in the agent's process, which returns to run."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(SUBREAPER, 1, 0, 0, 0)
    except (Exception, SystemExit):
        pass  # not Linux: a daemon that left the session is then beyond what is seen
    request, fds = _receive(conn)
    pid = os.fork()
    if pid == 0:
        conn.close()
        _agent(request, fds)
        return True
    for fd in fds:
        os.close(fd)
    conn.sendall(f"pid {pid} {os.getpid()}\n".encode())
    _, status = os.waitpid(pid, 0)
    conn.sendall(f"status {os.waitstatus_to_exitcode(status)}\n".encode())
    while conn.recv(4096):  # until the harness hangs up, having ended what the agent left
        pass
    return False


def serve(listener: socket.socket, lifeline: int) -> None:
    """Fork a supervisor per connection until the lifeline ends; returns only in an agent's
    process."""
    while True:
        ready, _, _ = select.select([listener.fileno(), lifeline], [], [])
        if lifeline in ready:
            os._exit(0)
        try:
            conn, _ = listener.accept()
        except OSError:
            continue
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                listener.close()
                os.close(lifeline)
                if _supervise(conn):
                    return
                code = 0
            except BaseException:
                code = 1
            os._exit(code)  # the supervisor never leaves here but as the agent
        conn.close()


def main() -> None:
    listener = socket.socket(fileno=int(sys.argv[1]))
    lifeline = int(sys.argv[2])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the harness decides when the zygote ends
    warm(_MODE, _TARGET)
    import threading

    if threading.active_count() > 1:
        print(f"{sys.argv[5]} threads {threading.active_count()}", flush=True)
        os._exit(0)  # a fork would copy the locks of threads it does not copy: spawn instead
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # supervisors are reaped by the kernel
    print(f"{sys.argv[5]} ready", flush=True)  # marked: the imports may have printed too
    null = os.open(os.devnull, os.O_RDWR)
    for number in (0, 1, 2):
        os.dup2(null, number)
    os.close(null)
    serve(listener, lifeline)
    run()


def run() -> NoReturn:
    """In the agent's own process: run its module as ``__main__``, as the plain command would,
    and end as the interpreter ends one (the exit status, the traceback, non-daemon threads
    joined, ``atexit`` run), then leave at once: the zygote's copied heap is not torn down
    object by object (a forked process need not, and it is most of its exit's time)."""
    import atexit
    import runpy
    import threading
    import traceback

    code = 0
    try:
        if _MODE == "-m":
            runpy.run_module(_TARGET, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(_TARGET, run_name="__main__")
    except SystemExit as exc:
        code = _status(exc.code)
    except KeyboardInterrupt:
        traceback.print_exc()
        code = -signal.SIGINT
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        threading._shutdown()  # type: ignore[attr-defined]  # what the interpreter joins at exit
    except KeyboardInterrupt:
        code = -signal.SIGINT
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (Exception, SystemExit):
            code = code or 120  # as the interpreter does when stdout cannot be flushed
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)


def _status(code: object) -> int:
    """``sys.exit(code)``'s status, as the interpreter turns it into one."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(Exception, SystemExit):
        print(code, file=sys.stderr)
    return 1


if __name__ == "__main__":
    main()
