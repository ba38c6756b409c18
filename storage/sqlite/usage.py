"""The usage ledger and the shared rate windows in SQLite (tables from migration 0020): the statements
of `storage.usage` (written once for both databases) on the process's shared writer and reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from storage.sqlite.state import SQLiteStore
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
    rollup,
    upsert_rollup,
)


class SQLiteUsageStore:
    def __init__(self, db: SQLiteStore) -> None:
        self._db = db

    async def write(self, records: Sequence[UsageRecord]) -> None:
        """Raw rows and both roll-ups in one transaction (a batch from the recorder)."""
        if records:
            await self._db.writer.write_rows(
                [
                    (insert_raw(), [r.row() for r in records]),
                    *((upsert_rollup(table), rollup(records, width)) for width, table in ROLLUPS.items()),
                ]
            )

    async def buckets(self, q: UsageQuery) -> list[Row]:
        sql, params = bucket_sql(q)
        return await self._db.reader.run(lambda c: [tuple(r) for r in c.execute(sql, params).fetchall()])

    async def spent(self, project: str, since: int) -> list[Row]:
        """Tokens per model of `project` since `since` (an hour boundary): what budgets compare."""
        return await self._db.reader.run(lambda c: [tuple(r) for r in c.execute(SPENT_SQL, (project, since))])

    async def prune(self, raw_before: float, minutes_before: int, windows_before: int) -> None:
        await self._db.writer.write_rows(
            [
                ("DELETE FROM usage_records WHERE at < ?", [(raw_before,)]),
                ("DELETE FROM usage_minutes WHERE start < ?", [(minutes_before,)]),
                ("DELETE FROM rate_windows WHERE window_start < ?", [(windows_before,)]),
            ]
        )

    async def take(self, scope: str, metric: str, window: int, n: int, limit: int) -> int | None:
        """Lease `n` units of the window if they fit under `limit`: the new total, or None."""

        def write(c: Any) -> int | None:
            c.execute(ENSURE_WINDOW, (scope, metric, window))
            row = c.execute(TAKE, (n, scope, metric, window, n, limit)).fetchone()
            return None if row is None else int(row[0])

        return await self._db.writer.transact(write)

    async def add(self, scope: str, metric: str, window: int, n: int) -> int:
        """Give back (n < 0) or add (a token overrun) units; the new total."""

        def write(c: Any) -> int:
            c.execute(ENSURE_WINDOW, (scope, metric, window))
            return int(c.execute(ADD, (n, scope, metric, window)).fetchone()[0])

        return await self._db.writer.transact(write)

    async def used(self, scope: str, metric: str, window: int) -> int:
        row = await self._db.reader.run(lambda c: c.execute(USED, (scope, metric, window)).fetchone())
        return 0 if row is None else int(row[0])
