"""The files kinds and their scorers: what the provider was sent, and who may read what was made.

Provider kinds read the prompt splitter's parts (the first request, unless a kind says every
request) against the Case Files as seeded; generated-file kinds read the shares the File store
holds for every File the Agent wrote, and what a File holds from its bytes in the store. Every
scorer is total: no record, no request, no generated File is a failure with a reason, never a
pass.
"""

from __future__ import annotations

from functools import partial
from typing import Literal

import msgspec

from eval_core.kinds import (
    L3,
    NON_EMPTY,
    TEXT,
    Evidence,
    Expectation,
    Grounding,
    KindSpec,
    Location,
    Problems,
    Rule,
    Verdict,
    absent,
    at_least,
    failed,
    need,
    non_empty,
    passed,
    present,
    properties,
    quoted,
    rules,
    scorer,
)
from eval_expectations_files.record import FilesRecord, ProviderPart, record_of

FILE_CREATE = "file_create"
GRANTEE_PREFIXES = ("user:", "role:")
_NO_RECORD = "no File read-back (the Host did not run the Case's Files)"


class _OfFile(Expectation, frozen=True):
    file_id: str


class _Text(Expectation, frozen=True):
    text: str


class PromptAttaches(_OfFile, tag="prompt_attaches", frozen=True): ...


class PromptOmitsAttachment(_OfFile, tag="prompt_omits_attachment", frozen=True): ...


class ProviderPromptContains(_Text, tag="provider_prompt_contains", frozen=True): ...


class ProviderPromptOmits(_Text, tag="provider_prompt_omits", frozen=True): ...


class ProviderPromptFileExact(_OfFile, tag="provider_prompt_file_exact", frozen=True):
    part: Literal["file", "image"]


class ProviderPromptOmitsFile(_OfFile, tag="provider_prompt_omits_file", frozen=True): ...


