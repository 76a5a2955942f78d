"""Strict Corpus loading: every problem in the Corpus, each with file, JSON path and reason.

The loader never skips a Case. Its passes, one module each: decode each file into the Case
type of the installed plug-in set (:mod:`~eval_core._loading.decode`, msgspec does the typing);
the Case's own rules (:mod:`~eval_core._loading.rules`); resolve its tier, agent, platform Tools
and context against the Host (:mod:`~eval_core._loading.resolve`); the plug-in checks, tier
gates and the grounding rule (:mod:`~eval_core._loading.checks`); then hash the whole
(:mod:`~eval_core._util.hashing`). Problems from every file are collected and raised together
as one :class:`CorpusError`.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Mapping, Sequence
from operator import attrgetter
from pathlib import Path
from typing import Any

from eval_core._case.case import CaseBase
from eval_core._loading import cached, rules
from eval_core._loading.checks import PluginChecks
from eval_core._loading.corpus import Corpus, CorpusError, case_names, find_soul
from eval_core._loading.decode import Decoder, read
from eval_core._loading.problem import Problem
from eval_core._loading.resolve import Resolver, load_notes
from eval_core._plugins.host import Host
from eval_core._plugins.plugin_set import PluginSet
from eval_core._util import cache_use, cachedir, checked
from eval_core._util.hashing import corpus_hash, encoded, judge_identity, soul_hash
from eval_core._util.input_files import NotReadable
from eval_core._util.layout import RED_TEAM
from eval_core._util.limits import MAX_PLANNED_TRIALS, MAX_TRIALS_PER_CASE


class Loader:
    """Loads one Corpus directory against one plug-in set and Host."""

    def __init__(
        self,
        plugins: PluginSet,
        host: Host,
        judge: str | None = None,
        locked: Mapping[str, str] | None = None,
        *,
        needs_soul: bool = True,
    ) -> None:
        """``locked`` maps a kind or Case field (as JSON spells it) to the distribution and
        version eval.lock pins it to, so an unknown one names what to install. ``needs_soul``
        false: the Host owns its agents (:func:`~eval_core._plugins.host.owns_agents`), so a
        Corpus without an Eval Soul loads (one that has a Soul still hashes it)."""
        self.needs_soul = needs_soul
        self.plugins = plugins
        self.host = host
        self.judge = judge_identity() if judge is None else judge
        self.case_type = plugins.case_type
        self._decoder = Decoder(plugins, locked)
        self._resolver = Resolver.of(host, plugins.kinds, plugins.fields, lambda: plugins.fixtures)
        self._platform = self._resolver.platform
        self._checks = PluginChecks(plugins, host, self._platform)
        self._suite = "capability"

    def load(self, directory: Path) -> Corpus:
        """Load, validate and hash; the cyclic GC is paused meanwhile (the Cases hold no cycles,
        and rescanning thousands of fresh objects per collection costs more than decoding)."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            return self._load(Path(directory))
        finally:
            if enabled:
                gc.enable()

    def _load(self, directory: Path) -> Corpus:
        if not directory.is_dir():
            reason = (
                "a file, not a Corpus directory"
                if directory.exists()
                else "no such Corpus directory"
            )
            raise CorpusError([Problem(str(directory), "$", reason)])
        names = case_names(directory)  # a Path is made only for a file that is checked
        if not names:
            raise CorpusError([Problem(str(directory), "$", "no Eval Cases found")], directory)
        soul_dir = find_soul(directory)
        cachedir.keep_out_of(directory, soul_dir)  # a cache there would change what is read
        problems: list[Problem] = []
        if soul_dir is None and self.needs_soul:
            problems.append(
                Problem(str(directory), "$", "no Eval Soul: expected soul/ here or beside it")
            )
        self._suite = RED_TEAM if directory.name == RED_TEAM else "capability"
        prefix = "" if directory == Path() else os.path.join(directory, "")  # as str(dir / name)
        files = [(name, read(prefix + name)) for name in names]
        soul = soul_hash(soul_dir) if soul_dir is not None else ""
        env = self._environment(soul) if soul_dir is not None or not self.needs_soul else None
        file_keys = cached.file_keys(files) if env is not None else None
        key = checked.key(env, file_keys) if env is not None and file_keys is not None else None
        kept: dict[str, list[str]] = {}
        entry: checked.Entry | None = None
        if key is not None:
            assert env is not None
            entry = checked.read(directory, self._suite)
            kept = checked.reusable(entry, env)
        rechecked = entry is None or entry.key != key  # whether the entry must be written
        cases: list[CaseBase] = []
        origin: list[str] = []  # the key of the file each Case came from (for the cache)
        sources: list[str] = []  # the name of the file each Case came from
        made: dict[str, tuple[bytes, str]] = {}  # each Case's encoding and its digest, by id
        seen: dict[str, str] = {}
        reused = 0  # files whose Cases the checked-Corpus cache vouched for
        for index, (name, data) in enumerate(files):
            file = prefix + name
            fkey = file_keys[index] if file_keys is not None else ""
            vouched = kept.get(fkey)  # checked when this very file last loaded clean
            found = None
            if vouched is not None:  # never taken on its word: the file decodes to those Cases
                found = self._vouched(directory / name, file, data, vouched)
            if found is None:
                rechecked = True
                given = self._cases_of(directory / name, file, data, problems)
                pairs = [encoded(one) for one in given]
            else:
                given, pairs = found
                reused += 1
            for one, pair in zip(given, pairs, strict=True):
                if one.id in seen:
                    problems.append(
                        Problem(file, "$.id", f"duplicate id {one.id!r} (also in {seen[one.id]})")
                    )
                    continue
                seen[one.id] = file
                cases.append(one)
                origin.append(fkey)
                sources.append(name)
                made[one.id] = pair
        if key is not None or not cachedir.enabled():
            cache_use.note("checked-corpus", cache_use.share(reused, len(files), key is not None))
        planned = sum(min(max(1, c.trials), MAX_TRIALS_PER_CASE) for c in cases)
        if planned > MAX_PLANNED_TRIALS:
            problems.append(
                Problem(
                    str(directory),
                    "$",
                    f"the Cases ask for {planned} Trials in all; a Sweep plans at most "
                    f"{MAX_PLANNED_TRIALS}",
                )
            )
        if problems:
            raise CorpusError(problems, directory, self._notes())
        order = sorted(range(len(cases)), key=lambda i: cases[i].id)
        digests = [made[case.id][1] for case in cases]  # in load order, for the cache
        cases = [cases[i] for i in order]
        digest, fingerprint, per_case = self._hash(cases, soul, made)
        corpus = Corpus(
            directory=directory,
            suite=self._suite,
            cases=tuple(cases),
            hash=digest,
            soul_dir=soul_dir,
            soul_hash=soul,
            plugins=tuple(fingerprint),
            judge=self.judge,
            case_hashes=per_case,
            files=(named := {case.id: sources[i] for case, i in zip(cases, order, strict=True)}),
            notes=load_notes(self._resolver, self.plugins.fields, prefix, cases, named),
        )
        if key is not None and rechecked:
            assert env is not None
            checked.write(directory, self._suite, key, env, cached.by_file(origin, digests))
        return corpus

    def _environment(self, soul: str) -> str | None:
        return cached.environment(
            self.plugins, self.host, self._resolver, suite=self._suite, soul=soul, judge=self.judge
        )

    def _vouched(
        self, path: Path, file: str, data: bytes | NotReadable, digests: Sequence[str]
    ) -> tuple[list[CaseBase], list[tuple[bytes, str]]] | None:
        """What a file's bytes decode to (typed, without the checks), its derived variants
        included, with each one's encoding and digest, when those are exactly the digests the
        checked-Corpus cache kept for it; else ``None`` (the file is checked)."""
        case, problems = self._decoder.file(path, data)
        if case is None or problems:
            return None
        given = [case]
        for _, doc in self.plugins.variants(case):
            if isinstance(doc, Exception):
                return None
            variant, found = self._decoder.detailed(file, doc)
            if variant is None or found:
                return None
            given.append(variant)
        pairs = [encoded(one) for one in given]
        if [full for _, full in pairs] != list(digests):
            return None
        return given, pairs

    def _hash(
        self, cases: Sequence[CaseBase], soul: str, made: Mapping[str, tuple[bytes, str]]
    ) -> tuple[str, list[dict[str, Any]], dict[str, str]]:
        """The corpusHash of the sorted Cases, the plug-in rows it pins, each Case's digest."""
        used_kinds = {e.kind_name for c in cases for e in c.expect}
        names = set(self.case_type.__struct_fields__)  # a plug-in imported after the Case
        used_fields = {  # type was built adds no field to it; per field, one pass in C
            name
            for name in self.plugins.fields
            if name in names and list(map(attrgetter(name), cases)).count(None) < len(cases)
        }
        fingerprint = self.plugins.fingerprint(used_kinds, used_fields)
        decls = self._resolver.declarations(cases)
        per_case: dict[str, str] = {}
        digest = corpus_hash(cases, decls, soul, fingerprint, self.judge, per_case, made)
        return digest, fingerprint, per_case

    def load_file(
        self, path: Path, data: bytes | NotReadable | None = None
    ) -> tuple[CaseBase | None, list[Problem]]:
        """Decode and validate one Case file (``data``: its bytes when already read). Never
        raises for a user's mistake."""
        case, problems = self._decoder.file(path, data)
        if case is None:
            return None, problems
        return case, list(self._check(str(path), path.stem, case))

    def _cases_of(
        self, path: Path, file: str, data: bytes | NotReadable, problems: list[Problem]
    ) -> list[CaseBase]:
        """One file's Case and the variants plug-ins derive from it (none while it has a
        problem); its problems are added to ``problems``."""
        case, found = self.load_file(path, data)
        problems.extend(found)
        if case is None:
            return []
        derived, found = self._variants(file, case) if not found else ([], [])
        problems.extend(found)
        return [case, *derived]

    def _notes(self) -> list[str]:
        if not self._decoder.unknown:
            return []
        return [
            "an unknown kind or Case field is one no installed plug-in provides: "
            "`eval plugins` lists what is installed, eval.lock what this Corpus was pinned to"
        ]

    def _variants(self, file: str, case: CaseBase) -> tuple[list[CaseBase], list[Problem]]:
        """The Cases plug-ins derive from ``case``, decoded and checked like Case files; each
        problem names the source file and the variant."""
        derived: list[CaseBase] = []
        problems: list[Problem] = []
        for label, doc in self.plugins.variants(case):
            if isinstance(doc, Exception):
                problems.append(Problem(file, "$", str(doc)))
                continue
            name = doc.get("id") if isinstance(doc, dict) else None
            where = f"variant {name!r} (by plug-in {label}): "
            variant, found = self._decoder.detailed(file, doc)
            if variant is not None:
                found = list(self._check(file, None, variant, variant_of=case.id))
            problems.extend(Problem(p.file, p.path, where + p.reason) for p in found)
            if variant is not None and not found:
                derived.append(variant)
        return derived, problems

    def _check(
        self, file: str, stem: str | None, case: CaseBase, variant_of: str | None = None
    ) -> Iterator[Problem]:
        """Every problem of one decoded Case, pass by pass, in the order they are reported."""
        yield from rules.values(file, stem, case, variant_of)
        yield from self._resolver.tier(file, case)
        yield from self._resolver.agent(file, case)
        present = frozenset(n for n in self.plugins.fields if getattr(case, n, None) is not None)
        yield from self._resolver.context_keys(file, case)
        yield from self._resolver.tools(file, case)
        yield from self._resolver.waits(file, case)
        yield from rules.script(file, case, self.plugins.fields)
        yield from self._resolver.tool_names(file, case)
        yield from self._checks.case(file, case, present, self._suite)
