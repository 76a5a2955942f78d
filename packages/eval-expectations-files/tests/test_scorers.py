"""Scorers are total: no record, no request, no generated File fail with a reason."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from eval_core._case.evidence import Evidence, ToolCall
from eval_expectations_files.kinds import (
    GeneratedFileContains,
    GeneratedFileDraftCreated,
    GeneratedFileNotReadableBy,
    GeneratedFileReadableBy,
    PdfInputAccounted,
    PdfPageSize,
    PromptAttaches,
    PromptOmitsAttachment,
    ProviderPromptContains,
    ProviderPromptFileExact,
    ProviderPromptOmits,
    ProviderPromptOmitsFile,
    kind_specs,
)
from eval_expectations_files.record import FilesRecord

SPECS = {spec.name: spec for spec in kind_specs()}
SHA = "ab" * 32


def record(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "files": [
            {
                "fileId": "f",
                "name": "f.pdf",
                "mediaType": "application/pdf",
                "origin": "attachment",
                "sha256": SHA,
                "size": 10,
            }
        ],
        "requests": [
            [
                {"type": "text", "role": "system", "text": "You are support."},
                {"type": "text", "role": "user", "text": "Read this."},
                {"type": "text", "role": "assistant", "text": "Only the model said this."},
                {
                    "type": "file",
                    "fileId": "f",
                    "mediaType": "application/pdf",
                    "filename": "f.pdf",
                    "sha256": SHA,
                    "size": 10,
                },
            ]
        ],
        "pdfInputs": [
            {
                "fileId": "f",
                "source": "prompt",
                "pages": [{"width": 595, "height": 842, "text": True, "tokens": 300}],
            }
        ],
        "generated": [],
        "agentRoles": [],
    }
    data.update(overrides)
    return data


def score(expectation: Any, data: Any, **evidence: Any) -> tuple[bool, str]:
    ev = Evidence(tier="l3", **evidence)
    if data is not None:
        ev.put(msgspec.convert(data, FilesRecord))
    verdict = SPECS[expectation.kind_name].scorer(expectation, ev)
    return verdict.passed, verdict.detail


EXPECTATIONS = [
    PromptAttaches(file_id="f"),
    PromptOmitsAttachment(file_id="f"),
    ProviderPromptContains(text="Read this."),
    ProviderPromptFileExact(file_id="f", part="file"),
    ProviderPromptOmits(text="Private budget"),
    ProviderPromptOmitsFile(file_id="f"),
    PdfInputAccounted(
        file_id="f", pages=[PdfPageSize(width=595, height=842)], text="present", minimum_tokens=1
    ),
    GeneratedFileReadableBy(grantee="user:u"),
    GeneratedFileNotReadableBy(grantee="role:x"),
    GeneratedFileDraftCreated(),
    GeneratedFileContains(filename="a.txt", text="Fourteen"),
]


def test_every_kind_fails_without_a_record() -> None:
    for expectation in EXPECTATIONS:
        ok, detail = score(expectation, None)
        assert not ok and detail, expectation


def test_plain_data_under_the_records_key_is_not_observed() -> None:
    ev = Evidence(tier="l3")
    ev.records["eval_expectations_files.record:FilesRecord"] = record()  # not the typed record
    verdict = SPECS["prompt_attaches"].scorer(PromptAttaches(file_id="f"), ev)
    assert not verdict.passed and "no File read-back" in verdict.detail


def test_the_split_request_is_read() -> None:
    assert score(PromptAttaches(file_id="f"), record())[0]
    assert not score(PromptOmitsAttachment(file_id="f"), record())[0]
    assert score(ProviderPromptContains(text="Read this."), record())[0]
    assert not score(ProviderPromptContains(text="Only the model"), record())[0]
    assert not score(ProviderPromptOmitsFile(file_id="f"), record())[0]
    no_request = record(requests=[])
    assert not score(PromptAttaches(file_id="f"), no_request)[0]
    assert not score(PromptOmitsAttachment(file_id="f"), no_request)[0]  # nothing observed


def test_file_exact_compares_bytes_media_type_and_name() -> None:
    exact = ProviderPromptFileExact(file_id="f", part="file")
    assert score(exact, record())[0]
    data = record()
    flipped = "ba" + SHA[2:]  # one byte of the sent bytes differs: so does their digest
    data["requests"][0][3]["sha256"] = flipped
    ok, detail = score(exact, data)
    assert not ok and "bytes differ" in detail
    data = record()
    data["requests"][0][3]["filename"] = "other.pdf"
    assert "file name" in score(exact, data)[1]
    data = record()
    data["requests"][0][3]["mediaType"] = "application/octet-stream"
    assert "media type" in score(exact, data)[1]
    assert "part type" in score(ProviderPromptFileExact(file_id="f", part="image"), record())[1]


def test_an_unattributable_binary_part_fails_omits_file() -> None:
    data = record()
    data["requests"][0][3]["fileId"] = None
    ok, detail = score(ProviderPromptOmitsFile(file_id="g"), data)
    assert not ok and "no known File" in detail


PAGE = PdfPageSize(width=595, height=842)


@pytest.mark.parametrize(
    ("file_id", "pages", "text", "minimum_tokens", "ok"),
    [
        ("f", 1, "present", 300, True),
        ("f", 1, "absent", 1, False),
        ("f", 1, "present", 301, False),
        ("f", 2, "present", 1, False),
        ("g", 1, "present", 1, False),
    ],
)
def test_pdf_accounting_checks_pages_text_and_tokens(
    file_id: str, pages: int, text: str, minimum_tokens: int, ok: bool
) -> None:
    expectation = PdfInputAccounted(
        file_id=file_id, pages=[PAGE] * pages, text=text, minimum_tokens=minimum_tokens
    )
    assert score(expectation, record())[0] is ok


def test_generated_file_audiences_hold_for_every_file() -> None:
    generated = [
        {
            "fileId": "a",
            "name": "a",
            "mediaType": "text/plain",
            "status": "draft",
            "owner": "agent:x",
            "readableBy": ["role:r", "user:u"],
        },
        {
            "fileId": "b",
            "name": "b",
            "mediaType": "text/plain",
            "status": "saved",
            "owner": "agent:x",
            "readableBy": ["user:u"],
        },
    ]
    data = record(generated=generated)
    assert score(GeneratedFileReadableBy(grantee="user:u"), data)[0]
    assert not score(GeneratedFileReadableBy(grantee="role:r"), data)[0]
    assert not score(GeneratedFileNotReadableBy(grantee="role:r"), data)[0]
    assert score(GeneratedFileNotReadableBy(grantee="role:z"), data)[0]
    assert score(GeneratedFileDraftCreated(), data)[0]
    assert not score(GeneratedFileNotReadableBy(grantee="role:z"), record())[0]


def test_what_a_generated_file_holds_is_read_from_its_text_never_from_its_name() -> None:
    made = {
        "fileId": "draft-1",
        "name": "audit.pptx",
        "mediaType": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "status": "draft",
        "owner": "agent:x",
        "readableBy": ["user:u"],
    }
    read = {"fileId": "draft-1", "name": "audit.pptx", "text": "Audit\nFourteen audits are open."}
    data = record(generated=[made], generatedTexts=[read])
    assert score(GeneratedFileContains(filename="audit.pptx", text="Fourteen audits"), data)[0]
    ok, detail = score(GeneratedFileContains(filename="audit.pptx", text="Leiden"), data)
    assert not ok and 'holds "Audit' in detail
    ok, detail = score(GeneratedFileContains(filename="other.pptx", text="Audit"), data)
    assert not ok and 'no File named "other.pptx"' in detail and "audit.pptx" in detail
    lost = record(generated=[made], generatedTexts=[{**read, "text": None, "unreadable": "no"}])
    ok, detail = score(GeneratedFileContains(filename="audit.pptx", text="Audit"), lost)
    assert not ok and "draft-1: no" in detail
    unread = record(generated=[made])  # the fixture read no text: nothing is observed
    assert not score(GeneratedFileContains(filename="audit.pptx", text="Audit"), unread)[0]
    assert not score(GeneratedFileContains(filename="audit.pptx", text="Audit"), record())[0]


def test_the_seam_is_file_create() -> None:
    seam = SPECS["generated_file_readable_by"].seam
    assert seam is not None
    call = ToolCall(call_id="c", name="file_create", arguments={})
    assert seam(GeneratedFileReadableBy(grantee="user:u"), Evidence(tier="l3", tool_calls=[call]))
    assert not seam(GeneratedFileReadableBy(grantee="user:u"), Evidence(tier="l3", tool_calls=[]))


def test_omission_kinds_fail_over_no_request_at_all() -> None:
    """Nothing observed proves nothing: a Turn refused before the model is model_not_called's."""
    for kind in (PromptOmitsAttachment(file_id="f"), ProviderPromptOmitsFile(file_id="f")):
        ok, detail = score(kind, record(requests=[]))
        assert not ok and "no provider request was observed" in detail
    ok, detail = score(PromptOmitsAttachment(file_id="f"), record(requests=[]), model_calls=0)
    assert not ok and "no provider request was observed" in detail  # it reads the first one


