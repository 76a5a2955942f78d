"""Load rules of the files family: what a File fixture, and a Case using one, must say.

Each rule closes a way a Case could pass without measuring anything: a File both attached and
readable (a re-read Case would pass with the mechanism removed), a File in neither, a scripted
``file_read``/``file_create`` result (the real Tool must run), a widening of a generated File's
audience without a bound for a Role the Agent lacks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from eval_core.kinds import CaseBase, FilePart, ToolCallsStep
from eval_expectations_files.fixtures import DOCX, PDF, PPTX, XLSX, CaseFile
from eval_expectations_files.kinds import (
    GeneratedFileContains,
    GeneratedFileDraftCreated,
    GeneratedFileNotReadableBy,
    GeneratedFileReadableBy,
    PdfInputAccounted,
    PromptAttaches,
    PromptOmitsAttachment,
    ProviderPromptFileExact,
    ProviderPromptOmitsFile,
    kind_specs,
)

Problems = list[tuple[str, str]]
FILE_TOOLS = ("file_read", "file_create")
MAX_PRECEDING = 1000
MAX_FOLLOWING_SHEETS = 100
_TEXT_PDF = ("text", "mixed", "layout", "page-limit")


def _files(case: CaseBase) -> Iterator[tuple[str, int, CaseFile]]:
    for group in ("attachments", "readable"):
        for index, file in enumerate(case.field(group) or ()):
            yield group, index, file


def _referenced(case: CaseBase) -> dict[str, FilePart]:
    refs: dict[str, FilePart] = {}
    messages = list(case.input)
    for turn in case.field("journey") or ():
        messages.extend(turn.input)
    for message in messages:
        for part in message.parts:
            if isinstance(part, FilePart):
                refs.setdefault(part.file_id, part)
    return refs


def _scripted_reads(case: CaseBase) -> set[str]:
    """fileIds the script asks ``file_read`` for."""
    steps = list(case.script or ())
    for turn in case.field("journey") or ():
        steps.extend(turn.script or ())
    return {
        str(call.arguments.get("fileId"))
        for step in steps
        if isinstance(step, ToolCallsStep)
        for call in step.calls
        if call.name == "file_read" and isinstance(call.arguments, dict)
    }


_FAMILY_TAGS = frozenset(spec.name for spec in kind_specs())
"""The tags of this family's own kinds (read from their specs, so a new kind is never missed)."""


def _touches_files(case: CaseBase) -> bool:
    """Whether any rule here can apply: most Cases have no Files and cost nothing to check."""
    if (
        case.field("attachments") is not None
        or case.field("readable") is not None
        or case.field("agent_roles") is not None
    ):
        return True
    if not _FAMILY_TAGS.isdisjoint(e.__struct_config__.tag for e in case.expect):
        return True
    return any(type(p) is FilePart for m in case.input for p in m.parts)


def check_case(case: CaseBase) -> Problems:
    if not _touches_files(case):
        return []
    problems: Problems = []
    attached = {f.file_id for f in case.field("attachments") or ()}
    readable = {f.file_id for f in case.field("readable") or ()}
    roles = case.field("agent_roles")
    has_files = bool(attached or readable or roles is not None)
    single_turn = not case.field("journey")
    seen: set[str] = set()
    for group, index, file in _files(case):
        problems.extend(_check_file(case, file, f"$.{group}[{index}]", group, single_turn))
        if file.file_id in seen:
            reason = (
                "is in both attachments and readable: a re-read Case would pass with file_read "
                "removed; declare it in one"
                if file.file_id in attached and file.file_id in readable
                else "duplicates a File id"
            )
            problems.append((f"$.{group}[{index}].fileId", f"{file.file_id!r} {reason}"))
        seen.add(file.file_id)
    refs = _referenced(case)
    for index, file in enumerate(case.field("attachments") or ()):
        part = refs.get(file.file_id)
        if part is None:
            problems.append(
                (
                    f"$.attachments[{index}]",
                    f"{file.file_id!r} is attached but no file part of the input references it",
                )
            )
        elif (part.media_type, part.name) != (file.media_type, file.name):
            problems.append(
                (
                    f"$.attachments[{index}]",
                    f"the input's file part for {file.file_id!r} has a "
                    "different media type or name",
                )
            )
    for file_id in refs:
        if file_id not in seen:
            problems.append(
                (
                    "$.input",
                    f"file part {file_id!r} names a File in neither attachments nor readable",
                )
            )
    if roles is not None and (not roles or any(not r.strip() for r in roles)):
        problems.append(("$.agentRoles", "must list non-empty Role ids"))
    if has_files:
        results = list(case.tool_results)
        for turn in case.field("journey") or ():
            results.extend(turn.tool_results)
        for index, result in enumerate(results):
            if result.name in FILE_TOOLS:
                problems.append(
                    (
                        f"$.toolResults[{index}].name",
                        f"{result.name} runs for real against the "
                        "File store when a Case has Files; never script its result",
                    )
                )
    problems.extend(_check_expectations(case, attached, readable, set(refs), roles))
    return problems


