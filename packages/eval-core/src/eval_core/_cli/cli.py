"""The `eval` command line: flags in, a refusal or an exit code out. Imports are lazy so
`eval --help` answers at once; the work lives in :mod:`eval_core._release.release` and friends. The
parser is the standard library's argparse (:mod:`eval_core._plugins.commands`); command plug-ins add
their sub-commands to it before the arguments are parsed.

Exit codes: 0 cleared (or the command succeeded); 1 not cleared; 2 refused input or bad usage
(a malformed Corpus, a broken or unpinned plug-in set, an unknown flag, a limit, an output path;
every one a single line on stderr, never a traceback), or an output that failed to write after
the Sweep; 3 a comparison refused (different corpusHash or model: no delta is computed); 130
interrupted before the first Trial.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn, TypeVar

from eval_core._plugins.commands import (
    CANONICAL,
    REFUSED,
    Command,
    CommandClash,
    CommandRefused,
    Commands,
    Parser,
    default_log_help,
    one_line,
    path,
)

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from eval_core._plugins.plugins import PluginSet
    from eval_core._release.release import SweepOptions

CLEARED, NOT_CLEARED, COMPARISON_REFUSED, INTERRUPTED = 0, 1, 3, 130

EXIT_CODES = """Exit codes: 0 cleared; 1 not cleared (a NOT CLEARED block names each reason);
2 refused input or bad usage (malformed Corpus, broken or unpinned plug-ins, unknown flag, an
input over a limit, an output path that cannot be written; also an output write that failed
after the Sweep, with the Scorecard already on stdout); 3 comparison refused (different
corpusHash or model: no delta computed); 130 interrupted before the first Trial."""

TRACEBACK_HELP = (
    "When plug-in code raises, also print its full traceback on stderr (for plug-in authors; "
    "the refusal or errored Trial is unchanged). Any position."
)
T = TypeVar("T")


def _refuse(message: str, code: int = REFUSED) -> NoReturn:
    from eval_core._util.safe_text import clean

    sys.stderr.write(clean(message.rstrip("\n")) + "\n")
    raise SystemExit(code)


def _guarded(work: Callable[[], T]) -> T:
    """Run ``work``; a refusal becomes its message on stderr and its exit code."""
    from eval_core._loading.opening import Refused

    try:
        return work()
    except Refused as exc:
        _refuse(str(exc), exc.code)


# ----------------------------------------------------------------------------- the arguments


def _corpus_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "corpus",
        nargs="?",
        type=path,
        default="corpus",
        metavar="CORPUS",
        help="The Corpus directory (red-team: corpus/red-team).",
    )


def _host_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default="agent-runtime",
        metavar="NAME",
        help="The Host (system under test) by name.",
    )


def _unlocked_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--unlocked",
        action="store_true",
        help="Run even if the installed plug-ins differ from eval.lock.",
    )


# ----------------------------------------------------------------------------- the commands


def _check(args: argparse.Namespace) -> int:
    from eval_core._loading.opening import open_corpus

    opened = _guarded(lambda: open_corpus(args.corpus, args.host, args.unlocked))
    opened.host.close()
    loaded = opened.corpus
    tiers = "  ".join(f"{tier}={n}" for tier, n in loaded.tiers().items())
    print(f"{len(loaded.cases)} Cases  {tiers}  suite={loaded.suite}")
    print(f"corpusHash {loaded.hash}" + ("  (unlocked)" if opened.unlocked else ""))
    return CLEARED


def _hash(args: argparse.Namespace) -> int:
    from eval_core._loading.opening import open_corpus

    opened = _guarded(lambda: open_corpus(args.corpus, args.host, False, check_lock=False))
    opened.host.close()
    print(opened.corpus.hash)
    return CLEARED


def _plugins(args: argparse.Namespace) -> int:
    from eval_core._case.case import json_name
    from eval_core._loading import opening

    found = _guarded(opening.plugins)
    if args.check:
        return _check_plugins(found, args.examples, args.corpus)
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


def _check_plugins(found: PluginSet, examples: int, corpus: Path) -> int:
    from eval_core._loading.corpus import corpus_root
    from eval_core._plugins import lock

    if not 1 <= examples <= 1000:
        _refuse(f"--examples must be between 1 and 1000, not {examples}")
    try:
        from eval_core._kit.conformance import check_installed
    except ImportError as exc:
        _refuse(f"eval plugins --check needs {exc.name}: pip install 'eval-core[testing]'")
    try:
        locked = lock.schemas(lock.read(corpus_root(corpus) / lock.LOCK_NAME))
    except lock.LockError:
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


def _lock(args: argparse.Namespace) -> int:
    from eval_core._loading import opening
    from eval_core._loading.corpus import RED_TEAM, corpus_root
    from eval_core._plugins import lock

    corpus: Path = args.corpus
    _guarded(lambda: opening.require_directory(corpus))
    path = corpus_root(corpus) / lock.LOCK_NAME
    _guarded(lambda: _check_output("eval lock", path))
    found = _guarded(opening.plugins)
    for directory in (corpus, corpus / RED_TEAM):
        if directory == corpus or directory.is_dir():
            _guarded(lambda d=directory: _loads(d, args.host, found))  # type: ignore[misc]
    try:
        written = lock.write(path, found)
    except OSError as exc:
        _refuse(f"eval lock: {path} could not be written: {exc.strerror or exc}")
    print(f"locked {len(written.plugins)} plug-ins -> {path}")
    return CLEARED


def _loads(corpus: Path, host: str, found: PluginSet) -> None:
    """The installed set loads the Corpus, or ``eval lock`` refuses to pin it (a Corpus with
    no Case yet has nothing to load: a new Corpus is pinned before its first Case)."""
    from eval_core._loading.corpus import case_files
    from eval_core._loading.opening import Refused, open_corpus

    if not case_files(corpus):
        return
    try:
        opened = open_corpus(corpus, host, False, check_lock=False, found=found)
    except Refused as exc:
        raise Refused(
            f"eval lock refused: the installed plug-ins cannot load {corpus}, so pinning them "
            f"would pin a broken release:\n{exc}"
        ) from None
    opened.host.close()


def _check_output(flag: str, path: Path) -> None:
    """Refuse an output path before any work (see :mod:`eval_core._util.outputs`)."""
    from eval_core._loading.opening import Refused
    from eval_core._util import outputs

    try:
        outputs.check_all([outputs.Output(flag, path)])
    except outputs.OutputRefused as exc:
        raise Refused(f"output refused: {exc}") from None


def _schema(args: argparse.Namespace) -> int:
    from eval_core._loading import opening
    from eval_core._loading.schema import render
    from eval_core._util.atomic import write_atomic

    output: Path | None = args.output
    if output is not None:
        _guarded(lambda: _check_output("--output", output))
    data = render(_guarded(opening.plugins))
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


def _sweep(args: argparse.Namespace) -> int:
    from eval_core._release.release import SweepOptions
    from eval_core._release.release import sweep as run

    model: str | None = args.model
    options = SweepOptions(
        corpus=args.corpus,
        cases=tuple(args.case or ()),
        repeat=args.repeat,
        output_format=args.output_format,
        save=args.save,
        save_dir=args.save_dir,
        junit_xml=args.junit_xml,
        log=args.log,
        resume=args.resume,
        quiet=args.quiet,
        verbose=args.verbose,
        host=args.host,
        host_options=tuple(args.host_option or ()),
        unlocked=args.unlocked,
        models=tuple(n.strip() for n in model.split(",")) if model is not None else (),
        models_file=args.models,
        max_tokens=args.max_tokens,
        max_tokens_per_trial=args.max_tokens_per_trial,
        max_spend=args.max_spend,
        baseline=args.baseline,
        promote=args.promote,
        jobs=args.jobs,
        executor=args.executor,
        address=args.address,
    )
    if args.suite == "all":
        return _guarded(lambda: _both_suites(options))
    if args.suite != "one":
        _refuse(f"--suite must be all (or left out), not {args.suite!r}")
    return _guarded(lambda: run(options))


def _both_suites(options: SweepOptions) -> int:
    """``--suite all``: the capability Corpus, then its red-team suite; each its own Sweep,
    Scorecard and Baseline (two hashes are never one comparison), one exit code."""
    from dataclasses import replace

    from eval_core._loading.corpus import RED_TEAM
    from eval_core._loading.opening import Refused
    from eval_core._release.release import sweep as run

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


def _new_plugin(args: argparse.Namespace) -> int:
    from eval_core._kit.scaffold import ScaffoldRefused, write

    name: str = args.name
    target: Path = args.directory if args.directory is not None else path(name)
    try:
        written = write(name, target)
    except ScaffoldRefused as exc:
        _refuse(f"eval new-plugin: {exc}")
    except OSError as exc:
        _refuse(f"eval new-plugin: {target} could not be written: {exc.strerror or exc}")
    for file in written:
        print(f"wrote {file}")
    print(
        f"next: install it beside the harness (uv add --editable {target}, or see "
        "docs/plugins.md), then: pytest, eval plugins --check, eval lock"
    )
    return CLEARED


def _compare(args: argparse.Namespace) -> int:
    from eval_core._release.release import compare as run

    return _guarded(lambda: run(args.before, args.after))


SWEEP = """Run a Sweep and print the Scorecard on stdout; progress goes to stderr.

