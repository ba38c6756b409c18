"""The `items` table both halves of the SQLite state store write to.

A response's inputs and outputs and a conversation's items are rows of `items`, linked by position
(`response_items`, `conversation_items`), so an item a response and a conversation share is stored
once. Responses (`responses.py`, which also appends a turn to its conversation), conversations
(`conversations.py`) and handed-back runs (`leases.py`) insert, link and delete items through these
plain connection functions, run inside their callers' transactions.
"""

from __future__ import annotations

from typing import Any

import orjson

from storage.base import JSON

INSERT_ITEM = "INSERT OR IGNORE INTO items (id, type, created_at, data, project) VALUES (?, ?, ?, ?, ?)"


def item_rows(items: list[JSON], now: float, project: str) -> list[tuple[Any, ...]]:
    return [(it["id"], it.get("type", ""), now, orjson.dumps(it), project) for it in items]


def insert_items(c: Any, items: list[JSON], now: float, project: str) -> None:
    c.executemany(INSERT_ITEM, item_rows(items, now, project))


def append_conversation_links(c: Any, conversation_id: str, item_ids: list[str]) -> None:
    """Append items to a conversation, after whatever it already holds."""
    if not item_ids:
        return
    row = c.execute(
        "SELECT COALESCE(MAX(position), -1) FROM conversation_items WHERE conversation_id = ?", (conversation_id,)
    ).fetchone()
    start = row[0] + 1
    c.executemany(
        "INSERT INTO conversation_items (conversation_id, position, item_id) VALUES (?, ?, ?)",
        [(conversation_id, start + i, iid) for i, iid in enumerate(item_ids)],
    )


def delete_orphans(c: Any, item_ids: list[str]) -> None:
    """Delete the given items unless another response or a conversation still links them."""
    c.executemany(
        "DELETE FROM items WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM response_items WHERE item_id = ?1) "
        "AND NOT EXISTS (SELECT 1 FROM conversation_items WHERE item_id = ?1)",
        [(i,) for i in item_ids],
    )
