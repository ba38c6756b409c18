"""The usage ledger's and the shared limits' statements use an index (#30): the limits run on the
request path (a lease of quota), the budget check and the Usage API read buckets by time. Same
method as `tests/test_query_plans.py` on the store bootstrap builds: every statement the ledger sent
is asked for SQLite's `EXPLAIN QUERY PLAN`, and none may SCAN a stored table."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from storage.sqlite.conn import sqlite3
from storage.usage import UsageQuery
from tests.stores import built_stores
from tests.test_usage_store import DAY, T0, rec

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
    plain.close()
    assert not bad, "statements that scan a table or an index:\n" + "\n".join(bad)
