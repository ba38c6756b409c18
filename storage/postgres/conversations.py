"""Conversations in the PostgreSQL state store: the conversation rows and their ordered items.

`storage.sqlite.conversations`' counterpart. Appending locks the conversation's row first (its
UPDATE or INSERT), so concurrent appends from several replicas take positions one after the other
(`items.append_to_conversation`); deleting a conversation deletes the items nothing else links.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from storage.base import JSON, Order, Page
from storage.pages import CONVERSATION_ITEMS, PageRequest
from storage.postgres.db import Database
from storage.postgres.items import append_to_conversation, delete_orphans, hidden, linked_page, loads
from storage.scope import owning_project


class PostgresConversations:
    """The conversations part of `PostgresStore` (`state.py`), on the database it opens."""

    db: Database

    async def create_conversation(self, conversation: JSON, items: list[JSON]) -> None:
        now = time.time()
        cid = conversation["id"]
        async with self.db.pool.acquire() as c, c.transaction():
            await c.execute(
                "INSERT INTO conversations (id, created_at, updated_at, metadata, project) VALUES ($1, $2, $3, $4, $5)",
                cid,
                int(conversation["created_at"]),
                now,
                orjson.dumps(conversation.get("metadata") or {}),
                owning_project(),
            )
            await append_to_conversation(c, cid, items, now)

    @staticmethod
    def _conversation(row: Any) -> JSON:
        return {"id": row[0], "object": "conversation", "created_at": row[1], "metadata": loads(row[2])}

    async def get_conversation(self, conversation_id: str) -> JSON | None:
        if await hidden(self.db, "conversations", conversation_id):
            return None
        row = await self.db.pool.fetchrow(
            "SELECT id, created_at, metadata FROM conversations WHERE id = $1", conversation_id
        )
        return None if row is None else self._conversation(row)

    async def update_conversation(self, conversation_id: str, metadata: dict[str, str]) -> JSON | None:
        if await hidden(self.db, "conversations", conversation_id):
            return None
        row = await self.db.pool.fetchrow(
            "UPDATE conversations SET metadata = $1, updated_at = $2 WHERE id = $3 RETURNING id, created_at, metadata",
            orjson.dumps(metadata),
            time.time(),
            conversation_id,
        )
        return None if row is None else self._conversation(row)

    async def delete_conversation(self, conversation_id: str) -> bool:
        if await hidden(self.db, "conversations", conversation_id):
            return False
        async with self.db.pool.acquire() as c, c.transaction():
            if await c.fetchval("DELETE FROM conversations WHERE id = $1 RETURNING 1", conversation_id) is None:
                return False
            rows = await c.fetch(
                "DELETE FROM conversation_items WHERE conversation_id = $1 RETURNING item_id", conversation_id
            )
            await delete_orphans(c, [r[0] for r in rows])
            return True

    async def add_conversation_items(self, conversation_id: str, items: list[JSON]) -> bool:
        if await hidden(self.db, "conversations", conversation_id):
            return False
        now = time.time()
        async with self.db.pool.acquire() as c, c.transaction():
            if (
                await c.fetchval(
                    "UPDATE conversations SET updated_at = $1 WHERE id = $2 RETURNING 1", now, conversation_id
                )
                is None
            ):
                return False
            await append_to_conversation(c, conversation_id, items, now)
            return True

    async def list_conversation_items(
        self, conversation_id: str, *, limit: int, order: Order, after: str | None, before: str | None
    ) -> Page:
        if await hidden(self.db, "conversations", conversation_id):
            return Page()
        return await linked_page(self.db, CONVERSATION_ITEMS, conversation_id, PageRequest(limit, order, after, before))

    async def conversation_items(self, conversation_id: str) -> list[JSON]:
        if await hidden(self.db, "conversations", conversation_id):
            return []
        rows = await self.db.pool.fetch(
            "SELECT i.data FROM conversation_items x JOIN items i ON i.id = x.item_id "
            "WHERE x.conversation_id = $1 ORDER BY x.position",
            conversation_id,
        )
        return [loads(r[0]) for r in rows]

    async def get_conversation_item(self, conversation_id: str, item_id: str) -> JSON | None:
        if await hidden(self.db, "conversations", conversation_id):
            return None
        data = await self.db.pool.fetchval(
            "SELECT i.data FROM conversation_items x JOIN items i ON i.id = x.item_id "
            "WHERE x.conversation_id = $1 AND x.item_id = $2",
            conversation_id,
            item_id,
        )
        return None if data is None else loads(data)

    async def delete_conversation_item(self, conversation_id: str, item_id: str) -> bool:
        if await hidden(self.db, "conversations", conversation_id):
            return False
        done = await self.db.pool.fetchval(
            "WITH d AS (DELETE FROM conversation_items WHERE conversation_id = $1 AND item_id = $2 RETURNING 1) "
            "SELECT count(*) FROM d",
            conversation_id,
            item_id,
        )
        return bool(done)
