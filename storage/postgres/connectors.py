"""MCP connectors in PostgreSQL: `storage.sqlite.connectors.SQLiteConnectorStore`'s methods and semantics.

List order is insertion order: `seq` (a BIGSERIAL) plays SQLite's rowid. Credentials stay in their
own column, read only by `secrets()`.
"""

from __future__ import annotations

import time

import orjson

from storage.base import JSON, Order, Page
from storage.pages import Binds, PageRequest
from storage.postgres.db import Database, hidden
from storage.scope import owning_project


class PostgresConnectorStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(self, connector: JSON, secrets: JSON) -> None:
        await self._db.pool.execute(
            "INSERT INTO connectors (id, created_at, data, secrets, project) VALUES ($1, $2, $3, $4, $5)",
            connector["id"],
            int(connector.get("created_at") or time.time()),
            orjson.dumps(connector),
            orjson.dumps(secrets),
            owning_project(),
        )

    async def get(self, connector_id: str) -> JSON | None:
        if await hidden(self._db, "connectors", connector_id):
            return None
        data = await self._db.pool.fetchval("SELECT data FROM connectors WHERE id = $1", connector_id)
        return None if data is None else orjson.loads(data)

    async def secrets(self, connector_id: str) -> tuple[JSON, JSON] | None:
        """The public object and its credentials, for connecting; None when there is no such connector."""
        if await hidden(self._db, "connectors", connector_id):
            return None
        row = await self._db.pool.fetchrow("SELECT data, secrets FROM connectors WHERE id = $1", connector_id)
        return None if row is None else (orjson.loads(row[0]), orjson.loads(row[1]))

    async def delete(self, connector_id: str) -> bool:
        if await hidden(self._db, "connectors", connector_id):
            return False
        return (
            await self._db.pool.fetchval("DELETE FROM connectors WHERE id = $1 RETURNING 1", connector_id) is not None
        )

    async def list(self, *, limit: int, order: Order, after: str | None, before: str | None) -> Page:
        req, b = PageRequest(limit, order, after, before), Binds("postgres")
        sql = f"SELECT data FROM connectors WHERE TRUE{b.project()}" + req.keyset(b, "connectors", "seq")
        return req.page(await self._db.pool.fetch(sql, *b.values))
