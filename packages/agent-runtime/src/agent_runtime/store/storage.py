"""The runtime's durable store: its migrations, its transactions, and fresh databases on demand.

The embedded default is the standard library's ``sqlite3``; PostgreSQL
(:mod:`agent_runtime.store.postgres`) runs the same statements. The SQL is kept portable (no
AUTOINCREMENT, no dialect-only types or functions; sequence numbers are assigned by the writer),
and a migration is written once: :func:`agent_runtime.store.database.ddl_for` renames the one type
that differs (``BLOB``). Migrations are numbered and recorded in ``schema_migrations``;
:func:`migrate` applies the ones a database lacks.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, cast

from agent_runtime.files.store import DDL as FILES_DDL
from agent_runtime.mcp.accounts import DDL as MCP_ACCOUNTS_DDL
from agent_runtime.store.database import Connection, Dialect, ddl_for

MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "runs, states, turns, run events, messages",
        """
        CREATE TABLE conversations (
            id TEXT PRIMARY KEY,
            agent TEXT NOT NULL
        );
        CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            conversation_id TEXT NOT NULL REFERENCES conversations (id),
            source TEXT NOT NULL,
            status TEXT NOT NULL,
            reason TEXT
        );
        CREATE TABLE states (
            id TEXT PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs (id),
            kind TEXT NOT NULL,
            status TEXT NOT NULL,
            lease_owner TEXT,
            lease_expires_at DOUBLE PRECISION,
            generation INTEGER NOT NULL
        );
        CREATE TABLE turns (
            id TEXT PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs (id),
            conversation_id TEXT NOT NULL REFERENCES conversations (id),
            turn_index INTEGER NOT NULL,
            status TEXT,
            reason TEXT,
            UNIQUE (conversation_id, turn_index)
        );
        CREATE TABLE run_events (
            run_id TEXT NOT NULL REFERENCES runs (id),
            seq INTEGER NOT NULL,
            type TEXT NOT NULL,
            participant TEXT NOT NULL,
            payload TEXT NOT NULL,
            PRIMARY KEY (run_id, seq)
        );
        CREATE TABLE messages (
            conversation_id TEXT NOT NULL REFERENCES conversations (id),
            seq INTEGER NOT NULL,
            run_id TEXT NOT NULL REFERENCES runs (id),
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            metadata TEXT NOT NULL,
            PRIMARY KEY (conversation_id, seq)
        );
        """,
    ),
    (
        2,
        "checkpoints, approvals, the Tool effect ledger",
        """
        CREATE TABLE checkpoints (
            state_id TEXT NOT NULL REFERENCES states (id),
            seq INTEGER NOT NULL,
            generation INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (state_id, seq)
        );
        CREATE TABLE approvals (
            id TEXT PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs (id),
            state_id TEXT NOT NULL REFERENCES states (id),
            call_id TEXT NOT NULL,
            tool TEXT NOT NULL,
            arguments TEXT NOT NULL,
            status TEXT NOT NULL
        );
        CREATE TABLE tool_effects (
            state_id TEXT NOT NULL REFERENCES states (id),
            call_id TEXT NOT NULL,
            outcome TEXT NOT NULL,
            PRIMARY KEY (state_id, call_id)
        );
        """,
    ),
    (
        3,
        "Soul publications",
        """
        CREATE TABLE soul_publications (
            seq INTEGER PRIMARY KEY,
            commit_sha TEXT NOT NULL,
            bundle TEXT NOT NULL,
            artifacts TEXT NOT NULL,
            run_id TEXT,
            active INTEGER NOT NULL
        );
        """,
    ),
    (
        4,
        "the native inbox, native accounts and routes, Routine admissions",
        """
        CREATE TABLE native_accounts (
            id TEXT PRIMARY KEY,
            status TEXT NOT NULL
        );
        CREATE TABLE native_routes (
            destination TEXT PRIMARY KEY,
            routine TEXT NOT NULL,
            agent TEXT NOT NULL
        );
        CREATE TABLE native_inbox (
            id TEXT PRIMARY KEY,
            channel TEXT NOT NULL,
            destination TEXT NOT NULL,
            routine TEXT NOT NULL,
            account_id TEXT NOT NULL,
            payload TEXT NOT NULL,
            status TEXT NOT NULL,
            lease_owner TEXT,
            lease_expires_at DOUBLE PRECISION,
            fence INTEGER NOT NULL,
            run_id TEXT REFERENCES runs (id),
            error_code TEXT,
            error_message TEXT
        );
        CREATE TABLE request_artifacts (
            id TEXT PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs (id),
            kind TEXT NOT NULL,
            content TEXT NOT NULL
        );
        CREATE TABLE routine_invocations (
            id TEXT PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs (id),
            state_id TEXT NOT NULL REFERENCES states (id),
            routine TEXT NOT NULL,
            account_id TEXT NOT NULL,
            inbox_id TEXT NOT NULL UNIQUE REFERENCES native_inbox (id)
        );
        """,
    ),
    (5, "MCP chats, accounts, shared grants and selections", MCP_ACCOUNTS_DDL),
    (6, "Files: immutable blobs, File rows, shares, role assignments", FILES_DDL),
    (7, "MCP account credentials", "ALTER TABLE mcp_accounts ADD COLUMN credential TEXT"),
    (8, "Files keep the order they were written in", "ALTER TABLE files ADD COLUMN seq INTEGER"),
    (
        9,
        "retry waits: calls parked until their provider's retry is due",
        """
        CREATE TABLE retry_waits (
            id TEXT PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs (id),
            state_id TEXT REFERENCES states (id),
            call_id TEXT,
            tool TEXT,
            kind TEXT NOT NULL,
            provider_wait_id TEXT,
            code TEXT,
            due_at DOUBLE PRECISION NOT NULL,
            status TEXT NOT NULL
        );
        CREATE INDEX retry_waits_due ON retry_waits (status, due_at)
        """,
    ),
    (
        10,
        "Routine States: their key, their place in the Run, their output",
        """
        ALTER TABLE states ADD COLUMN state_key TEXT;
        ALTER TABLE states ADD COLUMN position INTEGER;
        ALTER TABLE states ADD COLUMN output TEXT;
        ALTER TABLE states ADD COLUMN reason TEXT
        """,
    ),
    (
        11,
        "the Soul doctor's findings, repairs and escalations",
        """
        CREATE TABLE doctor_events (
            seq INTEGER PRIMARY KEY,
            run_id TEXT REFERENCES runs (id),
            kind TEXT NOT NULL,
            subject TEXT NOT NULL,
            detail TEXT NOT NULL,
            commit_sha TEXT
        )
        """,
    ),
    (
        12,
        "who a native Run acts for: the Run's identity, the route's owner, the event's type and "
        "the account admission resolved",
        """
        ALTER TABLE runs ADD COLUMN identity TEXT;
        ALTER TABLE native_routes ADD COLUMN owner TEXT;
        ALTER TABLE native_inbox ADD COLUMN event_type TEXT;
        ALTER TABLE native_inbox ADD COLUMN resolved_account TEXT
        """,
    ),
    (
        13,
        "the Routine bundle an approved native route pins, carried by the Run it admits",
        """
        ALTER TABLE native_routes ADD COLUMN bundle TEXT;
        ALTER TABLE runs ADD COLUMN bundle TEXT
        """,
    ),
)


class StoreError(Exception):
    """The store a URL names cannot be used (malformed, unknown, unreachable, not permitted)."""


class SqliteConnection(sqlite3.Connection):
    """A ``sqlite3`` connection that names its dialect (see :mod:`agent_runtime.store.database`)."""

    dialect: Dialect = "sqlite"
    transaction: object | None = None  # a fence here is a local call: never skipped


def connect(target: str = ":memory:") -> SqliteConnection:
    """A connection in autocommit mode: transactions are opened explicitly by :func:`atomic`."""
    conn = sqlite3.connect(
        target, isolation_level=None, check_same_thread=False, factory=SqliteConnection
    )
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def migrate(conn: Connection) -> list[int]:
    """Apply every migration the database lacks, each in its own transaction; the versions
    applied, in order."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
        "name TEXT NOT NULL)"
    )
    have = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
    applied: list[int] = []
    for version, name, ddl in MIGRATIONS:
        if version in have:
            continue
        with atomic(conn):
            for statement in ddl_for(conn.dialect, ddl).split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (version, name) VALUES (?, ?)", (version, name)
            )
        applied.append(version)
    return applied


