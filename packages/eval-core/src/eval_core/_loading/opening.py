"""Opening a Corpus for a command: the plug-in set, the lock, the Host, the loaded Corpus.

Each step either succeeds or is a :class:`Refused` naming what and why; the CLI prints the
message and exits with its code, never a traceback for a user's mistake.
"""

from __future__ import annotations

import importlib
import inspect
import os
import stat
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

import msgspec

from eval_core._loading.corpus import Corpus, CorpusError, corpus_root, find_soul
from eval_core._loading.loader import Loader
from eval_core._plugins.host import Host, HostFactory, HostOptionError, agents_owned
from eval_core._plugins.host_answers import closed
from eval_core._plugins.plugin_set import PluginSet
from eval_core._plugins.plugins import PluginError, load_plugins
from eval_core._util.guard import PluginFault
from eval_core._util.project import Project, SettingsRefused
from eval_core._util.safe_text import clean, said

REFUSED, COMPARISON_REFUSED = 2, 3


class Refused(Exception):  # noqa: N818 - it names an outcome
    """A refusal with its exit code: 2 for input or usage, 3 for a comparison."""

    def __init__(self, message: str, code: int = REFUSED) -> None:
        super().__init__(message)
        self.code = code


def plugins(corpus: Path | None = None) -> PluginSet:
    """The plug-in set; for a ``corpus``, with only the plug-ins its Cases use imported (and
    the code its lock pins known from its bytes: see :func:`eval_core._plugins.lock.seed`)."""
    if corpus is not None:
        from eval_core._plugins import lock

        lock.seed(corpus_root(corpus) / lock.LOCK_NAME)
    try:
        return load_plugins(corpus)
    except PluginError as exc:
        raise Refused(f"plug-in set refused: {exc}") from None


def pinned(found: PluginSet, corpus: Path, unlocked: bool, host: str | None = None) -> bool:
    """Refuse a plug-in set that differs from eval.lock (as pinned for ``host``: see
    :func:`eval_core._plugins.lock.current`); True when running unlocked."""
    from eval_core._plugins import lock

    path = corpus_root(corpus) / lock.LOCK_NAME
    try:
        diffs = lock.differences(lock.read(path), lock.current(found, host))
    except lock.LockError as exc:
        diffs = [str(exc)]
    if not diffs:
        return False
    if unlocked:
        sys.stderr.write(f"UNLOCKED  running with plug-ins that differ from {path}\n")
        return True
    raise Refused(
        f"the installed plug-ins differ from {path}:\n"
        + "\n".join(f"  - {d}" for d in diffs)
        + "\neach line says its next step; --unlocked runs anyway (the Scorecard records it)"
    )


def locked_owners(corpus: Path) -> dict[str, str]:
    """Which distribution eval.lock says owns each kind and field (empty without a lock)."""
    from eval_core._plugins import lock

    try:
        return lock.owners(lock.read(corpus_root(corpus) / lock.LOCK_NAME))
    except lock.LockError:
        return {}


def known_host(found: PluginSet, name: str) -> None:
    """Refuse a Host no installed plug-in offers (before the lock, which is read for it)."""
    if name not in found.hosts:
        known = ", ".join(sorted(found.hosts)) or "none installed"
        raise Refused(f"unknown Host {name!r}; installed Hosts: {known}")


def host(
    found: PluginSet, name: str, corpus: Path, options: Mapping[str, str] | None = None
) -> Host:
    known_host(found, name)
    factory = found.hosts[name]
    start = host_directory(factory, corpus)
    if start is None:
        raise Refused(
            f"{corpus}: no Eval Soul: expected soul/ in the Corpus directory or beside it "
            f"(the Host {name!r} runs the Soul's agents)"
        )
    options = dict(options or {})
    _takes(factory, name, start, options)
    try:
        return _built(factory, name, start, options)
    except HostOptionError as exc:
        raise Refused(f"the Host {name!r} refused its options: {said(exc)}") from None
    except Exception as exc:
        what = "its agents" if agents_owned(factory) else "the Eval Soul"
        raise Refused(f"{start}: the Host {name!r} cannot load {what}: {said(exc)}") from None


LOAD_SECONDS = 120.0
"""How long a Host that runs the team's code may take to load it (``EVAL_HOST_LOAD_SECONDS``)."""


