"""``eval --help`` from its last rendering, the parser never imported (issue 32).

Building the help imports typer (click), pluggy and every command plug-in: two thirds of the
command's time. The text it prints is kept (``help.txt`` in the cache directory) beside
everything it was made from: the words asked (``--help`` or ``-h``), the terminal's width, the
interpreter, each installed ``eval.commands`` entry point and its distribution's version,
typer's version, and the path, size and modification time of every source file of the core
and of each command plug-in's package. It is printed only while all of that reads the same;
anything else renders anew and keeps the new text. Shell completion (an ``_EVAL_COMPLETE``
variable) and ``EVAL_CACHE=off`` always render.
"""

from __future__ import annotations

import os
import sys

HELP = (["--help"], ["-h"])
_NAME = "help.txt"


def kept(argv: list[str]) -> str | None:
    """The help text ``argv`` prints, when a kept rendering was made from what is here now."""
    key = _key(argv)
    if key is None:
        return None
    from eval_core._util.cachedir import cache_dir

    try:
        with open(cache_dir() / _NAME, encoding="utf-8") as handle:
            stored, _, text = handle.read().partition("\n\n")
    except (OSError, UnicodeDecodeError):
        return None
    return text if stored == key and text else None


def keep(argv: list[str], text: str) -> None:
    """Keep ``text``, what ``argv`` printed, for the next ``eval --help`` (best effort)."""
    key = _key(argv)
    if key is None or not text:
        return
    import contextlib

    from eval_core._util.atomic import write_atomic
    from eval_core._util.cachedir import cache_dir

    with contextlib.suppress(OSError):  # a cache that cannot be written is only slower
        write_atomic(cache_dir() / _NAME, f"{key}\n\n{text}".encode())


def _key(argv: list[str]) -> str | None:
    from eval_core._util.cachedir import enabled

    if argv not in HELP or not enabled() or "_EVAL_COMPLETE" in os.environ:
        return None
    import shutil

    from eval_core._util.entrypoints import entry_points, version

    lines = [repr(argv), str(shutil.get_terminal_size().columns), sys.executable, sys.version]
    lines.append(f"typer {version('typer')}")
    packages = {__name__.partition(".")[0]}
    for ep in entry_points("eval.commands"):
        lines.append(f"{ep.distribution} {ep.version} {ep.name}={ep.value}")
        packages.add(ep.value.partition(":")[0].strip().partition(".")[0])
    for package in sorted(packages):
        lines.extend(_stamps(package))
    return "\n".join(line.replace("\n", " ") for line in lines)


def _stamps(package: str) -> list[str]:
    """``path size mtime`` of each source file of ``package``, found and never imported. Not
    :mod:`eval_core._util.code`'s walk: importing that module costs this path 0.1 s."""
    from importlib.machinery import PathFinder

    spec = PathFinder.find_spec(package)
    if spec is None:
        return [f"{package} missing"]
    if spec.submodule_search_locations is None:  # a one-file module
        files = [spec.origin or ""]
    else:
        files = [
            os.path.join(directory, name)
            for root in spec.submodule_search_locations
            for directory, _, names in os.walk(root)
            for name in names
            if name.endswith(".py")
        ]
    out: list[str] = []
    for path in sorted(files):
        try:
            stat = os.stat(path)
        except OSError:
            out.append(f"{path} missing")
            continue
        out.append(f"{path} {stat.st_size} {stat.st_mtime_ns}")
    return out
