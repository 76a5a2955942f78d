"""The `eval` command line. Imports are lazy so `eval --help` answers at once.

Exit codes: 0 cleared (or the command succeeded); 1 not cleared; 2 refused input or bad usage
(a malformed Corpus, a broken or unpinned plug-in set, an unknown flag, a preflight refusal);
3 a comparison refused (different corpusHash or model: no delta is computed).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

if TYPE_CHECKING:
    from eval_core.corpus import Corpus
    from eval_core.host import Host
    from eval_core.plugins import PluginSet

CLEARED, NOT_CLEARED, REFUSED, COMPARISON_REFUSED = 0, 1, 2, 3

EXIT_CODES = """Exit codes: 0 cleared; 1 not cleared (a NOT CLEARED block names each reason);
2 refused input or bad usage (malformed Corpus, broken or unpinned plug-ins, unknown flag,
a bad models file or ceiling, a preflight refusal: credential, base-URL override, Judge);
3 comparison refused (different corpusHash or model: no delta computed)."""

app = typer.Typer(
    name="eval",
    help="Offline eval harness for tool-using LLM agents.\n\n" + EXIT_CODES,
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)

CorpusArg = Annotated[
    Path, typer.Argument(help="The Corpus directory (red-team: corpus/red-team).")
]
HostOpt = Annotated[str, typer.Option("--host", help="The Host (system under test) by name.")]
UnlockedOpt = Annotated[
    bool,
    typer.Option("--unlocked", help="Run even if the installed plug-ins differ from eval.lock."),
]


def _refuse(message: str, code: int = REFUSED) -> NoReturn:
    sys.stderr.write(message.rstrip("\n") + "\n")
    raise typer.Exit(code)


def _plugins() -> PluginSet:
    from eval_core.plugins import PluginError, load_plugins

    try:
        return load_plugins()
    except PluginError as exc:
        _refuse(f"plug-in set refused: {exc}")


def _host(plugins: PluginSet, name: str, corpus: Path) -> Host:
    from eval_core.corpus import find_soul

    factory = plugins.hosts.get(name)
    if factory is None:
        known = ", ".join(sorted(plugins.hosts)) or "none installed"
        _refuse(f"unknown Host {name!r}; installed Hosts: {known}")
    soul = find_soul(corpus)
    if soul is None:
        _refuse(f"{corpus}: no Eval Soul: expected soul/ in the Corpus directory or beside it")
    try:
        return factory(soul)
    except Exception as exc:
        _refuse(f"{soul}: the Host {name!r} cannot load the Eval Soul: {exc}")


def _pinned(plugins: PluginSet, corpus: Path, unlocked: bool) -> bool:
    """Refuse an installed plug-in set that differs from eval.lock; True when run unlocked."""
    from eval_core import lock
    from eval_core.corpus import corpus_root

    path = corpus_root(corpus) / lock.LOCK_NAME
    try:
        diffs = lock.differences(lock.read(path), lock.current(plugins))
    except lock.LockError as exc:
        diffs = [str(exc)]
    if not diffs:
        return False
    if unlocked:
        sys.stderr.write(f"UNLOCKED  running with plug-ins that differ from {path}\n")
        return True
    _refuse(
        f"the installed plug-ins differ from {path}:\n"
        + "\n".join(f"  - {d}" for d in diffs)
        + "\nrun `eval lock` to pin them, or pass --unlocked"
    )


def _load(plugins: PluginSet, host: Host, corpus: Path) -> Corpus:
    from eval_core.corpus import CorpusError, Loader

    try:
        return Loader(plugins, host).load(corpus)
    except CorpusError as exc:
        _refuse(str(exc))


@app.command()
def check(
    corpus: CorpusArg = Path("corpus"),
    host: HostOpt = "agent-runtime",
    unlocked: UnlockedOpt = False,
) -> None:
    """Load and validate a Corpus; print its Cases per tier and its corpusHash."""
    plugins = _plugins()
    is_unlocked = _pinned(plugins, corpus, unlocked)
    the_host = _host(plugins, host, corpus)
    loaded = _load(plugins, the_host, corpus)
    tiers = "  ".join(f"{tier}={n}" for tier, n in loaded.tiers().items())
    typer.echo(f"{len(loaded.cases)} Cases  {tiers}  suite={loaded.suite}")
    typer.echo(f"corpusHash {loaded.hash}" + ("  (unlocked)" if is_unlocked else ""))


@app.command("hash")
def hash_(
    corpus: CorpusArg = Path("corpus"),
    host: HostOpt = "agent-runtime",
) -> None:
    """Print the corpusHash (sha256) of a Corpus, and nothing else."""
    plugins = _plugins()
    typer.echo(_load(plugins, _host(plugins, host, corpus), corpus).hash)


@app.command()
def plugins() -> None:
    """List installed plug-ins: distribution, version, kinds with their tiers, Case fields."""
    from eval_core.case import json_name

    found = _plugins()
    for info in found.plugins:
        typer.echo(f"{info.distribution} {info.version}  [{info.entry_point}]")
        for kind in info.kinds:
            tiers = "/".join(sorted(found.kinds[kind].tiers))
            typer.echo(f"    kind   {kind}  ({tiers})")
        for name in info.fields:
            tiers = "/".join(sorted(found.fields[name].tiers))
            typer.echo(f"    field  {json_name(name)}  ({tiers})")
    if found.hosts:
        typer.echo("hosts: " + ", ".join(sorted(found.hosts)))


@app.command("lock")
def lock_(corpus: CorpusArg = Path("corpus")) -> None:
    """Pin the installed plug-in set in <corpus>/eval.lock."""
    from eval_core import lock
    from eval_core.corpus import corpus_root

    path = corpus_root(corpus) / lock.LOCK_NAME
    written = lock.write(path, _plugins())
    typer.echo(f"locked {len(written.plugins)} plug-ins -> {path}")


@app.command()
def schema(
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")
    ] = None,
) -> None:
    """Print the JSON Schema of a Case for the installed plug-in set."""
    from eval_core.atomic import write_atomic
    from eval_core.schema import render

    data = render(_plugins())
    if output is None:
        sys.stdout.buffer.write(data)
    else:
        write_atomic(output, data)
        typer.echo(f"wrote {output}")


@app.command()
def sweep(
    corpus: CorpusArg = Path("corpus"),
    case: Annotated[
        list[str] | None, typer.Option("--case", help="Run only this Case (repeatable).")
    ] = None,
    repeat: Annotated[
        int, typer.Option("--repeat", min=1, help="Run every Case N times: the noise floor.")
    ] = 1,
    output_format: Annotated[
        str, typer.Option("--format", help="Scorecard on stdout: text or json.")
    ] = "text",
    save: Annotated[
        Path | None, typer.Option("--save", help="Also write the Scorecard JSON here (atomic).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
    host: HostOpt = "agent-runtime",
    unlocked: UnlockedOpt = False,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="A pinned model by name (see --models); without it the free scripted binding.",
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
            help="A token ceiling of N × the Trials planned (exclusive with --max-tokens).",
        ),
    ] = None,
    max_spend: Annotated[
        float | None,
        typer.Option(
            "--max-spend", help="Stop before the next Trial once the priced spend reaches USD."
        ),
    ] = None,
) -> None:
    """Run a Sweep and print the Scorecard on stdout.

    Without --model the Case scripts answer (free, deterministic). With --model a pinned real
    model answers: a token ceiling (--max-tokens or --max-tokens-per-trial) is required, and
    the credential, base-URL overrides and the Judge are checked before the first Trial. A
    ceiling is checked before each Trial (overrun at most one Trial); a stopped Sweep never
    clears. Progress goes to stderr; stdout carries only the Scorecard.
    """
    from eval_core import preflight
    from eval_core.atomic import write_atomic
    from eval_core.judge import Judge, install
    from eval_core.pins import ModelPin, PinError, select_pin
    from eval_core.progress import Progress
    from eval_core.provenance import harness_version
    from eval_core.render import render_text
    from eval_core.runner import SelectionError, plan, run_sweep
    from eval_core.scorecard import encode_json, not_cleared
    from eval_core.scripted import ScriptedBinding
    from eval_core.spend import Ceiling, CeilingError, positive, settle

    if output_format not in ("text", "json"):
        _refuse(f"--format must be text or json, not {output_format!r}")
    try:
        if max_tokens is not None and max_tokens_per_trial is not None:
            raise CeilingError("--max-tokens and --max-tokens-per-trial are mutually exclusive")
        positive("--max-tokens", max_tokens)
        positive("--max-tokens-per-trial", max_tokens_per_trial)
        positive("--max-spend", max_spend)
    except CeilingError as exc:
        _refuse(str(exc))
    pin: ModelPin | None = None
    api_key = ""
    try:
        if model is not None:
            names = [n.strip() for n in model.split(",") if n.strip()]
            if len(names) != 1:
                _refuse(
                    f"--model {model!r}: name exactly one pinned model (a Matrix of several "
                    "models is not supported yet)"
                )
            pin = select_pin(models, names[0])
            if max_tokens is None and max_tokens_per_trial is None:
                _refuse(
                    f"--model {pin.name} is a real model: pass a token ceiling, "
                    "--max-tokens N or --max-tokens-per-trial N"
                )
            preflight.no_overrides()
            api_key = preflight.credential(pin.credential_env)
        judge_config = preflight.judge([pin] if pin is not None else [])
    except PinError as exc:
        _refuse(f"models refused: {exc}")
    except preflight.PreflightError as exc:
        _refuse(f"preflight refused: {exc}")
    plugins = _plugins()
    is_unlocked = _pinned(plugins, corpus, unlocked)
    the_host = _host(plugins, host, corpus)
    loaded = _load(plugins, the_host, corpus)
    try:
        planned = len(plan(loaded, case or (), repeat))
    except SelectionError as exc:
        the_host.close()
        _refuse(str(exc))
    ceiling = Ceiling.from_flags(
        max_tokens=max_tokens,
        max_tokens_per_trial=max_tokens_per_trial,
        max_spend=max_spend,
        planned=planned,
    )
    judge = Judge(judge_config) if judge_config is not None else None
    install(judge)
    progress = Progress(quiet=quiet)
    if judge is not None and judge.config.shares_model_under_test:
        progress.note(
            f"WARN  {preflight.JUDGE_SHARE_OPT_IN}=1: the Judge is the model under test "
            "(smoke tests only; such a Sweep measures nothing a release can rely on)"
        )
    binding: Any = ScriptedBinding()
    if pin is not None:
        from eval_core.endpoint import EndpointBinding

        binding = EndpointBinding(pin, api_key)
        progress.note(
            f"Sweep  model={pin.name} ({pin.wire} {pin.model})  {planned} Trials planned  "
            f"ceiling {ceiling.max_tokens} tokens"
            + (f", ${ceiling.max_spend_usd:g}" if ceiling.max_spend_usd is not None else "")
        )
    ceilinged = pin is not None or max_tokens or max_tokens_per_trial or max_spend
    try:
        card = run_sweep(
            loaded,
            the_host,
            binding,
            plugins,
            select=case or (),
            repeat=repeat,
            harness_version=harness_version(),
            unlocked=is_unlocked,
            on_trial=progress.trial,
            should_stop=ceiling.guard(pin) if ceilinged else None,
        )
        if card.aborted_reason:
            progress.note(f"stopped early: {card.aborted_reason}")
    finally:
        progress.close()
        the_host.close()
        if pin is not None:
            binding.close()
        install(None)
    if pin is not None:
        settle(card, pin)
        card.model_dated = pin.dated
        card.effort = pin.effort
        card.model_version = next((t.model_version for t in card.trials if t.model_version), None)
    if judge is not None and judge.calls:
        u = judge.usage
        sys.stderr.write(
            f"Judge  {judge.identity}  {judge.calls} calls  {u.input_tokens} in  "
            f"{u.output_tokens} out  (not in the Scorecard's Spend)\n"
        )
    data = encode_json(card)
    text = render_text(card)
    if api_key:  # defence in depth: the key was never meant to reach here
        data = data.replace(api_key.encode(), b"[credential redacted]")
        text = text.replace(api_key, "[credential redacted]")
    if save is not None:
        write_atomic(save, data)
    if output_format == "json":
        sys.stdout.buffer.write(data)
    else:
        sys.stdout.write(text)
    sys.stdout.flush()
    raise typer.Exit(NOT_CLEARED if not_cleared(card) else CLEARED)


def main() -> None:
    app()
