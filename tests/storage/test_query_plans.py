"""Every statement the state store runs uses an index: no hot query reads a whole table (#25, 9).

The suite records every statement the store bootstrap builds actually sends while a workload calls
each `StateStore` method (SQLite: the connections' trace callback, values bound; PostgreSQL: the
pool connection's query logger, with its arguments), then asks each database for the statement's
plan: SQLite's `EXPLAIN QUERY PLAN` must not SCAN a table or an index (a `previous_response_id`
history query that scanned the item index made every chain turn linear in the database), and
PostgreSQL's `EXPLAIN`, with sequential scans priced out (`enable_seqscan = off`: on the suite's
small tables a sequential scan is cheapest, so a plan only shows an index where one can be used),
must not contain a `Seq Scan`. A statement that legitimately reads a table in full is listed in
ALLOWED with the reason.
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import pytest

from storage.sqlite.conn import sqlite3
from tests.support.plans import postgres_scans
from tests.support.stores import built_store

# Statements whose scan is bounded, keyed by a fragment of their text.
ALLOWED = {
    "FROM response_requeue LIMIT 1": "one row at most: is anything waiting at all",
    "FROM response_requeue q": "the queue holds only runs handed back at a shutdown, oldest first",
    "FROM schema_migrations": "a handful of rows, read once at start",
}
# Objects a SQLite plan may scan: the rows of a CTE or of a table-valued function, not a stored table.
SCANNABLE = {"chain", "json_each", "t", "picked", "taken"}


def msg(i: str, role: str = "user") -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"id": i, "type": "message", "role": role, "content": [{"type": kind, "text": i}], "status": "completed"}


def resp(i: str, prev: str | None = None, status: str = "completed", conv: str | None = None) -> dict[str, Any]:
    return {
        "id": i,
        "object": "response",
        "created_at": 1,
        "status": status,
        "previous_response_id": prev,
        "conversation": {"id": conv} if conv else None,
        "output": [],
        "model": "m",
    }


async def workload(store: Any) -> None:
    """Every `StateStore` method, on a small database."""
    for n in range(20):  # unrelated responses, so a plan has something to scan
        await store.write_response(resp(f"x{n}"), inputs=[msg(f"xi{n}")], outputs=[msg(f"xo{n}", "assistant")])
    await store.write_response(resp("r1"), inputs=[msg("i1")], outputs=[msg("o1", "assistant")])
    await store.write_response(resp("r2", "r1", "in_progress"), inputs=[msg("i2")], owner="h:1:1")
    await store.append_response_events("r2", [{"type": "response.created", "sequence_number": 0}])
    await store.response_events_after("r2", -1)
    await store.request_cancel("r2")
    await store.take_cancel_requests(["r2", "r1"])
    await store.renew_leases("h:1:1")
    await store.write_response(resp("r2", "r1"), outputs=[msg("o2", "assistant")], owner="h:1:1", events=[{"a": 1}])
    await store.get_response("r2")
    await store.get_response_events("r2")
    await store.response_history("r2")
    await store.record_replica("chat/a:1", response_id="r1")  # stored affinity (#27)
    await store.routed_history("r2")
    await store.list_input_items("r2", limit=5, order="asc", after=None, before=None)
    await store.list_input_items("r2", limit=5, order="desc", after="i2", before=None)
    await store.get_items(["i1", "o2"])
    await store.write_response(resp("bg", status="in_progress"), inputs=[msg("bi")], owner="h:2:2")
    await store.requeue_response(resp("bg", status="in_progress"), "h:2:2", {"input": "x"})
    await store.claim_requeued("h:3:3", 5)
    await store.expire_leases()
    await store.write_response(resp("gone", status="in_progress"), inputs=[msg("gi")], owner="h:4:4")
    await asyncio.sleep(0.35)
    await store.expire_leases()
    conversation = {"id": "c1", "object": "conversation", "created_at": 1, "metadata": {}}
    await store.create_conversation(conversation, [msg("s1")])
    await store.write_response(resp("rc", conv="c1"), inputs=[msg("ci")], conversation_append=[msg("ca")])
    await store.add_conversation_items("c1", [msg("c2"), msg("c3")])
    await store.get_conversation("c1")
    await store.record_replica("chat/a:1", conversation_id="c1", cache_key="k")
    await store.conversation_replica("c1")
    await store.cache_key_replica("k", time.time() + 1)  # read, and its age written again
    await store.prune_cache_keys(time.time() - 3600)  # by the age index (migration 0023)
    await store.update_conversation("c1", {"k": "v"})
    await store.list_conversation_items("c1", limit=2, order="asc", after="s1", before=None)
    await store.conversation_items("c1")
    await store.get_conversation_item("c1", "c2")
    await store.delete_conversation_item("c1", "c2")
    await store.delete_response("r1")
    await store.delete_conversation("c1")


@pytest.mark.asyncio
async def test_sqlite_statements_use_indexes(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    store = await built_store("sqlite", tmp_path, request, run_lease_seconds=0.3)
    seen: list[str] = []

    def trace(c: Any) -> None:
        c.set_trace_callback(seen.append)

    try:
        await store.reader.run(trace)
        await store.writer.run(trace)
        await workload(store)
    finally:
        await store.close()
    statements = {s for s in seen if re.match(r"\s*(SELECT|WITH|INSERT|UPDATE|DELETE)", s, re.I)}
    assert any("WITH RECURSIVE chain" in s for s in statements), "the workload ran no history query"
    assert len(statements) > 25, statements  # the trace saw the workload, not only the history query
    plain = sqlite3.connect(store.path)
    bad = []
    for sql in sorted(statements):
        if any(fragment in sql for fragment in ALLOWED):
            continue
        for _, _, _, detail in plain.execute("EXPLAIN QUERY PLAN " + sql).fetchall():
            scanned = re.match(r"SCAN (\w+)", detail)
            if scanned and scanned.group(1) not in SCANNABLE:
                bad.append(f"{detail}\n    in: {sql}")
    plain.close()
    assert not bad, "statements that scan a table or an index:\n" + "\n".join(bad)


FILLED = ("responses", "items", "response_items")  # the tables the fill makes large


async def fill(store: Any, n: int) -> None:
    """`n` unrelated stored responses, written concurrently (as many clients would)."""
    for base in range(0, n, 100):
        await asyncio.gather(
            *(
                store.write_response(resp(f"f{i}"), inputs=[msg(f"fi{i}")], outputs=[msg(f"fo{i}", "assistant")])
                for i in range(base, base + 100)
            )
        )


@pytest.mark.asyncio
async def test_postgres_statements_use_indexes(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Twice per statement: with sequential scans priced out (no Seq Scan at all: an index exists
    for it), and as the planner chooses with statistics on 3,000 stored responses (no Seq Scan or
    hash of a large table: the history query's did both, 78 ms at 10,000 responses)."""
    store = await built_store("postgres", tmp_path, request, run_lease_seconds=0.3, database_pool_size=1)
    seen: dict[str, tuple[Any, ...]] = {}

    def log(q: Any) -> None:
        seen.setdefault(q.query, tuple(q.args or ()))

    try:
        await fill(store, 3000)
        async with store.db.pool.acquire() as c:  # the pool's one connection: every statement below
            await c.execute("ANALYZE")
            c.add_query_logger(log)
        await workload(store)
        statements = {q: a for q, a in seen.items() if re.match(r"\s*(SELECT|WITH|INSERT|UPDATE|DELETE)", q, re.I)}
        assert any("WITH RECURSIVE chain" in q for q in statements), "the workload ran no history query"
        assert len(statements) > 25, statements  # the logger saw the workload, not only the history query
        async with store.db.pool.acquire() as c:
            c.remove_query_logger(log)
            bad = await postgres_scans(c, statements, FILLED, ALLOWED)
    finally:
        await store.close()
    assert not bad, "statements that read a whole table:\n" + "\n".join(bad)
