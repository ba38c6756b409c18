"""Conversations in the SQLite state store: the conversation rows and their ordered items.

A conversation's items are `items` rows linked by position (`items.py`); deleting a conversation
deletes the items nothing else links. Reads check the conversation is the caller's first.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from storage.base import JSON, Order, Page
from storage.pages import CONVERSATION_ITEMS, PageRequest, linked_items_query
from storage.scope import filter_sql, owning_project
from storage.sqlite.conn import ThreadConnection, WriterConnection, visible
from storage.sqlite.items import append_conversation_links, delete_orphans, insert_items


class SQLiteConversations:
    """The conversations part of `SQLiteStore` (`state.py`), on the connections it opens."""

    _writer: WriterConnection
    _reader: ThreadConnection

    async def create_conversation(self, conversation: JSON, items: list[JSON]) -> None:
        project = owning_project()

        def write(c: Any) -> None:
            now = time.time()
            c.execute(
                "INSERT INTO conversations (id, created_at, updated_at, metadata, project) VALUES (?, ?, ?, ?, ?)",
                (
                    conversation["id"],
                    conversation["created_at"],
                    now,
                    orjson.dumps(conversation.get("metadata") or {}),
                    project,
                ),
            )
            insert_items(c, items, now, project)
            append_conversation_links(c, conversation["id"], [i["id"] for i in items])

        await self._writer.transact(write)

    @staticmethod
    def _conversation(row: Any) -> JSON:
        return {"id": row[0], "object": "conversation", "created_at": row[1], "metadata": orjson.loads(row[2])}

    async def get_conversation(self, conversation_id: str) -> JSON | None:
        where, params = filter_sql()
        row = await self._reader.run(
            lambda c: c.execute(
                f"SELECT id, created_at, metadata FROM conversations WHERE id = ?{where}", (conversation_id, *params)
            ).fetchone()
        )
        return None if row is None else self._conversation(row)

    async def update_conversation(self, conversation_id: str, metadata: dict[str, str]) -> JSON | None:
        where, params = filter_sql()

        def write(c: Any) -> Any:
            c.execute(
                f"UPDATE conversations SET metadata = ?, updated_at = ? WHERE id = ?{where}",
                (orjson.dumps(metadata), time.time(), conversation_id, *params),
            )
            return c.execute(
                f"SELECT id, created_at, metadata FROM conversations WHERE id = ?{where}", (conversation_id, *params)
            ).fetchone()

        row = await self._writer.transact(write)
        return None if row is None else self._conversation(row)

    async def delete_conversation(self, conversation_id: str) -> bool:
        where, params = filter_sql()

        def delete(c: Any) -> bool:
            if c.execute(f"DELETE FROM conversations WHERE id = ?{where}", (conversation_id, *params)).rowcount == 0:
                return False
            ids = [
                r[0]
                for r in c.execute(
                    "SELECT item_id FROM conversation_items WHERE conversation_id = ?", (conversation_id,)
                )
            ]
            c.execute("DELETE FROM conversation_items WHERE conversation_id = ?", (conversation_id,))
            delete_orphans(c, ids)
            return True

        return await self._writer.transact(delete)

    async def add_conversation_items(self, conversation_id: str, items: list[JSON]) -> bool:
        where, params = filter_sql()
        project = owning_project()

        def write(c: Any) -> bool:
            now = time.time()
            sql = f"UPDATE conversations SET updated_at = ? WHERE id = ?{where}"
            if c.execute(sql, (now, conversation_id, *params)).rowcount == 0:
                return False
            insert_items(c, items, now, project)
            append_conversation_links(c, conversation_id, [i["id"] for i in items])
            return True

        return await self._writer.transact(write)

    async def list_conversation_items(
        self, conversation_id: str, *, limit: int, order: Order, after: str | None, before: str | None
    ) -> Page:
        scope = filter_sql()

        def read(c: Any) -> Page:
            if not visible(c, "conversations", conversation_id, scope):
                return Page()
            req = PageRequest(limit, order, after, before)
            query = linked_items_query("sqlite", CONVERSATION_ITEMS, conversation_id, req)
            return req.page(c.execute(*query).fetchall())

        return await self._reader.run(read)

    async def conversation_items(self, conversation_id: str) -> list[JSON]:
        scope = filter_sql()

        def read(c: Any) -> list[Any]:
            if not visible(c, "conversations", conversation_id, scope):
                return []
            return list(
                c.execute(
                    "SELECT i.data FROM conversation_items x JOIN items i ON i.id = x.item_id "
                    "WHERE x.conversation_id = ? ORDER BY x.position",
                    (conversation_id,),
                ).fetchall()
            )

        return [orjson.loads(r[0]) for r in await self._reader.run(read)]

    async def get_conversation_item(self, conversation_id: str, item_id: str) -> JSON | None:
        scope = filter_sql()

        def read(c: Any) -> Any:
            if not visible(c, "conversations", conversation_id, scope):
                return None
            return c.execute(
                "SELECT i.data FROM conversation_items x JOIN items i ON i.id = x.item_id "
                "WHERE x.conversation_id = ? AND x.item_id = ?",
                (conversation_id, item_id),
            ).fetchone()

        row = await self._reader.run(read)
        return None if row is None else orjson.loads(row[0])

    async def delete_conversation_item(self, conversation_id: str, item_id: str) -> bool:
        scope = filter_sql()

        def delete(c: Any) -> bool:
            if not visible(c, "conversations", conversation_id, scope):
                return False
            cur = c.execute(
                "DELETE FROM conversation_items WHERE conversation_id = ? AND item_id = ?", (conversation_id, item_id)
            )
            return bool(cur.rowcount)

        return await self._writer.transact(delete)
