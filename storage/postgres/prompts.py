"""Prompt templates in PostgreSQL: `storage.sqlite.prompts.SQLitePromptStore`'s methods and semantics.

Versions are immutable rows; an update locks the prompt's row (`FOR UPDATE`) before reading the
latest version, so two replicas updating one prompt at once get N+1 and N+2, never a lost update.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal

import orjson

from storage.base import JSON, Order
from storage.pages import PageRequest
from storage.postgres.db import Database, hidden
from storage.prompts import SELECT_PROMPTS, PromptRecord, list_query, versions_query
from storage.scope import owning_project


def _args(query: tuple[str, list[Any]]) -> list[Any]:
    """asyncpg takes the parameters as positional arguments after the SQL."""
    return [query[0], *query[1]]


def _record(row: Any) -> PromptRecord:
    return PromptRecord(row[0], row[1], row[2], row[3], row[4], row[5], orjson.loads(row[6]))


class PostgresPromptStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(self, prompt_id: str, data: JSON) -> PromptRecord:
        now = time.time()
        async with self._db.pool.acquire() as c, c.transaction():
            await c.execute(
                "INSERT INTO prompts (id, created_at, default_version, latest_version, project) "
                "VALUES ($1, $2, 1, 1, $3)",
                prompt_id,
                now,
                owning_project(),
            )
            await c.execute(
                "INSERT INTO prompt_versions (prompt_id, version, created_at, data) VALUES ($1, 1, $2, $3)",
                prompt_id,
                now,
                orjson.dumps(data),
            )
        return PromptRecord(prompt_id, 1, 1, 1, now, now, data)

    async def add_version(
        self, prompt_id: str, derive: Callable[[JSON], JSON], *, make_default: bool
    ) -> PromptRecord | None:
        """Append a version whose data is `derive(latest version's data)`; None if no such prompt."""
        if await hidden(self._db, "prompts", prompt_id):
            return None
        async with self._db.pool.acquire() as c, c.transaction():
            # Lock the prompt's row first, then read its latest version: a join locked FOR UPDATE
            # would be re-checked against the old version row after the wait and find nothing.
            row = await c.fetchrow(
                "SELECT latest_version, default_version, created_at FROM prompts WHERE id = $1 FOR UPDATE", prompt_id
            )
            if row is None:
                return None
            latest = await c.fetchval(
                "SELECT data FROM prompt_versions WHERE prompt_id = $1 AND version = $2", prompt_id, row[0]
            )
            version = row[0] + 1
            default = version if make_default else row[1]
            data = derive(orjson.loads(latest))
            now = time.time()
            await c.execute(
                "INSERT INTO prompt_versions (prompt_id, version, created_at, data) VALUES ($1, $2, $3, $4)",
                prompt_id,
                version,
                now,
                orjson.dumps(data),
            )
            await c.execute(
                "UPDATE prompts SET latest_version = $1, default_version = $2 WHERE id = $3",
                version,
                default,
                prompt_id,
            )
        return PromptRecord(prompt_id, version, default, version, row[2], now, data)

    async def get(self, prompt_id: str, version: int | None = None) -> PromptRecord | None:
        if await hidden(self._db, "prompts", prompt_id):
            return None
        if version is None:
            row = await self._db.pool.fetchrow(
                f"{SELECT_PROMPTS} AND v.version = p.default_version WHERE p.id = $1", prompt_id
            )
        else:
            row = await self._db.pool.fetchrow(
                f"{SELECT_PROMPTS} WHERE p.id = $1 AND v.version = $2", prompt_id, version
            )
        return None if row is None else _record(row)

    async def exists(self, prompt_id: str) -> bool:
        if await hidden(self._db, "prompts", prompt_id):
            return False
        return await self._db.pool.fetchval("SELECT 1 FROM prompts WHERE id = $1", prompt_id) is not None

    async def list_prompts(self, *, limit: int, order: Order, after: str | None) -> tuple[list[PromptRecord], bool]:
        """Prompts at their default version, by creation time; `after` is a prompt id cursor."""
        req = PageRequest(limit, order, after)
        return req.cut(await self._db.pool.fetch(*_args(list_query("postgres", req))), _record)

    async def versions(
        self, prompt_id: str, *, limit: int, order: Order, after: int | None
    ) -> tuple[list[PromptRecord], bool] | None:
        """A prompt's versions; None if there is no such prompt."""
        if await hidden(self._db, "prompts", prompt_id):
            return None
        req = PageRequest(limit, order, after)
        async with self._db.pool.acquire() as c:
            if await c.fetchval("SELECT 1 FROM prompts WHERE id = $1", prompt_id) is None:
                return None
            rows = await c.fetch(*_args(versions_query("postgres", prompt_id, req)))
        return req.cut(rows, _record)

    async def set_default(self, prompt_id: str, version: int) -> PromptRecord | Literal["no_prompt", "no_version"]:
        if await hidden(self._db, "prompts", prompt_id):
            return "no_prompt"
        async with self._db.pool.acquire() as c, c.transaction():
            if await c.fetchval("SELECT 1 FROM prompts WHERE id = $1 FOR UPDATE", prompt_id) is None:
                return "no_prompt"
            row = await c.fetchrow(f"{SELECT_PROMPTS} WHERE p.id = $1 AND v.version = $2", prompt_id, version)
            if row is None:
                return "no_version"
            await c.execute("UPDATE prompts SET default_version = $1 WHERE id = $2", version, prompt_id)
        record = _record(row)
        record.default_version = version
        return record

    async def delete(self, prompt_id: str) -> bool:
        if await hidden(self._db, "prompts", prompt_id):
            return False
        async with self._db.pool.acquire() as c, c.transaction():
            await c.execute("DELETE FROM prompt_versions WHERE prompt_id = $1", prompt_id)
            return await c.fetchval("DELETE FROM prompts WHERE id = $1 RETURNING 1", prompt_id) is not None
