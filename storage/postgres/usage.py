"""The usage ledger and shared rate windows in PostgreSQL: `storage.usage.SQLiteUsageStore`'s
methods on the same statements (their `?` numbered for asyncpg), shared by every replica."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from storage.postgres.db import Database
from storage.usage import (
    ADD,
    ENSURE_WINDOW,
    ROLLUPS,
    SPENT_SQL,
    TAKE,
    USED,
    Row,
    UsageQuery,
    UsageRecord,
    bucket_sql,
    insert_raw,
    ordered,
    rollup,
    upsert_rollup,
)


@cache
def numbered(sql: str) -> str:
    """`?` placeholders as `$1`, `$2`, ... (the statements here hold no literal question mark)."""
    count = iter(range(1, 10_000))
    return re.sub(r"\?", lambda _m: f"${next(count)}", sql)


class PostgresUsageStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def write(self, records: Sequence[UsageRecord]) -> None:
        if not records:
            return
        async with self._db.pool.acquire() as c, c.transaction():
            await c.executemany(numbered(insert_raw()), [r.row() for r in records])
            for width, table in ROLLUPS.items():
                await c.executemany(numbered(upsert_rollup(table)), rollup(records, width))

    async def buckets(self, q: UsageQuery) -> list[Row]:
        sql, params = bucket_sql(q, floor_at="CAST(FLOOR(at) AS BIGINT)")
        if "usage_records" in sql:  # the raw rows' `at` is double precision
            params[2:4] = [float(params[2]), float(params[3])]
        return ordered([tuple(r) for r in await self._db.pool.fetch(numbered(sql), *params)], q)

    async def spent(self, project: str, since: int) -> list[Row]:
        return [tuple(r) for r in await self._db.pool.fetch(numbered(SPENT_SQL), project, since)]

    async def prune(self, raw_before: float, minutes_before: int, windows_before: int) -> None:
        async with self._db.pool.acquire() as c, c.transaction():
            await c.execute("DELETE FROM usage_records WHERE at < $1", raw_before)
            await c.execute("DELETE FROM usage_minutes WHERE start < $1", minutes_before)
            await c.execute("DELETE FROM rate_windows WHERE window_start < $1", windows_before)

    async def take(self, scope: str, metric: str, window: int, n: int, limit: int) -> int | None:
        async with self._db.pool.acquire() as c:
            await c.execute(numbered(ENSURE_WINDOW), scope, metric, window)
            got = await c.fetchval(numbered(TAKE), n, scope, metric, window, n, limit)
        return None if got is None else int(got)

    async def add(self, scope: str, metric: str, window: int, n: int) -> int:
        async with self._db.pool.acquire() as c:
            await c.execute(numbered(ENSURE_WINDOW), scope, metric, window)
            return int(await c.fetchval(numbered(ADD), n, scope, metric, window))

    async def used(self, scope: str, metric: str, window: int) -> int:
        got = await self._db.pool.fetchval(numbered(USED), scope, metric, window)
        return 0 if got is None else int(got)
