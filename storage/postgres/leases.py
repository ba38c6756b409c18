"""Leases of in-progress responses in the PostgreSQL state store: renewed, handed back, claimed, expired.

`storage.sqlite.leases`' counterpart, by the database's clock: a response being produced is owned
by one replica and leased for `lease_seconds`; its owner renews the lease, a stopping replica hands
its background runs back (`requeue.py`'s SQL) for a live one to claim, and any replica fails the
responses whose lease ran out, each once (`SKIP LOCKED`), announcing the background ones.
"""

from __future__ import annotations

import time

import orjson

from storage.base import JSON, Requeued
from storage.postgres import requeue
from storage.postgres.db import RESPONSE_CHANNEL, Database
from storage.postgres.items import delete_orphans, loads

LEASE_EXPIRED = {  # the SQLite store's reason, word for word
    "code": "server_error",
    "message": "The gateway process producing this response stopped before it finished (its lease expired).",
}


class PostgresLeases:
    """The leases part of `PostgresStore` (`state.py`), on the database it opens."""

    db: Database
    lease_seconds: float

    async def renew_leases(self, owner: str) -> int:
        status = await self.db.pool.execute(
            "UPDATE responses SET lease_until = extract(epoch FROM clock_timestamp()) + $2 WHERE owner = $1",
            owner,
            self.lease_seconds,
        )
        return int(status.rsplit(" ", 1)[-1])

    async def requeue_response(self, response: JSON, owner: str, request: JSON) -> bool:
        async with self.db.pool.acquire() as c, c.transaction():
            dropped = await requeue.requeue(c, response, owner, request)
            if dropped is not None:
                await delete_orphans(c, dropped)
            return dropped is not None

    async def claim_requeued(self, owner: str, limit: int) -> list[Requeued]:
        async with self.db.pool.acquire() as c:
            return await requeue.claim(c, owner, self.lease_seconds, limit)

    async def expire_leases(self) -> list[str]:
        """Fail the responses whose lease ran out (by the database's clock).

        Rows another replica is expiring at the same moment are skipped (`SKIP LOCKED`), so each is
        failed once; a background one is announced, so whoever follows or cancels it wakes up.
        """
        async with self.db.pool.acquire() as c, c.transaction():
            rows = await c.fetch(
                "SELECT id, data FROM responses WHERE owner IS NOT NULL "
                "AND lease_until < extract(epoch FROM clock_timestamp()) ORDER BY id FOR UPDATE SKIP LOCKED"
            )
            if not rows:
                return []
            now = time.time()
            ids: list[str] = []
            datas: list[bytes] = []
            announce: list[str] = []
            for rid, data in rows:
                resp = loads(data)
                resp["status"] = "failed"
                resp["error"] = dict(LEASE_EXPIRED)
                ids.append(rid)
                datas.append(orjson.dumps(resp))
                if resp.get("background"):
                    announce.append(rid)
            await c.execute(
                "UPDATE responses SET status = 'failed', owner = NULL, lease_until = NULL, updated_at = $1, "
                "data = t.data FROM unnest($2::text[], $3::bytea[]) AS t(id, data) WHERE responses.id = t.id",
                now,
                ids,
                datas,
            )
            if announce:
                await c.execute(
                    "SELECT pg_notify($1, t.id) FROM unnest($2::text[]) AS t(id)", RESPONSE_CHANNEL, announce
                )
        return ids