def test_omits_file_holds_when_the_host_saw_no_model_call() -> None:
    """The original's rule: a Turn that never called the model sent no File (observed: the Host
    counted zero model calls); a count the Host did not report still proves nothing."""
    ok, detail = score(ProviderPromptOmitsFile(file_id="f"), record(requests=[]), model_calls=0)
    assert ok and "never called" in detail
    ok, _ = score(ProviderPromptOmitsFile(file_id="f"), record(requests=[]), model_calls=1)
    assert not ok


def test_provider_prompt_omits_reads_every_request_but_not_the_assistant() -> None:
    omits = ProviderPromptOmits(text="Private budget")
    assert not score(omits, None)[0]
    ok, detail = score(omits, record(requests=[]), model_calls=0)
    assert not ok and "no provider request was observed" in detail
    assert score(omits, record())[0]
    assert score(ProviderPromptOmits(text="Only the model"), record())[0]  # assistant text
    data = record()
    later = {"type": "text", "role": "tool", "text": '{"text":"## Private budget"}'}
    data["requests"].append([*data["requests"][0], later])
    ok, detail = score(omits, data)
    assert not ok and "provider request 2" in detail and "tool text" in detail


def test_two_files_with_the_same_bytes_are_told_apart_by_the_file_part_name() -> None:
    from eval_core._case.evidence import SentPart
    from eval_expectations_files.record import SeededFile
    from eval_expectations_files.setup import _attributed

    seeded = [
        SeededFile(
            file_id=i,
            name=f"{i}.pdf",
            media_type="application/pdf",
            origin="library",
            sha256=SHA,
            size=10,
        )
        for i in ("a", "b")
    ]
    part = SentPart(type="file", role="user", filename="b.pdf", sha256=SHA, size=10)
    assert _attributed(part, seeded).file_id == "b"
    image = SentPart(type="image", role="user", sha256=SHA, size=10)  # no name: the first
    assert _attributed(image, seeded).file_id == "a"
