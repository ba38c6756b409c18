"""The `items` table both halves of the PostgreSQL state store write to, and the checks both read through.

`storage.sqlite.items`' counterpart: a response's inputs and outputs and a conversation's items are
rows of `items` linked by position, so an item several share is stored once. Responses
(`responses.py`), conversations (`conversations.py`) and handed-back runs (`leases.py`) delete the
items no one links any more, and conversations append through here; responses and conversations
check the caller's project (`hidden`) and page their linked items (`linked_page`) alike.
"""

from __future__ import annotations

from typing import Any

import orjson

from storage.base import JSON, Page
from storage.pages import PageRequest, linked_items_query
from storage.postgres.db import Database
from storage.scope import current_project, owning_project


def loads(data: bytes) -> Any:
    return orjson.loads(data)


async def hidden(db: Database, table: str, key: str) -> bool:
    """Whether row `key` of `table` is outside the caller's project (or missing); False for system work."""
    project = current_project()
    if project is None:
        return False
    sql = f"SELECT 1 FROM {table} WHERE id = $1 AND project = $2"
    return await db.pool.fetchval(sql, key, project) is None


async def linked_page(db: Database, links: tuple[str, str], key: str, req: PageRequest) -> Page:
    """A page of the items linked to a response's inputs or to a conversation (`storage.pages`)."""
    sql, values = linked_items_query("postgres", links, key, req)
    return req.page(await db.pool.fetch(sql, *values))


async def append_to_conversation(c: Any, conversation_id: str, items: list[JSON], now: float) -> None:
    """Insert `items` (existing ids are linked, not copied) and append them to the conversation.

    The caller holds the conversation's row lock (its UPDATE or INSERT), so positions never collide.
    """
    if not items:
        return
    await c.execute(
        "INSERT INTO items (id, type, created_at, data, project) "
        "SELECT t.id, t.type, $1, t.data, $5 FROM unnest($2::text[], $3::text[], $4::bytea[]) AS t(id, type, data) "
        "ON CONFLICT (id) DO NOTHING",
        now,
        [i["id"] for i in items],
        [i.get("type", "") for i in items],
        [orjson.dumps(i) for i in items],
        owning_project(),
    )
    await c.execute(
        "INSERT INTO conversation_items (conversation_id, position, item_id) "
        "SELECT $1, (SELECT COALESCE(MAX(position), -1) FROM conversation_items WHERE conversation_id = $1) + t.n, "
        "t.id FROM unnest($2::text[]) WITH ORDINALITY AS t(id, n)",
        conversation_id,
        [i["id"] for i in items],
    )


async def delete_orphans(c: Any, item_ids: list[str]) -> None:
    """Delete the given items unless another response or a conversation still links them."""
    if item_ids:
        await c.execute(
            "DELETE FROM items WHERE id = ANY($1::text[]) "
            "AND NOT EXISTS (SELECT 1 FROM response_items WHERE item_id = items.id) "
            "AND NOT EXISTS (SELECT 1 FROM conversation_items WHERE item_id = items.id)",
            item_ids,
        )