@contextmanager
def atomic(conn: Connection) -> Iterator[Connection]:
    """One transaction: committed when the block ends, rolled back when it raises (so a crash
    mid-block leaves nothing of it behind)."""
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class StoreTemplate(Protocol):
    """A migrated database that hands out fresh, isolated copies of itself."""

    def fresh(self) -> Connection:
        """A connection to a new copy of the migrated database, shared with nobody."""
        ...

    def release(self, conn: Connection) -> None:
        """Close ``conn`` and discard its copy."""
        ...

    def reopen(self, conn: Connection) -> Connection:
        """The connection a restarted process opens to ``conn``'s copy, ``conn`` closed: what
        was committed is there, an open transaction is not."""
        ...

    def close(self) -> None: ...


class Template:
    """A migrated SQLite database kept in memory, copied into a fresh connection on demand.

    Migrating once and copying with the backup API keeps each fresh store to a fraction of a
    millisecond, and each copy shares nothing with the others.
    """

    __slots__ = ("_conn",)

    def __init__(self) -> None:
        self._conn = connect()
        migrate(self._conn)

    def fresh(self) -> SqliteConnection:
        conn = connect()
        self._conn.backup(conn)
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def release(self, conn: Connection) -> None:
        conn.close()

    def reopen(self, conn: Connection) -> SqliteConnection:
        """The dying process's transaction rolled back, the database copied into the new
        process's connection (an in-memory database lives as long as its connection)."""
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        reopened = connect()
        cast(sqlite3.Connection, conn).backup(reopened)
        conn.close()
        reopened.execute("PRAGMA foreign_keys = ON")
        return reopened

    def close(self) -> None:
        self._conn.close()


