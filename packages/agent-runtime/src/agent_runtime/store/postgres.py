"""The PostgreSQL store: psycopg 3 speaking the runtime's SQL, and databases cloned per use.

:class:`PostgresConnection` takes the runtime's statements as they are (``?`` placeholders,
explicit ``BEGIN``/``COMMIT``; see :mod:`agent_runtime.store.database`). :class:`PostgresTemplate`
migrates one template database, then hands out clones of it (``CREATE DATABASE ... TEMPLATE``)
and drops each clone when it is released. Cloning, connecting and dropping cost tens of
milliseconds, so one worker thread with its own connection keeps the next clone ready (and a
connection to it open) and drops released ones in the background: a caller waits for none of
it. (Warming the new backend's catalog caches there too was tried: it moved less time off the
caller's path than it cost the server.)

The role in the URL needs the CREATEDB privilege and nothing more: it owns the template and
every clone. The template is created from ``template0`` with the ``C`` collation, so ``ORDER
BY`` on text sorts by byte as SQLite does, whatever the server's default locale.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from typing import Any

import psycopg
from psycopg import Pipeline, pq, sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from agent_runtime.store.database import Connection, Cursor, Dialect
from agent_runtime.store.storage import StoreError, migrate
from agent_runtime.store.storage import shown as hidden

CONNECT_TIMEOUT_S = 10
PREFIX = "eval_"
MIN_SERVER = 130000  # DROP DATABASE ... WITH (FORCE)


@functools.lru_cache(maxsize=1024)
def _spoken(statement: str) -> str:
    """A runtime statement with psycopg's placeholders (the runtime's SQL has no ``?`` and no
    ``%`` inside string literals)."""
    return statement.replace("%", "%%").replace("?", "%s")


class PostgresConnection:
    """A psycopg connection in autocommit mode behind the runtime's connection protocol.

    Every statement costs a round trip, so a transaction runs in pipeline mode: a statement
    whose answer nobody reads (an INSERT) is sent without waiting for it and travels with the
    next statement that must wait (a read, a ``rowcount``, the ``COMMIT``). A statement that
    fails fails its transaction as it would at once: its error is raised by the next wait, and
    a ``COMMIT`` never succeeds past it.
    """

    __slots__ = ("_pipeline", "_pipelined", "database", "raw")

    dialect: Dialect = "postgresql"

    def __init__(self, raw: psycopg.Connection[Any], database: str) -> None:
        self.raw = raw
        self.database = database
        self._pipelined: AbstractContextManager[Pipeline] | None = None
        self._pipeline: Pipeline | None = None

    @property
    def in_transaction(self) -> bool:
        return (
            self._pipeline is not None
            or self.raw.info.transaction_status != pq.TransactionStatus.IDLE
        )

    @property
    def transaction(self) -> object | None:
        return self._pipeline  # one pipeline per transaction

    def execute(self, statement: str, parameters: Sequence[Any] = (), /) -> Cursor:
        if self._pipeline is None:
            if statement == "BEGIN" and not self.in_transaction:
                self._pipelined = self.raw.pipeline()
                self._pipeline = self._pipelined.__enter__()
                return self.raw.execute("BEGIN")
            return self.raw.execute(_spoken(statement), tuple(parameters))
        if statement in ("COMMIT", "ROLLBACK"):
            return self._end(statement)
        return _Queued(self.raw.execute(_spoken(statement), tuple(parameters)), self._pipeline)

    def _end(self, statement: str) -> Cursor:
        """Send the last statements and wait for every answer; after a failure, the transaction
        is rolled back before the error is raised (a failed statement skipped the rest)."""
        pipeline, self._pipelined, self._pipeline = self._pipelined, None, None
        assert pipeline is not None
        try:
            cursor = self.raw.execute(statement)
            pipeline.__exit__(None, None, None)
        except BaseException:
            with contextlib.suppress(psycopg.Error):
                pipeline.__exit__(None, None, None)
            if self.raw.info.transaction_status != pq.TransactionStatus.IDLE:
                self.raw.execute("ROLLBACK")
            if statement == "ROLLBACK":
                return self.raw.cursor()  # rolled back as asked; the failure was the cause
            raise
        return cursor

    def close(self) -> None:
        self.raw.close()


class _Queued:
    """A statement sent in the pipeline: reading its answer waits for it."""

    __slots__ = ("_cursor", "_pipeline")

    def __init__(self, cursor: psycopg.Cursor[Any], pipeline: Pipeline) -> None:
        self._cursor = cursor
        self._pipeline = pipeline

    @property
    def rowcount(self) -> int:
        if self._cursor.pgresult is None:
            self._pipeline.sync()
        return self._cursor.rowcount

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cursor.fetchall())


def shown(conninfo: dict[str, Any]) -> str:
    """Where a connection goes, fit to print (no password): what the URL names, else what libpq
    takes from the environment (``PGUSER``, ``PGHOST``, ``PGHOSTADDR``, ``PGPORT``)."""
    user = conninfo.get("user") or os.environ.get("PGUSER", "")
    host = conninfo.get("host") or conninfo.get("hostaddr") or _environment_host()
    port = conninfo.get("port") or os.environ.get("PGPORT", "5432")
    return f"postgresql://{user}{'@' if user else ''}{host}:{port}/{conninfo.get('dbname', '')}"


def _environment_host() -> str:
    """The server libpq reaches for a URL that names none: ``PGHOST``, else ``PGHOSTADDR``,
    else this machine."""
    return os.environ.get("PGHOST") or os.environ.get("PGHOSTADDR") or "localhost"


def _await_gone(conn: PostgresConnection, pid: int) -> None:
    """Return once the server's backend ``pid`` has ended, or after :data:`CONNECT_TIMEOUT_S`."""
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    query = "SELECT 1 FROM pg_stat_activity WHERE pid = %s"
    while conn.raw.execute(query, (pid,)).fetchone() is not None and time.monotonic() < deadline:
        time.sleep(0.005)


