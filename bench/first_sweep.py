"""How long a team's first Sweep of its own agent takes, following docs/your-project.md only.

Builds the wheels from this checkout, makes a team project in a scratch folder (its own git
repository, a pydantic-ai agent with a defaulted and a coerced Tool argument), creates a fresh
virtual environment there, installs ``offline-eval-harness[pydantic-ai]`` from the wheels with
pip (third-party packages from the index, as a team's install would), then ``eval init`` and
``eval sweep``. Prints the seconds of each step; exits non-zero when a step fails.

    uv run python bench/first_sweep.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

AGENT = '''\
from pydantic_ai import Agent

travel = Agent(name="travel", instructions="Answer weather questions; book only when told.")


@travel.tool_plain
def get_weather(city: str, day: str = "today") -> dict[str, str]:
    """The forecast for a city on a day."""
    return {"city": city, "day": day, "forecast": "sunny"}


@travel.tool_plain
def book_trip(city: str, nights: int) -> str:
    """Book a trip to a city."""
    return f"BK-{city}-{nights}"


AGENTS = {"travel": travel}
'''


def step(name: str, args: list[str], cwd: Path, timings: list[tuple[str, float]]) -> None:
    started = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    timings.append((name, time.perf_counter() - started))
    if done.returncode != 0:
        sys.exit(f"{name}: exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")


def main() -> None:
    timings: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="first-sweep-") as scratch:
        base = Path(scratch)
        dist = base / "dist"
        step(
            "build the wheels",
            ["uv", "build", "--all-packages", "--wheel", "-q", "-o", str(dist)],
            ROOT,
            timings,
        )
        project = base / "weather"
        (project / "weather_agent").mkdir(parents=True)
        (project / "weather_agent" / "__init__.py").write_text("")
        (project / "weather_agent" / "agent.py").write_text(AGENT)
        (project / "pyproject.toml").write_text(
            '[project]\nname = "weather"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
        )
        subprocess.run(["git", "init", "-q"], cwd=project, check=True)
        python = project / ".venv" / "bin" / "python"
        step("create the venv", [sys.executable, "-m", "venv", ".venv"], project, timings)
        step(
            "pip install",
            [
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                "--find-links",
                str(dist),
                "offline-eval-harness[pydantic-ai]",
            ],
            project,
            timings,
        )
        init = ["init", "--host", "pydantic-ai", "--app", "weather_agent.agent:AGENTS"]
        step("eval init", [str(python), "-m", "eval_cli", *init], project, timings)
        step("eval sweep", [str(python), "-m", "eval_cli", "sweep"], project, timings)
    for name, seconds in timings:
        print(f"{name:<18} {seconds:7.2f} s")
    print(f"{'first sweep, all':<18} {sum(s for _, s in timings):7.2f} s")


if __name__ == "__main__":
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    main()