Without --model the Case scripts answer (free, deterministic). With --model a pinned real
model answers: a token ceiling is required; credentials, base-URL overrides and the Judge are
checked before the first Trial; the ceiling is checked before each Trial is launched (overrun
at most one Trial, or the N-1 in flight with --jobs N) and a stopped Sweep never clears.
Output paths are checked before the first Trial. Every Trial is appended to a trial log as it
finishes; Ctrl-C or SIGTERM ends the Sweep with a partial Scorecard marked aborted, and
--resume finishes it."""


def _core_commands(commands: Commands) -> None:
    """The core's own sub-commands, in the order ``eval --help`` lists them."""
    check = commands.add(
        "check",
        help="Validate a Corpus; print its Cases per tier and its corpusHash.",
        description="Load and validate a Corpus; print its Cases per tier and its corpusHash.",
        run=_check,
    )
    _corpus_argument(check)
    _host_option(check)
    _unlocked_option(check)

    hash_ = commands.add(
        "hash", help="Print the corpusHash (sha256) of a Corpus, and nothing else.", run=_hash
    )
    _corpus_argument(hash_)
    _host_option(hash_)

    plugins = commands.add(
        "plugins",
        help="List installed plug-ins; with --check, check their contract.",
        description="List installed plug-ins: distribution, version, code fingerprint, kinds "
        "with their tiers, Case fields; with --check, whether each keeps the plug-in contract.",
        run=_plugins,
    )
    plugins.add_argument(
        "--check",
        action="store_true",
        help="Check every installed kind and Case field against the plug-in contract "
        "(hypothesis properties, few examples, a fixed seed); exit 1 if one fails.",
    )
    plugins.add_argument(
        "--examples",
        type=int,
        default=10,
        metavar="N",
        help="Examples per kind with --check (1 to 1000).",
    )
    plugins.add_argument(
        "--corpus",
        type=path,
        default="corpus",
        metavar="PATH",
        help="Whose eval.lock --check compares schemas with.",
    )

    lock = commands.add(
        "lock",
        help="Pin the installed plug-in set in <corpus>/eval.lock.",
        description="Pin the installed plug-in set in <corpus>/eval.lock (refused when that "
        "set cannot load the Corpus, or its red-team suite).",
        run=_lock,
    )
    _corpus_argument(lock)
    _host_option(lock)

    schema = commands.add(
        "schema",
        help="Print the JSON Schema of a Case for the installed plug-in set.",
        run=_schema,
    )
    schema.add_argument(
        "-o", "--output", type=path, metavar="PATH", help="Write here instead of stdout."
    )

    sweep = commands.add(
        "sweep",
        help="Run a Sweep: the Scorecard on stdout, progress on stderr.",
        description=SWEEP,
        run=_sweep,
    )
    _sweep_arguments(sweep)

    new_plugin = commands.add(
        "new-plugin",
        help="Write a plug-in package (one kind, one Case field, tests, CI).",
        description="Write a plug-in package: one kind, one Case field, tests on the testing "
        "kit, an example Corpus and CI, ready to install, test and sweep (see docs/plugins.md).",
        run=_new_plugin,
    )
    new_plugin.add_argument(
        "name", metavar="NAME", help="The distribution name, e.g. acme-tickets."
    )
    new_plugin.add_argument(
        "-d",
        "--directory",
        type=path,
        metavar="DIR",
        help="Where to write it (default: ./NAME).",
    )

    compare = commands.add(
        "compare",
        help="The delta between two saved Scorecards (or Baselines).",
        description="Print the delta between two saved Scorecards (or Baselines); refused "
        "across models, or across Corpora, naming the Cases added, removed and changed and the "
        "plug-in differences (exit 3).",
        run=_compare,
    )
    compare.add_argument(
        "before", type=path, metavar="BEFORE", help="The earlier Scorecard (or Baseline) JSON."
    )
    compare.add_argument(
        "after", type=path, metavar="AFTER", help="The later Scorecard (or Baseline) JSON."
    )


