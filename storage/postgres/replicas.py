"""Stored affinity on PostgreSQL (#27): `storage.sqlite.replicas`' semantics (see there for why).

The chain's replica is read in the statement that checks the response exists, before the history
query, on the same connection: the history costs no extra round trip for it.
"""

from __future__ import annotations

import time
from typing import Any

# one row when the response exists: the nearest replica up its chain (NULL: none stored)
CHAIN_REPLICA = (
    "SELECT (WITH RECURSIVE chain(id, prev, replica, depth) AS ("
    " SELECT id, previous_response_id, replica, 0 FROM responses WHERE id = $1"
    " UNION ALL SELECT r.id, r.previous_response_id, r.replica, chain.depth + 1"
    " FROM responses r JOIN chain ON r.id = chain.prev WHERE chain.replica IS NULL)"
    " SELECT replica FROM chain WHERE replica IS NOT NULL ORDER BY depth LIMIT 1)"
    " FROM responses WHERE id = $1"
)


async def conversation_replica(c: Any, conversation_id: str, project: str | None) -> tuple[bool, str | None]:
    """Whether the conversation exists for the caller (`project` None: system work), and its last replica."""
    row = await c.fetchrow(
        "SELECT replica FROM conversations WHERE id = $1 AND ($2::text IS NULL OR project = $2)",
        conversation_id,
        project,
    )
    return (False, None) if row is None else (True, row[0])


async def cache_key_replica(c: Any, project: str, cache_key: str) -> tuple[str, float] | None:
    """The key's stored replica and when its row was last written."""
    row = await c.fetchrow(
        "SELECT replica, updated_at FROM cache_key_replicas WHERE project = $1 AND cache_key = $2", project, cache_key
    )
    return None if row is None else (str(row[0]), float(row[1]))


async def refresh_cache_key(c: Any, project: str, cache_key: str, before: float) -> None:
    """Restart the age of a key still in use whose row was written before `before` (once: a second
    reader's refresh finds it newer and writes nothing)."""
    await c.execute(
        "UPDATE cache_key_replicas SET updated_at = $1 WHERE project = $2 AND cache_key = $3 AND updated_at < $4",
        time.time(),
        project,
        cache_key,
        before,
    )


async def record(
    c: Any,
    replica: str,
    project: str,
    response_id: str | None,
    conversation_id: str | None,
    cache_key: str | None,
) -> None:
    """Store `replica` as the chain's last, on each place named (None: not that one)."""
    if response_id is not None:
        await c.execute("UPDATE responses SET replica = $1 WHERE id = $2", replica, response_id)
    if conversation_id is not None:
        await c.execute(
            "UPDATE conversations SET replica = $1 WHERE id = $2 AND project = $3", replica, conversation_id, project
        )
    if cache_key is not None:
        await c.execute(
            "INSERT INTO cache_key_replicas (project, cache_key, replica, updated_at) VALUES ($1, $2, $3, $4)"
            " ON CONFLICT (project, cache_key) DO UPDATE SET replica = excluded.replica,"
            " updated_at = excluded.updated_at",
            project,
            cache_key,
            replica,
            time.time(),
        )


PRUNE_BATCH = 1000  # rows deleted per statement (each its own transaction): short row locks
# the outer `updated_at < $1` is checked again on the locked row: a key written again (a turn
# moved it, or its age was refreshed) after the subquery picked it is kept, not deleted
PRUNE_CACHE_KEYS = (
    "DELETE FROM cache_key_replicas WHERE updated_at < $1 AND (project, cache_key) IN"
    " (SELECT project, cache_key FROM cache_key_replicas WHERE updated_at < $1 LIMIT $2)"
)


async def prune_cache_keys(c: Any, before: float) -> int:
    """Delete up to `PRUNE_BATCH` cache-key rows last written before `before`; how many."""
    status = await c.execute(PRUNE_CACHE_KEYS, before, PRUNE_BATCH)  # "DELETE <n>"
    return int(status.rsplit(" ", 1)[-1])