def open_template(store: str | None = None) -> StoreTemplate:
    """The template for a store URL: ``None`` or ``sqlite`` for the embedded default, or a
    ``postgresql://`` URL (see :class:`agent_runtime.store.postgres.PostgresTemplate`)."""
    if store is None or store in ("sqlite", "sqlite://"):
        return Template()
    scheme = store.split("://", 1)[0] if "://" in store else ""
    if scheme in ("postgresql", "postgres"):
        try:
            from agent_runtime.store.postgres import PostgresTemplate
        except ImportError as missing:
            raise StoreError(
                f"{shown(store)}: the PostgreSQL store needs psycopg 3, the extra "
                f"agent-runtime[postgresql] ({missing})"
            ) from None
        return PostgresTemplate(store)
    raise StoreError(f"{shown(store)}: not a store: expected sqlite or a postgresql:// URL")


# The password of a URL's user info runs to the token's last "@" (a password may hold an
# unescaped "/" or "@"; a host never does); one given as a parameter (``?password=``, or the
# keyword form ``password=... host=...``) runs to the next "&" or space, or is quoted.
_URL_PASSWORD = re.compile(r"(?P<head>[a-z][a-z0-9+.-]*://[^\s:/@]*):\S*@(?=[^\s@]*(?:\s|$))", re.I)
_PARAMETER_PASSWORD = re.compile(r"(?P<head>\bpassword\s*=\s*)(?:'(?:[^'\\]|\\.)*'|[^\s&]+)", re.I)


def shown(text: str) -> str:
    """A store URL (or a message that quotes one) fit to print: every password ``***``."""
    text = _URL_PASSWORD.sub(r"\g<head>:***@", text)
    return _PARAMETER_PASSWORD.sub(r"\g<head>***", text)
