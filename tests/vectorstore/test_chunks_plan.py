"""The kg ranker's one read of the chunks only its graph found (`VectorBackend.chunks`, #28 speed)
searches the backend's index on (store, chunk id) for each id asked, on sqlite-vec ((sid, chunk_id)
index) and on pgvector ((store_id, chunk_id) primary key, by EXPLAIN on the session's PostgreSQL): it
runs on every kg search, so a plan that scanned a store's chunks would grow with the store, not with
the few ids the walk found. Built as the gateway builds the backend (`build_vector_backend`)."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from gateway.config import Settings
from vectorstore.backends import build_vector_backend
from vectorstore.base import Chunk
from vectorstore.sqlite_vec import connect_vec

pytestmark = pytest.mark.asyncio
DIM = 4


async def test_sqlite_vec_chunks_search_by_chunk_id(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, vector_backend="sqlite-vec")
    backend: Any = build_vector_backend(settings, tmp_path / "gateway.db", checkpoint=True)
    await backend.open()
    seen: list[str] = []
    try:
        await backend.create_store("vs_plan", DIM)
        await backend.upsert(
            [
                Chunk(f"f{f}-{i}", "vs_plan", f"f{f}", f"f{f}.txt", i, f"file {f} part {i}", [1.0, 0.0, 0.0, float(i)])
                for f in range(40)
                for i in range(5)
            ]
        )
        for reader in backend._readers:
            await reader.run(lambda c: c.set_trace_callback(seen.append))
        got = await backend.chunks("vs_plan", [("f7", "f7-2"), ("f3", "f3-1")])
        assert [h.chunk_id for h in got] == ["f7-2", "f3-1"]
        for reader in backend._readers:
            await reader.run(lambda c: c.set_trace_callback(None))
    finally:
        await backend.close()
    reads = [s for s in seen if "FROM vs_chunks" in s and "chunk_id IN" in s]
    assert len(reads) == 1, seen
    plain = connect_vec(tmp_path / "gateway.db")
    try:
        plan = [row[-1] for row in plain.execute("EXPLAIN QUERY PLAN " + reads[0]).fetchall()]
    finally:
        plain.close()
    assert any(
        re.search(r"SEARCH vs_chunks USING .*INDEX vs_chunks_chunk \(sid=\? AND chunk_id=\?\)", d) for d in plan
    ), plan
    assert not [d for d in plan if re.match(r"SCAN vs_", d)], plan


# --- pgvector: the same read, on the embedded PostgreSQL the session starts --------------------------
# `SELECT ... FROM vs_chunks_<dim> WHERE store_id = $1 AND chunk_id = ANY($2)` must search the table's
# primary key (store_id, chunk_id) by both columns: the plan as chosen (with the table's statistics),
# with sequential scans priced out, and the generic plan a prepared statement may switch to.

GENERIC_PLAN = """
CREATE OR REPLACE FUNCTION pg_temp.generic_plan(q text) RETURNS json LANGUAGE plpgsql AS $f$
DECLARE p json; BEGIN EXECUTE 'EXPLAIN (GENERIC_PLAN, FORMAT JSON) ' || q INTO p; RETURN p; END $f$
"""


class _Recorded:
    """The backend's pool, recording what it is asked to fetch (asyncpg has no statement trace)."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool
        self.fetched: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pool, name)

    async def fetch(self, sql: str, *args: Any) -> Any:
        self.fetched.append((sql, args))
        return await self.pool.fetch(sql, *args)


def _nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [node, *(n for child in node.get("Plans", []) for n in _nodes(child))]


def _by_chunk_key(plan: dict[str, Any], table: str) -> list[str]:
    """What in a plan reads `table` other than by its primary key on both (store_id, chunk_id)."""
    nodes = _nodes(plan["Plan"])
    bad = [
        f"{n['Node Type']} on {table}"
        for n in nodes
        if n.get("Relation Name") == table
        and n["Node Type"] not in ("Index Scan", "Index Only Scan", "Bitmap Heap Scan")
    ]
    keyed = [
        n
        for n in nodes
        if n.get("Index Name") == f"{table}_pkey"
        and "store_id = " in n.get("Index Cond", "")
        and "chunk_id = ANY" in n.get("Index Cond", "")
    ]
    return bad if keyed else [*bad, f"no search of {table}_pkey by (store_id, chunk_id)"]


async def _plans(c: Any, sql: str, args: tuple[Any, ...]) -> dict[str, dict[str, Any]]:
    plans = {"chosen": await c.fetchval("EXPLAIN (FORMAT JSON) " + sql, *args)}
    await c.execute("SET enable_seqscan = off")
    try:
        plans["no seqscan"] = await c.fetchval("EXPLAIN (FORMAT JSON) " + sql, *args)
    finally:
        await c.execute("RESET enable_seqscan")
    await c.execute(GENERIC_PLAN)
    plans["generic"] = await c.fetchval("SELECT pg_temp.generic_plan($1)", sql)
    return {name: json.loads(raw)[0] for name, raw in plans.items()}


async def test_pgvector_chunks_search_by_chunk_id(tmp_path: Path, postgres_url: str) -> None:
    settings = Settings(data_dir=tmp_path, vector_backend="pgvector", database_url=postgres_url)
    backend: Any = build_vector_backend(settings, tmp_path / "gateway.db")
    await backend.open()
    store = f"vs_plan_{uuid.uuid4().hex[:8]}"  # the session's server is shared: a store of its own
    try:
        await backend.create_store(store, DIM)
        await backend.upsert(
            [  # enough rows that a scan would cost more than the key's search, as a real store's would
                Chunk(f"f{f}-{i}", store, f"f{f}", f"f{f}.txt", i, f"file {f} part {i}", [1.0, 0.0, 0.0, float(i)])
                for f in range(100)
                for i in range(20)
            ]
        )
        table = await backend._table_of(store)
        await backend.pool.execute(f"ANALYZE {table}")
        recorded = backend._pool = _Recorded(backend.pool)
        try:
            got = await backend.chunks(store, [("f7", "f7-2"), ("f3", "f3-1")])
        finally:
            backend._pool = recorded.pool
        assert [h.chunk_id for h in got] == ["f7-2", "f3-1"]
        reads = [(sql, args) for sql, args in recorded.fetched if f"FROM {table}" in sql]
        assert len(reads) == 1, recorded.fetched
        sql, args = reads[0]
        async with backend.pool.acquire() as c:
            plans = await _plans(c, sql, args)
            bad = [f"{line} ({name})" for name, plan in plans.items() for line in _by_chunk_key(plan, table)]
            assert not bad, f"{sql}\n" + "\n".join(bad)
            # the check sees a plan that lost the key: without it the read scans the store's rows
            lose = c.transaction()
            await lose.start()
            try:
                await c.execute(f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey")
                lost = _by_chunk_key((await _plans(c, sql + " -- no key", args))["no seqscan"], table)
            finally:
                await lose.rollback()
            assert lost, "the plan check passes a read with no primary key"
    finally:
        await backend.drop_store(store)
        await backend.close()
