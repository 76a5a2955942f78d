"""The ``unreadable`` fixture's Files go into the Trial's store as another user's; one the
requester owns or holds a share of is the Case's mistake: the service raises naming it, before
the runtime runs, and the Trial errors.

The files family cannot refuse it at load (the requester's id is the Host's), so the Host's
service is the one check: without it ``file_withheld`` would score the requester's own File
as withheld from it (the runtime is right to show it), a FAIL that blames the runtime.
"""

from __future__ import annotations

import pytest

from agent_runtime.files.store import MemoryFileStore
from eval_core.records import ForeignFile
from eval_host_agent_runtime.durable_services import ForeignFilesService
from eval_host_agent_runtime.services import REQUESTER, FileStoreService


def _file(owner: str, shared_with: list[str]) -> ForeignFile:
    return ForeignFile(
        file_id="payroll-q2",
        name="payroll-q2.txt",
        media_type="text/plain",
        data=b"Q2 payroll: 41,200 EUR",
        owner=owner,
        shared_with=shared_with,
    )


def test_another_users_file_is_stored_as_theirs_with_its_shares() -> None:
    files = FileStoreService(MemoryFileStore(), "support")
    ForeignFilesService(files).put_foreign(_file("user:finance-lead", ["role:finance"]))
    stored = files.store.get("payroll-q2")
    assert stored is not None and stored.owner == "user:finance-lead"
    assert files.store.shares("payroll-q2") == ["role:finance"] and files.used


@pytest.mark.parametrize(
    ("owner", "shared_with"),
    [(f"user:{REQUESTER}", []), ("user:finance-lead", ["role:finance", f"user:{REQUESTER}"])],
)
def test_a_file_the_requester_owns_or_shares_is_refused_and_nothing_is_stored(
    owner: str, shared_with: list[str]
) -> None:
    files = FileStoreService(MemoryFileStore(), "support")
    with pytest.raises(ValueError, match="neither owned by nor shared with user:eval"):
        ForeignFilesService(files).put_foreign(_file(owner, shared_with))
    assert files.store.get("payroll-q2") is None and not files.used


def test_a_file_shared_with_a_role_the_requester_holds_is_refused_and_nothing_is_stored() -> None:
    files = FileStoreService(MemoryFileStore(), "support")
    foreign = ForeignFilesService(files)
    foreign.assign_requester_role("finance")
    assert files.store.roles_of(f"user:{REQUESTER}") == ["finance"]
    with pytest.raises(ValueError, match="shared with user:eval or a Role it holds"):
        foreign.put_foreign(_file("user:finance-lead", ["role:finance"]))
    assert files.store.get("payroll-q2") is None
    foreign.put_foreign(_file("user:finance-lead", ["role:finance-leads"]))  # another Role
    assert files.store.get("payroll-q2") is not None


def test_a_file_of_an_origin_the_store_does_not_keep_is_refused_and_nothing_is_stored() -> None:
    """The Host's File store keeps a user's ``attachment`` and ``library`` Files only: a family
    asking for any other origin is told so, rather than having its File kept as something else."""
    files = FileStoreService(MemoryFileStore(), "support")
    with pytest.raises(ValueError, match="origin must be attachment or library, not 'shared'"):
        files.put("memo", "memo.txt", "text/plain", b"Shelf 4", origin="shared")
    assert files.store.get("memo") is None and not files.used
