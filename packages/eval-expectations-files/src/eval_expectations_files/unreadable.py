"""Files the requester may not read: the ``unreadable`` field, its fixture and ``file_withheld``.

An ``unreadable`` File is another user's, in the same File store, shared only with grantees
the requester is not (a Role the requester does not hold, another user). The runtime's File
Tools must neither read it nor list it for the requester. What the model was sent is the
witness: ``file_withheld`` reads every request the binding put on the wire and fails if any
carries the File's text or its name (what a read or a listing would have shown), a Tool
result included.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Protocol

import msgspec

from eval_core.kinds import (
    BLOCK,
    L3,
    TEXT,
    CaseBase,
    Evidence,
    Expectation,
    FixtureRequest,
    KindSpec,
    Location,
    Problems,
    SentPart,
    TextPart,
    TextStep,
    ToolCallsStep,
    TrialFixture,
    Verdict,
    WitnessCheck,
    failed,
    need,
    parts_of,
    passed,
    quoted,
    rules,
    scorer,
)
from eval_core.records import ForeignFile

FIELD = "unreadable"
ROLES_FIELD = "requester_roles"
TEXTUAL = ("text/plain", "text/markdown", "text/csv")
ASKING = ("file_read", "file_list")


class UnreadableFile(msgspec.Struct, **BLOCK):
    """A text File ``owner`` (``user:<id>``) keeps, shared only with ``sharedWith``."""

    file_id: str
    media_type: str
    name: str
    content: str
    owner: str
    shared_with: list[str] = msgspec.field(default_factory=list)


class ForeignFiles(Protocol):
    """The Host's File store, for Files the requester holds no share of, and the Roles the
    requester holds (none of them a grantee of such a File)."""

    def assign_requester_role(self, role: str) -> None: ...

    def put_foreign(self, file: ForeignFile) -> None: ...


class WithheldFile(msgspec.Struct, frozen=True, kw_only=True):
    file_id: str
    name: str
    text: str


class UnreadableRecord(msgspec.Struct, frozen=True, kw_only=True):
    """The Files the fixture put in the store that the requester may not read."""

    files: list[WithheldFile]


def _seed(request: FixtureRequest) -> Iterator[None]:
    files: list[UnreadableFile] = request.value
    store = request.service(ForeignFiles)
    for role in request.case.field(ROLES_FIELD) or ():
        store.assign_requester_role(role)
    for file in files:
        store.put_foreign(
            ForeignFile(
                file_id=file.file_id,
                name=file.name,
                media_type=file.media_type,
                data=file.content.encode(),
                owner=file.owner,
                shared_with=list(file.shared_with),
            )
        )
    yield
    request.record(
        UnreadableRecord(
            files=[WithheldFile(file_id=f.file_id, name=f.name, text=f.content) for f in files]
        )
    )


FIXTURE = TrialFixture(name="files-unreadable", field=FIELD, run=_seed, needs=(ForeignFiles,))


class FileWithheld(Expectation, tag="file_withheld", frozen=True):
    file_id: str


def _needles(file: WithheldFile) -> list[tuple[str, str]]:
    escaped = json.dumps(file.text, ensure_ascii=False)[1:-1]
    ascii_escaped = json.dumps(file.text)[1:-1]
    found = [("text", file.text), ("text", escaped), ("text", ascii_escaped)]
    return [*dict.fromkeys(found), ("name", file.name)]


def _carried(file: WithheldFile, ev: Evidence) -> tuple[int, str, SentPart] | None:
    """The first request the binding sent that carries the File: its number, what, the part."""
    for number, sent in enumerate(ev.model_requests or (), start=1):
        for part in parts_of(sent):
            if part.type != "text" or not part.text:
                continue
            for what, needle in _needles(file):
                if needle in part.text:
                    return number, what, part
    return None


def refused_but_sent(ev: Evidence) -> Iterable[str]:
    """The runtime recorded a read of an unreadable File as refused; the binding sent it."""
    record = ev.record(UnreadableRecord)
    if record is None or ev.tool_results is None or not ev.model_requests:
        return
    for file in record.files:
        refused = [
            r
            for r in ev.tool_results
            if r.name == "file_read"
            and isinstance(r.arguments, dict)
            and r.arguments.get("fileId") == file.file_id
            and r.status != "succeeded"
        ]
        found = _carried(file, ev) if refused else None
        if found is not None:
            number, what, _ = found
            yield (
                f"the runtime recorded file_read call {refused[0].call_id} of "
                f"{quoted(file.file_id)} as {refused[0].status}; model request #{number} the "
                f"binding sent carries its {what}"
            )


CHECKS = [WitnessCheck("refused file read sent", refused_but_sent, reads=UnreadableRecord)]


@scorer
def score_withheld(e: FileWithheld, ev: Evidence) -> Verdict:
    """The binding's requests, every part of every one (Tool results too), for the File."""
    record = need(
        ev.record(UnreadableRecord),
        "no unreadable File was put in the store (the Case needs 'unreadable')",
    )
    file = need(
        next((f for f in record.files if f.file_id == e.file_id), None),
        f"{quoted(e.file_id)} is not an unreadable File of the Case",
    )
    why = f"model requests not observed; cannot tell whether {quoted(e.file_id)} leaked"
    requests = need(ev.model_requests, why)
    if not requests:
        return failed(f"the model received no request; nothing shows {quoted(e.file_id)} withheld")
    carried = _carried(file, ev)
    if carried is not None:
        number, what, part = carried
        return failed(
            f"model request #{number} of {len(requests)} carries the {what} of "
            f"{quoted(e.file_id)} (owned by another user) in a {part.role} part: "
            f"{quoted(part.text or '', 120)}"
        )
    return passed(
        f"none of the {len(requests)} model request(s) carries the text or name of "
        f"{quoted(e.file_id)}"
    )


