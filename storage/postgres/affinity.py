"""Stored affinity (#27) in the PostgreSQL state store: the replica a conversation or cache key last went to.

`storage.sqlite.affinity`'s counterpart: the statements are `replicas.py`'s; these methods scope
them to the caller's project, refresh a cache key in steady use, and prune old keys in short
batches. The chain's replica is read with its history (`routed_history`, in `responses.py`).
"""

from __future__ import annotations

from storage.base import cache_key_id
from storage.postgres import replicas
from storage.postgres.db import Database
from storage.scope import current_project, owning_project


class PostgresAffinity:
    """The stored-affinity part of `PostgresStore` (`state.py`), on the database it opens."""

    db: Database

    async def conversation_replica(self, conversation_id: str) -> tuple[bool, str | None]:
        return await replicas.conversation_replica(self.db.pool, conversation_id, current_project())

    async def cache_key_replica(self, cache_key: str, refresh_before: float | None = None) -> str | None:
        project, key = owning_project(), cache_key_id(cache_key)
        found = await replicas.cache_key_replica(self.db.pool, project, key)
        if found is None:
            return None
        if refresh_before is not None and found[1] < refresh_before:
            await replicas.refresh_cache_key(self.db.pool, project, key, refresh_before)
        return found[0]

    async def record_replica(
        self,
        replica: str,
        *,
        response_id: str | None = None,
        conversation_id: str | None = None,
        cache_key: str | None = None,
    ) -> None:
        project = owning_project()
        async with self.db.pool.acquire() as c, c.transaction():
            await replicas.record(
                c,
                replica,
                project,
                response_id,
                conversation_id,
                None if cache_key is None else cache_key_id(cache_key),
            )

    async def prune_cache_keys(self, before: float) -> int:
        total = 0
        while (n := await replicas.prune_cache_keys(self.db.pool, before)) > 0:
            total += n
            if n < replicas.PRUNE_BATCH:
                break
        return total