def _check_file(
    case: CaseBase, file: CaseFile, path: str, group: str, single_turn: bool
) -> Problems:
    problems: Problems = []
    for name in ("file_id", "media_type", "name"):
        if not getattr(file, name).strip():
            problems.append((f"{path}.{name.split('_')[0]}", "must be a non-empty string"))
    if file.content is not None and not file.content.strip():
        problems.append((f"{path}.content", "when present, must be non-empty"))
    formats = file.formats()
    if len(formats) > 1:
        problems.append((path, f"has {formats}: at most one format fixture"))
        return problems
    l3_single = case.tier == "l3" and single_turn
    if file.is_pdf():
        problems.extend(_check_pdf(case, file, path, group, l3_single))
    if file.docx is not None:
        d = file.docx
        if file.media_type != DOCX or group != "attachments" or not l3_single:
            problems.append(
                (
                    path,
                    "a DOCX fixture is an attachment of a single-Turn L3 Case "
                    f"with media type {DOCX}",
                )
            )
        if (d.variant is None) == (d.preceding_paragraphs is None):
            problems.append((f"{path}.docx", "give either variant or precedingParagraphs"))
        if d.variant is not None and file.content is not None:
            problems.append(
                (f"{path}.content", "a DOCX variant is a defective archive: no content")
            )
        if d.preceding_paragraphs is not None:
            if not 0 <= d.preceding_paragraphs <= MAX_PRECEDING:
                problems.append((f"{path}.docx.precedingParagraphs", "must be 0..1000"))
            if file.content is None:
                problems.append((f"{path}.content", "precedingParagraphs needs content"))
    for fmt, media, label in (("xlsx", XLSX, "XLSX"), ("pptx", PPTX, "PPTX")):
        if getattr(file, fmt) is None:
            continue
        if file.media_type != media or group != "attachments" or not l3_single:
            problems.append(
                (
                    path,
                    f"an {label} fixture is an attachment of a single-Turn L3 "
                    f"Case with media type {media}",
                )
            )
        if file.content is None:
            problems.append((f"{path}.content", f"an {label} fixture needs content"))
    if file.xlsx is not None and not 0 <= file.xlsx.preceding_rows <= MAX_PRECEDING:
        problems.append((f"{path}.xlsx.precedingRows", "must be 0..1000"))
    if file.xlsx is not None and not 0 <= file.xlsx.following_sheets <= MAX_FOLLOWING_SHEETS:
        problems.append((f"{path}.xlsx.followingSheets", f"must be 0..{MAX_FOLLOWING_SHEETS}"))
    if file.pptx is not None and file.pptx.speaker_notes is not True:
        problems.append((f"{path}.pptx.speakerNotes", "must be true"))
    return problems


def _check_pdf(case: CaseBase, file: CaseFile, path: str, group: str, l3_single: bool) -> Problems:
    problems: Problems = []
    if file.media_type != PDF:
        problems.append((f"{path}.mediaType", f"a PDF fixture has media type {PDF}"))
    if not l3_single:
        problems.append((path, "a PDF fixture belongs to a single-Turn L3 Case"))
    variant = file.pdf.variant if file.pdf is not None else "text"
    if variant in _TEXT_PDF:
        if file.content is None or not file.content.isascii():
            problems.append((f"{path}.content", f"a {variant} PDF needs ASCII content"))
    elif file.content is not None:
        problems.append((f"{path}.content", f"a {variant} PDF has no text content to declare"))
    replaced = file.pdf is not None and file.pdf.replace_after_read is not None
    if replaced and (group != "readable" or variant != "scan"):
        problems.append((f"{path}.pdf.replaceAfterRead", "only a readable scan is replaced"))
    if group == "readable" and "file_read" not in case.platform_tools:
        problems.append(("$.platformTools", "a readable PDF needs the platform Tool file_read"))
    return problems


def _check_expectations(
    case: CaseBase, attached: set[str], readable: set[str], refs: set[str], roles: Any
) -> Problems:
    problems: Problems = []
    declared = attached | readable
    reads = _scripted_reads(case)
    pdfs = {f.file_id for _, _, f in _files(case) if f.is_pdf()}
    bounds = [e.grantee for e in case.expect if isinstance(e, GeneratedFileNotReadableBy)]
    held = {f"role:{r}" for r in roles or ()}
    for index, e in enumerate(case.expect):
        path = f"$.expect[{index}]"
        if isinstance(e, PromptAttaches | ProviderPromptFileExact) and e.file_id not in declared:
            problems.append((f"{path}.fileId", f"{e.file_id!r} is neither attached nor readable"))
        if isinstance(e, PromptOmitsAttachment) and e.file_id not in refs:
            problems.append((f"{path}.fileId", f"{e.file_id!r} is not referenced by the input"))
        if isinstance(e, ProviderPromptOmitsFile) and not (
            (e.file_id in attached and e.file_id in refs)
            or (e.file_id in readable and e.file_id in reads)
        ):
            problems.append(
                (
                    f"{path}.fileId",
                    f"{e.file_id!r} must be an attachment the input references, "
                    "or a readable File the script reads with file_read",
                )
            )
        if isinstance(e, PdfInputAccounted) and e.file_id not in pdfs:
            problems.append((f"{path}.fileId", f"{e.file_id!r} is not a declared PDF"))
        if isinstance(
            e,
            GeneratedFileReadableBy
            | GeneratedFileNotReadableBy
            | GeneratedFileDraftCreated
            | GeneratedFileContains,
        ):
            if "file_create" not in case.platform_tools:
                problems.append((path, "generated-file kinds need the platform Tool file_create"))
            if roles is None:
                problems.append((path, "generated-file kinds need agentRoles (the real Roles)"))
        if isinstance(e, GeneratedFileReadableBy) and not any(
            b.startswith("role:") and b not in held for b in bounds
        ):
            problems.append(
                (
                    path,
                    "pair generated_file_readable_by with a generated_file_not_readable_by "
                    "for a Role the Agent lacks, or it passes against share-with-everyone",
                )
            )
    return problems
