"""What each of the core's sub-commands does once its flags are parsed (the flags: :mod:`flags`).

A refusal is its message on stderr and its exit code, never a traceback; the work is imported
only when the command runs, so `eval --help` answers at once.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn, TypeVar

from eval_cli.exits import CLEARED, COMPARISON_REFUSED, NOT_CLEARED
from eval_core.commands import REFUSED

if TYPE_CHECKING:
    from pathlib import Path
    from types import SimpleNamespace

    from eval_core.commands import Opened, PluginSet, Project, SweepOptions

T = TypeVar("T")


def _refuse(message: str, code: int = REFUSED) -> NoReturn:
    from eval_core.commands import clean

    sys.stderr.write(clean(message.rstrip("\n")) + "\n")
    raise SystemExit(code)


def _guarded(work: Callable[[], T]) -> T:
    """Run ``work``; a refusal becomes its message on stderr and its exit code."""
    from eval_core.commands import Refused

    try:
        return work()
    except Refused as exc:
        _refuse(str(exc), exc.code)


def _project(given: Path | None) -> Project:
    """The project the command runs for, found from the Corpus given, else the working
    directory (``eval_core.commands.find_project``); a settings file that cannot be used is
    refused."""
    from eval_core.commands import SettingsRefused, find_project

    try:
        return find_project(given)
    except SettingsRefused as exc:
        _refuse(f"settings refused: {exc}")


def _chosen(args: SimpleNamespace) -> tuple[Project, Path, str]:
    """The project, the Corpus and the Host: each flag wins over ``[tool.eval]``, which wins
    over the default."""
    from eval_cli.flags import DEFAULT_HOST

    project = _project(args.corpus)
    corpus: Path = args.corpus if args.corpus is not None else project.path("corpus")
    return project, corpus, args.host or project.host or DEFAULT_HOST


def run_check(args: SimpleNamespace) -> int:
    from eval_core.commands import open_corpus

    project, corpus, host = _chosen(args)
    opened = _guarded(lambda: open_corpus(corpus, host, args.unlocked, project=project))
    try:
        stale = _stale(opened) if args.drift else None
    finally:
        _guarded(opened.close)
    loaded = opened.corpus
    tiers = "  ".join(f"{tier}={n}" for tier, n in loaded.tiers().items())
    print(f"{len(loaded.cases)} Cases  {tiers}  suite={loaded.suite}")
    print(f"corpusHash {loaded.hash}" + ("  (unlocked)" if opened.unlocked else ""))
    if stale is None:
        return CLEARED
    from eval_core.commands import one_line

    recorded = sum(case.recorded is not None for case in loaded.cases)
    for case_id, notes in stale.items():
        print(f"STALE  {one_line(case_id)}")
        print("".join(f"     {one_line(note)}\n" for note in notes), end="")
    print(f"drift: {len(stale)} of {recorded} recorded Case(s) stale")
    return NOT_CLEARED if stale else CLEARED


def _stale(opened: Opened) -> dict[str, list[str]]:
    from eval_core.records import stale_cases

    return stale_cases(opened)


def run_hash(args: SimpleNamespace) -> int:
    from eval_core.commands import open_corpus

    project, corpus, host = _chosen(args)
    opened = _guarded(lambda: open_corpus(corpus, host, False, check_lock=False, project=project))
    _guarded(opened.close)
    print(opened.corpus.hash)
    return CLEARED


def run_plugins(args: SimpleNamespace) -> int:
    from eval_core.commands import open_plugins
    from eval_core.kinds import json_name

    found = _guarded(open_plugins)
    if args.kind is not None:
        if args.check:
            _refuse("eval plugins: --kind and --check are asked apart (see eval plugins --help)")
        return _kind_reference(found, args.kind)
    if args.check:
        corpus = args.corpus if args.corpus is not None else _project(None).path("corpus")
        return _check_plugins(found, args.examples, corpus)
    for info in found.plugins:
        print(f"{info.distribution} {info.version}  [{info.entry_point}]  code {info.code}")
        for kind in info.kinds:
            spec = found.kinds[kind]
            tiers = "/".join(sorted(spec.tiers))
            witness = spec.witness or "undeclared"
            print(f"    kind   {kind}  ({tiers})  witness: {witness}")
        for name in info.fields:
            tiers = "/".join(sorted(found.fields[name].tiers))
            print(f"    field  {json_name(name)}  ({tiers})")
    if found.witness_checks:
        names = ", ".join(check.name for check in found.witness_checks)
        print(f"witness checks (besides the core's own): {names}")
    if found.hosts:
        print("hosts: " + ", ".join(sorted(found.hosts)))
    if found.model_source_owner is not None:
        print(f"model source: {found.model_source_owner.distribution}")
    return CLEARED


def _kind_reference(found: PluginSet, name: str) -> int:
    """The reference of one kind or Case field, as docs/kinds.md shows it."""
    from eval_cli.reference import Reference, UnknownName
    from eval_cli.reference_render import text

    try:
        entry = Reference(found).entry(name)
    except UnknownName as exc:
        _refuse(f"eval plugins --kind: {exc}")
    sys.stdout.write(text(entry))
    return CLEARED


def _check_plugins(found: PluginSet, examples: int, corpus: Path) -> int:
    from eval_core.commands import LOCK_NAME, LockError, corpus_root, lock_schemas, read_lock

    if not 1 <= examples <= 1000:
        _refuse(f"--examples must be between 1 and 1000, not {examples}")
    try:
        from eval_kit import check_installed  # the kit's checks: hypothesis, pytest
    except ImportError as exc:
        _refuse(f"eval plugins --check needs {exc.name} (the testing kit): pip install eval-kit")
    try:
        locked = lock_schemas(read_lock(corpus_root(corpus) / LOCK_NAME))
    except LockError:
        locked = {}
    lines, problems = check_installed(found, examples=examples, locked=locked)
    for line in lines:
        print(line)
    checked = len(found.kinds) + len(found.fields)
    if problems:
        print(f"NOT CONFORMING  {problems} problem(s) in {checked} kinds and Case fields")
        return NOT_CLEARED
    print(f"CONFORMING  {checked} kinds and Case fields keep the plug-in contract")
    return CLEARED


def run_lock(args: SimpleNamespace) -> int:
    from eval_core.commands import (
        LOCK_NAME,
        RED_TEAM,
        corpus_root,
        open_plugins,
        require_directory,
        write_lock,
    )

    project, corpus, host = _chosen(args)
    _guarded(lambda: require_directory(corpus))
    path = corpus_root(corpus) / LOCK_NAME
    _guarded(lambda: _check_output("eval lock", path))
    found = _guarded(open_plugins)
    for directory in (corpus, corpus / RED_TEAM):
        if directory == corpus or directory.is_dir():
            _guarded(lambda d=directory: _loads(d, host, found, project))  # type: ignore[misc]
    try:
        written = write_lock(path, found, host)
    except OSError as exc:
        _refuse(f"eval lock: {path} could not be written: {exc.strerror or exc}")
    print(f"locked {len(written.plugins)} plug-ins -> {path}")
    return CLEARED


def _loads(corpus: Path, host: str, found: PluginSet, project: Project) -> None:
    """The installed set loads the Corpus, or ``eval lock`` refuses to pin it (a Corpus with
    no Case yet has nothing to load: a new Corpus is pinned before its first Case)."""
    from eval_core.commands import CorpusError, Refused, case_files, open_corpus

    try:
        if not case_files(corpus):
            return
    except CorpusError as exc:
        raise Refused(str(exc)) from None
    try:
        opened = open_corpus(corpus, host, False, check_lock=False, found=found, project=project)
    except Refused as exc:
        raise Refused(
            f"eval lock refused: the installed plug-ins cannot load {corpus}, so pinning them "
            f"would pin a broken release:\n{exc}"
        ) from None
    opened.close()


def _check_output(flag: str, path: Path) -> None:
    """Refuse an output path before any work (``eval_core.records.check_outputs``)."""
    from eval_core.commands import Refused
    from eval_core.records import Output, OutputRefused, check_outputs

    try:
        check_outputs([Output(flag, path)])
    except OutputRefused as exc:
        raise Refused(f"output refused: {exc}") from None


def run_schema(args: SimpleNamespace) -> int:
    from eval_cli.case_schema import render
    from eval_core.commands import open_plugins
    from eval_core.records import write_atomic

    output: Path | None = args.output
    if output is not None:
        _guarded(lambda: _check_output("--output", output))
    data = render(_guarded(open_plugins))
    if output is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        try:
            write_atomic(output, data)
        except OSError as exc:
            _refuse(f"--output {output} could not be written: {exc.strerror or exc}")
        print(f"wrote {output}")
    return CLEARED


def run_sweep(args: SimpleNamespace) -> int:
    from pathlib import Path

    from eval_core.commands import SweepOptions, is_cwd
    from eval_core.commands import sweep as run

    model: str | None = args.model
    project, corpus, host = _chosen(args)
    options = SweepOptions(
        corpus=corpus,
        cases=tuple(args.case or ()),
        repeat=args.repeat,
        output_format=args.output_format,
        save=args.save,
        save_dir=args.save_dir,
        junit_xml=args.junit_xml,
        log=args.log,
        resume=args.resume,
        rerun_errored=args.rerun_errored,
        quiet=args.quiet,
        verbose=args.verbose,
        host=host,
        host_options=tuple(args.host_option or ()),
        unlocked=args.unlocked,
        models=tuple(n.strip() for n in model.split(",")) if model is not None else (),
        models_file=args.models if args.models is not None else project.path("models"),
        max_tokens=args.max_tokens,
        max_tokens_per_trial=args.max_tokens_per_trial,
        max_spend=args.max_spend,
        baseline=args.baseline,
        promote=args.promote,
        jobs=args.jobs,
        executor=args.executor,
        address=args.address,
        root=Path(".") if is_cwd(project.root) else project.root,
        baselines=project.baselines,
        outputs=project.outputs,
        project=project,
    )
    if args.suite == "all":
        return _guarded(lambda: _both_suites(options))
    if args.suite != "one":
        _refuse(f"--suite must be all (or left out), not {args.suite!r}")
    return _guarded(lambda: run(options))


def _both_suites(options: SweepOptions) -> int:
    """``--suite all``: the capability Corpus, then its red-team suite; each its own Sweep,
    Scorecard and Baseline (two hashes are never one comparison), one exit code."""
    from msgspec.structs import replace

    from eval_core.commands import RED_TEAM, Refused
    from eval_core.commands import sweep as run

    single: dict[str, object] = {
        "--save": options.save,
        "--log": options.log,
        "--resume": options.resume,
        "--junit-xml": options.junit_xml,
        "--case": options.cases or None,
    }
    for flag, value in single.items():
        if value is not None:
            raise Refused(f"{flag} names one Sweep's output or Cases: --suite all runs two")
    red = replace(
        options,
        corpus=options.corpus / RED_TEAM,
        save_dir=options.save_dir / RED_TEAM if options.save_dir is not None else None,
    )
    codes = [run(options), run(red)]
    return max(codes, key=lambda code: (code == COMPARISON_REFUSED, code))