def _sweep_arguments(sweep: argparse.ArgumentParser) -> None:
    _corpus_argument(sweep)
    add = sweep.add_argument
    add("--case", action="append", metavar="ID", help="Run only this Case (repeatable).")
    add(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="Run every Case N times: the noise floor (1 to 1000).",
    )
    add(
        "--format",
        dest="output_format",
        default="text",
        metavar="text|json",
        help="Scorecard on stdout: text or json.",
    )
    add("--save", type=path, metavar="PATH", help="Write the Scorecard JSON here (atomic).")
    add("--save-dir", type=path, metavar="DIR", help="Write DIR/<model>.json per model.")
    add("--junit-xml", type=path, metavar="PATH", help="Write JUnit XML for CI here.")
    add(
        "--log",
        type=path,
        metavar="PATH",
        help=f"The trial log (JSON Lines); default {default_log_help()}.",
    )
    add(
        "--resume",
        type=path,
        metavar="LOG",
        help="Finish the Sweep this trial log began (same flags).",
    )
    add("-q", "--quiet", action="store_true", help="No progress on stderr.")
    add(
        "-v",
        "--verbose",
        action="store_true",
        help="List every Trial in the text Scorecard, not only failures. The [loop STATUS] "
        "after a Trial is how the runtime's tool loop ended (completed, failed, waiting...), "
        "not the verdict: PASS  c#1  [loop failed] passed a Case that expects the loop to fail.",
    )
    _host_option(sweep)
    add(
        "--host-option",
        action="append",
        metavar="KEY=VALUE",
        help="A setting the Host reads, passed to it as is (repeatable); see the Host's own "
        "documentation for its keys.",
    )
    _unlocked_option(sweep)
    add(
        "--model",
        metavar="NAME[,NAME...]",
        help="Pinned model(s) by name, comma-separated for a Matrix (a control, never a "
        "contest: legs run one after another); without it the free scripted binding.",
    )
    add(
        "--models",
        type=path,
        default="models.toml",
        metavar="PATH",
        help="The model pins file.",
    )
    add(
        "--max-tokens",
        type=int,
        metavar="N",
        help="Stop before the next Trial once input+output tokens reach N.",
    )
    add(
        "--max-tokens-per-trial",
        type=int,
        metavar="N",
        help="A token ceiling of N x the Trials planned (exclusive with --max-tokens).",
    )
    add(
        "--max-spend",
        type=float,
        metavar="USD",
        help="Stop before the next Trial once the priced spend reaches USD.",
    )
    add(
        "--baseline",
        nargs="?",
        const=CANONICAL,
        metavar="PATH",
        help="Compare with the Baseline: baselines/<model>.json, or the PATH given.",
    )
    add(
        "-j",
        "--jobs",
        type=int,
        metavar="N",
        help="Run N Trials at once (default: the pin's max_concurrency for a real model; on "
        "the scripted model 4 when an L3 Case runs, else 1). A ceiling then overruns by at most "
        "N-1 Trials in flight.",
    )
    add(
        "--executor",
        metavar="NAME",
        help="Run the Trials on an installed executor instead of this process: ray (the "
        "eval-executor-ray package) runs them as Ray tasks, on a local Ray instance unless "
        "--address names a cluster. The trial log, --resume and the ceilings work the same.",
    )
    add(
        "--address",
        metavar="ADDRESS",
        help="The executor's cluster: for ray, auto (the running cluster), ray://HOST:10001 "
        "or HOST:PORT; without it a local instance is started.",
    )
    add(
        "--suite",
        default="one",
        metavar="all",
        help="all: sweep the Corpus, then its red-team suite (corpus/red-team), one exit "
        "code; without it, the Corpus given.",
    )
    add(
        "--promote",
        action="store_true",
        help="Make this Sweep the model's Baseline (clean tree, complete, unerrored, "
        "unregressed, real model only; always the canonical path).",
    )


