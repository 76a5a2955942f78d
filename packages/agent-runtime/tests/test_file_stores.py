"""Both File stores keep the same promise when a user uploads over a File: the File then holds
the new bytes under their own digest, and a second File holding the old bytes still holds them.

The in-memory store is the L2 one; no Case replaces a File at L2 (a replaced File is a PDF
fixture, which the files family keeps to single-Turn L3 Cases), so this is its only check.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_runtime.files.store import FileStore, MemoryFileStore, SqlFileStore, digest
from agent_runtime.store.storage import Template

_TEMPLATE = Template()

STORES: dict[str, Callable[[], FileStore]] = {
    "memory": MemoryFileStore,
    "sql": lambda: SqlFileStore(_TEMPLATE.fresh()),
}


@pytest.mark.parametrize("make", STORES.values(), ids=STORES.keys())
@settings(max_examples=25, deadline=None)
@given(old=st.binary(max_size=64), new=st.binary(max_size=64))
def test_a_replaced_file_holds_the_new_bytes_and_the_old_bytes_stay(
    make: Callable[[], FileStore], old: bytes, new: bytes
) -> None:
    store = make()
    store.put("memo", "memo.txt", "text/plain", old, origin="library", owner="user:eval")
    store.put("copy", "copy.txt", "text/plain", old, origin="library", owner="user:eval")
    replaced = store.replace_bytes("memo", new)
    for file in (replaced, store.get("memo")):
        assert file is not None
        assert (file.data, file.sha256) == (new, digest(new))
        assert (file.name, file.media_type, file.origin, file.owner) == (
            "memo.txt",
            "text/plain",
            "library",
            "user:eval",
        )
    kept = store.get("copy")
    assert kept is not None and (kept.data, kept.sha256) == (old, digest(old))
