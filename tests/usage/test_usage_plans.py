"""The usage ledger's and the shared limits' statements use an index (#30): the limits run on the
request path (a lease of quota), the budget check reads one project's month, the Usage API reads
buckets by time. Same method as `tests/storage/test_query_plans.py` on the store bootstrap builds: every
statement the ledger sent is asked for its plan. SQLite's `EXPLAIN QUERY PLAN` may not SCAN a
stored table; PostgreSQL's `EXPLAIN`, on a ledger of 60,000 calls over 30 days (20 projects) with
statistics (`ANALYZE`), may not choose a sequential scan of a ledger table, nor need one when
sequential scans are priced out. The budget check's statement is a lookup of its project's rows
(index `usage_hours_project`, migration 0022), not a range of every project's month."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from storage.postgres.usage import numbered
from storage.sqlite.conn import sqlite3
from storage.usage import SPENT_SQL, UsageQuery
from tests.support.plans import postgres_scans
from tests.support.stores import built_stores
from tests.usage.test_usage_store import DAY, T0, rec

# Statements whose scan is bounded, keyed by a fragment of their text.
ALLOWED = {
    "DELETE FROM rate_windows": "the periodic prune (off the request path) of a table that holds only the "
    "last minutes' windows of each scope",
}


@pytest.mark.asyncio
async def test_ledger_and_limit_statements_use_indexes(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    bundle = await built_stores("sqlite", tmp_path, request)
    store: Any = bundle.state
    seen: list[str] = []

    def trace(c: Any) -> None:
        c.set_trace_callback(seen.append)

    try:
        await store.reader.run(trace)
        await store.writer.run(trace)
        ledger = bundle.usage
        await ledger.write([rec(T0 + n * 600, project=f"p{n % 3}", model=f"m{n % 2}") for n in range(50)])
        await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, DAY, group_by=("project", "model")))
        await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, 60, projects=("p1",), models=("m1",)))
        await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, 3600, group_by=("door",)))
        await ledger.spent("p1", T0)
        await ledger.take("project:p1", "requests", 1, 3, 30)
        await ledger.add("project:p1", "tokens", 1, 40)
        await ledger.used("project:p1", "requests", 1)
        await ledger.prune(T0 + DAY, T0 + DAY, 0)
    finally:
        await bundle.close()
    statements = {
        s
        for s in seen
        if re.match(r"\s*(SELECT|WITH|INSERT|UPDATE|DELETE)", s, re.I) and ("usage" in s or "rate_windows" in s)
    }
    assert any("rate_windows" in s for s in statements) and any("usage_hours" in s for s in statements), statements
    plain = sqlite3.connect(store.path)
    bad = [
        f"{detail}\n    in: {sql}"
        for sql in sorted(statements)
        if not any(fragment in sql for fragment in ALLOWED)
        for _, _, _, detail in plain.execute("EXPLAIN QUERY PLAN " + sql).fetchall()
        if re.match(r"SCAN (?!json_each)\w+", detail)
    ]
    spent = " ".join(d for *_, d in plain.execute("EXPLAIN QUERY PLAN " + SPENT_SQL, ("p1", T0)).fetchall())
    plain.close()
    assert not bad, "statements that scan a table or an index:\n" + "\n".join(bad)
    assert "usage_hours_project" in spent, spent  # its project's rows, not the month of every project


LEDGER = ("usage_records", "usage_minutes", "usage_hours", "usage_days", "rate_windows")
SUMS = "input_tokens, cached_tokens, output_tokens, reasoning_tokens, requests, estimated"
COLUMNS = "at, kind, project, api_key_id, model, pool, replica, door, source, " + SUMS


def _generated(calls: int) -> list[str]:
    """A ledger of `calls` calls over 30 days (20 projects, 60 keys, 7 models) and its roll-ups, in
    bulk SQL; the rate windows of 200 scopes over 100 minutes."""
    step = 30 * DAY / calls
    out = [
        f"INSERT INTO usage_records ({COLUMNS}) SELECT {T0} + i * {step}, 'completions', 'p' || (i % 20), "
        "'key_' || (i % 60), 'm' || (i % 7), '', 'r1', CASE WHEN i % 2 = 0 THEN 'http' ELSE 'envoy' END, "
        f"'responses', 100, 10, 50, 0, 1, 0 FROM generate_series(0, {calls - 1}) AS i"
    ]
    sums = ", ".join(f"SUM({c.strip()})" for c in SUMS.split(","))
    for width, table in ((60, "usage_minutes"), (3600, "usage_hours"), (DAY, "usage_days")):
        out.append(
            f"INSERT INTO {table} (start, kind, project, api_key_id, model, pool, {SUMS}) "
            f"SELECT (CAST(FLOOR(at) AS BIGINT) / {width}) * {width} AS b, kind, project, api_key_id, model, pool, "
            f"{sums} FROM usage_records GROUP BY b, kind, project, api_key_id, model, pool"
        )
    out.append(
        "INSERT INTO rate_windows (scope, metric, window_start, used) SELECT 'project:p' || s, 'tokens', "
        f"{T0} + 60 * w, 10 FROM generate_series(0, 199) AS s, generate_series(0, 99) AS w"
    )
    return [*out, "ANALYZE"]


@pytest.mark.asyncio
async def test_postgres_ledger_and_limit_statements_use_indexes(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    bundle = await built_stores("postgres", tmp_path, request, database_pool_size=1)
    store: Any = bundle.state
    seen: dict[str, tuple[Any, ...]] = {}

    def log(q: Any) -> None:
        args = tuple(q.args or ())
        if args and isinstance(args[0], tuple | list):  # executemany: its rows; the first one will do
            args = tuple(args[0])
        seen.setdefault(q.query, args)

    try:
        async with store.db.pool.acquire() as c:  # the pool's one connection: every statement below
            for sql in _generated(60_000):
                await c.execute(sql)
            c.add_query_logger(log)
        ledger = bundle.usage
        await ledger.write([rec(T0 + 29 * DAY + n * 60, project=f"p{n % 3}", model=f"m{n % 2}") for n in range(20)])
        await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, 3600, group_by=("project", "model")))
        await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, 60, projects=("p1",), models=("m1",)))
        await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, 3600, group_by=("door",)))
        await ledger.spent("p1", T0)
        await ledger.take("project:p1", "requests", T0 + 6000, 3, 30)
        await ledger.add("project:p1", "tokens", T0 + 60, 40)
        await ledger.used("project:p1", "tokens", T0 + 60)
        await ledger.prune(T0 - DAY, T0 - DAY, T0 - 3600)
        statements = {
            q: a
            for q, a in seen.items()
            if re.match(r"\s*(SELECT|WITH|INSERT|UPDATE|DELETE)", q, re.I) and any(t in q for t in LEDGER)
        }
        assert any("usage_hours" in q and "project = $1" in q for q in statements), statements
        assert any("usage_records" in q and "door" in q and "SELECT" in q for q in statements), statements
        async with store.db.pool.acquire() as c:
            c.remove_query_logger(log)
            bad = await postgres_scans(c, statements, LEDGER, ALLOWED)
            spent = "\n".join(r[0] for r in await c.fetch("EXPLAIN " + numbered(SPENT_SQL), "p1", T0))
    finally:
        await store.close()
    assert not bad, "statements that read a whole ledger table:\n" + "\n".join(bad)
    assert "usage_hours_project" in spent, spent
