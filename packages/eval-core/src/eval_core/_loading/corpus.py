"""Strict Corpus loading: every problem in the Corpus, each with file, JSON path and reason.

The loader never skips a Case. It decodes each file into the Case type of the installed
plug-in set (msgspec does the typing), then applies the value rules, tier gates, context rules,
platform Tool resolution, the grounding rule and every plug-in's cross-field checks. Problems
from every file are collected and raised together as one :class:`CorpusError`.
"""

from __future__ import annotations

import difflib
import gc
import os
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any

import msgspec

from eval_core._case.case import CaseBase, ToolCallsStep, json_name
from eval_core._case.kinds import Expectation
from eval_core._loading.grounding import given_text
from eval_core._plugins.host import Host, LoadContext
from eval_core._plugins.plugins import PluginSet
from eval_core._plugins.services import satisfies
from eval_core._util import checked
from eval_core._util.guard import PluginFault, collect
from eval_core._util.hashing import corpus_hash, judge_identity, soul_hash
from eval_core._util.input_files import NotReadable, read_regular
from eval_core._util.limits import (
    MAX_PLANNED_TRIALS,
    MAX_TRIALS_PER_CASE,
    TooDeep,
    check_json_depth,
    check_yaml,
)

CASE_SUFFIXES = (".json", ".yaml", ".yml")
RED_TEAM = "red-team"


@dataclass(frozen=True, slots=True)
class Problem:
    """One refusal: the file, the JSON path in it, the reason; ``line`` and ``column`` (from
    1) where the file's text itself is at fault (JSON that does not parse), shown as editors
    and compilers do, ``file:line:column``."""

    file: str
    path: str
    reason: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        where = f":{self.line}:{self.column}" if self.line is not None else ""
        return f"{self.file}{where}: {self.path}: {self.reason}"


class CorpusError(Exception):
    """The Corpus is refused. ``problems`` lists every one found, in file order; ``notes``
    are said once after them (the next step, rather than on every line)."""

    def __init__(
        self,
        problems: Sequence[Problem],
        directory: Path | None = None,
        notes: Sequence[str] = (),
    ) -> None:
        self.problems = list(problems)
        self.notes = list(notes)
        where = f" in {directory}" if directory else ""
        lines = [f"Corpus refused{where}: {len(self.problems)} problem(s)"]
        lines.extend(f"  {p}" for p in self.problems)
        lines.extend(self.notes)
        super().__init__("\n".join(lines))


@dataclass(frozen=True, slots=True)
class Corpus:
    """A loaded, validated, hashed Corpus: the unit of comparability."""

    directory: Path
    suite: str
    cases: tuple[CaseBase, ...]
    hash: str
    soul_dir: Path
    soul_hash: str
    plugins: tuple[dict[str, Any], ...]
    judge: str
    case_hashes: Mapping[str, str] = field(default_factory=dict)
    """Each Case's digest by id (:func:`~eval_core._util.hashing.case_digests`), as the Scorecard
    records it so a refused comparison can name the Cases that differ."""
    files: Mapping[str, str] = field(default_factory=dict)
    """Each Case's file by id, as named in ``directory`` (a variant's is its source Case's)."""

    def file(self, case_id: str) -> Path | None:
        """The file a Case was read from (``None`` for a Case this Corpus did not load)."""
        name = self.files.get(case_id)
        return self.directory / name if name is not None else None

    def case(self, case_id: str) -> CaseBase:
        for case in self.cases:
            if case.id == case_id:
                return case
        raise KeyError(case_id)

    def tiers(self) -> dict[str, int]:
        return dict(sorted(Counter(c.tier for c in self.cases).items()))


def find_soul(directory: Path) -> Path | None:
    """The Eval Soul: ``soul/`` in the Corpus directory or in its parent (for ``red-team/``)."""
    for candidate in (directory / "soul", directory.parent / "soul"):
        if candidate.is_dir():
            return candidate
    return None


def corpus_root(directory: Path) -> Path:
    """Where ``eval.lock`` lives: beside the Soul (the capability Corpus directory)."""
    soul = find_soul(directory)
    return soul.parent if soul is not None else directory


