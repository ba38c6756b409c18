"""Requeued background runs on SQLite: handed back by a stopping process, claimed by a live one.

A process that stops while background runs are still going (its drain time ran out) does not fail
them: it hands each back (`requeue`) as `queued`, with no owner, no lease and no output, and keeps
its request in `response_requeue`. A live process (the next start, or any process's lease sweep)
`claim`s it: in one transaction the row is leased to the claimant and the request leaves the table,
so two processes never run it twice, and a claimant that dies before finishing loses the lease as
any run does (the sweep fails it; nothing waits forever).
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from storage.base import JSON, Requeued


def requeue(c: Any, response: JSON, owner: str, request: JSON) -> list[str] | None:
    """Hand `response` back if `owner` still holds it: the ids of the output items it unlinked (the
    store deletes those no one else links); None if `owner` does not hold it (ended or taken over)."""
    rid = response["id"]
    held = c.execute("SELECT owner FROM responses WHERE id = ?", (rid,)).fetchone()
    if held is None or held[0] != owner:
        return None
    waiting = {k: v for k, v in response.items() if k != "output"}
    waiting.update(status="queued", error=None, incomplete_details=None, usage=None)
    now = time.time()
    c.execute(
        "UPDATE responses SET status = 'queued', owner = NULL, lease_until = NULL, updated_at = ?, data = ? "
        "WHERE id = ?",
        (now, orjson.dumps(waiting), rid),
    )
    outputs = [r[0] for r in c.execute("SELECT item_id FROM response_items WHERE response_id = ? AND role = 1", (rid,))]
    c.execute("DELETE FROM response_items WHERE response_id = ? AND role = 1", (rid,))
    for table in ("response_events", "response_event_chunks", "response_cancels"):
        c.execute(f"DELETE FROM {table} WHERE response_id = ?", (rid,))
    c.execute(
        "INSERT OR REPLACE INTO response_requeue (response_id, request, queued_at) VALUES (?, ?, ?)",
        (rid, orjson.dumps(request), now),
    )
    return outputs


def claim(c: Any, owner: str, lease_until: float, limit: int) -> list[Requeued]:
    """Lease up to `limit` requeued runs to `owner`, oldest first, and take their requests (a deleted
    response took its requeue row with it)."""
    rows = c.execute(
        "SELECT q.response_id, q.request, r.data, r.project FROM response_requeue q "
        "JOIN responses r ON r.id = q.response_id WHERE r.owner IS NULL ORDER BY q.queued_at LIMIT ?",
        (limit,),
    ).fetchall()
    for rid, *_ in rows:
        c.execute("UPDATE responses SET owner = ?, lease_until = ? WHERE id = ?", (owner, lease_until, rid))
        c.execute("DELETE FROM response_requeue WHERE response_id = ?", (rid,))
    return [Requeued(orjson.loads(data), orjson.loads(request), project) for _, request, data, project in rows]


def any_waiting(c: Any) -> bool:
    return c.execute("SELECT 1 FROM response_requeue LIMIT 1").fetchone() is not None
