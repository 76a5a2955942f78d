"""A throwaway PostgreSQL cluster on 127.0.0.1, for the tests and the benchmarks.

The server's own binaries (``initdb``, ``pg_ctl``) run as an unprivileged user, because
PostgreSQL refuses to run as root: the current user when it is not root, else the ``postgres``
system user the server package creates (one is made with ``useradd`` where it is missing). The
cluster lives in a temp directory (in memory under /dev/shm where there is one: cloning a
database copies files), listens on a free port of 127.0.0.1 only, runs with fsync off (it never
outlives its process) and minimal WAL (cloning a database then copies files without logging
them), and is stopped and removed by :meth:`ThrowawayCluster.stop`. It makes a
role with CREATEDB and nothing more, the one privilege a Sweep needs, and hands out its URL;
:meth:`ThrowawayCluster.scratch` makes a role and a database of their own for one Sweep among
several (the mutants bench's PostgreSQL leg) and drops all they made after it.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

ROLE = "eval_sweep"
SUPERUSER = "postgres"
SERVER_USER = "postgres"
SETTINGS = (  # a test server: nothing to recover after a crash, nobody replicating
    "-c listen_addresses=127.0.0.1 -F -c synchronous_commit=off -c full_page_writes=off "
    "-c wal_level=minimal -c max_wal_senders=0 -c max_connections=40 -c shared_buffers=32MB"
)


class ServerMissingError(Exception):
    """No PostgreSQL server binaries on this machine (install Debian's ``postgresql``)."""


def server_bin() -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl``: on PATH, else the newest Debian one."""
    found = shutil.which("pg_ctl")
    candidates = [Path(found).resolve().parent] if found else []

    def version(path: Path) -> int:
        match = re.search(r"/(\d+)/bin$", str(path))
        return int(match.group(1)) if match else 0

    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=version, reverse=True)
    for directory in candidates:
        if (directory / "initdb").exists() and (directory / "pg_ctl").exists():
            return directory
    return None


def _server_user() -> pwd.struct_passwd | None:
    """Whom the server runs as: ``None`` for the current (non-root) user."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(SERVER_USER)
    except KeyError:
        subprocess.run(
            [
                "useradd",
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                SERVER_USER,
            ],
            check=True,
            capture_output=True,
        )
        return pwd.getpwnam(SERVER_USER)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ThrowawayCluster:
    """One PostgreSQL server of its own; :attr:`url` connects as the CREATEDB role."""

    def __init__(self) -> None:
        binaries = server_bin()
        if binaries is None:
            raise ServerMissingError(
                "no PostgreSQL server binaries (initdb, pg_ctl) on PATH or under "
                "/usr/lib/postgresql: install the postgresql package"
            )
        self.bin = binaries
        self.user = _server_user()
        parent = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
        self.directory = Path(tempfile.mkdtemp(prefix="eval-pg-", dir=parent))
        if self.user is not None:
            os.chown(self.directory, self.user.pw_uid, self.user.pw_gid)
        self.data = self.directory / "data"
        self.port = _free_port()
        self.url = f"postgresql://{ROLE}@127.0.0.1:{self.port}/postgres"
        self.superuser_url = f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/postgres"
        self.running = False

    def _run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        as_user: dict[str, Any] = {}
        if self.user is not None:
            as_user = {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        return subprocess.run(
            [str(self.bin / argv[0]), *argv[1:]],
            cwd=self.directory,
            env={**env, "LC_ALL": "C"},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            **as_user,
        )

    def start(self) -> ThrowawayCluster:
        made = self._run(
            "initdb", "-D", str(self.data), "-U", SUPERUSER, "-A", "trust", "-E", "UTF8",
            "--no-locale", "--no-sync",
        )  # fmt: skip
        if made.returncode != 0:
            raise RuntimeError(f"initdb failed: {made.stderr.strip()}")
        log = self.directory / "server.log"
        options = f"-p {self.port} -k {self.directory} {SETTINGS}"
        started = self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(log), "-w", "-t", "60", "-o", options, "start"
        )
        if started.returncode != 0:
            tail = log.read_text()[-2000:] if log.exists() else started.stderr
            self.stop()
            raise RuntimeError(f"the PostgreSQL server did not start: {tail.strip()}")
        self.running = True
        import psycopg

        with psycopg.connect(self.superuser_url, autocommit=True) as admin:
            admin.execute(f"CREATE ROLE {ROLE} LOGIN CREATEDB")
        return self

    def stop(self) -> None:
        if self.running:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
            self.running = False
        shutil.rmtree(self.directory, ignore_errors=True)

    def databases(self) -> list[str]:
        """The databases on the server, by name (what a test checks was dropped)."""
        import psycopg

        with psycopg.connect(self.superuser_url, autocommit=True) as admin:
            rows = admin.execute("SELECT datname FROM pg_database ORDER BY datname").fetchall()
        return [str(r[0]) for r in rows]

    @contextmanager
    def scratch(self) -> Iterator[str]:
        """The URL of a new CREATEDB role's new database, for one Sweep; afterwards every
        database the role owns is dropped, and the role. A Sweep killed mid-way (a timeout's
        SIGKILL) leaves its template and clones behind: they go with their owner, and Sweeps
        running at once never touch each other's."""
        import psycopg
        from psycopg import sql

        name = f"sweep_{uuid.uuid4().hex[:12]}"
        role = sql.Identifier(name)
        with psycopg.connect(self.superuser_url, autocommit=True) as admin:
            admin.execute(sql.SQL("CREATE ROLE {} LOGIN CREATEDB").format(role))
            admin.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(role, role))
        try:
            yield f"postgresql://{name}@127.0.0.1:{self.port}/{name}"
        finally:
            with psycopg.connect(self.superuser_url, autocommit=True) as admin:
                owned = admin.execute(
                    "SELECT d.datname FROM pg_database d JOIN pg_roles r ON d.datdba = r.oid "
                    "WHERE r.rolname = %s",
                    (name,),
                ).fetchall()
                for (database,) in owned:
                    admin.execute(
                        sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                            sql.Identifier(database)
                        )
                    )
                admin.execute(sql.SQL("DROP ROLE {}").format(role))

    def server_cpu(self) -> float:
        """Seconds of CPU the server has used so far (the postmaster, its live backends and the
        ones that ended): a figure the machine's other load does not inflate. Linux only."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        ticks = 0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended meanwhile
            if int(entry.name) == postmaster or int(fields[1]) == postmaster:
                ticks += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
        return ticks / os.sysconf("SC_CLK_TCK")

    def __enter__(self) -> ThrowawayCluster:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
