"""Entry point of the files family: its kinds, its Case fields and its load rules.

Registered as ``files = "eval_expectations_files.plugin"`` in the ``eval.plugins`` group; the
core never imports it, nor does the Host: its fixture reaches the Host's File store through the
Protocols in :mod:`eval_expectations_files.setup`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from eval_core.kinds import (
    L3,
    CaseBase,
    CaseField,
    KindSpec,
    LoadContext,
    TrialFixture,
    WitnessCheck,
    hookimpl,
)
from eval_expectations_files import unreadable
from eval_expectations_files.fixtures import CaseFile
from eval_expectations_files.kinds import kind_specs
from eval_expectations_files.rules import check_case
from eval_expectations_files.setup import FIXTURE
from eval_expectations_files.witness import CHECKS


def _content(files: Any) -> Iterator[str]:
    """A File's declared content, and a synthesised deck's slide text, are given text; its id
    and name are not."""
    for file in files or ():
        yield from file.given_text()


@hookimpl
def eval_kinds() -> list[KindSpec]:
    return [*kind_specs(), unreadable.kind_spec()]


@hookimpl
def eval_witness_checks() -> list[WitnessCheck]:
    return [*CHECKS, *unreadable.CHECKS]


@hookimpl
def eval_case_fields() -> list[CaseField]:
    return [
        CaseField(
            name="attachments",
            type=list[CaseFile],
            description="Files this Turn sent: {fileId, mediaType, name, content?, "
            "pdf?|docx?|xlsx?|pptx?}; each referenced by a file part of the input.",
            examples=[
                [
                    {
                        "fileId": "pdf-scan",
                        "mediaType": "application/pdf",
                        "name": "scan-document.pdf",
                        "pdf": {"variant": "scan"},
                    }
                ]
            ],
            first_request_text=_content,
        ),
        CaseField(
            name="readable",
            type=list[CaseFile],
            description="Files the user has, reachable only through file_read.",
            examples=[
                [
                    {
                        "fileId": "scan-receipt",
                        "mediaType": "application/pdf",
                        "name": "receipt-scan.pdf",
                        "pdf": {"variant": "scan"},
                    }
                ]
            ],
            given_text=_content,
        ),
        CaseField(
            name="agent_roles",
            type=list[str],
            tiers=L3,
            description="Role ids assigned to the Agent's principal (real role-assignment rows).",
            examples=[["records"]],
        ),
        CaseField(
            name=unreadable.ROLES_FIELD,
            type=list[str],
            tiers=L3,
            description=(
                "Role ids the requester holds (real role-assignment rows), beside unreadable "
                "Files: a File shared only with another Role stays unreadable."
            ),
            examples=[["support-staff"]],
        ),
        CaseField(
            name=unreadable.FIELD,
            type=list[unreadable.UnreadableFile],
            tiers=L3,
            description=(
                "Text Files another user owns in the same File store, shared only with "
                "grantees the requester is not: {fileId, mediaType, name, content, owner, "
                "sharedWith?}. Never given to the model."
            ),
            examples=[
                [
                    {
                        "fileId": "payroll-q2",
                        "mediaType": "text/csv",
                        "name": "q2-payroll.csv",
                        "content": "name,salary\nDana,91000",
                        "owner": "user:dana",
                        "sharedWith": ["role:finance-leads"],
                    }
                ]
            ],
        ),
    ]


@hookimpl
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    mine = any(
        case.field(f) is not None for f in (unreadable.FIELD, unreadable.ROLES_FIELD)
    ) or any(isinstance(e, unreadable.FileWithheld) for e in case.expect)
    return [*check_case(case), *(unreadable.problems(case) if mine else ())]


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [FIXTURE, unreadable.FIXTURE]
