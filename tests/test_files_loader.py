"""Load rules of the files family, and the core without it: unknown kinds and fields, no crash."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from eval_core._loading.corpus import CorpusError
from eval_core._loading.loader import Loader
from eval_core._plugins.plugins import PluginSet, build, discover
from tests.conftest import ROOT, WriteCase, load_refused

PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def file_case(**overrides: Any) -> dict[str, Any]:
    """A valid L3 Case with one attached text File."""
    memo = {"fileId": "memo", "mediaType": "text/plain", "name": "memo.txt", "content": "Memo."}
    case: dict[str, Any] = {
        "id": "c",
        "tier": "l3",
        "agent": "support",
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Read my memo."},
                    {
                        "type": "file",
                        "fileId": "memo",
                        "mediaType": "text/plain",
                        "name": "memo.txt",
                    },
                ],
            }
        ],
        "attachments": [memo],
        "script": [{"kind": "text", "text": "Done."}],
        "expect": [{"kind": "prompt_attaches", "fileId": "memo"}],
    }
    case.update(overrides)
    return case


def problems(loader: Loader, corpus_dir: Path) -> list[str]:
    with pytest.raises(CorpusError) as caught:
        loader.load(corpus_dir)
    return [f"{p.path}: {p.reason}" for p in caught.value.problems]


def test_the_valid_case_loads(loader: Loader, corpus_dir: Path, write_case: WriteCase) -> None:
    write_case(file_case())
    assert [c.id for c in loader.load(corpus_dir).cases] == ["c"]


def test_a_file_in_both_and_in_neither_is_refused(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    case = file_case()
    case["readable"] = [dict(case["attachments"][0])]
    case["input"][0]["content"].append(
        {"type": "file", "fileId": "ghost", "mediaType": "text/plain", "name": "g.txt"}
    )
    write_case(case)
    found = "\n".join(problems(loader, corpus_dir))
    assert "in both attachments and readable" in found
    assert "'ghost' names a File in neither" in found


def test_an_unreferenced_attachment_is_refused(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(file_case(input=[{"role": "user", "content": "Read my memo."}]))
    assert any("no file part of the input" in p for p in problems(loader, corpus_dir))


def test_format_fixture_rules(loader: Loader, corpus_dir: Path, write_case: WriteCase) -> None:
    two = {
        "fileId": "memo",
        "mediaType": DOCX,
        "name": "memo.txt",
        "content": "x",
        "docx": {"precedingParagraphs": 1},
        "xlsx": {"precedingRows": 1},
    }
    write_case(file_case(attachments=[two]))
    assert any("at most one format fixture" in p for p in problems(loader, corpus_dir))
    scan = {
        "fileId": "memo",
        "mediaType": PDF,
        "name": "memo.txt",
        "content": "x",
        "pdf": {"variant": "scan"},
    }
    write_case(file_case(attachments=[scan], tier="l2"))
    found = "\n".join(problems(loader, corpus_dir))
    assert "single-Turn L3" in found and "scan PDF has no text content" in found
    docx = {
        "fileId": "memo",
        "mediaType": DOCX,
        "name": "memo.txt",
        "docx": {"variant": "empty"},
        "content": "x",
    }
    write_case(file_case(attachments=[docx]))
    assert any("defective archive: no content" in p for p in problems(loader, corpus_dir))
    months = {
        "fileId": "memo",
        "mediaType": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "name": "stock.xlsx",
        "content": "x",
        "xlsx": {"precedingRows": 0, "followingSheets": 101},
    }
    write_case(file_case(attachments=[months]))
    assert any("xlsx.followingSheets: must be 0..100" in p for p in problems(loader, corpus_dir))


def test_scripted_file_tool_results_are_refused(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(
        file_case(
            platformTools=["file_read"],
            toolResults=[{"name": "file_read", "output": {"text": "Memo."}}],
        )
    )
    assert any("never script its result" in p for p in problems(loader, corpus_dir))


def test_generated_file_audience_rules(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    base = {
        "id": "c",
        "tier": "l3",
        "agent": "records-readonly",
        "input": [{"role": "user", "content": "Save a summary."}],
        "platformTools": ["file_create"],
        "agentRoles": ["records"],
        "script": [{"kind": "text", "text": "Done."}],
    }
    write_case(
        {**base, "expect": [{"kind": "generated_file_readable_by", "grantee": "role:records"}]}
    )
    assert any("a Role the Agent lacks" in p for p in problems(loader, corpus_dir))
    write_case(
        {**base, "expect": [{"kind": "generated_file_not_readable_by", "grantee": "team-x"}]}
    )
    assert any("user:<id> or role:<id>" in p for p in problems(loader, corpus_dir))
    write_case({**base, "tier": "l2", "expect": [{"kind": "output_contains", "text": "summary"}]})
    assert any("agentRoles" in p and "l3-only" in p for p in problems(loader, corpus_dir))


def test_provider_prompt_contains_is_grounded_in_the_first_request_only(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    later = {
        "fileId": "later",
        "mediaType": "text/plain",
        "name": "l.txt",
        "content": "Later fact.",
    }
    write_case(
        file_case(
            readable=[later],
            expect=[{"kind": "provider_prompt_contains", "text": "Later fact."}],
        )
    )
    found = [p for p in problems(loader, corpus_dir) if p.startswith("$.expect[0].text")]
    assert found and "ungrounded" not in found[0], found
    write_case(file_case(expect=[{"kind": "provider_prompt_contains", "text": "Memo."}]))
    assert loader.load(corpus_dir).cases


def test_without_the_plugin_the_core_names_the_unknown_kind_and_field(
    tmp_path: Path,
) -> None:
    without = build([p for p in discover() if p[1] != "eval-expectations-files"])
    assert "prompt_attaches" not in without.kinds
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copytree(ROOT / "corpus" / "soul", corpus / "soul")
    case = json.loads(
        (ROOT / "corpus" / "l3-file-pptx-speaker-notes-reach-the-provider-prompt.json").read_text()
    )
    (corpus / f"{case['id']}.json").write_text(json.dumps(case))
    found = "\n".join(f"{p.path}: {p.reason}" for p in load_refused(without, corpus).problems)
    assert "unknown kind 'prompt_attaches'" in found
    assert "unknown Case field 'attachments'" in found


def test_the_real_plugin_set_has_the_family(plugins: PluginSet) -> None:
    for kind in (
        "prompt_attaches",
        "prompt_omits_attachment",
        "provider_prompt_contains",
        "provider_prompt_file_exact",
        "provider_prompt_omits_file",
        "pdf_input_accounted",
        "generated_file_readable_by",
        "generated_file_not_readable_by",
        "generated_file_draft_created",
    ):
        assert kind in plugins.kinds