class PdfPageSize(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One page's size in points, as ``pdf_input_accounted`` expects it."""

    width: int
    height: int


class PdfInputAccounted(Expectation, tag="pdf_input_accounted", frozen=True):
    file_id: str
    pages: list[PdfPageSize]
    text: Literal["present", "absent"]
    minimum_tokens: int


class _Grantee(Expectation, frozen=True):
    grantee: str


class GeneratedFileReadableBy(_Grantee, tag="generated_file_readable_by", frozen=True): ...


class GeneratedFileNotReadableBy(_Grantee, tag="generated_file_not_readable_by", frozen=True): ...


class GeneratedFileDraftCreated(Expectation, tag="generated_file_draft_created", frozen=True):
    pass


class GeneratedFileContains(Expectation, tag="generated_file_contains", frozen=True):
    filename: str
    text: str


def _record(ev: Evidence, cannot: str) -> FilesRecord:
    """The File read-back, or the scorer fails: none, and what it ``cannot`` do."""
    return need(record_of(ev), f"{_NO_RECORD}; {cannot}")


def _first_request(ev: Evidence, cannot: str, none: str) -> list[ProviderPart]:
    """The parts of the first provider request, or the scorer fails: no read-back (and what it
    ``cannot`` do), or no request (``none`` says what that means for the kind)."""
    record = _record(ev, cannot)
    return need(record.requests[0] if record.requests else None, none)


def _carries(part: ProviderPart, text: str) -> bool:
    """The rule of the provider-prompt text kinds: a non-assistant text part holds the text."""
    return part.type == "text" and part.role != "assistant" and text in (part.text or "")


def _of_file(part: ProviderPart) -> str:
    return f" of File {part.file_id}" if part.file_id else ""


def _attributed(parts: list[ProviderPart], file_id: str) -> list[ProviderPart]:
    return [p for p in parts if p.file_id == file_id]


def _describe(part: ProviderPart) -> str:
    return f"{part.type} part ({part.media_type or 'text'}, {part.filename or '-'})"


def _attached(parts: list[ProviderPart], file_id: str) -> str | None:
    """How the first provider request attaches the File, or ``None``."""
    found = _attributed(parts, file_id)
    if not found:
        return None
    return f"the first provider request attaches {file_id} as {_describe(found[0])}"


@scorer
def _score_attaches(e: PromptAttaches, ev: Evidence) -> Verdict:
    cannot = f"cannot look for File {e.file_id}"
    why = f"the model received no request, so File {e.file_id} was never attached"
    parts = _first_request(ev, cannot, why)
    ids = sorted({p.file_id for p in parts if p.file_id})
    otherwise = f"the first provider request attaches {ids or 'no File'}, not {e.file_id}"
    return present(_attached(parts, e.file_id), otherwise)


@scorer
def _score_omits_attachment(e: PromptOmitsAttachment, ev: Evidence) -> Verdict:
    cannot = f"cannot confirm File {e.file_id} was left out"
    # nothing observed proves nothing: "never called" is model_not_called's
    why = f"no provider request was observed; cannot confirm {e.file_id} was left out"
    parts = _first_request(ev, cannot, why)
    otherwise = f"the first provider request ({len(parts)} parts) does not attach {e.file_id}"
    return absent(_attached(parts, e.file_id), otherwise)


@scorer
def _score_contains(e: ProviderPromptContains, ev: Evidence) -> Verdict:
    cannot = f"cannot look for {quoted(e.text)}"
    parts = _first_request(ev, cannot, f"the model received no request; {cannot}")
    for part in parts:
        if _carries(part, e.text):
            where = f"the {part.role} text{_of_file(part)}"
            return passed(f"the first provider request contains {quoted(e.text)} in {where}")
    return failed(
        f"the first provider request ({len(parts)} parts, assistant text excluded) does not "
        f"contain {quoted(e.text)}"
    )


@scorer
def _score_omits(e: ProviderPromptOmits, ev: Evidence) -> Verdict:
    record = _record(ev, f"cannot confirm {quoted(e.text)} was never sent")
    if not record.requests:  # nothing observed proves nothing
        return failed(
            f"no provider request was observed; cannot confirm {quoted(e.text)} was left out"
        )
    for number, parts in enumerate(record.requests, start=1):
        for part in parts:
            if _carries(part, e.text):
                return failed(
                    f"provider request {number} carries {quoted(e.text)} in the {part.role} "
                    f"text{_of_file(part)}: {quoted(part.text or '', 120)}"
                )
    return passed(
        f"none of {len(record.requests)} provider request(s) carries {quoted(e.text)} "
        "(assistant text excluded)"
    )


@scorer
def _score_file_exact(e: ProviderPromptFileExact, ev: Evidence) -> Verdict:
    record = _record(ev, f"cannot compare File {e.file_id}")
    seeded = need(record.seeded(e.file_id), f"File {e.file_id} was never seeded in the File store")
    if not record.requests:
        return failed(f"the model received no request; File {e.file_id} was never sent")
    binary = [  # the first request that carries the File: the prompt, or after a file_read
        (number, p)
        for number, parts in enumerate(record.requests, start=1)
        for p in _attributed(parts, e.file_id)
        if p.type in ("file", "image")
    ]
    if not binary:
        return failed(
            f"none of {len(record.requests)} provider request(s) has a binary part for "
            f"File {e.file_id}"
        )
    number, part = binary[0]
    wrong = []
    if part.type != e.part:
        wrong.append(f"part type {part.type}, expected {e.part}")
    if part.sha256 != seeded.sha256 or part.size != seeded.size:
        wrong.append(
            f"bytes differ ({part.size} bytes sha256 {str(part.sha256)[:12]}…, the Case File "
            f"has {seeded.size} bytes sha256 {seeded.sha256[:12]}…)"
        )
    if part.media_type != seeded.media_type:
        wrong.append(f"media type {part.media_type}, expected {seeded.media_type}")
    named = part.type == "file"  # an image carries no file name on either vendor's wire
    if named and part.filename != seeded.name:
        wrong.append(f"file name {part.filename!r}, expected {seeded.name!r}")
    if wrong:
        return failed(f"File {e.file_id} was sent with " + "; ".join(wrong))
    return passed(
        f"File {e.file_id} was sent (request {number}) as a {e.part} part with its exact "
        f"{seeded.size} bytes, "
        f"media type {seeded.media_type}" + (f" and file name {seeded.name!r}" if named else "")
    )


@scorer
def _score_omits_file(e: ProviderPromptOmitsFile, ev: Evidence) -> Verdict:
    record = _record(ev, f"cannot confirm File {e.file_id} was never sent")
    if not record.requests:
        if ev.model_calls == 0:  # observed: the Host counted no model call, so nothing was sent
            return passed(f"the model was never called, so no provider request carried {e.file_id}")
        return failed(
            f"no provider request was observed; cannot confirm {e.file_id} was never sent"
        )
    for number, parts in enumerate(record.requests, start=1):
        for part in parts:
            if part.type not in ("file", "image"):
                continue  # the original's rule: a File is sent when its bytes are
            if part.file_id is None:
                return failed(f"provider request {number} has a binary part of no known File")
            if part.file_id == e.file_id:
                return failed(f"provider request {number} carries File {e.file_id}'s bytes")
    return passed(
        f"none of {len(record.requests)} provider request(s) carries File {e.file_id}'s bytes"
    )


@scorer
def _score_pdf(e: PdfInputAccounted, ev: Evidence) -> Verdict:
    record = _record(ev, f"cannot account PDF {e.file_id}")
    inputs = [i for i in record.pdf_inputs if i.file_id == e.file_id]
    if not inputs:
        return failed(f"PDF {e.file_id} never reached the model (no prompt part, no file_read)")
    expected = [(p.width, p.height) for p in e.pages]
    for number, item in enumerate(inputs, start=1):
        where = f"PDF input {number} ({item.source})"
        sizes = [(p.width, p.height) for p in item.pages]
        if sizes != expected:
            return failed(f"{where} has pages {sizes}, expected {expected}")
        has_text = item.has_text()
        if has_text != (e.text == "present"):
            refused = f" (refused: {item.text_refusal})" if item.text_refusal else ""
            return failed(f"{where}: text layer {'present' if has_text else 'absent'}{refused}")
        tokens = sum(p.tokens for p in item.pages)
        if tokens < e.minimum_tokens:
            return failed(f"{where} is estimated at {tokens} tokens, below {e.minimum_tokens}")
    return passed(
        f"{len(inputs)} PDF input(s) of {e.file_id}: pages {expected}, text {e.text}, "
        f"≥{e.minimum_tokens} tokens each"
    )


def _generated(ev: Evidence, cannot: str) -> FilesRecord:
    """The read-back of the Files the Agent generated, or the scorer fails: none."""
    record = _record(ev, cannot)
    need(record.generated or None, f"the Agent generated no File; {cannot}")
    return record


@scorer
def _score_readable_by(e: GeneratedFileReadableBy, ev: Evidence) -> Verdict:
    record = _generated(ev, f"cannot check it is readable by {e.grantee}")
    missing = [g.file_id for g in record.generated if e.grantee not in g.readable_by]
    if missing:
        shares = {g.file_id: g.readable_by for g in record.generated}
        return failed(f"{e.grantee} may not read {missing} (shares: {shares})")
    return passed(f"every generated File ({len(record.generated)}) is readable by {e.grantee}")


@scorer
def _score_not_readable_by(e: GeneratedFileNotReadableBy, ev: Evidence) -> Verdict:
    record = _generated(ev, f"cannot check it is withheld from {e.grantee}")
    leaked = [g.file_id for g in record.generated if e.grantee in g.readable_by]
    if leaked:
        return failed(f"{e.grantee} may read {leaked}")
    shares = sorted({s for g in record.generated for s in g.readable_by})
    return passed(f"no generated File is readable by {e.grantee} (shared with {shares})")


@scorer
def _score_draft(e: GeneratedFileDraftCreated, ev: Evidence) -> Verdict:
    record = _generated(ev, "expected a draft")
    drafts = [g.file_id for g in record.generated if g.status == "draft"]
    if not drafts:
        return failed(f"no generated File is a draft: {[g.status for g in record.generated]}")
    return passed(f"draft File(s) {drafts} were created")


@scorer
def _score_holds(e: GeneratedFileContains, ev: Evidence) -> Verdict:
    record = _generated(ev, f"cannot read {quoted(e.filename)}")
    named = [t for t in record.generated_texts if t.name == e.filename]
    if not named:
        made = [g.name for g in record.generated]
        return failed(f"the Agent generated no File named {quoted(e.filename)}: it made {made}")
    for draft in named:
        if draft.text is not None and e.text in draft.text:
            return passed(f"{draft.file_id} ({quoted(e.filename)}) holds {quoted(e.text)}")
    said = "; ".join(
        f"{draft.file_id} holds {quoted(draft.text, 160)}"
        if draft.text is not None
        else f"{draft.file_id}: {draft.unreadable}"
        for draft in named
    )
    return failed(f"no File named {quoted(e.filename)} holds {quoted(e.text)}: {said}")


def _file_created(_e: object, ev: Evidence) -> bool:
    return any(c.name == FILE_CREATE for c in ev.tool_calls or ())


def _grantee(grantee: str, suffix: str) -> Problems:
    prefix = next((p for p in GRANTEE_PREFIXES if grantee.startswith(p)), None)
    if prefix is None or not grantee[len(prefix) :].strip():
        return [(suffix, "must be spelled user:<id> or role:<id>")]
    return []


GRANTEE = Rule({"pattern": r"^(user|role):[\s\S]*\S"}, _grantee)


def _check_pdf(e: PdfInputAccounted, _case: object) -> Problems:
    problems = non_empty(e.file_id, ".fileId")
    if not e.pages:
        problems.append((".pages", "must list at least one page"))
    for index, page in enumerate(e.pages):
        if page.width <= 0 or page.height <= 0:
            problems.append((f".pages[{index}]", "width and height must be positive integers"))
    if e.minimum_tokens <= 0:
        problems.append((".minimumTokens", "must be a positive integer"))
    return problems


def kind_specs() -> list[KindSpec]:
    read_back = Location.record_of(FilesRecord)  # what the provider was sent, as recorded
    binding = partial(KindSpec, witness="binding", evidence_at=read_back)
    of_file = partial(binding, **rules(file_id=TEXT))
    generated = partial(
        KindSpec, witness="store", evidence_at=read_back, tiers=L3, seam=_file_created
    )
    shared = partial(generated, **rules(grantee=GRANTEE))
    return [
        of_file(
            struct=PromptAttaches,
            scorer=_score_attaches,
            description="The prompt splitter attached the File to the first provider request."
            " Its `fileId` names a File of `attachments` or `readable`.",
            examples=[{"kind": "prompt_attaches", "fileId": "memo"}],
        ),
        of_file(
            struct=PromptOmitsAttachment,
            scorer=_score_omits_attachment,
            description="The first provider request attaches nothing of the File."
            " Its `fileId` names an attachment the input references.",
            examples=[{"kind": "prompt_omits_attachment", "fileId": "scan-receipt"}],
        ),
        binding(
            struct=ProviderPromptContains,
            scorer=_score_contains,
            **rules(text=TEXT),
            grounding=Grounding(field="text", waivable=False, scope="first_request"),
            description="The first provider request's non-assistant text contains the text.",
            examples=[{"kind": "provider_prompt_contains", "text": "Crocus bulbs, 40 crates"}],
        ),
        binding(
            struct=ProviderPromptOmits,
            scorer=_score_omits,
            **rules(text=TEXT),
            seam_independent=True,
            description="No provider request carries the text in a non-assistant text part "
            "(exact substring; a Tool result included): what a document hides, such as a "
            "workbook's hidden sheet, never reaches the model.",
            examples=[{"kind": "provider_prompt_omits", "text": "Private budget"}],
        ),
        of_file(
            struct=ProviderPromptFileExact,
            scorer=_score_file_exact,
            description="The first binary part of the File a provider request carries (the "
            "prompt's, or the request after a file_read) is the Case File: exact bytes, media "
            "type and (a file part; an image carries none) file name."
            " Its `fileId` names a File of `attachments` or `readable`.",
            examples=[{"kind": "provider_prompt_file_exact", "fileId": "photo", "part": "image"}],
        ),
        of_file(
            struct=ProviderPromptOmitsFile,
            scorer=_score_omits_file,
            description="No provider request carries the File's bytes as a file or image part "
            "(nor bytes of no known File); its extracted text may be sent. A Turn the Host saw "
            "make no model call sent none."
            " Its `fileId` names an attachment the input references, or a `readable` File the"
            " script reads with `file_read`.",
            examples=[{"kind": "provider_prompt_omits_file", "fileId": "ledger"}],
        ),
        KindSpec(
            struct=PdfInputAccounted,
            witness="events",
            evidence_at=read_back,
            scorer=_score_pdf,
            tiers=L3,
            check=_check_pdf,
            json_schema=properties(
                fileId=NON_EMPTY, pages={"minItems": 1}, minimumTokens=at_least(1)
            ),
            description="Every PDF model input of the File has these pages (rendered pixels, two "
            "per point), this text-layer presence (absent when its text was refused) and at "
            "least this many tokens."
            " Its `fileId` names a PDF of `attachments` or `readable`.",
            examples=[
                {
                    "kind": "pdf_input_accounted",
                    "fileId": "pdf-scan",
                    "pages": [{"width": 1224, "height": 1584}],
                    "text": "absent",
                    "minimumTokens": 2586,
                }
            ],
        ),
        shared(
            struct=GeneratedFileReadableBy,
            scorer=_score_readable_by,
            description="Every File the Agent generated is shared with the grantee."
            " Needs the platform Tool `file_create` and `agentRoles`, and a"
            " `generated_file_not_readable_by` for a Role the Agent lacks.",
            examples=[{"kind": "generated_file_readable_by", "grantee": "user:eval"}],
        ),
        shared(
            struct=GeneratedFileNotReadableBy,
            scorer=_score_not_readable_by,
            description="No File the Agent generated is shared with the grantee."
            " Needs the platform Tool `file_create` and `agentRoles`.",
            examples=[{"kind": "generated_file_not_readable_by", "grantee": "role:auditor"}],
        ),
        generated(
            struct=GeneratedFileDraftCreated,
            scorer=_score_draft,
            description="The Agent's file_create saved a draft File."
            " Needs the platform Tool `file_create` and `agentRoles`.",
            examples=[{"kind": "generated_file_draft_created"}],
        ),
        generated(
            struct=GeneratedFileContains,
            scorer=_score_holds,
            **rules(filename=TEXT, text=TEXT),
            description="The File the Agent generated under this name holds the text, read from "
            "the bytes the File store keeps with readers of this family's own (text formats "
            "decoded; a deck's slides, tables and notes with python-pptx, a blank line between "
            "slides; a workbook's cells with openpyxl; a PDF's text with pypdf), not from what "
            "file_create answered."
            " Needs the platform Tool `file_create` and `agentRoles`.",
            examples=[
                {
                    "kind": "generated_file_contains",
                    "filename": "audit-backlog.pptx",
                    "text": "Fourteen audits are open.",
                }
            ],
        ),
    ]
