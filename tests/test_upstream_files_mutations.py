"""Mutation tests of the original's file behaviour: break one row of it in the runtime, watch
exactly the Cases that assert that row go red (issue 21, section 4)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.files import attachments, documents
from agent_runtime.files.attachments import Attached, AttachmentGate, Rendered
from agent_runtime.files.store import SqlFileStore
from eval_core._plugins.plugins import PluginSet
from tests.test_mutations import red_cases, red_exactly


def _expects(kind: str, **fields: Any) -> Any:
    return lambda case: any(
        e["kind"] == kind and all(e.get(k) == v for k, v in fields.items()) for e in case["expect"]
    )


def test_measuring_pdf_pages_in_points_turns_the_accounting_cases_red(
    plugins: PluginSet, files_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(documents, "PIXELS_PER_POINT", 1)
    red_exactly(plugins, files_corpus, _expects("pdf_input_accounted"), at_least=5)


def test_accepting_a_partial_text_layer_turns_the_mixed_case_red(
    plugins: PluginSet, files_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = attachments.pdf_input

    def partial_text_accepted(file_id: str, source: str, document: Any) -> dict[str, Any]:
        announced = real(file_id, source, document)
        announced.pop("textRefusal", None)
        return announced

    monkeypatch.setattr(attachments, "pdf_input", partial_text_accepted)
    red_exactly(
        plugins,
        files_corpus,
        lambda c: (
            any(p.get("pdf", {}).get("variant") == "mixed" for p in c.get("attachments", []))
            and _expects("pdf_input_accounted", text="absent")(c)
        ),
    )


def _reads_a_read_refused(case: dict[str, Any]) -> bool:
    """A Case whose model is told, in the message after its file_read, that the File could not
    be read (the refusal's wording, which the runtime writes there too)."""
    return any(
        e["kind"] == "model_messages_in_order"
        and any("could not be read" in t for t in e.get("texts", ()))
        for e in case["expect"]
    )


def test_the_old_refusal_wording_turns_the_refusal_cases_red(
    plugins: PluginSet, files_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        attachments,
        "refusal_message",
        lambda name, reason: f"I can't read the attached File {name} ({reason}).",
    )
    red_exactly(  # the Cases that read a File refused, before the model or after file_read
        plugins,
        files_corpus,
        lambda c: (
            (_expects("model_not_called")(c) and not _expects("guardrail_blocked")(c))
            or _reads_a_read_refused(c)
        ),
        at_least=5,
    )


def test_a_preview_instead_of_the_whole_document_turns_the_full_text_cases_red(
    plugins: PluginSet, files_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(attachments, "DOCUMENT_TEXT_CHARS", 2000)
    red_exactly(plugins, files_corpus, lambda c: "full-text" in c["id"], at_least=2)


def test_attaching_a_read_file_without_reading_it_again_turns_the_re_read_cases_red(
    plugins: PluginSet, files_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unchecked(self: AttachmentGate, file_ids: Any) -> Attached:
        stored = [self.store.get(f) for f in file_ids]
        return Attached([attachments._binary(s) for s in stored if s is not None], [])

    monkeypatch.setattr(AttachmentGate, "attach", unchecked)

    def reads_a_document(case: dict[str, Any]) -> bool:
        """A readable document (a PDF or an Office file, which the gate reads again before it
        attaches it), read with file_read (an Expectation says so, or the script does)."""
        named = any(e.get("name") == "file_read" for e in case["expect"])
        scripted = '"file_read"' in json.dumps(case.get("script", []))
        document = any(
            f["mediaType"] == "application/pdf"
            or f["mediaType"].startswith("application/vnd.openxmlformats-officedocument.")
            for f in case.get("readable", [])
        )
        return document and (named or scripted)

    red_exactly(plugins, files_corpus, reads_a_document, at_least=3)


def test_saving_a_generated_file_instead_of_a_draft_turns_the_draft_cases_red(
    plugins: PluginSet, files_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = SqlFileStore.put

    def saved(self: SqlFileStore, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("origin") == "generated":
            kwargs["status"] = "saved"
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SqlFileStore, "put", saved)
    red_exactly(plugins, files_corpus, _expects("generated_file_draft_created"), at_least=2)


def _screening(monkeypatch: pytest.MonkeyPatch, keep: Any) -> None:
    real = AttachmentGate.__call__

    def screened(self: AttachmentGate, messages: list[dict[str, Any]]) -> Rendered:
        rendered = real(self, messages)
        return replace(rendered, screened=[t for t in rendered.screened if keep(self, t)])

    monkeypatch.setattr(AttachmentGate, "__call__", screened)


def test_screening_no_file_name_turns_the_file_name_case_red(
    plugins: PluginSet, files_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _screening(monkeypatch, lambda gate, text: not any(f.name == text for f in gate.store.files()))
    assert red_cases(plugins, files_corpus)[1] == {
        "files-an-order-in-an-attached-files-name-is-refused-by-the-input-guard"
    }


def test_screening_no_extracted_text_turns_the_document_text_case_red(
    plugins: PluginSet, files_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _screening(monkeypatch, lambda gate, text: any(f.name == text for f in gate.store.files()))
    assert red_cases(plugins, files_corpus)[1] == {
        "files-an-order-in-an-attached-documents-text-is-refused-by-the-input-guard",
        "l3-file-an-order-in-an-attached-pdfs-text-is-refused-by-the-input-guard",
    }
