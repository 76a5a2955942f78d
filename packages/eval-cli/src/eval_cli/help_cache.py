"""``eval --help`` from its last rendering, the parser never imported (issue 32).

Building the help imports typer (click), pluggy and every command plug-in: two thirds of the
command's time. The text it prints is kept (``help.txt`` in the cache directory) beside everything
it was made from: the words asked (``--help`` or ``-h``), the width the text was rendered at
(:func:`width`: the one click's formatter uses, given to click as the terminal's width while
rendering, so the key and the text cannot disagree), the interpreter
(``eval_core.commands.interpreter``), each installed ``eval.commands`` entry point and
its distribution's version, typer's version, and the path, size and modification time of every
source file of the CLI, of the core and of each command plug-in's package. It is printed only
while all of that reads the same; anything else renders anew and keeps the new text. Shell
completion (an ``_EVAL_COMPLETE`` variable) and ``EVAL_CACHE=off`` always render. The entry is
read and written as every cache entry is (``eval_core.commands.read_cache_entry`` and
``write_cache_entry``: bounded, sealed, atomic; any doubt renders anew).
"""

from __future__ import annotations

import os
import sys

HELP = (["--help"], ["-h"])
_NAME = "help.txt"
MAX_WIDTH = 100  # the CLI's ``max_content_width``
MAX_ENTRY_BYTES = 1 << 20  # a kept help is about 4 KB; a larger entry is a miss, never read


def width() -> int:
    """The width the help is rendered at here: click's own rule (the terminal's columns, at
    most :data:`MAX_WIDTH`, less 2, at least 50), so 200 and 150 columns share a rendering."""
    import shutil

    return max(min(shutil.get_terminal_size().columns, MAX_WIDTH) - 2, 50)


def kept(argv: list[str]) -> str | None:
    """The help text ``argv`` prints, when a kept rendering was made from what is here now."""
    key = _key(argv, width())
    if key is None:
        return None
    from eval_core.commands import cache_dir, read_cache_entry

    data = read_cache_entry(cache_dir() / _NAME, MAX_ENTRY_BYTES)
    if data is None:
        return None
    try:
        stored, _, text = data.decode("utf-8").partition("\n\n")
    except UnicodeDecodeError:
        return None
    return text if stored == key and text else None


def keep(argv: list[str], text: str, rendered_at: int) -> None:
    """Keep ``text``, what ``argv`` printed at ``rendered_at`` columns, for the next
    ``eval --help`` (best effort: a cache that cannot be written is only slower)."""
    key = _key(argv, rendered_at)
    if key is None or not text:
        return
    from eval_core.commands import cache_dir, write_cache_entry

    write_cache_entry(cache_dir() / _NAME, f"{key}\n\n{text}".encode(errors="replace"))


def _key(argv: list[str], columns: int) -> str | None:
    from eval_core.commands import cache_enabled

    if argv not in HELP or not cache_enabled() or "_EVAL_COMPLETE" in os.environ:
        return None
    from eval_core.commands import entry_points, interpreter, version

    lines = [repr(argv), f"width {columns}", interpreter(), sys.version]
    lines.append(f"typer {version('typer')}")
    packages = {__name__.partition(".")[0], "eval_core"}  # the CLI's and the core's
    for ep in entry_points("eval.commands"):
        lines.append(f"{ep.distribution} {ep.version} {ep.name}={ep.value}")
        packages.add(ep.value.partition(":")[0].strip().partition(".")[0])
    for package in sorted(packages):
        lines.extend(_stamps(package))
    return "\n".join(line.replace("\n", " ") for line in lines)


def _stamps(package: str) -> list[str]:
    """``path size mtime`` of each source file of ``package``, found and never imported. Not
    the core's code walk (``eval_core._util.code``): importing it costs this path 0.1 s."""
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