def connect(url: str, database: str | None = None) -> PostgresConnection:
    """A connection to ``database`` (default: the URL's own) on the server the URL names."""
    conninfo = make_conninfo(url, connect_timeout=CONNECT_TIMEOUT_S)
    if database is not None:
        conninfo = make_conninfo(conninfo, dbname=database)
    raw = psycopg.connect(conninfo, autocommit=True)
    return PostgresConnection(raw, raw.info.dbname)


class PostgresTemplate:
    """A migrated template database on a PostgreSQL server; :meth:`fresh` is a clone of it."""

    __slots__ = ("_admin", "_handing", "_next", "_out", "_worker", "name", "url", "where")

    # ``_admin`` and ``_out`` belong to the worker thread once it starts (until ``close``)

    def __init__(self, url: str) -> None:
        try:
            target = conninfo_to_dict(url)
        except psycopg.ProgrammingError as bad:
            raise StoreError(f"{hidden(url)}: malformed: {_one_line(bad)}") from None
        self.url = url
        self.where = shown(target)
        self.name = f"{PREFIX}tpl_{uuid.uuid4().hex[:12]}"
        try:
            self._admin = connect(url)
        except psycopg.Error as refused:
            raise StoreError(f"{self.where}: cannot connect: {_one_line(refused)}") from None
        self._out: set[str] = set()
        try:
            self._create_template()
        except BaseException:
            self._admin.close()
            raise
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="eval-pg-clones")
        self._handing = threading.Lock()  # Trials may open at once: one clone each
        self._next: Future[PostgresConnection] = self._worker.submit(self._clone)

    def _create_template(self) -> None:
        if self._admin.raw.info.server_version < MIN_SERVER:
            raise StoreError(f"{self.where}: PostgreSQL 13 or later is needed")
        try:
            self._admin.raw.execute(
                sql.SQL(
                    "CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8' "
                    "LC_COLLATE 'C' LC_CTYPE 'C'"
                ).format(sql.Identifier(self.name))
            )
        except psycopg.Error as refused:
            raise StoreError(
                f"{self.where}: cannot create the template database (the role needs "
                f"CREATEDB): {_one_line(refused)}"
            ) from None
        try:
            conn = connect(self.url, self.name)
            try:
                migrate(conn)
            finally:
                conn.close()
            # a first session after the DDL writes the template's relation cache file, which
            # every clone then copies instead of building its own on its first connection
            connect(self.url, self.name).close()
            # nobody may connect to the template: a session there would make cloning fail
            self._admin.raw.execute(
                sql.SQL("ALTER DATABASE {} WITH ALLOW_CONNECTIONS false").format(
                    sql.Identifier(self.name)
                )
            )
        except BaseException:
            self._drop(self.name)
            raise

    def _clone(self) -> PostgresConnection:
        """A connection to a new clone of the template (made on the worker thread).

        The clone copies the template's files (``FILE_COPY``, the only strategy before
        PostgreSQL 15) rather than writing every page to the WAL: half the time, or less.
        """
        name = f"{PREFIX}trial_{uuid.uuid4().hex[:12]}"
        strategy = " STRATEGY FILE_COPY" if self._admin.raw.info.server_version >= 150000 else ""
        self._admin.raw.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}" + strategy).format(
                sql.Identifier(name), sql.Identifier(self.name)
            )
        )
        self._out.add(name)
        return connect(self.url, name)

    def _drop(self, name: str) -> None:
        self._admin.raw.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )

    def fresh(self) -> PostgresConnection:
        """A connection to a clone of its own (made ahead), the next clone started."""
        with self._handing:
            made, self._next = self._next, self._worker.submit(self._clone)
        try:
            return made.result()
        except psycopg.Error as failed:
            raise StoreError(
                f"{self.where}: cannot clone the template: {_one_line(failed)}"
            ) from None

    def release(self, conn: Connection) -> None:
        """Close ``conn`` and drop its clone (in the background)."""
        conn.close()
        self._worker.submit(self._discard, getattr(conn, "database", None))

    def reopen(self, conn: Connection) -> PostgresConnection:
        """A new session on ``conn``'s clone, ``conn`` closed first (the server rolls back what
        its transaction had not committed). The server ends the old session's backend a moment
        after the client goes, and until then its row locks hold: the new session waits for it
        to be gone, as a process restarted after a crash finds it (bounded by
        :data:`CONNECT_TIMEOUT_S`)."""
        database = getattr(conn, "database", None)
        raw = getattr(conn, "raw", None)
        dying = raw.info.backend_pid if isinstance(raw, psycopg.Connection) else 0
        conn.close()
        fresh = connect(self.url, database)
        if dying:
            _await_gone(fresh, dying)
        return fresh

    def _discard(self, name: str | None) -> None:
        if name in self._out:
            self._out.discard(name)
            self._quietly_drop(name)

    def _quietly_drop(self, name: str) -> None:
        # best effort: a clone left behind is named eval_trial_* (see docs/l3-store.md)
        with contextlib.suppress(psycopg.Error):
            self._drop(name)

    def close(self) -> None:
        """Drop the clone made ahead, every clone still out, and the template."""
        self._worker.shutdown(wait=True)
        if self._next.exception() is None:
            self._next.result().close()
        for name in (*sorted(self._out), self.name):
            self._quietly_drop(name)
        self._out.clear()
        self._admin.close()


def _one_line(error: BaseException) -> str:
    """A server's or libpq's message on one line, any URL in it without its password."""
    return hidden(" ".join(str(error).split())) or type(error).__name__
