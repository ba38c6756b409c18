"""MCP connectors in SQLite (table from migration 0004).

Why a separate `secrets` column: the public object (`data`) is what every API reply is built from,
so credentials can only leave the store through `secrets()`, which the MCP tool alone calls when it
connects. They are stored as given (the database file is the trust boundary, as for every other
stored item); they are never echoed back.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from storage.base import JSON, Order, Page
from storage.pages import Binds, PageRequest
from storage.scope import filter_sql, owning_project
from storage.sqlite.state import SQLiteStore


class SQLiteConnectorStore:
    """Connector persistence over the process's shared SQLite connections (no connection of its own)."""

    def __init__(self, db: SQLiteStore) -> None:
        self._db = db

    async def create(self, connector: JSON, secrets: JSON) -> None:
        project = owning_project()

        def write(c: Any) -> None:
            c.execute(
                "INSERT INTO connectors (id, created_at, data, secrets, project) VALUES (?, ?, ?, ?, ?)",
                (
                    connector["id"],
                    connector.get("created_at") or int(time.time()),
                    orjson.dumps(connector),
                    orjson.dumps(secrets),
                    project,
                ),
            )

        await self._db.writer.transact(write)

    async def get(self, connector_id: str) -> JSON | None:
        where, params = filter_sql()
        row = await self._db.reader.run(
            lambda c: c.execute(f"SELECT data FROM connectors WHERE id = ?{where}", (connector_id, *params)).fetchone()
        )
        return None if row is None else orjson.loads(row[0])

    async def secrets(self, connector_id: str) -> tuple[JSON, JSON] | None:
        """The public object and its credentials, for connecting; None when there is no such connector."""
        where, params = filter_sql()
        row = await self._db.reader.run(
            lambda c: c.execute(
                f"SELECT data, secrets FROM connectors WHERE id = ?{where}", (connector_id, *params)
            ).fetchone()
        )
        return None if row is None else (orjson.loads(row[0]), orjson.loads(row[1]))

    async def delete(self, connector_id: str) -> bool:
        where, params = filter_sql()

        def delete(c: Any) -> bool:
            return bool(c.execute(f"DELETE FROM connectors WHERE id = ?{where}", (connector_id, *params)).rowcount)

        return await self._db.writer.transact(delete)

    async def list(self, *, limit: int, order: Order, after: str | None, before: str | None) -> Page:
        req, b = PageRequest(limit, order, after, before), Binds("sqlite")
        sql = f"SELECT data FROM connectors WHERE TRUE{b.project()}" + req.keyset(b, "connectors", "rowid")
        return req.page(await self._db.reader.run(lambda c: c.execute(sql, b.values).fetchall()))
