"""The File store: immutable, content-addressed bytes; File rows that point at them; shares.

Bytes are never changed in place: a blob is keyed by its SHA-256 and written once. A File row
names its current blob, so replacing a File's bytes (a user re-uploading over it) writes a new
blob and moves the pointer, and the original bytes stay what they were. Who may read a File is
its shares (``user:<id>`` / ``role:<id>``); the Roles a principal holds are role-assignment
rows. Two stores share one protocol: SQL (durable, SQLite or PostgreSQL) and a dict (in memory).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Literal, Protocol

import msgspec

from agent_runtime.store.database import Connection

Origin = Literal["attachment", "library", "generated"]
"""``attachment``: sent with a Turn; ``library``: the user's, reachable through ``file_read``;
``generated``: written by an Agent through ``file_create``."""

DDL = """
CREATE TABLE file_blobs (
    sha256 TEXT PRIMARY KEY,
    data BLOB NOT NULL
);
CREATE TABLE files (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    media_type TEXT NOT NULL,
    sha256 TEXT NOT NULL REFERENCES file_blobs (sha256),
    origin TEXT NOT NULL,
    owner TEXT NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE file_shares (
    file_id TEXT NOT NULL REFERENCES files (id),
    grantee TEXT NOT NULL,
    PRIMARY KEY (file_id, grantee)
);
CREATE TABLE role_assignments (
    principal TEXT NOT NULL,
    role TEXT NOT NULL,
    PRIMARY KEY (principal, role)
)
"""


@dataclass(frozen=True, slots=True)  # not a Struct: tests derive variants with dataclasses.replace
class StoredFile:
    file_id: str
    name: str
    media_type: str
    sha256: str
    data: bytes
    origin: Origin
    owner: str
    status: str = "saved"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class FileStore(Protocol):
    def put(
        self,
        file_id: str,
        name: str,
        media_type: str,
        data: bytes,
        *,
        origin: Origin,
        owner: str,
        status: str = "saved",
    ) -> StoredFile: ...

    def get(self, file_id: str) -> StoredFile | None: ...

    def replace_bytes(self, file_id: str, data: bytes) -> StoredFile: ...

    def share(self, file_id: str, grantee: str) -> None: ...

    def shares(self, file_id: str) -> list[str]: ...

    def assign_role(self, principal: str, role: str) -> None: ...

    def roles_of(self, principal: str) -> list[str]: ...

    def files(self) -> list[StoredFile]: ...


class MemoryFileStore(msgspec.Struct):
    """The in-memory store (L2): the same rules, no database."""

    _blobs: dict[str, bytes] = msgspec.field(default_factory=dict)
    _files: dict[str, StoredFile] = msgspec.field(default_factory=dict)
    _shares: dict[str, list[str]] = msgspec.field(default_factory=dict)
    _roles: dict[str, list[str]] = msgspec.field(default_factory=dict)

    def put(
        self,
        file_id: str,
        name: str,
        media_type: str,
        data: bytes,
        *,
        origin: Origin,
        owner: str,
        status: str = "saved",
    ) -> StoredFile:
        if file_id in self._files:
            raise ValueError(f"File {file_id} already exists; Files are immutable")
        sha = digest(data)
        self._blobs.setdefault(sha, bytes(data))
        stored = StoredFile(file_id, name, media_type, sha, self._blobs[sha], origin, owner, status)
        self._files[file_id] = stored
        return stored

    def get(self, file_id: str) -> StoredFile | None:
        return self._files.get(file_id)

    def replace_bytes(self, file_id: str, data: bytes) -> StoredFile:
        current = self._files[file_id]
        sha = digest(data)
        self._blobs.setdefault(sha, bytes(data))
        self._files[file_id] = replace(current, sha256=sha, data=self._blobs[sha])
        return self._files[file_id]

    def share(self, file_id: str, grantee: str) -> None:
        grantees = self._shares.setdefault(file_id, [])
        if grantee not in grantees:
            grantees.append(grantee)

    def shares(self, file_id: str) -> list[str]:
        return sorted(self._shares.get(file_id, []))

    def assign_role(self, principal: str, role: str) -> None:
        roles = self._roles.setdefault(principal, [])
        if role not in roles:
            roles.append(role)

    def roles_of(self, principal: str) -> list[str]:
        return sorted(self._roles.get(principal, []))

    def files(self) -> list[StoredFile]:
        return list(self._files.values())


class SqlFileStore:
    """The durable store over the runtime's database (tables of migration ``files``)."""

    __slots__ = ("conn",)

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def _blob(self, data: bytes) -> str:
        sha = digest(data)
        self.conn.execute(
            "INSERT INTO file_blobs (sha256, data) VALUES (?, ?) ON CONFLICT DO NOTHING",
            (sha, data),
        )
        return sha

    def put(
        self,
        file_id: str,
        name: str,
        media_type: str,
        data: bytes,
        *,
        origin: Origin,
        owner: str,
        status: str = "saved",
    ) -> StoredFile:
        sha = self._blob(data)
        self.conn.execute(
            "INSERT INTO files (id, name, media_type, sha256, origin, owner, status, seq) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM files))",
            (file_id, name, media_type, sha, origin, owner, status),
        )
        stored = self.get(file_id)
        assert stored is not None
        return stored

    def get(self, file_id: str) -> StoredFile | None:
        row = self.conn.execute(
            "SELECT f.id, f.name, f.media_type, f.sha256, b.data, f.origin, f.owner, f.status "
            "FROM files f JOIN file_blobs b ON b.sha256 = f.sha256 WHERE f.id = ?",
            (file_id,),
        ).fetchone()
        if row is None:
            return None
        return StoredFile(row[0], row[1], row[2], row[3], bytes(row[4]), row[5], row[6], row[7])

    def replace_bytes(self, file_id: str, data: bytes) -> StoredFile:
        sha = self._blob(data)
        self.conn.execute("UPDATE files SET sha256 = ? WHERE id = ?", (sha, file_id))
        stored = self.get(file_id)
        if stored is None:
            raise KeyError(file_id)
        return stored

    def share(self, file_id: str, grantee: str) -> None:
        self.conn.execute(
            "INSERT INTO file_shares (file_id, grantee) VALUES (?, ?) ON CONFLICT DO NOTHING",
            (file_id, grantee),
        )

    def shares(self, file_id: str) -> list[str]:
        rows = self.conn.execute(
            "SELECT grantee FROM file_shares WHERE file_id = ? ORDER BY grantee", (file_id,)
        )
        return [r[0] for r in rows]

    def assign_role(self, principal: str, role: str) -> None:
        self.conn.execute(
            "INSERT INTO role_assignments (principal, role) VALUES (?, ?) ON CONFLICT DO NOTHING",
            (principal, role),
        )

    def roles_of(self, principal: str) -> list[str]:
        rows = self.conn.execute(
            "SELECT role FROM role_assignments WHERE principal = ? ORDER BY role", (principal,)
        )
        return [r[0] for r in rows]

    def files(self) -> list[StoredFile]:
        ids = [r[0] for r in self.conn.execute("SELECT id FROM files ORDER BY seq")]
        return [f for f in (self.get(i) for i in ids) if f is not None]