def case_files(directory: Path) -> list[Path]:
    """Every entry of a directory named like a Case file, sorted by name.

    Subdirectories are not searched, but nothing named ``*.json``/``*.yaml``/``*.yml`` is
    skipped: a directory, a dangling symbolic link or a FIFO under such a name is a problem the
    loader reports, never a Case silently left out.
    """
    return [directory / name for name in _case_names(directory)]


def _case_names(directory: Path) -> list[str]:
    with os.scandir(directory) as entries:
        return sorted(e.name for e in entries if e.name.endswith(CASE_SUFFIXES))


_UNKNOWN_FIELD = re.compile(r"^Object contains unknown field `(?P<name>[^`]*)`$")
_AT = re.compile(r"^(?P<reason>.*?)(?: - at `(?P<path>[^`]*)`)?$", re.DOTALL)


def _validation_problem(file: str, exc: msgspec.MsgspecError, prefix: str = "$") -> Problem:
    """Split msgspec's message into (path, reason); re-root it under ``prefix``."""
    match = _AT.match(str(exc))
    assert match is not None
    reason, path = match["reason"], match["path"] or "$"
    return Problem(file, prefix + path[1:], reason)


class Loader:
    """Loads one Corpus directory against one plug-in set and Host."""

    def __init__(
        self,
        plugins: PluginSet,
        host: Host,
        judge: str | None = None,
        locked: Mapping[str, str] | None = None,
    ) -> None:
        """``locked`` maps a kind or Case field (as JSON spells it) to the distribution and
        version eval.lock pins it to, so an unknown one names what to install."""
        self.plugins = plugins
        self.host = host
        self.judge = judge_identity() if judge is None else judge
        self._locked = dict(locked or {})
        self._unknown = False
        self.case_type = plugins.case_type
        self._decoder = msgspec.json.Decoder(self.case_type)
        self._kind_union: Any = self.case_type.__annotations__.get("expect")
        self._platform = host.platform_tools()
        self._agents = host.agents()
        self._context = host.context_rules()
        self._known_kinds = sorted(plugins.kinds)
        self._suite = "capability"
        self._needing = [r for r in plugins.fixtures if r.fixture.needs]
        self._predicates = [r for r in plugins.fixtures if r.fixture.applies is not None]
        self._offered: dict[tuple[type, str], bool] = {}

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
        names = _case_names(directory)  # a Path is made only for a file that is checked
        if not names:
            raise CorpusError([Problem(str(directory), "$", "no Eval Cases found")], directory)
        soul_dir = find_soul(directory)
        problems: list[Problem] = []
        if soul_dir is None:
            problems.append(
                Problem(str(directory), "$", "no Eval Soul: expected soul/ here or beside it")
            )
        self._suite = RED_TEAM if directory.name == RED_TEAM else "capability"
        prefix = "" if directory == Path() else os.path.join(directory, "")  # as str(dir / name)
        read = [(name, _read(prefix + name)) for name in names]
        soul = soul_hash(soul_dir) if soul_dir is not None else ""
        env = self._environment(soul) if soul_dir is not None else None
        file_keys = _file_keys(read) if env is not None else None
        key = checked.key(env, file_keys) if env is not None and file_keys is not None else None
        kept: dict[str, list[CaseBase]] = {}
        if key is not None:
            assert soul_dir is not None and env is not None and file_keys is not None
            entry = checked.read(directory, self._suite)
            if entry is not None and entry.key == key:
                hit = self._checked(directory, entry, soul_dir, soul, read, file_keys)
                if hit is not None:
                    return hit
            kept = checked.reusable(entry, env, self.case_type)
        cases: list[CaseBase] = []
        origin: list[str] = []  # the key of the file each Case came from (for the cache)
        sources: list[str] = []  # the name of the file each Case came from
        seen: dict[str, str] = {}
        for index, (name, data) in enumerate(read):
            file = prefix + name
            fkey = file_keys[index] if file_keys is not None else ""
            given = kept.get(fkey)  # checked when this very file last loaded clean
            if given is None:
                case, found = self.load_file(directory / name, data)
                problems.extend(found)
                if case is None:
                    continue
                derived, found = self._variants(file, case) if not found else ([], [])
                problems.extend(found)
                given = [case, *derived]
            for one in given:
                if one.id in seen:
                    problems.append(
                        Problem(file, "$.id", f"duplicate id {one.id!r} (also in {seen[one.id]})")
                    )
                    continue
                seen[one.id] = file
                cases.append(one)
                origin.append(fkey)
                sources.append(name)
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
        assert soul_dir is not None
        order = sorted(range(len(cases)), key=lambda i: cases[i].id)
        cases = [cases[i] for i in order]
        used_kinds = {e.kind_name for c in cases for e in c.expect}
        used_fields = {  # per field, one pass in C over every Case (a field absent is None)
            name
            for name in self.plugins.fields
            if list(map(attrgetter(name), cases)).count(None) < len(cases)
        }
        fingerprint = self.plugins.fingerprint(used_kinds, used_fields)
        decls = [self._platform[n] for n in sorted({n for c in cases for n in c.platform_tools})]
        per_case: dict[str, str] = {}
        digest = corpus_hash(cases, decls, soul, fingerprint, self.judge, per_case)
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
            files={case.id: sources[i] for case, i in zip(cases, order, strict=True)},
        )
        if key is not None:
            assert env is not None
            positions: dict[str, list[int]] = {}
            for at, i in enumerate(order):
                positions.setdefault(origin[i], []).append(at)
            checked.write(directory, self._suite, key, env, corpus, positions)
        return corpus

    def _environment(self, soul: str) -> str | None:
        """The checked-Corpus cache's environment of this load (all it reads but the Case
        files), or ``None`` when it is not cacheable."""
        host = checked.host_fingerprint(self.host) if checked.enabled() else None
        if host is None:
            return None
        rows = [(p.distribution, p.version, p.entry_point, p.code) for p in self.plugins.plugins]
        kind = type(self.host)
        rules = self._context
        answers = msgspec.json.encode(  # what the Host says at load, beside what it is
            [
                f"{kind.__module__}.{kind.__qualname__}",
                self.host.name,
                host,
                sorted(self._agents),
                [(name, self._platform[name]) for name in sorted(self._platform)],
                [sorted(rules.allowed), sorted(rules.soul_owned), sorted(rules.retired.items())],
            ]
        )
        return checked.environment(
            suite=self._suite, soul=soul, plugins=rows, host=answers.decode(), judge=self.judge
        )

    def _checked(
        self,
        directory: Path,
        entry: checked.Entry,
        soul_dir: Path,
        soul: str,
        read: Sequence[tuple[str, bytes | NotReadable]],
        file_keys: Sequence[str],
    ) -> Corpus | None:
        """The Corpus the cache kept whole, or ``None``. Its key holds every file's key, so
        each kept Case's file is the one of these files whose key the entry names for it."""
        cases = checked.cases(entry, self.case_type)
        if cases is None:
            return None
        name_of = {key: name for key, (name, _) in zip(file_keys, read, strict=True)}
        files: dict[str, str] = {}
        for key, positions in entry.files.items():
            for at in positions:
                if key not in name_of or at >= len(cases):
                    return None
                files[cases[at].id] = name_of[key]
        if len(files) != len(cases) or set(entry.case_hashes) != set(files):
            return None
        return Corpus(
            directory=directory,
            suite=self._suite,
            cases=cases,
            hash=entry.hash,
            soul_dir=soul_dir,
            soul_hash=soul,
            plugins=tuple(entry.plugins),
            judge=self.judge,
            case_hashes=dict(entry.case_hashes),
            files=files,
        )

    def load_file(
        self, path: Path, data: bytes | NotReadable | None = None
    ) -> tuple[CaseBase | None, list[Problem]]:
        """Decode and validate one Case file (``data``: its bytes when already read). Never
        raises for a user's mistake."""
        file = str(path)
        if data is None:
            data = _read(path)
        if isinstance(data, NotReadable):
            return None, [Problem(file, "$", str(data))]
        limited = _limit_problem(path, data)
        if limited is not None:
            return None, [limited]
        case: CaseBase | None = None
        if path.suffix == ".json":
            try:
                case = self._decoder.decode(data)
            except msgspec.ValidationError:
                pass
            except msgspec.DecodeError as exc:
                return None, [json_problem(file, data, exc)]
        if case is None:
            raw, problem = _raw(path, data)
            if problem is not None:
                return None, [problem]
            case, decode_problems = self._decode_detailed(file, raw)
            if case is None:
                return None, decode_problems
        return case, list(self._check(file, path.stem, case))

    def _notes(self) -> list[str]:
        if not self._unknown:
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
            variant, found = self._decode_detailed(file, doc)
            if variant is not None:
                found = list(self._check(file, None, variant, variant_of=case.id))
            problems.extend(Problem(p.file, p.path, where + p.reason) for p in found)
            if variant is not None and not found:
                derived.append(variant)
        return derived, problems

    def _decode_detailed(self, file: str, raw: Any) -> tuple[CaseBase | None, list[Problem]]:
        """Convert a raw value, reporting each Expectation's problem apart from the Case's."""
        if not isinstance(raw, dict):
            return None, [Problem(file, "$", f"a Case must be an object, not {_type(raw)}")]
        try:
            return msgspec.convert(raw, self.case_type, str_keys=True), []
        except msgspec.ValidationError:
            pass
        problems: list[Problem] = []
        expect = raw.get("expect")
        if isinstance(expect, list):
            for index, item in enumerate(expect):
                try:
                    msgspec.convert(item, self._kind_item_type(), str_keys=True)
                except msgspec.ValidationError as exc:
                    problems.append(self._kind_problem(file, exc, f"$.expect[{index}]", item))
            rest = {**raw, "expect": []}
        else:
            rest = raw
        try:
            msgspec.convert(rest, self.case_type, str_keys=True)
        except msgspec.ValidationError as exc:
            problems.append(self._field_problem(_validation_problem(file, exc)))
        if not problems:  # defensive: the parts passed but the whole did not
            problems.append(Problem(file, "$", "the Case does not decode"))
        return None, problems

    def _kind_item_type(self) -> Any:
        union = self._kind_union
        return getattr(union, "__args__", (Expectation,))[0]

    def _kind_problem(
        self, file: str, exc: msgspec.ValidationError, prefix: str, item: Any
    ) -> Problem:
        problem = _validation_problem(file, exc, prefix)
        if problem.path == f"{prefix}.kind" and isinstance(item, dict):
            kind = item.get("kind")
            self._unknown = True
            return Problem(file, problem.path, self._unknown_reason("kind", kind))
        if "missing required field `kind`" in problem.reason:
            return Problem(file, f"{prefix}.kind", "missing kind: every Expectation names its kind")
        return problem

    def _field_problem(self, problem: Problem) -> Problem:
        """msgspec's "unknown field" at the top of a Case, said as an unknown Case field."""
        match = _UNKNOWN_FIELD.match(problem.reason)
        if match is None or problem.path != "$":
            return problem
        self._unknown = True
        return Problem(
            problem.file, f"$.{match['name']}", self._unknown_reason("Case field", match["name"])
        )

    def _unknown_reason(self, what: str, name: Any) -> str:
        """Why a kind or field is unknown, and the next step: install what eval.lock pins it
        to, or a close match among the installed ones."""
        owner = self._locked.get(str(name))
        if owner is not None:
            return (
                f"unknown {what} {name!r}: eval.lock pins it to {owner}, which is not installed "
                f"(install {owner.replace(' ', '==')})"
            )
        known = self._known_kinds if what == "kind" else [json_name(f) for f in self.plugins.fields]
        close = difflib.get_close_matches(str(name), known, n=1, cutoff=0.8)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"unknown {what} {name!r}: no installed plug-in provides it{hint}"

    def _check(
        self, file: str, stem: str | None, case: CaseBase, variant_of: str | None = None
    ) -> Iterator[Problem]:
        if variant_of is not None:
            if not case.id.startswith(f"{variant_of}--"):
                yield Problem(file, "$.id", f"a variant's id must start with {variant_of}--")
        elif case.id != stem:
            yield Problem(file, "$.id", f"id {case.id!r} must equal the file stem {stem!r}")
        if not case.id:
            yield Problem(file, "$.id", "must be a non-empty string")
        if not case.expect:
            yield Problem(file, "$.expect", "a Case that expects nothing always passes")
        if not case.input:
            yield Problem(file, "$.input", "must hold at least one message")
        if case.trials < 1:
            yield Problem(file, "$.trials", "must be an integer >= 1")
        elif case.trials > MAX_TRIALS_PER_CASE:
            yield Problem(
                file, "$.trials", f"{case.trials} is over the limit of {MAX_TRIALS_PER_CASE}"
            )
        if case.agent not in self._agents:
            yield Problem(
                file,
                "$.agent",
                f"unknown agent {case.agent!r}; the Eval Soul has: "
                + ", ".join(sorted(self._agents)),
            )
        present = frozenset(n for n in self.plugins.fields if getattr(case, n, None) is not None)
        uses = present.union(e.kind_name for e in case.expect)
        yield from self._check_context(file, case)
        yield from self._check_tools(file, case)
        yield from self._check_script(file, case)
        yield from self._check_fields(file, case, present)
        yield from self._check_expectations(file, case)
        context = LoadContext(
            host=self.host,
            kinds=self.plugins.kinds,
            file=file,
            suite=self._suite,
            fields=self.plugins.fields,
        )
        for path, reason in self.plugins.check_case(case, context, uses):
            yield Problem(file, path, reason)
        try:
            self.plugins.probabilistic(case)  # asked at run: a hook that raises is refused now
        except PluginFault as exc:
            yield Problem(file, "$", str(exc))
        yield from self._check_services(file, case, present)

    def _check_services(
        self, file: str, case: CaseBase, present: frozenset[str]
    ) -> Iterator[Problem]:
        """Every fixture that applies to the Case finds the Host services it needs; every
        ``applies=`` predicate is asked now, so one that raises is refused at load."""
        applies: dict[int, bool] = {}
        for registered in self._predicates:
            try:
                applies[id(registered)] = registered.applies_to(case)
            except PluginFault as exc:
                applies[id(registered)] = False
                yield Problem(file, "$", str(exc))
        for registered in self._needing:
            fixture = registered.fixture
            if fixture.field is not None:
                if fixture.field not in present:
                    continue
            elif not applies[id(registered)]:
                continue
            field = fixture.field
            if field is not None and case.tier not in self.plugins.fields[field].tiers:
                continue  # the field itself is refused at this tier
            for need in fixture.needs:
                key = (need, case.tier)
                offered = self._offered.get(key)
                if offered is None:
                    classes = self.host.services(case.tier)
                    offered = self._offered[key] = any(satisfies(c, need) for c in classes)
                if not offered:
                    yield Problem(
                        file,
                        f"$.{json_name(field)}" if field is not None else "$",
                        f"{registered.label} needs the Host service {need.__name__}, which "
                        f"Host {self.host.name!r} does not offer at {case.tier}",
                    )

    def _check_context(self, file: str, case: CaseBase) -> Iterator[Problem]:
        rules = self._context
        for key in sorted(case.context or {}):
            path = f"$.context.{key}"
            if key in rules.soul_owned:
                yield Problem(
                    file, path, f"{key!r} is owned by the Eval Soul; a Case may not restate it"
                )
            elif key in rules.retired:
                yield Problem(file, path, f"{key!r} is retired: {rules.retired[key]}")
            elif key not in rules.allowed:
                allowed = ", ".join(sorted(rules.allowed)) or "none"
                yield Problem(file, path, f"unknown context key {key!r}; allowed: {allowed}")

    def _check_tools(self, file: str, case: CaseBase) -> Iterator[Problem]:
        declared: set[str] = set()
        for index, tool in enumerate(case.tools):
            if not tool.name:
                yield Problem(file, f"$.tools[{index}].name", "must be a non-empty string")
            elif tool.name in declared:
                yield Problem(file, f"$.tools[{index}].name", f"Tool {tool.name!r} declared twice")
            elif tool.name in self._platform:
                yield Problem(
                    file,
                    f"$.tools[{index}].name",
                    f"{tool.name!r} is a shipped platform Tool: name it in platformTools "
                    "instead of hand-declaring a copy",
                )
            declared.add(tool.name)
        for index, name in enumerate(case.platform_tools):
            path = f"$.platformTools[{index}]"
            if name not in self._platform:
                yield Problem(file, path, f"{name!r} does not resolve to a shipped platform Tool")
            elif name in declared:
                yield Problem(file, path, f"{name!r} is listed twice")
            declared.add(name)
        for index, result in enumerate(case.tool_results):
            path = f"$.toolResults[{index}]"
            if result.name not in declared:
                yield Problem(
                    file,
                    f"{path}.name",
                    f"scripted result for {result.name!r}, which the Case does not declare",
                )
            outcomes = [x for x in result.outcomes() if x is not None]
            if len(outcomes) > 1:
                yield Problem(
                    file,
                    path,
                    "at most one of denied, error, invalidArguments, approvalId, retryWaitId",
                )
            if any(not x for x in outcomes):
                yield Problem(
                    file,
                    path,
                    "a denial, error or invalidArguments reason, an approvalId or a retryWaitId "
                    "must be non-empty",
                )

    def _check_script(self, file: str, case: CaseBase) -> Iterator[Problem]:
        modelless = [
            json_name(name)
            for name, spec in self.plugins.fields.items()
            if not spec.runs_model and case.field(name) is not None
        ]
        if modelless and case.script is not None:
            yield Problem(
                file,
                "$.script",
                f"a {modelless[0]!r} Case runs no model: drop 'script' (nothing would replay it)",
            )
        elif not modelless and case.script is None:
            without = sorted(
                json_name(n) for n, s in self.plugins.fields.items() if not s.runs_model
            )
            which = f" (only a Case with {', '.join(without)} runs none)" if without else ""
            yield Problem(
                file,
                "$.script",
                "missing: a Case that runs a model carries a script, so the Corpus runs free and "
                f"deterministically in CI{which}",
            )
        call_ids: set[str] = set()
        for index, step in enumerate(case.script or ()):
            if not isinstance(step, ToolCallsStep):
                continue
            if not step.calls:
                yield Problem(
                    file, f"$.script[{index}].calls", "a tool_calls step needs at least one call"
                )
            for c_index, call in enumerate(step.calls):
                path = f"$.script[{index}].calls[{c_index}]"
                if not call.call_id:
                    yield Problem(file, f"{path}.callId", "must be a non-empty string")
                elif call.call_id in call_ids:
                    yield Problem(file, f"{path}.callId", f"callId {call.call_id!r} is used twice")
                call_ids.add(call.call_id)
                if not call.name:
                    yield Problem(file, f"{path}.name", "must be a non-empty string")

    def _check_fields(
        self, file: str, case: CaseBase, present: frozenset[str]
    ) -> Iterator[Problem]:
        for name, spec in self.plugins.fields.items():
            if name in present and case.tier not in spec.tiers:
                tiers = "/".join(sorted(spec.tiers))
                yield Problem(
                    file,
                    f"$.{json_name(name)}",
                    f"{json_name(name)!r} is {tiers}-only; this Case is {case.tier}",
                )

    def _check_expectations(self, file: str, case: CaseBase) -> Iterator[Problem]:
        given = None
        for index, expectation in enumerate(case.expect):
            spec = self.plugins.kinds[expectation.kind_name]
            path = f"$.expect[{index}]"
            if case.tier not in spec.tiers:
                tiers = "/".join(sorted(spec.tiers))
                yield Problem(
                    file, f"{path}.kind", f"{spec.name!r} is {tiers}-only; this Case is {case.tier}"
                )
            if spec.check is not None:
                try:
                    found = collect(spec.origin, f"the check of kind {spec.name!r}", spec.check,
                                    expectation, case)  # fmt: skip
                except PluginFault as exc:
                    found = [("", str(exc))]
                for suffix, reason in found:
                    yield Problem(file, path + str(suffix), str(reason))
            grounding = spec.grounding
            if grounding is None:
                continue
            text = getattr(expectation, grounding.field, None)
            if not isinstance(text, str) or not text:
                continue
            ungrounded = getattr(expectation, "ungrounded", None)
            if grounding.waivable and ungrounded:
                continue
            if given is None:
                given = given_text(
                    case,
                    lambda: self.host.given_text(case),
                    self._platform,
                    self.plugins.fields.values(),
                )
                try:
                    given.plugin_text()  # now, so a raising text function is always refused
                except PluginFault as exc:
                    yield Problem(file, "$", str(exc))
                    return
            if grounding.regex:
                ok = given.matches(text)
            else:
                ok = given.contains(
                    text,
                    casefold=spec.text_compare == "casefold",
                    first_request=grounding.scope == "first_request",
                )
            if not ok:
                where = (
                    "the first request"
                    if grounding.scope == "first_request"
                    else "what the model was given"
                )
                waiver = " or give an `ungrounded` reason" if grounding.waivable else ""
                yield Problem(
                    file,
                    f"{path}.{json_name(grounding.field)}",
                    f"{text!r} is not grounded in {where} (context, input, Tool results, File "
                    f"content, Tool descriptions){waiver}",
                )


