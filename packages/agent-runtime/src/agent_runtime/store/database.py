"""The runtime's view of a database connection: what SQLite and PostgreSQL both offer.

Every store module is written against :class:`Connection`: ``execute`` with ``?`` placeholders,
rows as tuples, ``rowcount``, ``in_transaction`` and explicit ``BEGIN``/``COMMIT`` statements.
That is the standard library's ``sqlite3`` API as it is, and what the PostgreSQL connection
(:mod:`agent_runtime.store.postgres`) translates to, so one statement serves both dialects. The few
statements whose locking differs ask the connection for its ``dialect``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, Literal, Protocol

Dialect = Literal["sqlite", "postgresql"]

_TYPES: dict[Dialect, dict[str, str]] = {"sqlite": {}, "postgresql": {"BLOB": "BYTEA"}}


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """One connection in autocommit mode; transactions are opened with explicit statements."""

    @property
    def dialect(self) -> Dialect: ...

    @property
    def in_transaction(self) -> bool: ...

    @property
    def transaction(self) -> object | None:
        """The current transaction, as an object that is the same for as long as it lasts, or
        ``None`` where the connection cannot tell (a write that fenced once in a transaction
        need not fence again in it)."""
        ...

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Cursor: ...

    def close(self) -> None: ...


def skip_locked(conn: Connection) -> str:
    """The row lock a claim takes on the row it is about to change.

    On PostgreSQL a claimer skips a row another transaction holds (it is being claimed or
    written right now), so it is refused at once instead of queueing behind that worker; SQLite
    has one writer at a time, so its claims are already serialized.
    """
    return " FOR UPDATE SKIP LOCKED" if conn.dialect == "postgresql" else ""


def ddl_for(dialect: Dialect, ddl: str) -> str:
    """A migration's DDL in the dialect's own type names (written once, in SQLite's)."""
    for written, spoken in _TYPES[dialect].items():
        ddl = re.sub(rf"\b{written}\b", spoken, ddl)
    return ddl
