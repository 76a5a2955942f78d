"""The team's project: its root, and its settings in the ``[tool.eval]`` table of its
``pyproject.toml`` (docs/settings.md).

Found the way pytest finds its rootdir: from the Corpus named on the command line (else the
working directory) upwards, the nearest ``pyproject.toml`` that has a ``[tool.eval]`` table. Two
rules keep a file someone else wrote from steering ``eval`` (its ``app`` names code that is
imported and run): the walk never goes above the root of the git repository that holds the
start (a file above it is outside the team's tree), and a file is trusted only when it is owned
by the user running ``eval``, as git trusts a repository; a directory named in
``EVAL_SAFE_DIRECTORIES`` (``os.pathsep``-separated, ``*`` for any) is trusted whoever owns it.
A ``pyproject.toml`` without the table is passed over, as pytest passes it over.

The project's root is the directory of that file; without one, the root of the git repository
holding the start, else the working directory. Every output lands under it by default, and the
relative paths in the table resolve against it. The file is read by the bounded reader
(:mod:`eval_core._util.input_files`); a malformed file, a key of the wrong type and an unknown
key are each one :class:`SettingsRefused` naming the file, the key path and the reason.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import msgspec

from eval_core._util.input_files import NotReadable, read_with_status

PYPROJECT = "pyproject.toml"
TABLE = "tool.eval"
SAFE_DIRECTORIES = "EVAL_SAFE_DIRECTORIES"
MAX_SETTINGS_BYTES = 1 << 20
"""A ``pyproject.toml`` larger than this (1 MiB) is refused before it is read."""

PATHS = ("corpus", "models", "baselines", "outputs")
KEYS = (*PATHS, "host", "app", "host-options", "pythonpath")
"""The keys the core reads; any other key must be an option of the chosen Host."""

DEFAULTS = {"corpus": "corpus", "models": "models.toml", "baselines": "baselines"}
OUTPUTS = "scorecards"
"""The outputs folder by default: trial logs in its ``trials/``, the report beside them."""


class SettingsRefused(Exception):  # noqa: N818 - it names an outcome
    """The settings cannot be used: ``file``, the key path (``tool.eval.corpus``), the reason."""

    def __init__(self, file: Path, key: str, reason: str) -> None:
        super().__init__(f"{file}: {key}: {reason}")
        self.file = file
        self.key = key
        self.reason = reason


class Project(msgspec.Struct, frozen=True, kw_only=True):
    """The project a command runs for: its ``root``, the settings ``file`` (``None`` without
    one) and its settings, relative paths already resolved against ``root``."""

    root: Path
    file: Path | None = None
    corpus: Path | None = None
    host: str | None = None
    models: Path | None = None
    baselines: Path | None = None
    outputs: Path | None = None
    pythonpath: tuple[Path, ...] = ()
    table: dict[str, Any] = msgspec.field(default_factory=dict)
    """The ``[tool.eval]`` table as written (a Host reads its own keys from it)."""

    def path(self, key: str) -> Path:
        """The setting ``key`` (corpus, models, baselines, outputs), else its default under
        the root (shown relative when the root is the working directory)."""
        value: Path | None = getattr(self, key)
        if value is not None:
            return value
        default = Path(DEFAULTS.get(key, OUTPUTS))
        return default if is_cwd(self.root) else self.root / default

    def host_options(self, host: str, declared: Collection[str]) -> dict[str, str]:
        """The options the settings give the Host ``host``, whose factory ``declared`` these
        keyword options: ``app``, the ``host-options`` table, and any other key of the table
        the Host declares (the framework Hosts' ``request_limit`` and friends). An unknown key
        is refused with a did-you-mean; a Host option the Host does not take, by name."""
        if self.file is None:
            return {}
        found: dict[str, str] = {}
        table = self.table.get("host-options", {})
        for key, value in table.items():
            found[key] = self._option(f"host-options.{key}", value, host, declared)
        for key, value in self.table.items():
            if key in KEYS and key != "app":
                continue
            if key != "app" and key not in declared:
                import difflib  # only for the refusal's hint

                near = difflib.get_close_matches(key, [*KEYS, *sorted(declared)], n=1)
                hint = f" (did you mean {near[0]!r}?)" if near else ""
                known = ", ".join([*KEYS, *sorted(declared)])
                raise SettingsRefused(
                    self.file,
                    f"{TABLE}.{key}",
                    f"unknown key{hint}; the keys: {known} (the last ones are options of the "
                    f"Host {host!r})",
                )
            if key in found:
                raise SettingsRefused(
                    self.file,
                    f"{TABLE}.{key}",
                    f"given twice: also as {TABLE}.host-options.{key}; keep one",
                )
            found[key] = self._option(key, value, host, declared)
        return found

    def _option(self, key: str, value: Any, host: str, declared: Collection[str]) -> str:
        assert self.file is not None
        name = key.rpartition(".")[2]
        if name not in declared:
            offered = ", ".join(sorted(declared)) or "none"
            raise SettingsRefused(
                self.file,
                f"{TABLE}.{key}",
                f"the Host {host!r} takes no option {name!r}; its options: {offered}",
            )
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str | int | float):
            return str(value)
        raise SettingsRefused(
            self.file,
            f"{TABLE}.{key}",
            f"expected a string or a number (a Host option), got {_type(value)}",
        )


def find_project(start: Path | None = None) -> Project:
    """The project holding ``start`` (default: the working directory); see the module."""
    here = Path(os.path.abspath(start if start is not None else "."))
    for directory in (here, *here.parents):
        candidate = directory / PYPROJECT
        table = _table(candidate) if os.path.lexists(candidate) else None
        if table is not None:
            return _settings(directory, candidate, table)
        if os.path.lexists(directory / ".git"):
            return Project(root=directory)  # the repository's root: never above it
    return Project(root=Path(os.path.abspath(".")))


def _table(path: Path) -> dict[str, Any] | None:
    """The ``[tool.eval]`` table of ``path``, ``None`` when it has none (or is not ours to
    read: a file someone else owns that has no such table is passed over)."""
    try:
        data, status = read_with_status(path, MAX_SETTINGS_BYTES)
    except NotReadable as exc:
        raise SettingsRefused(path, "$", str(exc)) from None
    trusted = _trusted(path, status.st_uid)
    import tomllib  # here, not at the top: a command with no pyproject.toml never loads it

    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        if not trusted:
            return None
        raise SettingsRefused(path, "$", f"not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        if not trusted:
            return None
        raise SettingsRefused(path, "$", f"not valid TOML: {exc}") from None
    except RecursionError:
        if not trusted:
            return None
        raise SettingsRefused(path, "$", "nested too deeply to read") from None
    tool = document.get("tool")
    table = tool.get("eval") if isinstance(tool, dict) else None
    if table is None:
        return None
    if not trusted:
        raise SettingsRefused(path, TABLE, _untrusted(path, status.st_uid))
    if not isinstance(table, dict):
        raise SettingsRefused(path, TABLE, f"expected a table, got {_type(table)}")
    return table


def _trusted(path: Path, owner: int) -> bool:
    """Owned by the user running ``eval`` (as git asks of a repository), or in a directory
    ``EVAL_SAFE_DIRECTORIES`` names; always, where the system has no user ids."""
    me = getattr(os, "geteuid", None)
    if me is None or owner == me():
        return True
    safe = [entry for entry in os.environ.get(SAFE_DIRECTORIES, "").split(os.pathsep) if entry]
    if "*" in safe:
        return True
    folder = path.parent.resolve()
    return any(Path(os.path.abspath(entry)).resolve() == folder for entry in safe)


def _untrusted(path: Path, owner: int) -> str:
    me = os.geteuid()
    return (
        f"owned by uid {owner}, not by you (uid {me}): its settings name code eval would "
        f"import and run, so it is not read; if you trust it, mark its directory safe: "
        f"{SAFE_DIRECTORIES}={path.parent.resolve()}"
    )


def _settings(root: Path, file: Path, table: Mapping[str, Any]) -> Project:
    """The table's core keys checked and resolved (Host keys are checked with the Host)."""
    found: dict[str, Any] = {}
    for key in PATHS:
        if key in table:
            found[key] = root / _text(file, key, table[key], "a path")
    if "host" in table:
        found["host"] = _text(file, "host", table["host"], "a Host's name")
    if "app" in table:
        _text(file, "app", table["app"], "package.module:NAME")
    options = table.get("host-options", {})
    if not isinstance(options, dict):
        raise SettingsRefused(
            file, f"{TABLE}.host-options", f"expected a table of Host options, got {_type(options)}"
        )
    for key in options:
        if not key.isidentifier():
            raise SettingsRefused(
                file, f"{TABLE}.host-options.{key}", "not an option name (letters, digits, _)"
            )
    if "app" in table and "app" in options:
        raise SettingsRefused(
            file, f"{TABLE}.host-options.app", f"given twice: also as {TABLE}.app; keep one"
        )
    entries = table.get("pythonpath", [])
    if not isinstance(entries, list) or not all(isinstance(e, str) and e for e in entries):
        raise SettingsRefused(
            file, f"{TABLE}.pythonpath", f"expected a list of folders, got {_type(entries)}"
        )
    found["pythonpath"] = tuple(Path(os.path.normpath(root / entry)) for entry in entries)
    return Project(root=root, file=file, table=dict(table), **found)


def _text(file: Path, key: str, value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        got = "an empty string" if isinstance(value, str) else _type(value)
        raise SettingsRefused(file, f"{TABLE}.{key}", f"expected {what} (a string), got {got}")
    return value


_TOML_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "a boolean"),  # before int: a bool is an int
    (int, "an integer"),
    (float, "a float"),
    (str, "a string"),
    (list, "an array"),
    (dict, "a table"),
)


def _type(value: Any) -> str:
    """A TOML value's type, in TOML's words."""
    return next((name for kind, name in _TOML_TYPES if isinstance(value, kind)), "a date or time")


def is_cwd(directory: Path) -> bool:
    try:
        return os.path.samefile(directory, ".")
    except OSError:
        return False