def _file_keys(read: Sequence[tuple[str, bytes | NotReadable]]) -> list[str] | None:
    """Each Case file's cache key, or ``None`` when one could not be read (never cached)."""
    keys: list[str] = []
    for name, data in read:
        if isinstance(data, NotReadable):
            return None
        keys.append(checked.file_key(name, data))
    return keys


def _read(path: str | Path) -> bytes | NotReadable:
    try:
        return read_regular(path)
    except NotReadable as exc:
        return exc


def _limit_problem(path: Path, data: bytes) -> Problem | None:
    """Depth, and YAML aliases, checked before anything is decoded (see :mod:`limits`)."""
    file = str(path)
    if path.suffix == ".json":
        try:
            check_json_depth(data)
        except TooDeep as exc:
            return Problem(file, exc.path, exc.reason)
        return None
    import yaml

    try:
        check_yaml(data)
    except TooDeep as exc:
        return Problem(file, exc.path, exc.reason)
    except yaml.YAMLError as exc:
        return Problem(file, "$", f"not valid YAML: {exc}")
    return None


def _raw(path: Path, data: bytes) -> tuple[Any, Problem | None]:
    file = str(path)
    if path.suffix == ".json":
        try:
            return msgspec.json.decode(data), None
        except msgspec.DecodeError as exc:
            return None, json_problem(file, data, exc)
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(data, Loader=loader), None
    except yaml.YAMLError as exc:
        return None, Problem(file, "$", f"not valid YAML: {exc}")
    except (ValueError, OverflowError) as exc:  # a value the constructor cannot build
        return None, Problem(file, "$", f"not valid YAML: {exc}")