def _built(factory: HostFactory, name: str, start: Path, options: Mapping[str, str]) -> Host:
    """The Host, built by its factory. A Host that owns its agents imports the team's app and
    runs its builders while it is built: that runs on a thread of its own under a deadline, so
    a hang there is a refusal in one line, not a command that never ends (the thread cannot be
    stopped; it is a daemon and dies with the process). The Host's own framework (the modules
    its factory names in ``framework``) is imported first, before the clock starts: the deadline
    bounds the team's code, not a second of LangGraph's import on a busy machine."""
    if not agents_owned(factory):
        return factory(start, **options)
    for module in getattr(factory, "framework", ()):
        importlib.import_module(module)
    seconds = load_seconds()
    built: list[Host] = []
    raised: list[BaseException] = []

    def build() -> None:
        try:
            built.append(factory(start, **options))
        except BaseException as exc:  # re-raised below, on the command's own thread
            raised.append(exc)

    worker = threading.Thread(target=build, name=f"eval-host-load-{name}", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise Refused(
            f"{start}: the Host {name!r} did not load its agents within {seconds:g} s: the "
            "team's app hangs at import or in a builder (EVAL_HOST_LOAD_SECONDS sets the bound)"
        )
    if raised:
        raise raised[0]
    return built[0]


def load_seconds() -> float:
    """How long a Host may take to load the team's code (``EVAL_HOST_LOAD_SECONDS``, else
    120 s); a Host that loads more of it later (a Process Host's zygote) is held to the same."""
    given = os.environ.get("EVAL_HOST_LOAD_SECONDS", "")
    try:
        seconds = float(given) if given else LOAD_SECONDS
    except ValueError:
        raise Refused(
            f"EVAL_HOST_LOAD_SECONDS must be a number of seconds, not {given!r}"
        ) from None
    if not 0 < seconds < 1e6:
        raise Refused(f"EVAL_HOST_LOAD_SECONDS must be between 0 and 1e6, not {given!r}")
    return seconds


def host_directory(factory: HostFactory, corpus: Path) -> Path | None:
    """What the Host's factory is called with: the Eval Soul (``None`` when there is none);
    for a Host that owns its agents, the Corpus's root (where eval.lock is), Soul or not."""
    if agents_owned(factory):
        return corpus_root(corpus)
    return find_soul(corpus)


def declared_options(factory: HostFactory) -> frozenset[str]:
    """The options a Host's factory takes: its keyword-only parameters."""
    parameters = inspect.signature(factory).parameters.values()
    return frozenset(p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY)


def settled_options(
    found: PluginSet, name: str, given: Mapping[str, str] | None, project: Project | None
) -> dict[str, str]:
    """The Host's options: those ``[tool.eval]`` gives it, then the ``--host-option`` flags
    (a flag wins); a setting the Host does not take is refused naming the file and the key."""
    options = dict(given or {})
    if project is None or project.file is None:
        return options
    try:
        settled = project.host_options(name, declared_options(found.hosts[name]))
    except SettingsRefused as exc:
        raise Refused(f"settings refused: {exc}") from None
    return {**settled, **options}


def _takes(factory: HostFactory, name: str, soul: Path, options: Mapping[str, str]) -> None:
    """Refuse an option the Host's factory does not declare, before anything is built."""
    if not options:
        return
    try:
        inspect.signature(factory).bind(soul, **options)
    except TypeError:
        takes = sorted(declared_options(factory))
        unknown = sorted(set(options) - set(takes))
        offered = ", ".join(takes) or "none"
        raise Refused(
            f"the Host {name!r} takes no option {', '.join(map(repr, unknown))}; "
            f"its options: {offered}"
        ) from None


def host_options(pairs: tuple[str, ...]) -> dict[str, str]:
    """``KEY=VALUE`` settings for the Host; a pair without ``=`` or a repeated key is refused."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise Refused(f"--host-option {pair.split('=')[0]!r}: expected KEY=VALUE")
        if key in options:
            raise Refused(f"--host-option {key!r} given twice")
        options[key] = value
    return options


def load(found: PluginSet, the_host: Host, corpus: Path, *, needs_soul: bool = True) -> Corpus:
    try:
        loader = Loader(found, the_host, locked=locked_owners(corpus), needs_soul=needs_soul)
        return loader.load(corpus)
    except (CorpusError, PluginFault) as exc:  # a fault: the Host's load-time answers
        raise Refused(str(exc)) from None


class Opened(msgspec.Struct, frozen=True):
    plugins: PluginSet
    host: Host
    corpus: Corpus
    unlocked: bool
    host_options: dict[str, str] = msgspec.field(default_factory=dict)
    """The options the Host was made with (settings and flags): a worker makes it again so."""

    def close(self) -> None:
        """Close the Host: one whose ``close`` raises is a refusal in one line, not a traceback."""
        failed = closed(self.host)
        if failed is not None:
            raise Refused(failed)


def require_directory(corpus: Path) -> None:
    """A Corpus is a directory: a file, a missing path or anything else is refused up front
    (a path the system cannot even look up, such as one past PATH_MAX, with its reason)."""
    try:
        mode = os.stat(corpus).st_mode
    except FileNotFoundError:
        mode = None
    except (OSError, ValueError) as exc:
        reason = f"cannot be read: {getattr(exc, 'strerror', None) or exc}"
        raise Refused(f"Corpus refused: {corpus}: $: {reason}") from None
    if mode is not None and stat.S_ISDIR(mode):
        return
    if mode is not None or os.path.lexists(corpus):
        what = "a file" if mode is not None and stat.S_ISREG(mode) else "not a directory"
        reason = f"{what}: a Corpus is a directory of Case files"
    else:
        reason = "no such Corpus directory"
    raise Refused(f"Corpus refused: {corpus}: $: {reason}")


def open_corpus(
    corpus: Path,
    host_name: str,
    unlocked: bool,
    *,
    check_lock: bool = True,
    found: PluginSet | None = None,
    host_options: Mapping[str, str] | None = None,
    project: Project | None = None,
) -> Opened:
    """The Corpus opened for a command; ``found`` is the plug-in set when already loaded,
    ``host_options`` the ``--host-option`` settings for the Host's factory, ``project`` the
    settings found (:mod:`eval_core._util.project`), whose Host options the flags override."""
    require_directory(corpus)
    found = found if found is not None else plugins(corpus)
    known_host(found, host_name)
    options = settled_options(found, host_name, host_options, project)
    is_unlocked = pinned(found, corpus, unlocked, host_name) if check_lock else False
    the_host = host(found, host_name, corpus, options)
    try:
        loaded = load(found, the_host, corpus, needs_soul=not agents_owned(found.hosts[host_name]))
    except Refused:
        closed(the_host)  # the refusal is what is said; a Host failing to close adds nothing
        raise
    for note in loaded.notes:  # said on every command, beside the UNLOCKED line
        sys.stderr.write(f"NOTE  {clean(note)}\n")
    return Opened(found, the_host, loaded, is_unlocked, options)
