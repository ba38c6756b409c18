"""The cache-key affinity's upkeep SQL as the table grows: flat per operation, not linear in the rows (#27).

    .venv/bin/python -m bench.bench_affinity [--sizes 10000,100000,1000000] [--ops N] [--backend sqlite|postgres|both]

`cache_key_replicas` holds one row per (project, `prompt_cache_key`) a client ever sent, until the
age prune removes it. Two statements keep it, and both must cost the same at 10^4 rows as at 10^6:

* the refresh (`refresh_cache_key`): `UPDATE ... WHERE project = ? AND cache_key = ? AND
  updated_at < ?`, a key read for routing whose row is older than half the horizon: one primary-key
  probe and one row written (every refresh measured here writes: its `before` is in the future);
* the age prune (`prune_cache_keys`), on the lease sweep's beat: a batch of `PRUNE_BATCH` rows last
  written before the horizon, found as a range of the `updated_at` index (migration 0023), timed per
  batch of due rows, and on the common beat, when no row is due (one index probe, nothing deleted).

In-process, on the state store `gateway/bootstrap.py` builds (SQLite in a temporary data dir;
PostgreSQL on a throw-away embedded server), each statement run as the store runs it (SQLite: a
transaction of the writer connection; PostgreSQL: the pool). The table grows in place from one size
to the next (SQLite: `executemany` in one transaction; PostgreSQL: `COPY`, then `VACUUM ANALYZE`
and a `CHECKPOINT`, so autovacuum's pass over the new rows does not land in the timings), not
measured. Reported
per size: p50 and p90 of each operation, and the ratio of the largest size's p50 to the smallest's
(flat is ~1; a scan would make it ~100 from 10^4 to 10^6). The query plans themselves are pinned by
`tests/storage/test_query_plans.py`.

On PostgreSQL a refresh's wall time is mostly its commit's WAL flush, not the lookup (an index
probe, ~0.1 ms in `EXPLAIN ANALYZE` at 10^6): the bench prints the WAL each refresh wrote
(`pg_stat_wal`: full-page images, bytes; at most the two pages a refresh changes) beside its
times; on a shared machine the flush's wait, not the table, sets the spread between runs.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.measure import pct, timed_calls
from gateway.bootstrap import build_stores
from gateway.config import Settings
from storage.postgres import replicas as pg_replicas
from storage.sqlite import replicas as sqlite_replicas

HORIZON = 7 * 86400.0  # rows last written before now - HORIZON are due for the prune
PROJECTS = 50
DUE_BATCHES = 10  # batches of due rows the prune deletes at each size
COLUMNS = ("project", "cache_key", "replica", "updated_at")
REPLICAS = [f"pool/10.0.{n}.1:8000" for n in range(8)]


def _key(i: int) -> tuple[str, str]:
    return f"proj-{i % PROJECTS:02d}", f"agent-session-{i:09d}-{i * 2654435761 % 2**32:08x}"


def _rows(start: int, stop: int, now: float, *, due: bool = False) -> Iterator[tuple[str, str, str, float]]:
    """Rows `start`..`stop`: written within the last half horizon, a later row more recently (as
    keys arrive), or (`due`) before the horizon at random ages; inserted in key order."""
    rng = random.Random(start)
    for i in range(start, stop):
        project, key = _key(i)
        age = HORIZON * (2 + rng.random()) if due else HORIZON / 2 * (1 - i / 2**31)
        yield project, key, REPLICAS[i % 8], now - age


class Table:
    """The two statements and the bulk fill, run as the store runs them, on either backend."""

    def __init__(self, store: Any, kind: str) -> None:
        self.store = store
        self.kind = kind

    async def fill(self, rows: Iterator[tuple[str, str, str, float]]) -> None:
        if self.kind == "sqlite":
            insert = f"INSERT INTO cache_key_replicas ({', '.join(COLUMNS)}) VALUES (?, ?, ?, ?)"
            await self.store.writer.transact(lambda c: c.executemany(insert, rows))
            return
        async with self.store.db.pool.acquire() as c:
            await c.copy_records_to_table("cache_key_replicas", records=list(rows), columns=list(COLUMNS))
            # the fill's aftermath is not the statements' cost: autovacuum's pass over the new rows
            # and the checkpoint of their WAL would land in the timings (a server's steady state has both done)
            await c.execute("VACUUM ANALYZE cache_key_replicas")
            await c.execute("CHECKPOINT")

    async def refresh(self, project: str, key: str, before: float) -> None:
        if self.kind == "sqlite":
            await self.store.writer.transact(sqlite_replicas.refresh_cache_key, project, key, before)
        else:
            await pg_replicas.refresh_cache_key(self.store.db.pool, project, key, before)

    async def prune(self, before: float) -> int:
        if self.kind == "sqlite":
            return int(await self.store.writer.transact(sqlite_replicas.prune_cache_keys, before))
        return await pg_replicas.prune_cache_keys(self.store.db.pool, before)

    async def wal(self) -> tuple[int, int]:
        """PostgreSQL's WAL so far: full-page images and bytes (SQLite: none counted)."""
        if self.kind == "sqlite":
            return 0, 0
        row = await self.store.db.pool.fetchrow("SELECT wal_fpi, wal_bytes FROM pg_stat_wal")
        return int(row[0]), int(row[1])

    async def count(self) -> int:
        sql = "SELECT count(*) FROM cache_key_replicas"
        if self.kind == "sqlite":
            return int(await self.store.writer.transact(lambda c: c.execute(sql).fetchone()[0]))
        return int(await self.store.db.pool.fetchval(sql))


