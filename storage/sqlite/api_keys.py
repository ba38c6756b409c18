"""API keys in SQLite (table from migration 0008).

Only a SHA-256 of each secret is stored; listings show the prefix. Keys are administered across
projects (an admin names the project), so this store is not filtered by the caller's project.
"""

from __future__ import annotations

from typing import Any

from storage.api_keys import (
    _COLUMNS,
    KeyRecord,
    key_object,
)
from storage.base import JSON, Page
from storage.pages import Binds, PageRequest
from storage.sqlite.state import SQLiteStore


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
