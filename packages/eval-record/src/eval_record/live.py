"""``eval record`` from a real model: which Cases, the Sweep that runs them, then the recording.

Which Cases: those named (``--case``); else with ``--stale`` the recorded Cases whose replay
drifts (:func:`eval_core._running.stale.stale_cases`); else the Cases with no script yet (a
new Case is an input and its Expectations: recording fills the rest in). A hand-written script
is never replaced unless its Case is named or stale.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from eval_core.commands import (
    Opened,
    Project,
    SettingsRefused,
    SweepOptions,
    default_log,
    find_project,
    is_cwd,
    sweep,
)
from eval_core.records import one_line, runs_model, stale_cases
from eval_record.record import Asked, RecordRefused, from_log, opened_corpus

DEFAULT_HOST = "agent-runtime"


def record(args: argparse.Namespace) -> int:
    """The command: refusals raise :class:`RecordRefused` (one line, exit 2)."""
    try:
        project = find_project(args.corpus)
    except SettingsRefused as exc:
        raise RecordRefused(f"settings refused: {exc}") from None
    corpus: Path = args.corpus if args.corpus is not None else project.path("corpus")
    host: str = args.host or project.host or DEFAULT_HOST
    options = dict(_pairs(args.host_option or ()))
    if args.from_log is not None:
        given = [f for f, v in (("--model", args.model), ("--jobs", args.jobs)) if v is not None]
        if given:
            raise RecordRefused(
                f"eval record: --from-log records a saved Sweep, with no model call: "
                f"{', '.join(given)} is for recording a new one"
            )
        opened = opened_corpus(corpus, host, args.unlocked, options, project)
        try:
            asked = _asked(args, _selection(args, opened))
            if not asked.cases:
                return _nothing(args)
            return from_log(args.from_log, opened, asked).code
        finally:
            opened.host.close()
    if args.model is None:
        raise RecordRefused(
            "eval record needs a real model to record: --model NAME (a pin of the models file) "
            "and a token ceiling; or --from-log LOG to record a saved Sweep"
        )
    if "," in args.model:
        raise RecordRefused("eval record: --model names one model: a script is one model's")
    opened = opened_corpus(corpus, host, args.unlocked, options, project)
    try:
        selection = _selection(args, opened)
    finally:
        opened.host.close()
    if not selection:
        return _nothing(args)
    log = _log_path(project, args.model)
    code = sweep(_sweep_options(args, project, corpus, host, selection, log))
    if code not in (0, 1):  # refused (its reason printed), or a comparison refused
        return code
    print(f"trial log {log}  (eval record --from-log {log} records from it again)")
    opened = opened_corpus(corpus, host, args.unlocked, options, project)
    try:
        return from_log(log, opened, _asked(args, selection)).code
    finally:
        opened.host.close()


def _pairs(given: tuple[str, ...] | list[str]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for item in given:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise RecordRefused(f"--host-option {item!r}: expected KEY=VALUE")
        pairs.append((key.strip(), value))
    return pairs


def _selection(args: argparse.Namespace, opened: Opened) -> list[str]:
    """The Cases to record (see the module)."""
    cases = opened.corpus.cases
    named: list[str] = list(args.case or ())
    known = {c.id for c in cases}
    unknown = [n for n in named if n not in known]
    if unknown:
        raise RecordRefused(
            f"eval record: --case {one_line(unknown[0])}: no Case of {opened.corpus.directory} "
            "has this id"
        )
    if args.stale:
        stale = stale_cases(opened)
        for case_id, notes in stale.items():
            print(f"STALE  {one_line(case_id)}")
            print("".join(f"     {one_line(note)}\n" for note in notes), end="")
        return [c for c in stale if not named or c in named]
    if named:
        return named
    fields = opened.plugins.fields
    return [c.id for c in cases if c.script is None and runs_model(c, fields)]


def _nothing(args: argparse.Namespace) -> int:
    if args.stale:
        print("no recorded Case is stale: nothing to record")
    else:
        print(
            "nothing to record: every Case has a script (name the Cases to record again with "
            "--case ID, or re-record the drifted ones with --stale)"
        )
    return 0


def _asked(args: argparse.Namespace, selection: list[str]) -> Asked:
    return Asked(
        cases=tuple(selection), allow_failed=args.allow_failed, tool_results=args.tool_results
    )


def _log_path(project: Project, model: str) -> Path:
    """Named as a Sweep's log is (unique: two recordings in one second never meet)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in model)
    return default_log(project.path("outputs"), "record", safe)


def _sweep_options(
    args: argparse.Namespace,
    project: Project,
    corpus: Path,
    host: str,
    selection: list[str],
    log: Path,
) -> SweepOptions:
    return SweepOptions(
        corpus=corpus,
        cases=tuple(selection),
        quiet=args.quiet,
        log=log,
        host=host,
        host_options=tuple(args.host_option or ()),
        unlocked=args.unlocked,
        models=(args.model,),
        models_file=args.models if args.models is not None else project.path("models"),
        max_tokens=args.max_tokens,
        max_tokens_per_trial=args.max_tokens_per_trial,
        max_spend=args.max_spend,
        jobs=args.jobs,
        root=Path(".") if is_cwd(project.root) else project.root,
        baselines=project.baselines,
        outputs=project.outputs,
        project=project,
    )
