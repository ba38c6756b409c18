"""Leases of in-progress responses in the SQLite state store: renewed, handed back, claimed, expired.

A response being produced is owned by one process and leased for `lease_seconds`; its owner renews
the lease while it runs, a stopping process hands its background runs back (`requeue.py`'s SQL) for
a live one to claim, and any process fails the responses whose lease ran out, with the reason
stored. The sweep's common case (nothing due) is one indexed read, no write lock.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from storage.base import JSON, Requeued
from storage.sqlite import requeue
from storage.sqlite.conn import ThreadConnection, WriterConnection
from storage.sqlite.items import delete_orphans

LEASE_EXPIRED = {
    "code": "server_error",
    "message": "The gateway process producing this response stopped before it finished (its lease expired).",
}


class SQLiteLeases:
    """The leases part of `SQLiteStore` (`state.py`), on the connections it opens."""

    _writer: WriterConnection
    _reader: ThreadConnection
    lease_seconds: float

    async def renew_leases(self, owner: str) -> int:
        def renew(c: Any) -> int:
            until = time.time() + self.lease_seconds
            return int(c.execute("UPDATE responses SET lease_until = ? WHERE owner = ?", (until, owner)).rowcount)

        return await self._writer.transact(renew)

    async def requeue_response(self, response: JSON, owner: str, request: JSON) -> bool:
        def write(c: Any) -> bool:
            dropped = requeue.requeue(c, response, owner, request)
            if dropped is not None:
                delete_orphans(c, dropped)
            return dropped is not None

        return bool(await self._writer.transact(write))

    async def claim_requeued(self, owner: str, limit: int) -> list[Requeued]:
        if not await self._reader.run(requeue.any_waiting):  # the common case: one read, no write lock
            return []
        lease = time.time() + self.lease_seconds
        return list(await self._writer.transact(lambda c: requeue.claim(c, owner, lease, limit)))

    async def expire_leases(self) -> list[str]:
        def due(c: Any) -> bool:
            query = "SELECT 1 FROM responses WHERE owner IS NOT NULL AND lease_until < ? LIMIT 1"
            return c.execute(query, (time.time(),)).fetchone() is not None

        if not await self._reader.run(due):  # the common case costs one indexed read, no write lock
            return []

        def expire(c: Any) -> list[str]:
            now = time.time()
            rows = c.execute(
                "SELECT id, data FROM responses WHERE owner IS NOT NULL AND lease_until < ?", (now,)
            ).fetchall()
            for rid, data in rows:
                resp = orjson.loads(data)
                resp["status"] = "failed"
                resp["error"] = dict(LEASE_EXPIRED)
                c.execute(
                    "UPDATE responses SET status = 'failed', owner = NULL, lease_until = NULL, updated_at = ?, "
                    "data = ? WHERE id = ?",
                    (now, orjson.dumps(resp), rid),
                )
            return [r[0] for r in rows]

        return await self._writer.transact(expire)
