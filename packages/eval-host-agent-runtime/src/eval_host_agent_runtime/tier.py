"""The L3 tier of one Host load: a migrated template database to copy for each Trial and a git
copy of the Eval Soul to lend to the Trials that write it (each Trial configures its own
integrations' endpoints)."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

from agent_runtime.soul.repo import SoulRepo, artifacts_of, load_bundle
from agent_runtime.store.storage import StoreTemplate, open_template
from eval_host_agent_runtime.scratch import scratch_dir


class DurableTier:
    """The L3 tier of one Host load: a migrated template and a git copy of the Soul.

    ``repo`` is never written: a Trial that writes the Soul borrows a copy of it of its own
    (:meth:`lend`), reset when the Trial closes and lent again, so that Trials running at once
    write at once instead of queueing for one repository (at most ``--jobs`` copies are made).
    """

    __slots__ = (
        "base_artifacts",
        "base_bundle",
        "copying",
        "idle",
        "lending",
        "made",
        "repo",
        "template",
        "workdir",
    )

    def __init__(self, soul_dir: Path, store: str | None = None) -> None:
        self.template: StoreTemplate = open_template(store)
        self.workdir = scratch_dir("eval-l3-")
        try:
            self.repo = SoulRepo(soul_dir, self.workdir)
            self.base_bundle = self.repo.bundle(self.repo.base)
            self.base_artifacts = artifacts_of(load_bundle(self.base_bundle))
        except BaseException:
            self.close()
            raise
        self.copying = threading.Lock()  # the template is copied one Trial at a time
        self.lending = threading.Lock()
        self.idle: list[SoulRepo] = []
        self.made = 0

    def fresh(self) -> Any:
        with self.copying:
            return self.template.fresh()

    def lend(self) -> SoulRepo:
        """A copy of the Soul repository at its base for one Trial's writes, its own."""
        with self.lending:
            if self.idle:
                return self.idle.pop()
            self.made += 1
            made = self.made
        return self.repo.copy(self.workdir / f"writer-{made}")

    def give_back(self, repo: SoulRepo) -> None:
        """``repo`` back once the Trial is done: reset to its base first (when that fails,
        the copy is dropped, never lent again)."""
        if repo.changed():
            repo.reset()
        with self.lending:
            self.idle.append(repo)

    def close(self) -> None:
        self.template.close()
        shutil.rmtree(self.workdir, ignore_errors=True)
