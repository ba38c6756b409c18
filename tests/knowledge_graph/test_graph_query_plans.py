"""Every graph store reads only the rows of the entities, chunks and files it is asked about (#28: kg speed).

`edges(keys)` runs once per hop of the `kg` ranker's walk, for the relations whose source and then
whose target is one of the frontier's entities. For the target side SQLite's planner chose the
source index, whose order suits the query's GROUP BY, and read it for the whole store (a plan line
`SEARCH kg_relations USING INDEX kg_relations_source (store_id=?)`: a scan of the store's graph
per hop, 80 % of the walk's time on the held-out corpus). Every statement on the kg tables must
search by more than the store id: below, each read a kg search makes, on SQLite, PostgreSQL and
(with a server) Neo4j.
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

from bench.bench_graph_growth import Graph, reads
from storage.graph import Entity, FileGraph, Mention, Relation
from storage.sqlite.conn import sqlite3
from tests.support.stores import built_stores

pytestmark = pytest.mark.asyncio


def _file(store: str, n: int) -> FileGraph:
    chunk = f"{store}:f{n}:c0"
    people = [f"person {n} {i}" for i in range(5)]
    return FileGraph(
        store_id=store,
        file_id=f"f{n}",
        title=f"Company {n}",
        extractor="test",
        entities=[Entity(f"company {n}", f"Company {n}", "organization")]
        + [Entity(p, p.title(), "person") for p in people],
        mentions=[Mention(f"company {n}", chunk, 2, True)] + [Mention(p, chunk, 1) for p in people],
        relations=[Relation(f"company {n}", p, "founded_by", 1.0, chunk) for p in people]
        + [Relation(p, f"company {n}", "co_occurs", 0.5, chunk) for p in people],
    )


async def test_sqlite_edges_search_by_entity(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    bundle = await built_stores("sqlite", tmp_path, request)
    graph: Any = bundle.graph
    seen: list[str] = []
    try:
        for n in range(30):  # a store whose graph a plan could scan
            await graph.replace_file(_file("vs_a", n))
        await graph._reader.run(lambda c: c.set_trace_callback(seen.append))
        edges = await graph.edges("vs_a", ["person 3 1", "company 4", "person 7 2"], per_entity=40)
        assert {(e.source, e.target, e.type) for e in edges} >= {
            ("company 4", "person 4 0", "founded_by"),
            ("company 3", "person 3 1", "founded_by"),
            ("person 7 2", "company 7", "co_occurs"),
        }
        await graph._reader.run(lambda c: c.set_trace_callback(None))
    finally:
        await bundle.close()
    statements = {s for s in seen if "FROM kg_relations" in s}
    assert len(statements) == 2, statements  # one per end
    plain = sqlite3.connect(tmp_path / "gateway.db")
    bad = []
    for sql in statements:
        for *_, detail in plain.execute("EXPLAIN QUERY PLAN " + sql).fetchall():
            if re.match(r"SCAN kg_", detail) or re.search(r"kg_\w+ .*\(store_id=\?\)$", detail):
                bad.append(f"{detail}\n    in: {sql}")
    plain.close()
    assert not bad, "graph statements reading the whole store:\n" + "\n".join(bad)


# --- every read of a kg search, on a graph that a whole-store plan would make slow (#28) -------------
# `bench/bench_graph_growth.py` times these reads from 10^4 to 10^6 relations; here their plans are
# pinned on both stores. Each read's statements must search an index by the entities, chunks or files
# asked about (the column after `store_id` in the index), not walk the store's rows: every kg search
# runs them, so one such plan makes every question cost the size of the graph.

GRAPH_RELATIONS = 20_000  # ~4,000 entities, 10,000 mentions, 400 files: statistics a scan could win on


def _sqlite_whole_store(detail: str) -> bool:
    """A SQLite plan line reading a kg table by no more than the store id (or skipping over it)."""
    if not re.search(r"\bkg_", detail) or detail.startswith(("CO-ROUTINE", "USE TEMP")):
        return False
    return not re.match(r"SEARCH kg_\w+ USING (COVERING )?INDEX \w+ \(store_id=\? AND \w+=\?\)$", detail)


async def test_sqlite_kg_search_reads_use_indexes(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    bundle = await built_stores("sqlite", tmp_path, request)
    seen: list[str] = []
    try:
        graph = Graph(bundle, "sqlite")
        await graph.fill(0, GRAPH_RELATIONS)
        state: Any = bundle.state
        await state.reader.run(lambda c: c.set_trace_callback(seen.append))
        for read in reads(bundle.graph, GRAPH_RELATIONS, random.Random(1)).values():
            assert await read(), "the read found nothing: its plan would prove nothing"
        await state.reader.run(lambda c: c.set_trace_callback(None))
    finally:
        await bundle.close()
    statements = {s for s in seen if "FROM kg_" in s}
    assert {t for s in statements for t in re.findall(r"FROM (kg_\w+)", s)} == TABLES
    plain = sqlite3.connect(tmp_path / "gateway.db")
    try:
        bad = [
            f"{detail}\n    in: {sql}"
            for sql in sorted(statements)
            for *_, detail in plain.execute("EXPLAIN QUERY PLAN " + sql).fetchall()
            if _sqlite_whole_store(detail)
        ]
        assert not bad, "kg search reads that walk the store's graph:\n" + "\n".join(bad)
        # the check sees a plan that lost its index: without the chunk index, the postings of a chunk
        # are searched by the store id alone
        plain.execute("BEGIN")
        plain.execute("DROP INDEX kg_mentions_chunk")
        lost = [
            detail
            for sql in statements
            if "chunk_id IN" in sql and "FROM kg_mentions" in sql
            # a text of its own: the connection's statement cache would answer with the old plan
            for *_, detail in plain.execute("EXPLAIN QUERY PLAN " + sql + " -- no chunk index").fetchall()
            if _sqlite_whole_store(detail)
        ]
        plain.execute("ROLLBACK")
        assert lost, "the plan check passes a chunk read with no chunk index"
    finally:
        plain.close()


TABLES = {"kg_entities", "kg_mentions", "kg_relations", "kg_files"}
INDEX_COLUMNS = """
SELECT i.relname, array_agg(a.attname::text ORDER BY k.n)
FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)
JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
WHERE t.relname LIKE 'kg\\_%' GROUP BY i.relname
"""

# `EXPLAIN (GENERIC_PLAN)` takes `$n` placeholders with no values, which the extended protocol (asyncpg's)
# refuses to send without them: run from PL/pgSQL, the statement reaches the server as text
GENERIC_PLAN = """
CREATE OR REPLACE FUNCTION pg_temp.generic_plan(q text) RETURNS json LANGUAGE plpgsql AS $f$
DECLARE p json; BEGIN EXECUTE 'EXPLAIN (GENERIC_PLAN, FORMAT JSON) ' || q INTO p; RETURN p; END $f$
"""


def _nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [node, *(n for child in node.get("Plans", []) for n in _nodes(child))]


def _postgres_whole_store(plan: dict[str, Any], columns: dict[str, list[str]]) -> list[str]:
    """What in a PostgreSQL plan (`EXPLAIN (FORMAT JSON)`) reads a kg table other than by an index
    search on the column after `store_id`: a Seq Scan, or an index searched by the store (or
    skipping over the column after it), or no index search at all."""
    bad, searched = [], False
    for n in _nodes(plan["Plan"]):
        if n.get("Relation Name", "") in TABLES and n["Node Type"] not in (
            "Index Scan",
            "Index Only Scan",
            "Bitmap Heap Scan",
        ):
            bad.append(f"{n['Node Type']} on {n['Relation Name']}")
        if (index := n.get("Index Name", "")) in columns:
            second = columns[index][1]
            if re.search(rf"\b{second} = ", n.get("Index Cond", "")):
                searched = True
            else:
                bad.append(f"{n['Node Type']} using {index} by {n.get('Index Cond', 'nothing')}")
    return bad if searched else [*bad, "no kg index searched"]


async def _postgres_plans(c: Any, statements: dict[str, tuple[Any, ...]]) -> list[str]:
    """Each statement's plans (as chosen with its arguments and the graph's statistics, with
    sequential scans priced out, and the generic plan a prepared statement may switch to after five
    runs), checked."""
    columns = {r[0]: list(r[1]) for r in await c.fetch(INDEX_COLUMNS)}
    await c.execute(GENERIC_PLAN)
    bad: list[str] = []
    for sql, args in sorted(statements.items()):
        plans = {}
        if "FROM kg_files" not in sql:  # 400 files: 40 of them are read cheapest in one pass, rightly
            plans["chosen"] = await c.fetchval("EXPLAIN (FORMAT JSON) " + sql, *args)
        await c.execute("SET enable_seqscan = off")
        try:
            plans["no seqscan"] = await c.fetchval("EXPLAIN (FORMAT JSON) " + sql, *args)
        finally:
            await c.execute("RESET enable_seqscan")
        plans["generic"] = await c.fetchval("SELECT pg_temp.generic_plan($1)", sql)
        for name, raw in plans.items():
            bad += [f"{line} ({name})\n    in: {sql}" for line in _postgres_whole_store(json.loads(raw)[0], columns)]
    return bad


async def test_postgres_kg_search_reads_use_indexes(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    bundle = await built_stores("postgres", tmp_path, request, database_pool_size=1)
    seen: dict[str, tuple[Any, ...]] = {}

    def log(q: Any) -> None:
        seen.setdefault(q.query, tuple(q.args or ()))

    state: Any = bundle.state
    try:
        await Graph(bundle, "postgres").fill(0, GRAPH_RELATIONS)  # COPY, then VACUUM ANALYZE
        async with state.db.pool.acquire() as c:  # the pool's one connection: every read below
            c.add_query_logger(log)
        for read in reads(bundle.graph, GRAPH_RELATIONS, random.Random(1)).values():
            assert await read(), "the read found nothing: its plan would prove nothing"
        async with state.db.pool.acquire() as c:
            c.remove_query_logger(log)
            statements = {q: a for q, a in seen.items() if "FROM kg_" in q}
            assert {t for s in statements for t in re.findall(r"FROM (kg_\w+)", s)} == TABLES
            assert len(statements) == 8, list(statements)  # both ends of `edges`, one statement per other read
            bad = await _postgres_plans(c, statements)
            assert not bad, "kg search reads that walk the store's graph:\n" + "\n".join(bad)
            # the check sees a plan that lost its index (dropped in a transaction, rolled back)
            undo = c.transaction()
            await undo.start()
            try:
                await c.execute("DROP INDEX kg_relations_target")
                lost = await _postgres_plans(c, {q: a for q, a in statements.items() if "AND target = ANY" in q})
            finally:
                await undo.rollback()
            assert lost, "the plan check passes an edge read with no target index"
    finally:
        await bundle.close()


# Neo4j (when `GATEWAY_NEO4J_URI` names a server; none can be installed here, so skipped with that
# message otherwise): each read's Cypher, EXPLAINed, starts at an index seek. An operator ending in
# `Scan` (`NodeByLabelScan`, `AllNodesScan`, `DirectedRelationshipTypeScan`, `NodeIndexScan`: a
# whole label, type or index) is what a read of one entity's key alone, or an OR across two nodes,
# planned to.


def _neo4j_operators(plan: dict[str, Any]) -> list[str]:
    return [
        plan["operatorType"].split("@")[0],
        *(o for child in plan.get("children", []) for o in _neo4j_operators(child)),
    ]


async def test_neo4j_kg_search_reads_seek_indexes() -> None:
    uri = os.environ.get("GATEWAY_NEO4J_URI")
    if not uri:
        pytest.skip("Neo4j graph store: set GATEWAY_NEO4J_URI (and GATEWAY_NEO4J_USER/PASSWORD) to run this test")
    from gateway.knowledge_graph.neo4j_store import Neo4jGraphStore

    store = Neo4jGraphStore(
        uri, os.environ.get("GATEWAY_NEO4J_USER", "neo4j"), os.environ.get("GATEWAY_NEO4J_PASSWORD")
    )
    sent: list[tuple[str, dict[str, Any]]] = []
    run = store._run

    async def recorded(query: str, **params: Any) -> list[dict[str, Any]]:
        sent.append((query, params))
        return await run(query, **params)

    try:
        await store.drop_store("vs_plans")
        for n in range(300):  # enough nodes that a label scan costs more than a seek
            await store.replace_file(_file("vs_plans", n))
        store._run = recorded  # type: ignore[method-assign]
        keys = ["person 3 1", "company 4", "person 7 2"]
        chunks = ["vs_plans:f3:c0", "vs_plans:f9:c0"]
        assert await store.entities("vs_plans", keys)
        assert await store.mention_counts("vs_plans", keys)
        assert await store.edges("vs_plans", keys, per_entity=40)
        assert await store.mentions("vs_plans", keys, limit=150)
        assert await store.chunk_mentions("vs_plans", chunks)
        assert await store.chunk_relation_types("vs_plans", chunks)
        assert await store.file_times("vs_plans", ["f3", "f9"])
        bad = []
        for query, params in sent:
            _records, summary, _keys = await store._driver.execute_query("EXPLAIN " + query, params)
            bad += [f"{op}\n    in: {query}" for op in _neo4j_operators(summary.plan) if op.endswith("Scan")]
        assert len(sent) == 7, sent
        assert not bad, "kg search reads that walk a label, type or index:\n" + "\n".join(bad)
    finally:
        store._run = run  # type: ignore[method-assign]
        await store.drop_store("vs_plans")
        await store.close()
