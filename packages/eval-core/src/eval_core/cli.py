"""The `eval` command line: flags in, a refusal or an exit code out. Imports are lazy so
`eval --help` answers at once; the work lives in :mod:`eval_core.release` and friends.

Exit codes: 0 cleared (or the command succeeded); 1 not cleared; 2 refused input or bad usage
(a malformed Corpus, a broken or unpinned plug-in set, an unknown flag, a limit, an output path;
every one a single line on stderr, never a traceback), or an output that failed to write after
the Sweep; 3 a comparison refused (different corpusHash or model: no delta is computed); 130
interrupted before the first Trial.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TypeVar

import typer

if TYPE_CHECKING:
    from eval_core.plugins import PluginSet
    from eval_core.release import SweepOptions

CLEARED, NOT_CLEARED, REFUSED, COMPARISON_REFUSED = 0, 1, 2, 3

EXIT_CODES = """Exit codes: 0 cleared; 1 not cleared (a NOT CLEARED block names each reason);
2 refused input or bad usage (malformed Corpus, broken or unpinned plug-ins, unknown flag, an
input over a limit, an output path that cannot be written; also an output write that failed
after the Sweep, with the Scorecard already on stdout); 3 comparison refused (different
corpusHash or model: no delta computed); 130 interrupted before the first Trial."""

app = typer.Typer(
    name="eval",
    help="Offline eval harness for tool-using LLM agents.\n\n" + EXIT_CODES,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain click help: rich's markdown stack costs more than the help
)


@app.callback()
def _options(
    traceback: Annotated[
        bool,
        typer.Option(
            "--traceback",
            help="When plug-in code raises, also print its full traceback on stderr (for "
            "plug-in authors; the refusal or errored Trial is unchanged). Any position.",
        ),
    ] = False,
) -> None:
    if traceback:
        from eval_core.guard import show_tracebacks

        show_tracebacks()


CorpusArg = Annotated[
    Path, typer.Argument(help="The Corpus directory (red-team: corpus/red-team).")
]
HostOpt = Annotated[str, typer.Option("--host", help="The Host (system under test) by name.")]
UnlockedOpt = Annotated[
    bool,
    typer.Option("--unlocked", help="Run even if the installed plug-ins differ from eval.lock."),
]
T = TypeVar("T")


def _refuse(message: str, code: int = REFUSED) -> NoReturn:
    from eval_core.safe_text import clean

    sys.stderr.write(clean(message.rstrip("\n")) + "\n")
    raise typer.Exit(code)


def _guarded(work: Callable[[], T]) -> T:
    """Run ``work``; a refusal becomes its message on stderr and its exit code."""
    from eval_core.opening import Refused

    try:
        return work()
    except Refused as exc:
        _refuse(str(exc), exc.code)


@app.command()
def check(
    corpus: CorpusArg = Path("corpus"),
    host: HostOpt = "agent-runtime",
    unlocked: UnlockedOpt = False,
) -> None:
    """Load and validate a Corpus; print its Cases per tier and its corpusHash."""
    from eval_core.opening import open_corpus

    opened = _guarded(lambda: open_corpus(corpus, host, unlocked))
    opened.host.close()
    loaded = opened.corpus
    tiers = "  ".join(f"{tier}={n}" for tier, n in loaded.tiers().items())
    typer.echo(f"{len(loaded.cases)} Cases  {tiers}  suite={loaded.suite}")
    typer.echo(f"corpusHash {loaded.hash}" + ("  (unlocked)" if opened.unlocked else ""))


@app.command("hash")
def hash_(
    corpus: CorpusArg = Path("corpus"),
    host: HostOpt = "agent-runtime",
) -> None:
    """Print the corpusHash (sha256) of a Corpus, and nothing else."""
    from eval_core.opening import open_corpus

    opened = _guarded(lambda: open_corpus(corpus, host, False, check_lock=False))
    opened.host.close()
    typer.echo(opened.corpus.hash)


@app.command()
def plugins(
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Check every installed kind and Case field against the plug-in contract "
            "(hypothesis properties, few examples, a fixed seed); exit 1 if one fails.",
        ),
    ] = False,
    examples: Annotated[
        int, typer.Option("--examples", help="Examples per kind with --check (1 to 1000).")
    ] = 10,
    corpus: Annotated[
        Path, typer.Option("--corpus", help="Whose eval.lock --check compares schemas with.")
    ] = Path("corpus"),
) -> None:
    """List installed plug-ins: distribution, version, code fingerprint, kinds with their
    tiers, Case fields; with --check, whether each keeps the plug-in contract."""
    from eval_core import opening
    from eval_core.case import json_name

    found = _guarded(opening.plugins)
    if check:
        raise typer.Exit(_check_plugins(found, examples, corpus))
    for info in found.plugins:
        typer.echo(f"{info.distribution} {info.version}  [{info.entry_point}]  code {info.code}")
        for kind in info.kinds:
            tiers = "/".join(sorted(found.kinds[kind].tiers))
            typer.echo(f"    kind   {kind}  ({tiers})")
        for name in info.fields:
            tiers = "/".join(sorted(found.fields[name].tiers))
            typer.echo(f"    field  {json_name(name)}  ({tiers})")
    if found.hosts:
        typer.echo("hosts: " + ", ".join(sorted(found.hosts)))
    if found.model_source_owner is not None:
        typer.echo(f"model source: {found.model_source_owner.distribution}")


def _check_plugins(found: PluginSet, examples: int, corpus: Path) -> int:
    from eval_core import lock
    from eval_core.corpus import corpus_root

    if not 1 <= examples <= 1000:
        _refuse(f"--examples must be between 1 and 1000, not {examples}")
    try:
        from eval_core.conformance import check_installed
    except ImportError as exc:
        _refuse(f"eval plugins --check needs {exc.name}: pip install 'eval-core[testing]'")
    try:
        locked = lock.schemas(lock.read(corpus_root(corpus) / lock.LOCK_NAME))
    except lock.LockError:
        locked = {}
    lines, problems = check_installed(found, examples=examples, locked=locked)
    for line in lines:
        typer.echo(line)
    checked = len(found.kinds) + len(found.fields)
    if problems:
        typer.echo(f"NOT CONFORMING  {problems} problem(s) in {checked} kinds and Case fields")
        return NOT_CLEARED
    typer.echo(f"CONFORMING  {checked} kinds and Case fields keep the plug-in contract")
    return CLEARED


@app.command("lock")
def lock_(corpus: CorpusArg = Path("corpus"), host: HostOpt = "agent-runtime") -> None:
    """Pin the installed plug-in set in <corpus>/eval.lock (refused when that set cannot load
    the Corpus, or its red-team suite)."""
    from eval_core import lock, opening
    from eval_core.corpus import RED_TEAM, corpus_root

    _guarded(lambda: opening.require_directory(corpus))
    path = corpus_root(corpus) / lock.LOCK_NAME
    _guarded(lambda: _check_output("eval lock", path))
    found = _guarded(opening.plugins)
    for directory in (corpus, corpus / RED_TEAM):
        if directory == corpus or directory.is_dir():
            _guarded(lambda d=directory: _loads(d, host, found))  # type: ignore[misc]
    try:
        written = lock.write(path, found)
    except OSError as exc:
        _refuse(f"eval lock: {path} could not be written: {exc.strerror or exc}")
    typer.echo(f"locked {len(written.plugins)} plug-ins -> {path}")


def _loads(corpus: Path, host: str, found: PluginSet) -> None:
    """The installed set loads the Corpus, or ``eval lock`` refuses to pin it (a Corpus with
    no Case yet has nothing to load: a new Corpus is pinned before its first Case)."""
    from eval_core.corpus import case_files
    from eval_core.opening import Refused, open_corpus

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
    """Refuse an output path before any work (see :mod:`eval_core.outputs`)."""
    from eval_core import outputs
    from eval_core.opening import Refused

    try:
        outputs.check_all([outputs.Output(flag, path)])
    except outputs.OutputRefused as exc:
        raise Refused(f"output refused: {exc}") from None


@app.command()
def schema(
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")
    ] = None,
) -> None:
    """Print the JSON Schema of a Case for the installed plug-in set."""
    from eval_core import opening
    from eval_core.atomic import write_atomic
    from eval_core.schema import render

    if output is not None:
        _guarded(lambda: _check_output("--output", output))
    data = render(_guarded(opening.plugins))
    if output is None:
        sys.stdout.buffer.write(data)
    else:
        try:
            write_atomic(output, data)
        except OSError as exc:
            _refuse(f"--output {output} could not be written: {exc.strerror or exc}")
        typer.echo(f"wrote {output}")


@app.command()
def sweep(
    corpus: CorpusArg = Path("corpus"),
    case: Annotated[
        list[str] | None, typer.Option("--case", help="Run only this Case (repeatable).")
    ] = None,
    repeat: Annotated[
        int,
        typer.Option("--repeat", help="Run every Case N times: the noise floor (1 to 1000)."),
    ] = 1,
    output_format: Annotated[
        str, typer.Option("--format", help="Scorecard on stdout: text or json.")
    ] = "text",
    save: Annotated[
        Path | None, typer.Option("--save", help="Write the Scorecard JSON here (atomic).")
    ] = None,
    save_dir: Annotated[
        Path | None, typer.Option("--save-dir", help="Write DIR/<model>.json per model.")
    ] = None,
    junit_xml: Annotated[
        Path | None, typer.Option("--junit-xml", help="Write JUnit XML for CI here.")
    ] = None,
    log: Annotated[
        Path | None,
        typer.Option(
            "--log", help="The trial log (JSON Lines); default scorecards/trials/<model>-<time>."
        ),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option("--resume", help="Finish the Sweep this trial log began (same flags)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="List every Trial in the text Scorecard, not only failures."
        ),
    ] = False,
    host: HostOpt = "agent-runtime",
    host_option: Annotated[
        list[str] | None,
        typer.Option(
            "--host-option",
            metavar="KEY=VALUE",
            help="A setting the Host reads, passed to it as is (repeatable); see the Host's "
            "own documentation for its keys.",
        ),
    ] = None,
    unlocked: UnlockedOpt = False,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="Pinned model(s) by name, comma-separated for a Matrix (a control, never a "
            "contest: legs run one after another); without it the free scripted binding.",
        ),
    ] = None,
    models: Annotated[Path, typer.Option("--models", help="The model pins file.")] = Path(
        "models.toml"
    ),
    max_tokens: Annotated[
        int | None,
        typer.Option(
            "--max-tokens", help="Stop before the next Trial once input+output tokens reach N."
        ),
    ] = None,
    max_tokens_per_trial: Annotated[
        int | None,
        typer.Option(
            "--max-tokens-per-trial",
            help="A token ceiling of N x the Trials planned (exclusive with --max-tokens).",
        ),
    ] = None,
    max_spend: Annotated[
        float | None,
        typer.Option(
            "--max-spend", help="Stop before the next Trial once the priced spend reaches USD."
        ),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            metavar="[PATH]",
            help="Compare with the Baseline: baselines/<model>.json, or the PATH given.",
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            help="Run N Trials at once (default: the pin's max_concurrency for a real model, "
            "else 4 on the scripted model). A ceiling then overruns by at most N-1 Trials in "
            "flight.",
        ),
    ] = None,
    executor: Annotated[
        str | None,
        typer.Option(
            "--executor",
            metavar="NAME",
            help="Run the Trials on an installed executor instead of this process: ray (the "
            "eval-executor-ray package) runs them as Ray tasks, on a local Ray instance "
            "unless --address names a cluster. The trial log, --resume and the ceilings work "
            "the same.",
        ),
    ] = None,
    address: Annotated[
        str | None,
        typer.Option(
            "--address",
            help="The executor's cluster: for ray, auto (the running cluster), "
            "ray://HOST:10001 or HOST:PORT; without it a local instance is started.",
        ),
    ] = None,
    suite: Annotated[
        str,
        typer.Option(
            "--suite",
            metavar="all",
            help="all: sweep the Corpus, then its red-team suite (corpus/red-team), one exit "
            "code; without it, the Corpus given.",
        ),
    ] = "one",
    promote: Annotated[
        bool,
        typer.Option(
            "--promote",
            help="Make this Sweep the model's Baseline (clean tree, complete, unerrored, "
            "unregressed, real model only; always the canonical path).",
        ),
    ] = False,
) -> None:
    """Run a Sweep and print the Scorecard on stdout; progress goes to stderr.

    Without --model the Case scripts answer (free, deterministic). With --model a pinned real
    model answers: a token ceiling is required; credentials, base-URL overrides and the Judge
    are checked before the first Trial; the ceiling is checked before each Trial (overrun at
    most one Trial) and a stopped Sweep never clears. Output paths are checked before the first
    Trial. Every Trial is appended to a trial log as it finishes; Ctrl-C or SIGTERM ends the
    Sweep with a partial Scorecard marked aborted, and --resume finishes it.
    """
    from eval_core.release import SweepOptions
    from eval_core.release import sweep as run

    options = SweepOptions(
        corpus=corpus,
        cases=tuple(case or ()),
        repeat=repeat,
        output_format=output_format,
        save=save,
        save_dir=save_dir,
        junit_xml=junit_xml,
        log=log,
        resume=resume,
        quiet=quiet,
        verbose=verbose,
        host=host,
        host_options=tuple(host_option or ()),
        unlocked=unlocked,
        models=tuple(n.strip() for n in model.split(",")) if model is not None else (),
        models_file=models,
        max_tokens=max_tokens,
        max_tokens_per_trial=max_tokens_per_trial,
        max_spend=max_spend,
        baseline=baseline,
        promote=promote,
        jobs=jobs,
        executor=executor,
        address=address,
    )
    if suite == "all":
        raise typer.Exit(_guarded(lambda: _both_suites(options)))
    if suite != "one":
        _refuse(f"--suite must be all (or left out), not {suite!r}")
    raise typer.Exit(_guarded(lambda: run(options)))


def _both_suites(options: SweepOptions) -> int:
    """``--suite all``: the capability Corpus, then its red-team suite; each its own Sweep,
    Scorecard and Baseline (two hashes are never one comparison), one exit code."""
    from dataclasses import replace

    from eval_core.corpus import RED_TEAM
    from eval_core.opening import Refused
    from eval_core.release import sweep as run

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


@app.command("new-plugin")
def new_plugin(
    name: Annotated[str, typer.Argument(help="The distribution name, e.g. acme-tickets.")],
    directory: Annotated[
        Path | None,
        typer.Option("--directory", "-d", help="Where to write it (default: ./NAME)."),
    ] = None,
) -> None:
    """Write a plug-in package: one kind, one Case field, tests on the testing kit, an example
    Corpus and CI, ready to install, test and sweep (see docs/plugins.md)."""
    from eval_core.scaffold import ScaffoldRefused, write

    target = directory if directory is not None else Path(name)
    try:
        written = write(name, target)
    except ScaffoldRefused as exc:
        _refuse(f"eval new-plugin: {exc}")
    except OSError as exc:
        _refuse(f"eval new-plugin: {target} could not be written: {exc.strerror or exc}")
    for path in written:
        typer.echo(f"wrote {path}")
    typer.echo(
        f"next: install it beside the harness (uv add --editable {target}, or see "
        "docs/plugins.md), then: pytest, eval plugins --check, eval lock"
    )


@app.command()
def compare(
    before: Annotated[Path, typer.Argument(help="The earlier Scorecard (or Baseline) JSON.")],
    after: Annotated[Path, typer.Argument(help="The later Scorecard (or Baseline) JSON.")],
) -> None:
    """Print the delta between two saved Scorecards; refused across Corpora or models."""
    from eval_core.release import compare as run

    raise typer.Exit(_guarded(lambda: run(before, after)))


def _optional_baseline(argv: list[str]) -> list[str]:
    """``--baseline`` with no PATH means the canonical Baseline (click cannot say optional)."""
    if "--baseline" not in argv:
        return argv
    from eval_core.release import CANONICAL

    out: list[str] = []
    for index, arg in enumerate(argv):
        out.append(arg)
        if arg == "--baseline":
            following = argv[index + 1] if index + 1 < len(argv) else None
            if following is None or following.startswith("-"):
                out.append(CANONICAL)
    return out


def _traceback_first(argv: list[str]) -> list[str]:
    """``--traceback`` belongs to ``eval`` itself; accept it after the command too."""
    if "--traceback" not in argv:
        return argv
    return ["--traceback", *(a for a in argv if a != "--traceback")]


COMMANDS = "eval.commands"
_commands_added: list[bool] = []  # once per process (tests call main() more than once)


def add_commands() -> None:
    """Let each command plug-in (entry-point group ``eval.commands``) add its sub-commands;
    a broken one is one line naming its distribution and entry point, exit 2. Its hook is
    guarded like a family's (:mod:`eval_core.guard`): one that raises, or a hookimpl no
    hookspec declares, is one line naming the distribution, its version and the line."""
    if _commands_added:
        return
    _commands_added.append(True)
    import pluggy

    from eval_core import hookspecs
    from eval_core.entrypoints import entry_points

    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    versions: dict[str, tuple[str, str]] = {}
    for ep in entry_points(COMMANDS):
        dist = ep.distribution
        name = f"{dist}:{ep.name}"
        versions[name] = (dist, ep.version)
        try:
            manager.register(ep.load(), name=name)
        except Exception as exc:
            sys.stderr.write(
                f"eval: command plug-in {dist} is broken: entry point {ep.name!r} ({ep.value}) "
                f"failed to load: {type(exc).__name__}: {exc}\n"
            )
            raise SystemExit(REFUSED) from None
    for hook in vars(manager.hook).values():  # pluggy's check_pending, said per plug-in
        if isinstance(hook, pluggy.HookCaller) and not hook.has_spec():
            impl = hook.get_hookimpls()[0]
            dist, version = versions.get(impl.plugin_name, (impl.plugin_name, "(no version)"))
            sys.stderr.write(
                f"eval: command plug-in {dist} {version} is refused: it implements "
                f"{hook.name!r}, which is not a hook (eval_commands is)\n"
            )
            raise SystemExit(REFUSED)
    for impl in manager.hook.eval_commands.get_hookimpls():
        try:
            impl.function(**{arg: app for arg in impl.argnames})
        except Exception as exc:
            from eval_core.code import code_roots
            from eval_core.guard import Origin, fault

            dist, version = versions.get(impl.plugin_name, (impl.plugin_name, "(no version)"))
            origin = Origin(dist, version, code_roots(impl.plugin))
            sys.stderr.write(f"eval: {fault(origin, 'eval_commands', exc, impl.function)}\n")
            raise SystemExit(REFUSED) from None


def main() -> None:
    """Run the CLI; a usage mistake (unknown flag, bad value) is one line on stderr, exit 2."""
    import click

    argv = _traceback_first(_optional_baseline(sys.argv[1:]))
    if argv[:1] == ["--traceback"]:  # before command plug-ins load: their faults show it too
        from eval_core.guard import show_tracebacks

        show_tracebacks()
    add_commands()
    try:
        code = app(args=argv, prog_name="eval", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError:
        raise SystemExit(REFUSED) from None  # the help is already on stdout
    except click.UsageError as exc:
        from eval_core.safe_text import clean

        command = exc.ctx.command_path if exc.ctx is not None else "eval"
        hint = f" (see {command} --help)"
        sys.stderr.write(clean(f"{command}: {exc.format_message()}{hint}").replace("\n", " "))
        sys.stderr.write("\n")
        raise SystemExit(REFUSED) from None
    except click.ClickException as exc:
        sys.stderr.write(f"eval: {exc.format_message()}\n")
        raise SystemExit(exc.exit_code) from None
    except (click.Abort, KeyboardInterrupt):
        sys.stderr.write("eval: interrupted\n")
        raise SystemExit(130) from None
    raise SystemExit(code if isinstance(code, int) else 0)