# ----------------------------------------------------------------------------- the parser


def parser() -> tuple[Parser, dict[str, Command], Commands]:
    """``eval``'s parser with the core's commands, the table of every command by name, and
    the registry a command plug-in adds to (see :func:`add_commands`)."""
    top = Parser(
        prog="eval",
        description="Offline eval harness for tool-using LLM agents.",
        epilog=EXIT_CODES,
    )
    top.add_argument("--traceback", action="store_true", help=TRACEBACK_HELP)
    subparsers = top.add_subparsers(
        title="commands", dest="command", metavar="COMMAND", prog="eval", required=True
    )
    table: dict[str, Command] = {}
    commands = Commands(subparsers, table)
    _core_commands(commands)
    return top, table, commands


COMMANDS = "eval.commands"


def add_commands(commands: Commands) -> None:
    """Let each command plug-in (entry-point group ``eval.commands``) add its sub-commands;
    a broken one is one line naming its distribution and entry point, exit 2. Its hook is
    guarded like a family's (:mod:`eval_core._util.guard`): one that raises, or a hookimpl no
    hookspec declares, is one line naming the distribution, its version and the line; a
    command name that exists already is one line naming both distributions."""
    import pluggy

    from eval_core._plugins import hookspecs
    from eval_core._util.entrypoints import entry_points

    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    versions: dict[str, tuple[str, str]] = {}
    for ep in entry_points(COMMANDS):
        dist = ep.distribution
        name = f"{dist}:{ep.name}"
        versions[name] = (dist, ep.version)
        try:
            plugin = ep.load()
        except Exception as exc:
            _fail(
                f"eval: command plug-in {dist} is broken: entry point {ep.name!r} ({ep.value}) "
                f"failed to load: {type(exc).__name__}: {exc}"
            )
        try:
            manager.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:  # a hookimpl's arguments the hook lacks
            _fail(
                f"eval: command plug-in {dist} {ep.version} is refused: {exc} (the hook is "
                "eval_commands(commands))"
            )
    for hook in vars(manager.hook).values():  # pluggy's check_pending, said per plug-in
        if isinstance(hook, pluggy.HookCaller) and not hook.has_spec():
            impl = hook.get_hookimpls()[0]
            dist, version = versions.get(impl.plugin_name, (impl.plugin_name, "(no version)"))
            _fail(
                f"eval: command plug-in {dist} {version} is refused: it implements "
                f"{hook.name!r}, which is not a hook (eval_commands is)"
            )
    for impl in manager.hook.eval_commands.get_hookimpls():
        dist, version = versions.get(impl.plugin_name, (impl.plugin_name, "(no version)"))
        theirs = commands.by(dist, version, impl.plugin)
        try:
            impl.function(**{arg: theirs for arg in impl.argnames})
        except CommandClash as exc:
            _fail(
                f"eval: command plug-in {dist} {version} is refused: it adds the command "
                f"{exc.name!r}, which {exc.owner} adds already"
            )
        except Exception as exc:
            from eval_core._util.code import code_roots
            from eval_core._util.guard import Origin, fault

            origin = Origin(dist, version, code_roots(impl.plugin))
            _fail(f"eval: {fault(origin, 'eval_commands', exc, impl.function)}")


