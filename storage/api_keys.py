"""API keys in SQLite (table from migration 0008).

Only a SHA-256 of each secret is stored; listings show the prefix. Keys are administered across
projects (an admin names the project), so this store is not filtered by the caller's project.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from storage.base import JSON, Page
from storage.pages import Binds, PageRequest
from storage.sqlite import SQLiteStore

_COLUMNS = "id, project, name, prefix, created_at, expires_at, revoked_at, last_used_at, limits"


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """What authentication needs of a key: whose it is and whether it still works."""

    id: str
    project: str
    expires_at: int | None
    revoked_at: int | None
    limits: str | None = None  # JSON: the key's own requests/tokens per minute (migration 0020)


def key_object(row: Any) -> JSON:
    """The admin API's view of a key (never its secret or hash)."""
    return {
        "object": "organization.project.api_key",
        "id": row[0],
        "project_id": row[1],
        "name": row[2],
        "redacted_value": row[3] + "...",
        "created_at": row[4],
        "expires_at": row[5],
        "revoked_at": row[6],
        "last_used_at": row[7],
        **({"limits": json.loads(row[8])} if len(row) > 8 and row[8] else {}),
    }


class SQLiteKeyStore:
    def __init__(self, db: SQLiteStore) -> None:
        self._db = db

    async def create(self, row: JSON) -> JSON:
        def write(c: Any) -> Any:
            c.execute(
                "INSERT INTO api_keys (id, project, name, prefix, hash, created_at, expires_at, limits) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row["id"],
                    row["project"],
                    row["name"],
                    row["prefix"],
                    row["hash"],
                    row["created_at"],
                    row["expires_at"],
                    row.get("limits"),
                ),
            )
            return c.execute(f"SELECT {_COLUMNS} FROM api_keys WHERE id = ?", (row["id"],)).fetchone()

        return key_object(await self._db.writer.transact(write))

    async def get(self, key_id: str) -> JSON | None:
        row = await self._db.reader.run(
            lambda c: c.execute(f"SELECT {_COLUMNS} FROM api_keys WHERE id = ?", (key_id,)).fetchone()
        )
        return None if row is None else key_object(row)

    async def list(self, project: str | None, *, limit: int, after: str | None) -> Page:
        """Keys by creation (oldest first), of one project or all; `after` is a key id."""
        req, b = PageRequest(limit, "asc", after), Binds("sqlite")
        where = "" if project is None else f" AND project = {b(project)}"
        sql = f"SELECT {_COLUMNS} FROM api_keys WHERE TRUE{where}" + req.keyset(b, "api_keys", "rowid")
        return req.page(await self._db.reader.run(lambda c: c.execute(sql, b.values).fetchall()), key_object)

    async def revoke(self, key_id: str, now: int) -> JSON | None:
        def write(c: Any) -> Any:
            c.execute("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (now, key_id))
            return c.execute(f"SELECT {_COLUMNS} FROM api_keys WHERE id = ?", (key_id,)).fetchone()

        row = await self._db.writer.transact(write)
        return None if row is None else key_object(row)

    async def lookup(self, digest: str) -> KeyRecord | None:
        row = await self._db.reader.run(
            lambda c: c.execute(
                "SELECT id, project, expires_at, revoked_at, limits FROM api_keys WHERE hash = ?", (digest,)
            ).fetchone()
        )
        return None if row is None else KeyRecord(row[0], row[1], row[2], row[3], row[4])

    async def mark_used(self, key_id: str, now: int) -> None:
        await self._db.writer.write_rows([("UPDATE api_keys SET last_used_at = ? WHERE id = ?", [(now, key_id)])])