async def measure(table: Table, size: int, ops: int, now: float) -> dict[str, list[float]]:
    """Per-operation µs at the table's current size (`size` live rows, numbered 0..size-1)."""
    rng = random.Random(size)
    picks = [_key(rng.randrange(size)) for _ in range(ops)]
    it = iter(picks)

    async def refresh() -> None:
        project, key = next(it)
        await table.refresh(project, key, time.time() + 60)  # older than `before`: written

    wal = await table.wal()
    refreshes = await timed_calls(refresh, ops, unit=1e6)
    fpi, wal_bytes = (b - a for a, b in zip(wal, await table.wal(), strict=True))
    if table.kind == "postgres":  # what the commit writes grows with the pages touched, not the lookup
        print(
            f"{size:>10,} {'refresh WAL per op':>26} {fpi / ops:>9.2f} full-page images, {wal_bytes / ops:,.0f} bytes"
        )
    idle = await timed_calls(lambda: table.prune(now - HORIZON), ops, unit=1e6)  # nothing due: the common beat
    # rows past the horizon, numbered beyond the live ones; each prune statement deletes one batch
    batch = sqlite_replicas.PRUNE_BATCH if table.kind == "sqlite" else pg_replicas.PRUNE_BATCH
    await table.fill(_rows(10**9, 10**9 + DUE_BATCHES * batch, now, due=True))
    deleted: list[int] = []

    async def prune_due() -> None:
        deleted.append(await table.prune(now - HORIZON))

    due = await timed_calls(prune_due, DUE_BATCHES, unit=1e6)
    if sum(deleted) != DUE_BATCHES * batch or await table.prune(now - HORIZON) != 0:
        raise SystemExit(f"the prune deleted {deleted}, not {DUE_BATCHES} batches of {batch}")
    return {"refresh": refreshes, "prune, none due": idle, f"prune, batch of {batch} due": due}


async def run(kind: str, sizes: list[int], ops: int, url: str | None) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-affinity-") as tmp:
        store = build_stores(Settings(data_dir=Path(tmp), database_url=url)).state
        await store.open()
        table = Table(store, kind)
        try:
            now = time.time()
            filled, p50s = 0, dict[str, list[float]]()
            print(f"\n{kind}: cache_key_replicas upkeep, µs per operation ({ops} refreshes and idle prunes per size)")
            print(f"{'rows':>10} {'operation':>26} {'p50 µs':>9} {'p90 µs':>9}  fill s")
            for size in sizes:
                began = time.perf_counter()
                await table.fill(_rows(filled, size, now))
                fill_s = time.perf_counter() - began
                filled = size
                assert await table.count() == size
                for name, times in (await measure(table, size, ops, now)).items():
                    p50 = statistics.median(times)
                    p50s.setdefault(name, []).append(p50)
                    print(f"{size:>10,} {name:>26} {p50:>9.1f} {pct(times, 90):>9.1f}  {fill_s:6.1f}")
            for name, values in p50s.items():
                print(
                    f"{kind}: {name} p50 at {sizes[-1]:,} / {sizes[0]:,} rows = {values[-1] / values[0]:.2f} (flat: ~1)"
                )
        finally:
            await store.close()


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000,1000000", help="table sizes, growing")
    ap.add_argument("--ops", type=int, default=500, help="refreshes and idle prunes timed per size")
    ap.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.backend in ("sqlite", "both"):
        await run("sqlite", sizes, a.ops, None)
    if a.backend in ("postgres", "both"):
        from tests.support.pg import postgres_server

        with postgres_server() as url:
            await run("postgres", sizes, a.ops, url)


if __name__ == "__main__":
    asyncio.run(main())
