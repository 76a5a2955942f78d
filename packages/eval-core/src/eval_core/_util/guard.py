"""Guarded calls into plug-in code: a plug-in's bug is named, never a crash and never a verdict.

Every callable a plug-in hands the core (a scorer, a check, a seam, a guard gate, a fixture, a
Case field's given text, a hook) runs through :func:`call`. An exception becomes a
:class:`PluginFault` naming the distribution, its version, what was called, and the file:line
in the plug-in's own code where it raised; the caller decides what that means where it is (a
refusal at load, exit 2; an errored Trial at run, never a stopped Sweep). With ``--traceback``
(:func:`show_tracebacks`) the full trace also goes to stderr, once per place, for the plug-in's
author.
"""

from __future__ import annotations

import inspect
import os
import sys
import traceback
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from eval_core._util.safe_text import said

T = TypeVar("T")
_shown: set[tuple[str, str]] = set()
_settings = {"tracebacks": os.environ.get("EVAL_TRACEBACK", "") not in ("", "0")}


class Origin(msgspec.Struct, frozen=True):
    """Who shipped a callable: the distribution, its version, and where its code lives (the
    package directories or module files, so a fault points into them)."""

    distribution: str
    version: str
    roots: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.distribution} {self.version}"


UNKNOWN = Origin("", "")
"""No origin known: its code is found by the frames alone."""


@cache
def _not_plugin_code() -> tuple[str, ...]:
    """The whole eval_core package and the standard library: a fault's frame there is not the
    plug-in's line (resolved when a fault is first said, not at every start-up)."""
    import sysconfig

    stdlib = {sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib")}
    core = str(Path(__file__).resolve().parent.parent)
    return (core, *(str(Path(p).resolve()) for p in stdlib))


class PluginFault(Exception):  # noqa: N818 - it names an outcome, not a bug of ours
    """A plug-in's code raised, or returned what the contract forbids. ``str()`` is one line."""

    def __init__(self, message: str, trace: str = "") -> None:
        super().__init__(message)
        self.trace = trace


def show_tracebacks(on: bool = True) -> None:
    """``--traceback``: write each fault's full trace to stderr (also ``EVAL_TRACEBACK=1``)."""
    _settings["tracebacks"] = on
    os.environ["EVAL_TRACEBACK"] = "1" if on else "0"  # a Host's worker process inherits it


def call(origin: Origin | None, what: str, function: Callable[..., T], *args: Any) -> T:
    """``function(*args)``; any exception becomes a :class:`PluginFault` about ``what``."""
    try:
        return function(*args)
    except Exception as exc:
        raise fault(origin, what, exc, function) from exc


def collect(
    origin: Origin | None, what: str, function: Callable[..., Any], *args: Any
) -> list[Any]:
    """``list(function(*args))``, a generator run to its end inside the guard."""
    try:
        return list(function(*args) or ())
    except Exception as exc:
        raise fault(origin, what, exc, function) from exc


def fault(
    origin: Origin | None, what: str, exc: BaseException, function: object = None
) -> PluginFault:
    """The one-line account of ``exc`` raised by ``what`` of ``origin`` (without one, ``what``
    names the plug-in itself, e.g. "close of Host 'x'")."""
    known = origin or UNKNOWN
    where = raised_at(exc, known) or defined_at(function, known)
    at = f" (at {where})" if where else ""
    message = f"{_of(origin)}{what} raised {type(exc).__name__}: {said(exc)}{at}"
    trace = "".join(traceback.format_exception(exc))
    _show(message, trace)
    return PluginFault(message, trace)


def broken(origin: Origin | None, what: str, problem: str, function: object = None) -> PluginFault:
    """A contract broken without an exception (an empty detail, not a Verdict...)."""
    where = defined_at(function, origin or UNKNOWN)
    at = f" (defined at {where})" if where else ""
    return PluginFault(f"{_of(origin)}{what} {problem}{at}")


def _of(origin: Origin | None) -> str:
    return f"plug-in {origin.label}: " if origin is not None else ""


def raised_at(exc: BaseException, origin: Origin) -> str:
    """file:line of the deepest frame in the plug-in's own code; else the deepest frame that
    is neither the core, pluggy nor the standard library."""
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        shown = _shown_path(frame.filename, origin)
        if shown is not None:
            return f"{shown}:{frame.lineno}"
    for frame in reversed(frames):
        path = str(Path(frame.filename).resolve())
        if not (path.startswith(_not_plugin_code()) or "/pluggy/" in path or "<" in path):
            return f"{_short(path)}:{frame.lineno}"
    return ""


def defined_at(function: object, origin: Origin) -> str:
    """file:line where a callable was defined (a lambda's line, a method's ``def``)."""
    target = inspect.unwrap(function) if callable(function) else None
    target = getattr(target, "func", target)  # functools.partial
    target = inspect.unwrap(target) if callable(target) else None  # a decorated one's
    code = getattr(target, "__code__", None)
    if code is None:
        return ""
    return (
        f"{_shown_path(code.co_filename, origin) or _short(code.co_filename)}:{code.co_firstlineno}"
    )


def _shown_path(filename: str, origin: Origin) -> str | None:
    """``package/module.py`` when ``filename`` lies in one of the plug-in's roots."""
    path = Path(filename).resolve()
    for root in origin.roots:
        base = Path(root)
        if path == base:
            return base.name
        if path.is_relative_to(base):
            return path.relative_to(base.parent).as_posix()
    return None


def _short(path: str) -> str:
    parts = Path(path).parts
    return "/".join(parts[-2:]) if len(parts) > 1 else path


def _show(message: str, trace: str) -> None:
    if not _settings["tracebacks"]:
        return
    key = (message, trace.rsplit("\n", 3)[0])
    if key in _shown:
        return
    _shown.add(key)
    sys.stderr.write(f"--- traceback: {message}\n{trace}")
    sys.stderr.flush()
