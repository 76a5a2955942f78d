"""Mutation tests of the files family: break the runtime's File code, watch its Cases go red."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.files import attachments
from agent_runtime.files import tools as file_tools
from agent_runtime.files.store import FileStore, StoredFile
from eval_core._plugins.plugins import PluginSet
from tests.conftest import ids_where
from tests.test_mutations import red_cases, red_exactly

_NOT_ATTACHED = {"provider_prompt_omits_file", "prompt_omits_attachment"}
SOUL_ROLES = ["auditor", "billing", "engineering", "guide", "maintainer", "records", "support"]


def test_the_files_cases_are_green_and_enough(plugins: PluginSet, files_corpus: Path) -> None:
    corpus, red = red_cases(plugins, files_corpus)
    assert red == set()
    assert len(corpus.cases) >= 14


def test_sharing_generated_files_with_every_role_turns_the_audience_cases_red(
    plugins: PluginSet, files_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def everyone(store: FileStore, requester: str, principal: str) -> list[str]:
        return [f"user:{requester}", *(f"role:{r}" for r in SOUL_ROLES)]

    monkeypatch.setattr(file_tools, "audience", everyone)
    red_exactly(
        plugins,
        files_corpus,
        lambda c: any(e["kind"] == "generated_file_not_readable_by" for e in c["expect"]),
    )


def test_attaching_readable_files_turns_the_re_read_cases_red(
    plugins: PluginSet, files_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(attachments, "attachable", lambda stored: stored is not None)
    # the Cases that give the model readable Files and say they are not attached to the
    # provider's prompt (others read readable Files for their names, sizes or limits)
    red_exactly(
        plugins,
        files_corpus,
        lambda c: "readable" in c and any(e["kind"] in _NOT_ATTACHED for e in c["expect"]),
        at_least=2,
    )


def test_flipping_one_sent_byte_turns_the_file_exact_cases_red(
    plugins: PluginSet, files_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = attachments._binary

    def flipped(stored: StoredFile) -> dict[str, Any]:
        data = bytes([stored.data[0] ^ 0x01]) + stored.data[1:]
        return real(dataclasses.replace(stored, data=data))

    monkeypatch.setattr(attachments, "_binary", flipped)
    exact = ids_where(
        files_corpus,
        lambda c: any(e["kind"] == "provider_prompt_file_exact" for e in c["expect"]),
    )
    assert exact
    red = red_cases(plugins, files_corpus)[1]
    assert exact <= red
    # a File a file_read attached, whose sent bytes are no longer the File's: the files family's
    # witness check fails it (the runtime announced File X; no request carried X's bytes)
    assert red - exact == {"l3-file-pdf-read-scan-is-attached-to-the-next-request"}
