"""The workspace's package lists, derived from ``packages/*``, and the one command after adding one.

A package is one folder under ``packages/``. ruff (``src``) and mypy (``files``, ``strict``) find
it by glob; uv needs each member named twice in the root ``pyproject.toml``: in
``[tool.uv.sources]`` (a workspace source) and in what the root installs (``dependencies`` or a
dependency group). This script writes what is missing (the source always; the dependency line
when no list names the package), then re-pins what a new plug-in changes: ``uv.lock``, the
environment, the Corpora's ``eval.lock`` (the repository's and each example's) and the Case
schema. ``tests/test_workspace.py`` fails, naming the package, while the lists disagree.

    uv run python scripts/workspace.py           # sync the lists, then re-lock everything
    uv run python scripts/workspace.py --check   # only say what disagrees (exit 1 if anything)
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
SOURCES_HEADER = "[tool.uv.sources]\n"


def _name(requirement: str) -> str:
    """The normalised distribution name of a requirement line (``agent-runtime[x]>=1`` ...)."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return re.sub(r"[-_.]+", "-", match.group(1)).lower() if match else ""


def packages(root: Path = ROOT) -> dict[str, str]:
    """Each workspace package's distribution name -> its folder (``packages/<folder>``)."""
    found: dict[str, str] = {}
    for pyproject in sorted(root.glob("packages/*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        found[_name(project.get("name", ""))] = pyproject.parent.name
    return found


def _installed(root: Path, config: dict[str, Any]) -> set[str]:
    """Every distribution the root installs directly or another member depends on."""
    others = [
        tomllib.loads(p.read_text(encoding="utf-8")) for p in root.glob("examples/*/pyproject.toml")
    ]
    named: list[str] = []
    for one in (config, *others):
        named += one.get("project", {}).get("dependencies", [])
        for group in one.get("dependency-groups", {}).values():
            named += [item for item in group if isinstance(item, str)]
    return {_name(item) for item in named}


def problems(root: Path = ROOT) -> list[str]:
    """One line per disagreement between the root's lists and ``packages/*``."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    sources = {_name(n) for n in config.get("tool", {}).get("uv", {}).get("sources", {})}
    members, installed = packages(root), _installed(root, config)
    found = [
        f"packages/{folder} ({name}): not in [tool.uv.sources]"
        for name, folder in members.items()
        if name not in sources
    ]
    found += [
        f"packages/{folder} ({name}): not installed by the root (dependencies or a group)"
        for name, folder in members.items()
        if name not in installed
    ]
    found += [
        f"[tool.uv.sources] {name}: no such package" for name in sorted(sources - members.keys())
    ]
    return found


def synced(text: str, members: dict[str, str], installed: set[str]) -> str:
    """The root ``pyproject.toml`` with every package a workspace source (stale ones dropped)
    and each package no list names appended to ``dependencies``."""
    start = text.index(SOURCES_HEADER) + len(SOURCES_HEADER)
    end = text.find("\n[", start)
    end = len(text) if end < 0 else end + 1
    lines = [line for line in text[start:end].splitlines() if line.strip()]
    kept = [line for line in lines if _name(line.split("=")[0]) in members]
    have = {_name(line.split("=")[0]) for line in kept}
    kept += [f"{name} = {{ workspace = true }}" for name in members if name not in have]
    text = text[:start] + "\n".join(kept) + "\n\n" + text[end:]
    missing = [name for name in members if name not in installed]
    if missing:
        head = text.index("\ndependencies = [\n") + 1
        close = text.index("\n]\n", head) + 1
        text = text[:close] + "".join(f'    "{name}",\n' for name in missing) + text[close:]
    return text


class StepFailedError(Exception):
    """A step of the sync exited non-zero; what it printed is above."""


def _run(command: list[str], cwd: Path = ROOT) -> None:
    where = cwd.relative_to(ROOT) or Path(".")
    print("$", " ".join(command), f"(in {where})", flush=True)
    if subprocess.run(command, cwd=cwd, check=False).returncode != 0:
        hint = " (its setup first: `npm ci` there)" if (cwd / "package.json").is_file() else ""
        said = f"`{' '.join(command)}` failed in {where}{hint}; run this script again"
        raise StepFailedError(said)


def main(argv: list[str]) -> int:
    if "--check" in argv:
        found = problems()
        print("\n".join(found) or "the root's lists agree with packages/*")
        return 1 if found else 0
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    text = PYPROJECT.read_text(encoding="utf-8")
    PYPROJECT.write_text(synced(text, packages(), _installed(ROOT, config)), encoding="utf-8")
    try:
        _run(["uv", "lock"])
        _run(["uv", "sync", "--all-groups"])  # never a plain sync: it drops the groups
        _run(["uv", "run", "eval", "lock", "corpus"])
        for example in sorted(ROOT.glob("examples/*/corpus/eval.lock")):
            _run(["uv", "run", "eval", "lock"], cwd=example.parent.parent)
        _run(["uv", "run", "eval", "schema", "-o", "schema/case.schema.json"])
    except StepFailedError as failed:
        print(f"workspace: {failed}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
