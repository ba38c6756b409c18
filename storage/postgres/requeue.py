"""Requeued background runs on PostgreSQL: `storage.sqlite.requeue`'s semantics.

Claims lock the requeue rows they take (`SKIP LOCKED`), so replicas claiming at the same moment
take different runs.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from storage.base import JSON, Requeued


async def requeue(c: Any, response: JSON, owner: str, request: JSON) -> list[str] | None:
    """In the caller's transaction: the output item ids unlinked, or None if `owner` does not hold it."""
    rid = response["id"]
    held = await c.fetchrow("SELECT owner FROM responses WHERE id = $1 FOR UPDATE", rid)
    if held is None or held[0] != owner:
        return None
    waiting = {k: v for k, v in response.items() if k != "output"}
    waiting.update(status="queued", error=None, incomplete_details=None, usage=None)
    now = time.time()
    await c.execute(
        "UPDATE responses SET status = 'queued', owner = NULL, lease_until = NULL, updated_at = $1, data = $2 "
        "WHERE id = $3",
        now,
        orjson.dumps(waiting),
        rid,
    )
    outputs = [
        r[0]
        for r in await c.fetch("DELETE FROM response_items WHERE response_id = $1 AND role = 1 RETURNING item_id", rid)
    ]
    for table in ("response_events", "response_event_chunks", "response_cancels"):
        await c.execute(f"DELETE FROM {table} WHERE response_id = $1", rid)
    await c.execute(
        "INSERT INTO response_requeue (response_id, request, queued_at) VALUES ($1, $2, $3) "
        "ON CONFLICT (response_id) DO UPDATE SET request = excluded.request, queued_at = excluded.queued_at",
        rid,
        orjson.dumps(request),
        now,
    )
    return outputs


async def claim(c: Any, owner: str, lease_seconds: float, limit: int) -> list[Requeued]:
    """One statement: pick, take the requests, lease the rows (a deleted response took its row along)."""
    rows = await c.fetch(
        "WITH picked AS (SELECT q.response_id FROM response_requeue q JOIN responses r ON r.id = q.response_id "
        "WHERE r.owner IS NULL ORDER BY q.queued_at LIMIT $3 FOR UPDATE OF q SKIP LOCKED), "
        "taken AS (DELETE FROM response_requeue q USING picked p WHERE q.response_id = p.response_id "
        "RETURNING q.response_id, q.request) "
        "UPDATE responses r SET owner = $1, lease_until = extract(epoch FROM clock_timestamp()) + $2 "
        "FROM taken t WHERE r.id = t.response_id RETURNING r.data, t.request, r.project",
        owner,
        lease_seconds,
        limit,
    )
    return [Requeued(orjson.loads(data), orjson.loads(request), project) for data, request, project in rows]
