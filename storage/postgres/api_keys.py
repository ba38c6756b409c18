"""API keys in PostgreSQL: `storage.api_keys.SQLiteKeyStore`'s methods, shared by every replica."""

from __future__ import annotations

from storage.api_keys import KeyRecord, key_object
from storage.base import JSON, Page
from storage.pages import Binds, PageRequest
from storage.postgres.db import Database

_COLUMNS = "id, project, name, prefix, created_at, expires_at, revoked_at, last_used_at, limits"


class PostgresKeyStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(self, row: JSON) -> JSON:
        found = await self._db.pool.fetchrow(
            "INSERT INTO api_keys (id, project, name, prefix, hash, created_at, expires_at, limits) "
            f"VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {_COLUMNS}",
            row["id"],
            row["project"],
            row["name"],
            row["prefix"],
            row["hash"],
            row["created_at"],
            row["expires_at"],
            row.get("limits"),
        )
        return key_object(tuple(found))

    async def get(self, key_id: str) -> JSON | None:
        found = await self._db.pool.fetchrow(f"SELECT {_COLUMNS} FROM api_keys WHERE id = $1", key_id)
        return None if found is None else key_object(tuple(found))

    async def list(self, project: str | None, *, limit: int, after: str | None) -> Page:
        req, b = PageRequest(limit, "asc", after), Binds("postgres")
        where = "" if project is None else f" AND project = {b(project)}"
        lookup = req.bounds("(created_at, id)", b, lambda cur: f"SELECT created_at, id FROM api_keys WHERE id = {cur}")
        sql = f"SELECT {_COLUMNS} FROM api_keys WHERE TRUE{where}{lookup}" + req.tail(b, "created_at", "id")
        return req.page(await self._db.pool.fetch(sql, *b.values), lambda r: key_object(tuple(r)))

    async def revoke(self, key_id: str, now: int) -> JSON | None:
        await self._db.pool.execute(
            "UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL", key_id, now
        )
        return await self.get(key_id)

    async def lookup(self, digest: str) -> KeyRecord | None:
        found = await self._db.pool.fetchrow(
            "SELECT id, project, expires_at, revoked_at, limits FROM api_keys WHERE hash = $1", digest
        )
        return None if found is None else KeyRecord(found[0], found[1], found[2], found[3], found[4])

    async def mark_used(self, key_id: str, now: int) -> None:
        await self._db.pool.execute("UPDATE api_keys SET last_used_at = $2 WHERE id = $1", key_id, now)
