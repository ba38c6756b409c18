"""The SQLite graph store reads only the rows of the entities it is asked about (#28: kg speed).

`edges(keys)` runs once per hop of the `kg` ranker's walk, for the relations whose source and then
whose target is one of the frontier's entities. For the target side SQLite's planner chose the
source index, whose order suits the query's GROUP BY, and read it for the whole store (a plan line
`SEARCH kg_relations USING INDEX kg_relations_source (store_id=?)`: a scan of the store's graph
per hop, 80 % of the walk's time on the held-out corpus). Every statement on the kg tables must
search by more than the store id.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

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
