"""Prompt templates in SQLite (tables from migration 0003).

Why versions are rows of their own: a response records which prompt version rendered it, so a
version must never change after it is written; an update appends version N+1 in the same
transaction that reads version N (on the shared writer thread), so two processes updating the same
prompt at once get N+1 and N+2, never a lost update. The store keeps template fields as opaque JSON:
what they mean is the engine's business (`gateway/engine/prompts.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal

import orjson

from storage.base import JSON, Order
from storage.pages import PageRequest
from storage.prompts import (
    SELECT_PROMPTS,
    PromptRecord,
    list_query,
    versions_query,
)
from storage.scope import filter_sql, owning_project
from storage.sqlite.conn import visible
from storage.sqlite.state import SQLiteStore


def _record(row: Any) -> PromptRecord:
    return PromptRecord(row[0], row[1], row[2], row[3], row[4], row[5], orjson.loads(row[6]))


class SQLitePromptStore:
    """Prompt persistence over the process's shared SQLite connections (no connection of its own)."""

    def __init__(self, db: SQLiteStore) -> None:
        self._db = db

    async def create(self, prompt_id: str, data: JSON) -> PromptRecord:
        project = owning_project()

        def write(c: Any) -> PromptRecord:
            now = time.time()
            c.execute(
                "INSERT INTO prompts (id, created_at, default_version, latest_version, project) VALUES (?, ?, 1, 1, ?)",
                (prompt_id, now, project),
            )
            c.execute(
                "INSERT INTO prompt_versions (prompt_id, version, created_at, data) VALUES (?, 1, ?, ?)",
                (prompt_id, now, orjson.dumps(data)),
            )
            return PromptRecord(prompt_id, 1, 1, 1, now, now, data)

        return await self._db.writer.transact(write)

    async def add_version(
        self, prompt_id: str, derive: Callable[[JSON], JSON], *, make_default: bool
    ) -> PromptRecord | None:
        """Append a version whose data is `derive(latest version's data)`; None if no such prompt.

        `derive` runs on the writer thread inside the transaction, so it must be quick and pure.
        """

        scope = filter_sql()

        def write(c: Any) -> PromptRecord | None:
            if not visible(c, "prompts", prompt_id, scope):
                return None
            row = c.execute(
                "SELECT p.latest_version, p.default_version, p.created_at, v.data FROM prompts p "
                "JOIN prompt_versions v ON v.prompt_id = p.id AND v.version = p.latest_version WHERE p.id = ?",
                (prompt_id,),
            ).fetchone()
            if row is None:
                return None
            version = row[0] + 1
            default = version if make_default else row[1]
            data = derive(orjson.loads(row[3]))
            now = time.time()
            c.execute(
                "INSERT INTO prompt_versions (prompt_id, version, created_at, data) VALUES (?, ?, ?, ?)",
                (prompt_id, version, now, orjson.dumps(data)),
            )
            c.execute(
                "UPDATE prompts SET latest_version = ?, default_version = ? WHERE id = ?",
                (version, default, prompt_id),
            )
            return PromptRecord(prompt_id, version, default, version, row[2], now, data)

        return await self._db.writer.transact(write)

    async def get(self, prompt_id: str, version: int | None = None) -> PromptRecord | None:
        """One version (the default one when `version` is None)."""
        scope = filter_sql()

        def read(c: Any) -> PromptRecord | None:
            if not visible(c, "prompts", prompt_id, scope):
                return None
            if version is None:
                row = c.execute(
                    f"{SELECT_PROMPTS} AND v.version = p.default_version WHERE p.id = ?", (prompt_id,)
                ).fetchone()
            else:
                row = c.execute(f"{SELECT_PROMPTS} WHERE p.id = ? AND v.version = ?", (prompt_id, version)).fetchone()
            return None if row is None else _record(row)

        return await self._db.reader.run(read)

    async def exists(self, prompt_id: str) -> bool:
        scope = filter_sql()

        def read(c: Any) -> bool:
            return visible(c, "prompts", prompt_id, scope)

        return await self._db.reader.run(read)

    async def list_prompts(self, *, limit: int, order: Order, after: str | None) -> tuple[list[PromptRecord], bool]:
        """Prompts at their default version, by creation time; `after` is a prompt id cursor."""

        req = PageRequest(limit, order, after)
        query = list_query("sqlite", req)
        return req.cut(await self._db.reader.run(lambda c: c.execute(*query).fetchall()), _record)

    async def versions(
        self, prompt_id: str, *, limit: int, order: Order, after: int | None
    ) -> tuple[list[PromptRecord], bool] | None:
        """A prompt's versions; None if there is no such prompt."""

        scope = filter_sql()

        def read(c: Any) -> tuple[list[PromptRecord], bool] | None:
            if not visible(c, "prompts", prompt_id, scope):
                return None
            req = PageRequest(limit, order, after)
            return req.cut(c.execute(*versions_query("sqlite", prompt_id, req)).fetchall(), _record)

        return await self._db.reader.run(read)

    async def set_default(self, prompt_id: str, version: int) -> PromptRecord | Literal["no_prompt", "no_version"]:
        scope = filter_sql()

        def write(c: Any) -> PromptRecord | Literal["no_prompt", "no_version"]:
            if not visible(c, "prompts", prompt_id, scope):
                return "no_prompt"
            row = c.execute(f"{SELECT_PROMPTS} WHERE p.id = ? AND v.version = ?", (prompt_id, version)).fetchone()
            if row is None:
                return "no_version"
            c.execute("UPDATE prompts SET default_version = ? WHERE id = ?", (version, prompt_id))
            record = _record(row)
            record.default_version = version
            return record

        return await self._db.writer.transact(write)

    async def delete(self, prompt_id: str) -> bool:
        scope = filter_sql()

        def write(c: Any) -> bool:
            if not visible(c, "prompts", prompt_id, scope):
                return False
            c.execute("DELETE FROM prompt_versions WHERE prompt_id = ?", (prompt_id,))
            return bool(c.execute("DELETE FROM prompts WHERE id = ?", (prompt_id,)).rowcount)

        return await self._db.writer.transact(write)
