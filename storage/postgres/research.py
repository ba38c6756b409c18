"""The research queue in PostgreSQL: `storage.sqlite.research.SQLiteResearchQueue`'s methods, shared by every
replica. `try_start` serialises on a transaction-scoped advisory lock per kind, so two replicas never
both take the last slot, and uses the database's clock for leases."""

from __future__ import annotations

import zlib

from storage.postgres.db import Database
from storage.scope import owning_project

_NOW = "extract(epoch FROM clock_timestamp())"


class PostgresResearchQueue:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def enter(self, run_id: str, kind: str, owner: str, lease: float) -> None:
        await self._db.pool.execute(
            "INSERT INTO research_queue (id, kind, project, owner, running, created_at, lease_until) "
            f"VALUES ($1, $2, $3, $4, 0, {_NOW}, {_NOW} + $5)",
            run_id,
            kind,
            owning_project(),
            owner,
            lease,
        )

    async def try_start(self, run_id: str, kind: str, limit: int) -> int:
        async with self._db.pool.acquire() as c, c.transaction():
            await c.execute("SELECT pg_advisory_xact_lock($1)", zlib.crc32(f"research:{kind}".encode()) & 0x7FFFFFFF)
            await c.execute(f"DELETE FROM research_queue WHERE lease_until < {_NOW}")
            mine = await c.fetchrow("SELECT created_at, running FROM research_queue WHERE id = $1", run_id)
            if mine is None:
                raise LookupError(f"research run {run_id} is not queued")
            if mine[1]:
                return 0
            running = await c.fetchval("SELECT COUNT(*) FROM research_queue WHERE kind = $1 AND running = 1", kind)
            ahead = await c.fetchval(
                "SELECT COUNT(*) FROM research_queue WHERE kind = $1 AND running = 0 AND (created_at, id) < ($2, $3)",
                kind,
                mine[0],
                run_id,
            )
            if running < limit and ahead == 0:
                await c.execute("UPDATE research_queue SET running = 1 WHERE id = $1", run_id)
                return 0
            return int(ahead) + 1

    async def renew(self, owner: str, lease: float) -> None:
        await self._db.pool.execute(
            f"UPDATE research_queue SET lease_until = {_NOW} + $2 WHERE owner = $1", owner, lease
        )

    async def leave(self, run_id: str) -> None:
        await self._db.pool.execute("DELETE FROM research_queue WHERE id = $1", run_id)
