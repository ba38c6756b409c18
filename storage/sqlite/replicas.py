"""Stored affinity on SQLite (#27): which inference replica a chain's last turn went to.

The picker (`gateway.inference.picker`) sends a chain's next turn to the replica whose prefix (KV)
cache holds its history; every gateway process and replica must agree, so the answer is stored
with the chain: on the response that moved it (read back as the nearest ancestor's along
`previous_response_id`, in the read that loads the history anyway), on the conversation, and per
(project, `prompt_cache_key`). It is written only when it changes (a chain's first turn, or a move
past the load bound), so a steady chain costs no write. The columns sit outside the API objects'
`data`, so no client body can carry them. PostgreSQL's twin: `storage/postgres/replicas.py`.

A cache key's row is kept for `GATEWAY_CACHE_KEY_AFFINITY_SECONDS` after it was last written
(`prune_cache_keys`, by the age index of migration 0023, in batches so the writer is never held
long): unlike a response or a conversation, a key is a client's string with nothing else to delete
it, so without this the table grows by one row per key ever sent. A key in steady use keeps its
row: reading it for routing writes its `updated_at` again once it is older than half the horizon
(`refresh_cache_key`: at most one write per key per half horizon).
"""

from __future__ import annotations

import time
from typing import Any

from storage.base import JSON, History  # noqa: F401  (History: re-exported for the store)

# the nearest replica up the chain: the walk stops at the first link that has one
CHAIN_REPLICA = (
    "WITH RECURSIVE chain(id, prev, replica, depth) AS ("
    " SELECT id, previous_response_id, replica, 0 FROM responses WHERE id = ?"
    " UNION ALL SELECT r.id, r.previous_response_id, r.replica, chain.depth + 1"
    " FROM responses r JOIN chain ON r.id = chain.prev WHERE chain.replica IS NULL)"
    " SELECT replica FROM chain WHERE replica IS NOT NULL ORDER BY depth LIMIT 1"
)


def chain_replica(c: Any, response_id: str) -> str | None:
    row = c.execute(CHAIN_REPLICA, (response_id,)).fetchone()
    return None if row is None else str(row[0])


def conversation_replica(c: Any, conversation_id: str, where: str, params: tuple[str, ...]) -> tuple[bool, str | None]:
    """Whether the conversation exists for the caller, and its last replica."""
    row = c.execute(f"SELECT replica FROM conversations WHERE id = ?{where}", (conversation_id, *params)).fetchone()
    return (False, None) if row is None else (True, row[0])


def cache_key_replica(c: Any, project: str, cache_key: str) -> tuple[str, float] | None:
    """The key's stored replica and when its row was last written."""
    row = c.execute(
        "SELECT replica, updated_at FROM cache_key_replicas WHERE project = ? AND cache_key = ?", (project, cache_key)
    ).fetchone()
    return None if row is None else (str(row[0]), float(row[1]))


def refresh_cache_key(c: Any, project: str, cache_key: str, before: float) -> None:
    """Restart the age of a key still in use whose row was written before `before` (once: a second
    reader's refresh finds it newer and writes nothing)."""
    c.execute(
        "UPDATE cache_key_replicas SET updated_at = ? WHERE project = ? AND cache_key = ? AND updated_at < ?",
        (time.time(), project, cache_key, before),
    )


def record(
    c: Any,
    replica: str,
    project: str,
    response_id: str | None,
    conversation_id: str | None,
    cache_key: str | None,
) -> None:
    """Store `replica` as the chain's last, on each place named (None: not that one)."""
    if response_id is not None:
        c.execute("UPDATE responses SET replica = ? WHERE id = ?", (replica, response_id))
    if conversation_id is not None:
        c.execute(
            "UPDATE conversations SET replica = ? WHERE id = ? AND project = ?", (replica, conversation_id, project)
        )
    if cache_key is not None:
        c.execute(
            "INSERT INTO cache_key_replicas (project, cache_key, replica, updated_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (project, cache_key) DO UPDATE SET replica = excluded.replica,"
            " updated_at = excluded.updated_at",
            (project, cache_key, replica, time.time()),
        )


PRUNE_BATCH = 1000  # rows deleted per transaction: the writer goes back to requests between batches
# the outer `updated_at` test as on PostgreSQL (where it matters: a row written again after the
# subquery picked it is kept); here the one writer makes it redundant, and harmless
PRUNE_CACHE_KEYS = (
    "DELETE FROM cache_key_replicas WHERE updated_at < ?1 AND rowid IN"
    " (SELECT rowid FROM cache_key_replicas WHERE updated_at < ?1 LIMIT ?2)"
)


def prune_cache_keys(c: Any, before: float) -> int:
    """Delete up to `PRUNE_BATCH` cache-key rows last written before `before`; how many."""
    return int(c.execute(PRUNE_CACHE_KEYS, (before, PRUNE_BATCH)).rowcount)