_AT_BYTE = re.compile(r"^(?:JSON is malformed: )?(?P<reason>.*?) \(byte (?P<at>\d+)\)$")


def json_problem(file: str, data: bytes, exc: msgspec.DecodeError) -> Problem:
    """JSON that does not parse, said where it breaks (line and column, from 1, the column
    in characters) and why: msgspec names the byte, or says the input was cut short (the
    place is then just after the file's last character that is not white space)."""
    message = str(exc)
    match = _AT_BYTE.match(message)
    if match is not None:
        at, reason = min(int(match["at"]), len(data)), match["reason"]
    elif "truncated" in message:
        at = len(data.rstrip())  # just after the last of it, not after trailing blank lines
        reason = (
            "the file is empty"
            if not data.strip()
            else "the file ends before the JSON does (truncated: an object, array or string "
            "is left open)"
        )
    else:
        at, reason = 0, message
    line = data.count(b"\n", 0, at) + 1
    start = data.rfind(b"\n", 0, at) + 1
    column = len(data[start:at].decode("utf-8", errors="replace")) + 1
    return Problem(file, "$", f"not valid JSON: {reason}", line=line, column=column)


def _type(value: Any) -> str:
    return {dict: "object", list: "an array", str: "a string", type(None): "null"}.get(
        type(value), type(value).__name__
    )
