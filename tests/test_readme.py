"""The README is short and every claim in it runs: its two commands are what CI runs, its
Scorecard is what a Sweep of its Case prints, its family keeps the plug-in contract, its links
resolve, and the suite's skips say why, naming what to install."""

from __future__ import annotations

import ast
import json
import re
import shutil
import sys
import types
from pathlib import Path

from eval_core.kinds import Evidence
from eval_kit import assert_kind_conforms
from tests.conftest import ROOT, SOUL, judgeless_env, parsed, run_eval

README = ROOT / "README.md"
CI = ROOT / ".ci" / "run"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), re.DOTALL)


def commands(block: str) -> list[str]:
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_readme_is_under_ten_kilobytes() -> None:
    assert len(README.read_bytes()) < 10_000


def test_the_readmes_test_command_is_exactly_what_ci_runs() -> None:
    first = blocks("sh")[0]
    assert commands(first) == [
        "pip install uv && uv run eval sweep",
        "uv run --all-groups pytest -rs",
    ]
    ci_lines = [line.strip() for line in CI.read_text().splitlines()]
    assert commands(first)[1] in ci_lines
    assert "uv sync --all-groups" in CI.read_text()  # every group the suite's tests import


def test_the_readmes_scorecard_is_what_a_sweep_of_its_case_prints(tmp_path: Path) -> None:
    case = json.loads(blocks("json")[0])
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copytree(SOUL, corpus / "soul")
    (corpus / f"{case['id']}.json").write_text(json.dumps(case))
    env = judgeless_env(EVAL_CACHE="off")
    locked = run_eval("lock", cwd=tmp_path, env=env)  # the installed set, whatever the repo pins
    assert locked.returncode == 0, locked.stderr
    done = run_eval("sweep", cwd=tmp_path, env=env)
    assert done.returncode == 1, done.stderr
    shown = next(b for b in blocks("text") if b.startswith("Sweep  "))

    def steady(text: str) -> str:  # the corpusHash and the duration change; nothing else may
        text = re.sub(r"corpus=[0-9a-f]+", "corpus=HASH", text)
        return re.sub(r"  \d+ms\n", "  Nms\n", text)

    assert steady(shown) == steady(done.stdout)
    assert shown in (ROOT / "docs" / "getting-started.md").read_text()  # the same, in the docs


def family() -> tuple[str, types.ModuleType]:
    source = blocks("python")[0]
    module = types.ModuleType("acme_short")
    sys.modules["acme_short"] = module  # msgspec resolves the Struct's annotations here
    exec(compile(source, str(README), "exec"), module.__dict__)
    return source, module


def test_the_readmes_family_is_ten_lines_of_public_api_that_keep_the_contract() -> None:
    source, module = family()
    assert len([line for line in source.splitlines() if line.strip()]) <= 10
    imported = {n.module for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ImportFrom)}
    assert imported == {"eval_core.kinds"}
    (spec,) = module.eval_kinds()
    assert_kind_conforms(spec, examples=10)
    short = spec.struct(max_chars=10)
    assert spec.scorer(short, Evidence(tier="l2", output_text="Shipped.")).passed
    verdict = spec.scorer(short, Evidence(tier="l2", output_text="Your bulbs ship today."))
    assert (verdict.passed, verdict.detail) == (False, "22 chars")
    nothing = spec.scorer(short, Evidence(tier="l2"))
    assert (nothing.passed, nothing.detail) == (False, "no answer observed")


def test_every_relative_link_of_the_readme_names_a_file_that_exists() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text())
    relative = [link for link in links if "://" not in link]
    assert relative, "the README links to its docs"
    assert [link for link in relative if not (ROOT / link).is_file()] == []


SKIPPING = {"skip", "skipif"}  # importorskip says what it could not import


def skips(path: Path) -> list[tuple[int, ast.Call]]:
    """Every ``pytest.skip(...)`` and ``mark.skipif(...)`` in a file."""
    source = path.read_text()
    if "skip" not in source:
        return []
    return [
        (node.lineno, node)
        for node in ast.walk(parsed(source, str(path)))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in SKIPPING
    ]


def reason(call: ast.Call) -> str:
    """The literal text of a skip's reason (an f-string's constant parts)."""
    given = [k.value for k in call.keywords if k.arg in {"reason", "msg"}]
    if call.func.attr != "skipif" and call.args:  # type: ignore[attr-defined]
        given.append(call.args[0])
    text = ""
    for node in given:
        for part in ast.walk(node):
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                text += part.value
    return text.strip()


def test_every_skip_in_the_suite_gives_its_reason() -> None:
    files = [
        ROOT / "conftest.py",
        *ROOT.glob("tests/**/*.py"),
        *ROOT.glob("packages/*/tests/**/*.py"),
    ]
    silent = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in files
        for line, call in skips(path)
        if len(reason(call)) < 8
    ]
    assert silent == []


def test_the_system_package_skips_name_the_package_to_install() -> None:
    postgres = (ROOT / "tests" / "postgres_cluster.py").read_text()
    assert "install the postgresql package" in postgres
    browser = (ROOT / "packages" / "eval-report" / "tests" / "conftest.py").read_text()
    assert "(apt-get install chromium)" in browser
    for system in ("`git`", "`postgresql`", "`chromium`"):
        assert system in README.read_text(), system
