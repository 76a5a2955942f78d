"""`eval new-plugin NAME`: a plug-in package that installs, passes its own tests and
`eval plugins --check`, and sweeps its Cases, with no file of the core touched.

The end-to-end test builds wheels of eval-core, eval-cli (the ``eval`` command), eval-scaffold
(the command's own package), eval-kit (the testing kit), the reference runtime and its Host
adapter (``uv build``), installs them into a fresh virtual environment (``uv venv``, ``uv pip
install --offline --no-deps``), writes the package there with that environment's ``eval
new-plugin``, builds and installs its wheel the same way and runs there the steps of the
generated CI workflow.
Third-party dependencies (msgspec, pytest, hypothesis...) come from this environment through a
path file listing only them: no network, and none of this workspace's packages leak in.
"""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_eval

WORKSPACE = {"agent-runtime", "eval-workspace"} | {
    p.parent.name for p in (ROOT / "packages").glob("*/pyproject.toml")
}


def run(
    *args: str | Path, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=600,
        check=False,
    )


def eval_cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_eval(*args, cwd=cwd, timeout=600)


def test_new_plugin_writes_a_package_with_one_kind_one_field_tests_and_ci(tmp_path: Path) -> None:
    result = eval_cli("new-plugin", "acme-tickets", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    package = tmp_path / "acme-tickets"
    # what it wrote: bytecode of the plug-in, written by Python when it is imported, is not (absent
    # under PYTHONDONTWRITEBYTECODE), and the package's own .gitignore leaves it out
    written = (p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    files = sorted(p.relative_to(package).as_posix() for p in written)
    assert "__pycache__/" in (package / ".gitignore").read_text().splitlines()
    assert files == [
        ".github/workflows/ci.yml",
        ".gitignore",
        "README.md",
        "corpus/acme-tickets-a-refund-ticket-is-filed.json",
        "corpus/acme-tickets-a-ticket-names-the-order.json",
        "corpus/soul/agents/assistant/AGENT.md",
        "pyproject.toml",
        "src/acme_tickets/__init__.py",
        "src/acme_tickets/plugin.py",
        "tests/snapshots/acme_tickets_ticket_filed.schema.json",
        "tests/test_plugin.py",
    ]
    pyproject = (package / "pyproject.toml").read_text()
    core = ".".join(metadata.version("eval-core").split(".")[:2])  # the public names it imports
    assert f'dependencies = ["eval-core>={core}", "msgspec>=0.18"]' in pyproject
    assert 'acme_tickets = "acme_tickets.plugin"' in pyproject
    plugin = (package / "src" / "acme_tickets" / "plugin.py").read_text()
    assert 'KIND = "acme_tickets_ticket_filed"' in plugin and 'FIELD = "acme_tickets"' in plugin
    hint = result.stdout.splitlines()[-1]
    assert "uv pip install -e acme-tickets" in hint and "uv add" not in hint  # works anywhere


def test_two_generated_plugins_load_together_without_a_collision(tmp_path: Path) -> None:
    """Kind, field and Case ids come from the whole NAME: two plug-ins of one team (one first
    word) installed in one environment load side by side, and each one's Corpus sweeps."""
    site = tmp_path / "site"
    paths = [str(site)]
    for name in ("acme-tickets", "acme-brevity"):
        assert eval_cli("new-plugin", name, cwd=tmp_path).returncode == 0
        package = name.replace("-", "_")
        info = site / f"{package}-0.1.0.dist-info"  # installed as an entry point, as pip would
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
        (info / "entry_points.txt").write_text(f"[eval.plugins]\n{package} = {package}.plugin\n")
        paths.append(str(tmp_path / name / "src"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    listed = run_eval("plugins", cwd=tmp_path, env=env)
    assert listed.returncode == 0, listed.stderr
    for kind, field in (
        ("acme_tickets_ticket_filed", "acmeTickets"),
        ("acme_brevity_ticket_filed", "acmeBrevity"),
    ):
        assert f"    kind   {kind}  (l2/l3)" in listed.stdout, listed.stdout
        assert f"    field  {field}  (l2/l3)" in listed.stdout, listed.stdout
    swept = run_eval("sweep", "acme-brevity/corpus", "--unlocked", "-q", cwd=tmp_path, env=env)
    assert swept.returncode == 0, swept.stderr
    assert "2 passed, 0 failed, 0 errored\n" in swept.stdout


@pytest.mark.parametrize("name", ["acme-tickets", "northwind-customer-support-escalations"])
def test_the_generated_code_is_ruff_clean_whatever_the_name_length(
    tmp_path: Path, name: str
) -> None:
    assert eval_cli("new-plugin", name, cwd=tmp_path).returncode == 0
    package = tmp_path / name  # its own pyproject's ruff settings apply
    ruff = [sys.executable, "-m", "ruff"]
    formatted = run(*ruff, "format", "--check", "--diff", ".", cwd=package)
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr
    rules = "E,F,W,I,B,UP,SIM,RUF,N"  # this repository's selection
    linted = run(*ruff, "check", "--select", rules, "--output-format", "concise", ".", cwd=package)
    assert linted.returncode == 0, linted.stdout + linted.stderr


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("eval-tickets", "the eval- prefix (and kind names starting eval_) is reserved"),
        ("Acme_Tickets", "is not a distribution name"),
        ("acme\n", "is not a distribution name"),  # a `$` matched before the line break
        ("class", "is a Python keyword"),
        ("json", "would shadow the standard library's module"),
    ],
)
def test_new_plugin_refuses_a_reserved_or_malformed_name(
    tmp_path: Path, name: str, reason: str
) -> None:
    result = eval_cli("new-plugin", name, cwd=tmp_path)
    assert result.returncode == 2
    assert reason in result.stderr
    assert "Traceback" not in result.stderr
    assert not any(tmp_path.iterdir())


def test_new_plugin_never_writes_over_a_directory(tmp_path: Path) -> None:
    (tmp_path / "acme-tickets").mkdir()
    (tmp_path / "acme-tickets" / "keep.txt").write_text("mine")
    result = eval_cli("new-plugin", "acme-tickets", cwd=tmp_path)
    assert result.returncode == 2
    assert "already exists and is not an empty directory" in result.stderr
    assert (tmp_path / "acme-tickets" / "keep.txt").read_text() == "mine"


def third_party(into: Path) -> Path:
    """This environment's third-party distributions (not this workspace's), linked into one
    directory a path file can put on a fresh environment's ``sys.path``."""
    into.mkdir()
    for dist in metadata.distributions():
        if dist.metadata["Name"] in WORKSPACE or not dist.files:
            continue
        for top in {f.parts[0] for f in dist.files if f.parts and f.parts[0] != ".."}:
            source = Path(str(dist.locate_file(top)))
            target = into / top
            if source.exists() and not target.exists() and not top.endswith(".pth"):
                target.symlink_to(source)
    return into


def ci_steps(package: Path) -> list[list[str]]:
    """The generated workflow's ``uv run`` steps, as commands of the fresh environment."""
    steps = []
    for line in (package / ".github" / "workflows" / "ci.yml").read_text().splitlines():
        command = line.strip().removeprefix("- run: ")
        if command.startswith("uv run "):
            steps.append(command.removeprefix("uv run ").split())
    return steps


@pytest.mark.installs
def test_a_generated_plugin_installed_from_wheels_passes_its_ci_offline(tmp_path: Path) -> None:
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("needs the uv command to build the wheels (.ci/run installs it)")
    before = run("git", "status", "--porcelain", cwd=ROOT).stdout
    wheels = tmp_path / "wheels"
    sources = [
        ROOT / "packages" / n
        for n in (
            "eval-core",
            "eval-cli",
            "eval-scaffold",
            "eval-kit",
            "agent-runtime",
            "eval-host-agent-runtime",
        )
    ]
    venv = tmp_path / "venv"
    made = run(uv, "venv", "-q", "--python", sys.executable, venv, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    [site] = venv.glob("lib/python*/site-packages")
    (site / "third_party.pth").write_text(f"{third_party(tmp_path / 'third-party')}\n")
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"

    def install(source: Path) -> None:
        had = set(wheels.glob("*.whl"))
        built = run(uv, "build", "--offline", "--wheel", "-q", "-o", wheels, source, cwd=tmp_path)
        assert built.returncode == 0, built.stderr
        [wheel] = set(wheels.glob("*.whl")) - had
        installed = run(
            uv, "pip", "install", "--offline", "--no-deps", "-q", "--python", python, wheel,
            cwd=tmp_path,
        )  # fmt: skip
        assert installed.returncode == 0, installed.stderr

    for source in sources:
        install(source)
    package = tmp_path / "acme-tickets"
    scaffolded = run(venv / "bin" / "eval", "new-plugin", "acme-tickets", cwd=tmp_path, env=env)
    assert scaffolded.returncode == 0, scaffolded.stderr  # the templates are in its wheel
    install(package)
    where = run(
        python,
        "-c",
        "import eval_core, acme_tickets; print(eval_core.__file__)",
        cwd=tmp_path,
        env=env,
    )
    assert where.returncode == 0 and str(site) in where.stdout, where.stderr  # not the workspace's

    steps = ci_steps(package)
    assert [s[0] for s in steps] == ["pytest", "eval", "eval"]
    results = {}
    for step in steps:  # a console script of the environment, else its module (pytest is linked)
        script = venv / "bin" / step[0]
        command = [script] if script.exists() else [python, "-m", step[0]]
        results[" ".join(step)] = run(*command, *step[1:], cwd=package, env=env)
    for command, result in results.items():
        assert result.returncode == 0, (command, result.stdout[-2000:], result.stderr[-2000:])
    assert "6 passed" in results["pytest"].stdout
    check = results["eval plugins --check"].stdout
    assert "acme-tickets 0.1.0  [acme_tickets]  code " in check
    assert (
        "    ok    kind   acme_tickets_ticket_filed" in check
        and "    ok    field  acmeTickets" in check
    )
    sweep = results["eval sweep corpus --unlocked"].stdout
    assert "2 passed, 0 failed, 0 errored\n" in sweep and sweep.endswith("CLEARED\n")  # both Cases

    for wheel in wheels.glob("*.whl"):
        with zipfile.ZipFile(wheel) as archive:
            name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
            meta = email.message_from_bytes(archive.read(name))
        assert meta["Summary"] and meta["Requires-Python"] == ">=3.11", wheel.name
        core = ".".join(metadata.version("eval-core").split(".")[:2])  # the scaffold's rule
        needs = {"eval-host-agent-runtime": "eval-core>=0.3", "acme-tickets": f"eval-core>={core}"}
        if meta["Name"] in needs:  # the Host needs the shared records of eval-core 0.3
            assert needs[meta["Name"]] in meta.get_all("Requires-Dist"), wheel.name
    assert run("git", "status", "--porcelain", cwd=ROOT).stdout == before  # no core file touched
