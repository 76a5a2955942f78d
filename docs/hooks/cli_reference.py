"""The CLI reference page, generated from the installed CLI itself at every docs build.

A hand-copied ``--help`` goes stale the day a flag changes; this runs ``eval --help``, reads
the command names it lists, runs ``eval COMMAND --help`` for each (plug-in commands included)
and puts the output where ``docs/cli-reference.md`` holds the marker below. A command whose
help does not exit 0 fails the build.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import Any

MARKER = "<!-- cli-reference: generated from `eval --help` at build time -->"
BOX = "│┃|"  # a rich help panel's side (typer), stripped like indentation
ENTRY = re.compile(r"([a-z][a-z0-9-]*)(?:\s{2,}|$)")
HELP_TIMEOUT_S = 60


def run_help(*command: str) -> str:
    """``eval COMMAND --help`` as a user's plain terminal of 100 columns would show it."""
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}
    env.pop("FORCE_COLOR", None)
    done = subprocess.run(
        [sys.executable, "-m", "eval_cli", *command, "--help"],
        capture_output=True,
        text=True,
        env=env,
        timeout=HELP_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        shown = " ".join(("eval", *command, "--help"))
        raise RuntimeError(f"{shown} exited {done.returncode}: {done.stderr.strip()[:500]}")
    return "\n".join(line.rstrip() for line in done.stdout.splitlines()).strip("\n")


def commands(top_help: str) -> list[str]:
    """The command names ``eval --help`` lists, in its order: the entries of its commands
    section (argparse's ``commands:``, click's ``Commands:`` or a rich ``Commands`` panel),
    told from wrapped descriptions by their indentation."""
    names: list[str] = []
    indent: int | None = None
    inside = False
    for line in top_help.splitlines():
        bare = line.strip().strip("╭╮╰╯─━┏┓┗┛ ").strip().rstrip(":")
        if bare.lower() == "commands":
            inside, indent = True, None
            continue
        if not inside:
            continue
        body = line.rstrip().rstrip(BOX)
        if body.lstrip()[:1] in BOX:  # inside a panel: its side is the margin
            body = body.lstrip()[1:]
        if not body.strip() or line.lstrip()[:1] in "╰┗":
            if names:
                break
            continue
        depth = len(body) - len(body.lstrip())
        entry = ENTRY.match(body.lstrip())
        if indent is None and entry:
            indent = depth
        if entry and depth == indent:
            names.append(entry.group(1))
        elif indent is None or depth < indent:
            break  # the next section
    if not names:
        raise RuntimeError("eval --help lists no commands: the reference would be empty")
    return names


def reference() -> str:
    """The generated part of the page: ``eval --help``, then each command's own help."""
    top = run_help()
    parts = ["### `eval`", "", "```text", top, "```"]
    for name in commands(top):
        parts += ["", f"### `eval {name}`", "", "```text", run_help(name), "```"]
    return "\n".join(parts) + "\n"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """MkDocs hook: fill the marker of the CLI reference page."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, reference())


ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|exc|obj):(<code>)")
LITERAL = re.compile(r"(\S)\s?::(</p>)")  # reST's "introduces a literal block" marker


def on_page_content(html: str, **_: Any) -> str:
    """MkDocs hook: the API pages' docstrings are reStructuredText at heart; show their roles
    (:func:`x`) as just `x`, and a paragraph's closing ``::`` as one colon."""
    return LITERAL.sub(r"\1:\2", ROLE.sub(r"\1", html))
