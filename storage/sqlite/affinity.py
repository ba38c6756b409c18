"""Stored affinity (#27) in the SQLite state store: the replica a conversation or cache key last went to.

The statements are `replicas.py`'s plain connection functions; these methods scope them to the
caller's project, refresh a cache key in steady use, and prune old keys in short batches so the
writer is never held long. The chain's replica is read with its history (`routed_history`, in
`responses.py`), not here.
"""

from __future__ import annotations

from storage.base import cache_key_id
from storage.scope import filter_sql, owning_project
from storage.sqlite import replicas
from storage.sqlite.conn import ThreadConnection, WriterConnection


class SQLiteAffinity:
    """The stored-affinity part of `SQLiteStore` (`state.py`), on the connections it opens."""

    _writer: WriterConnection
    _reader: ThreadConnection

    async def conversation_replica(self, conversation_id: str) -> tuple[bool, str | None]:
        where, params = filter_sql()
        return await self._reader.run(replicas.conversation_replica, conversation_id, where, params)

    async def cache_key_replica(self, cache_key: str, refresh_before: float | None = None) -> str | None:
        project, key = owning_project(), cache_key_id(cache_key)
        found = await self._reader.run(replicas.cache_key_replica, project, key)
        if found is None:
            return None
        if refresh_before is not None and found[1] < refresh_before:
            await self._writer.transact(replicas.refresh_cache_key, project, key, refresh_before)
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
        await self._writer.transact(
            replicas.record,
            replica,
            project,
            response_id,
            conversation_id,
            None if cache_key is None else cache_key_id(cache_key),
        )

    async def prune_cache_keys(self, before: float) -> int:
        total = 0
        while (n := await self._writer.transact(replicas.prune_cache_keys, before)) > 0:
            total += n
            if n < replicas.PRUNE_BATCH:
                break
        return total