def _asked(_e: object, ev: Evidence) -> bool:
    """The seam: the Agent asked the File store (file_read or file_list reached its Tool)."""
    return any(call.name in ASKING for call in ev.tool_calls or ())


def kind_spec() -> KindSpec:
    return KindSpec(
        struct=FileWithheld,
        witness="binding",
        evidence_at=Location.record_of(UnreadableRecord),
        scorer=score_withheld,
        tiers=L3,
        **rules(file_id=TEXT),
        seam=_asked,
        description=(
            "No request the binding sent carries the unreadable File's text or name, in any "
            "part (a Tool result included): the requester's File Tools withheld it."
            " Its `fileId` names a File of `unreadable`."
        ),
        examples=[{"kind": "file_withheld", "fileId": "payroll-q2"}],
    )


def _texts(case: CaseBase) -> list[str]:
    texts = [p.text for m in case.input for p in m.parts if isinstance(p, TextPart)]
    for step in case.script or ():
        if isinstance(step, ToolCallsStep):
            texts.extend(json.dumps(c.arguments, ensure_ascii=False) for c in step.calls)
        elif isinstance(step, TextStep):
            texts.append(step.text)
    return texts


def problems(case: CaseBase) -> Problems:
    """An unreadable File says what it is; nothing else in the Case gives its text or name
    away (``file_withheld`` would fail for that alone); its File Tools run for real."""
    files: list[UnreadableFile] = case.field(FIELD) or []
    roles: list[str] = case.field(ROLES_FIELD) or []
    found: Problems = []
    if roles and not files:
        found.append(("$.requesterRoles", "the requester's Roles are set beside 'unreadable' only"))
    for r, role in enumerate(roles):
        if not role.strip() or role.startswith(("user:", "role:")):
            found.append((f"$.requesterRoles[{r}]", "must be a Role id (no role: prefix)"))
    ids = {f.file_id for g in ("attachments", "readable") for f in case.field(g) or ()}
    texts = _texts(case)
    for index, file in enumerate(files):
        where = f"$.unreadable[{index}]"
        for name in ("file_id", "name", "content"):
            if not getattr(file, name).strip():
                found.append((f"{where}.{name.split('_')[0]}", "must be a non-empty string"))
        if file.media_type not in TEXTUAL:
            found.append(
                (f"{where}.mediaType", f"an unreadable File is text: {', '.join(TEXTUAL)}")
            )
        if not file.owner.startswith("user:") or not file.owner[5:].strip():
            found.append((f"{where}.owner", "must be another user, as user:<id>"))
        for g, grantee in enumerate(file.shared_with):
            if not grantee.startswith(("user:", "role:")):
                found.append((f"{where}.sharedWith[{g}]", "must be user:<id> or role:<id>"))
            elif grantee.removeprefix("role:") in roles and grantee.startswith("role:"):
                found.append(
                    (
                        f"{where}.sharedWith[{g}]",
                        f"the requester holds {grantee} (requesterRoles): the File is readable",
                    )
                )
        if file.file_id in ids:
            found.append(
                (f"{where}.fileId", f"{file.file_id!r} is also a readable or attached File")
            )
        for label, value in (("name", file.name), ("content", file.content)):
            if value.strip() and any(value in text for text in texts):
                found.append(
                    (f"{where}.{label}", f"the Case's input or script gives its {label} away")
                )
    if files:
        for index, result in enumerate(case.tool_results):
            if result.name in ASKING:
                found.append(
                    (
                        f"$.toolResults[{index}].name",
                        f"{result.name} runs for real: never script it",
                    )
                )
    withheld = {f.file_id for f in files}
    for index, e in enumerate(case.expect):
        if isinstance(e, FileWithheld) and e.file_id not in withheld:
            found.append(
                (
                    f"$.expect[{index}].fileId",
                    f"{e.file_id!r} is not an unreadable File of the Case",
                )
            )
    return found
