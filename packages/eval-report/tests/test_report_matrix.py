"""`eval report` over a two-model Matrix swept against loopback vendors: one self-contained
page with the gate, the delta against a Baseline, the Matrix's DISAGREEMENT, the plots and
every Trial's transcript; and one line, exit 2 or 3, for what cannot be reported."""

from __future__ import annotations

import base64
import json
import re
import shutil
import zlib
from pathlib import Path
from typing import Any

import pytest

from eval_core._plugins.commands import CANONICAL
from eval_report.html import write_report
from eval_report.saved import Refused
from report_fixtures import CASES, KEY, WRONG, Matrix, eval_cli
from tests.conftest import ROOT


def data_of(page: str) -> dict[str, Any]:
    """The page's data, inflated as the page's script does."""
    found = re.search(
        r'<script type="application/octet-stream" id="report-data"[^>]*>([^<]*)<', page
    )
    assert found is not None
    data: dict[str, Any] = json.loads(zlib.decompress(base64.b64decode(found.group(1))))
    return data


def test_the_matrix_report_shows_gate_delta_disagreement_and_every_transcript(
    matrix: Matrix,
) -> None:
    assert matrix.made.returncode == 0, matrix.made.stderr
    assert matrix.made.stdout.startswith("wrote report.html  (3 Cases, 6 Trials")
    page = matrix.report.read_text()
    assert "NOT CLEARED" in page and "bad: 1 Case(s) failed" in page
    assert "bad: 1 Case(s) regressed against the Baseline" in page
    assert "DISAGREEMENT</strong> 1 of 3 comparable Cases" in page
    assert f"<code>{WRONG}</code> PASS → FAIL" in page  # the regressed box of the delta
    assert page.count('class="case grid"') == 3
    assert "Expectation verdicts per family" in page and "<svg" in page
    # Self-contained: no fetch is allowed, and nothing outside the file is referenced.
    assert "default-src 'none'" in page
    assert not re.search(r'(src|href)="(https?:|//)', page)
    assert KEY not in page
    data = data_of(page)
    assert data["models"] == ["good", "bad"]
    assert [len(case) for case in data["cases"]] == [2, 2, 2]
    for leg in data["legs"]:
        assert len(leg["trials"]) == 3 and None not in leg["t"]  # every Trial's transcript
    wrong = next(t for t in data["legs"][1]["trials"] if t["caseId"] == WRONG)
    at = data["legs"][1]["t"][data["legs"][1]["trials"].index(wrong)]
    assert data["transcripts"][at]["evidence"]["output_text"] == "I am not sure."


def test_a_scorecard_alone_is_reported_without_transcripts(matrix: Matrix, tmp_path: Path) -> None:
    out = tmp_path / "cards.html"
    written = write_report(matrix.cards, out, [])
    assert (written.cases, written.trials) == (3, 6)
    data = data_of(out.read_text())
    assert all(p is None for leg in data["legs"] for p in leg["t"])


def test_what_cannot_be_reported_is_one_line(
    matrix: Matrix, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    other = json.loads(matrix.cards[1].read_text())
    other["corpusHash"] = "b" * 64
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps(other))
    with pytest.raises(Refused, match="no Matrix computed: different Corpora") as refused:
        write_report([matrix.cards[0], elsewhere], tmp_path / "r.html", [])
    assert refused.value.code == 3
    with pytest.raises(Refused, match=r"no delta computed: .*different Corpora") as refused:
        write_report([matrix.cards[1]], tmp_path / "r.html", [elsewhere])
    assert refused.value.code == 3
    with pytest.raises(Refused, match="a second Sweep of model good"):
        write_report([matrix.cards[0], matrix.cards[0]], tmp_path / "r.html", [])
    torn = tmp_path / "torn.jsonl"
    shutil.copy(matrix.logs[0], torn)
    shutil.copy(Path(f"{matrix.logs[0]}.transcripts"), Path(f"{torn}.transcripts"))
    pack = Path(f"{torn}.transcripts")
    pack.write_bytes(pack.read_bytes()[:-200])  # cut short: a transcript no longer matches
    with pytest.raises(Refused, match="does not match its SHA-256"):
        write_report([torn], tmp_path / "r.html", [])
    missing = eval_cli(matrix.root, "report", "missing.jsonl")  # the real command line, once
    assert missing.returncode == 2
    assert missing.stderr == "missing.jsonl: cannot read: no such file\n"
    from eval_cli.cli import invoke

    card = str(matrix.cards[0])
    for args, code, words in (  # in process, the plug-in command added as `eval` adds it
        (["report", card, "-o", str(tmp_path)], 2, "output refused: --output"),
        (["report", card, "-o", str(ROOT / "corpus" / "eval.lock")], 2, "inside a Corpus"),
        (["report", card, "-o", str(ROOT / "corpus" / "r.json")], 2, "inside a Corpus"),
        (["report", card, "--baseline", CANONICAL], 2, "--baseline needs the PATH"),
        (["report", card, str(elsewhere)], 3, "no Matrix computed"),
        (["report", card, "--baseline"], 2, "eval report: argument --baseline: expected one"),
        (["report"], 2, "eval report: the following arguments are required: INPUT"),
        (["report", card, "--bogus"], 2, "eval report: unrecognized arguments: --bogus"),
        (["rescore"], 2, "eval rescore: the following arguments are required: LOG"),
    ):
        capfd.readouterr()
        assert invoke(args) == code, args
        out, err = capfd.readouterr()
        assert out == "" and words in err and len(err.splitlines()) == 1, (args, err)


def test_every_case_of_the_matrix_is_in_the_table(matrix: Matrix) -> None:
    page = matrix.report.read_text()
    for case_id in CASES:
        assert f'id="case-{case_id}"' in page