def _fail(line: str) -> NoReturn:
    sys.stderr.write(one_line(line) + "\n")
    raise SystemExit(REFUSED)


def _run(command: Command, args: argparse.Namespace) -> int:
    """The command's exit code; a plug-in command that raises is one line naming it."""
    try:
        code = command.run(args)
    except CommandRefused as exc:
        sys.stderr.write(one_line(str(exc)) + "\n")
        return exc.code
    except Exception as exc:
        if command.plugin is None:
            raise  # the core's own bug: its traceback is the report
        from eval_core._util.code import code_roots
        from eval_core._util.guard import Origin, fault

        origin = Origin(command.owner, command.version, code_roots(command.plugin))
        _fail(f"eval: {fault(origin, f'the command {command.name!r}', exc, command.run)}")
    if code is None:
        return CLEARED
    if isinstance(code, bool) or not isinstance(code, int):
        _fail(
            f"eval: plug-in {command.label}: the command {command.name!r} returned {code!r}, "
            "not an exit code (an int)"
        )
    return code


def invoke(argv: Sequence[str]) -> int:
    """Run ``eval ARGV`` in this process and return its exit code (what :func:`main` exits
    with): usage errors and refusals are already on stderr, one line each."""
    try:
        return _invoke(list(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else REFUSED)
    except KeyboardInterrupt:
        sys.stderr.write("eval: interrupted\n")
        return INTERRUPTED


def _invoke(argv: list[str]) -> int:
    if "--traceback" in argv:  # any position; before command plug-ins load, for their faults
        from eval_core._util.guard import show_tracebacks

        show_tracebacks()
        argv = [arg for arg in argv if arg != "--traceback"]
    top, table, commands = parser()
    add_commands(commands)
    if not argv:
        top.print_help()
        return REFUSED
    args, extras = top.parse_known_args(argv)
    command = table[args.command]
    if extras:
        head = argv[: argv.index(args.command)]
        owner = top if any(extra in head for extra in extras) else command.parser
        owner.error(f"unrecognized arguments: {' '.join(extras)}")
    return _run(command, args)


def main() -> NoReturn:
    """Run the CLI; a usage mistake (unknown flag, bad value) is one line on stderr, exit 2."""
    raise SystemExit(invoke(sys.argv[1:]))
