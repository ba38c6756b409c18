"""The knowledge graph in Neo4j (`GATEWAY_KG_GRAPH_STORE=neo4j`), for graphs larger than one SQLite file
should carry. Same interface and semantics as `storage.sqlite.graph.SQLiteGraphStore` (one conformance
suite, `tests/knowledge_graph/test_graph_conformance.py`, run when `GATEWAY_NEO4J_URI` names a server).

Model: `(:KgEntity {store_id, key, name, type, aliases})`, `(:KgFile {store_id, file_id, title,
extracted_at, extractor})`, `(:KgFile)-[:MENTIONS {chunk_id, count, subject}]->(:KgEntity)` per
chunk, and `(:KgEntity)-[:KG_REL {store_id, file_id, type, weight, chunk_id}]->(:KgEntity)` per file,
so deleting a file is deleting its node with its relationships. A file's rows are replaced in one
write transaction, like on SQLite.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from typing import Any

from storage.graph import ComposedReads, Edge, Entity, FileGraph, MentionRow

_SCHEMA = (
    "CREATE INDEX kg_entity_key IF NOT EXISTS FOR (e:KgEntity) ON (e.store_id, e.key)",
    "CREATE INDEX kg_file_key IF NOT EXISTS FOR (f:KgFile) ON (f.store_id, f.file_id)",
    # the kg ranker's per-query reads by chunk (#28; migration 0019 on SQLite and PostgreSQL)
    "CREATE INDEX kg_rel_chunk IF NOT EXISTS FOR ()-[r:KG_REL]-() ON (r.chunk_id)",
    "CREATE INDEX kg_mention_chunk IF NOT EXISTS FOR ()-[m:MENTIONS]-() ON (m.chunk_id)",
)
_DELETE_RELS = "MATCH (:KgEntity {store_id: $store})-[r:KG_REL {file_id: $file}]->() DELETE r"
_ORPHANS = """
MATCH (e:KgEntity {store_id: $store}) WHERE NOT ()-[:MENTIONS]->(e)
DETACH DELETE e
"""
_ENTITIES = """
UNWIND $rows AS row
MERGE (e:KgEntity {store_id: $store, key: row.key})
ON CREATE SET e.name = row.name, e.type = row.type, e.aliases = row.aliases
ON MATCH SET e.type = CASE WHEN e.type = 'entity' THEN row.type ELSE e.type END,
    e.aliases = (coalesce(e.aliases, []) + [a IN row.aliases WHERE NOT a IN coalesce(e.aliases, [])])[..8]
"""
_FILE = """
CREATE (f:KgFile {store_id: $store, file_id: $file, title: $title, extracted_at: $at, extractor: $extractor})
WITH f
UNWIND $mentions AS m
MATCH (e:KgEntity {store_id: $store, key: m.entity})
CREATE (f)-[:MENTIONS {chunk_id: m.chunk_id, count: m.count, subject: m.subject}]->(e)
"""
_RELATIONS = """
UNWIND $rows AS row
MATCH (a:KgEntity {store_id: $store, key: row.source}), (b:KgEntity {store_id: $store, key: row.target})
CREATE (a)-[:KG_REL {store_id: $store, file_id: $file, type: row.type, weight: row.weight, chunk_id: row.chunk_id}]->(b)
"""
# Every read of a kg search starts at an index seek on the few entities, chunks or files it is asked
# about (#28): `kg_entity_key` is a composite index, which serves only a pattern with both `store_id`
# and `key` (a `(e:KgEntity)` with its key alone is a scan of every entity), and a predicate joining
# two variables by OR (`a.key IN $keys OR b.key IN $keys`) seeks neither: the edges of a frontier are
# read as two seeks, one per end (the second leaves out what the first read: each (source, target,
# type) is summed in one branch only)
_ENTITY_MENTIONS = """
MATCH (e:KgEntity {store_id: $store}) WHERE e.key IN $keys
MATCH (f:KgFile {store_id: $store})-[m:MENTIONS]->(e)
RETURN e.key AS entity, f.file_id AS file_id, m.chunk_id AS chunk_id, m.count AS n, m.subject AS subject
ORDER BY m.subject DESC, m.count DESC, f.file_id, m.chunk_id LIMIT $limit
"""
_CHUNK_MENTIONS = """
MATCH (f:KgFile {store_id: $store})-[m:MENTIONS]->(e:KgEntity) WHERE m.chunk_id IN $ids
AND ($keys IS NULL OR e.key IN $keys)
RETURN e.key AS entity, f.file_id AS file_id, m.chunk_id AS chunk_id, m.count AS n, m.subject AS subject
ORDER BY m.subject DESC, m.count DESC
"""
_EDGES = """
MATCH (a:KgEntity {store_id: $store}) WHERE a.key IN $keys
MATCH (a)-[r:KG_REL]->(b:KgEntity)
RETURN a.key AS source, b.key AS target, r.type AS type, SUM(r.weight) AS weight, collect(r.file_id) AS files
UNION ALL
MATCH (b:KgEntity {store_id: $store}) WHERE b.key IN $keys
MATCH (a:KgEntity)-[r:KG_REL]->(b) WHERE NOT a.key IN $keys
RETURN a.key AS source, b.key AS target, r.type AS type, SUM(r.weight) AS weight, collect(r.file_id) AS files
"""


class Neo4jGraphStore(ComposedReads):
    name = "neo4j"

    def __init__(self, uri: str, user: str, password: str | None) -> None:
        from neo4j import AsyncGraphDatabase

        self._driver = AsyncGraphDatabase.driver(uri, auth=(user, password or ""))
        self._ready = False

    async def close(self) -> None:
        await self._driver.close()

    async def _run(self, query: str, **params: Any) -> list[dict[str, Any]]:
        if not self._ready:
            for statement in _SCHEMA:
                await self._driver.execute_query(statement)
            self._ready = True
        records, _summary, _keys = await self._driver.execute_query(query, params)
        return [dict(r) for r in records]

    # -- writes ------------------------------------------------------------------------------------
    async def replace_file(self, graph: FileGraph) -> None:
        await self._run("RETURN 1")  # the indexes exist before the first write transaction
        g = graph

        async def work(tx: Any) -> None:
            await tx.run(_DELETE_RELS, store=g.store_id, file=g.file_id)
            await tx.run(
                "MATCH (f:KgFile {store_id: $store, file_id: $file}) DETACH DELETE f", store=g.store_id, file=g.file_id
            )
            rows = [{"key": e.key, "name": e.name, "type": e.type, "aliases": list(e.aliases)} for e in g.entities]
            await tx.run(_ENTITIES, store=g.store_id, rows=rows)
            mentions = [
                {"entity": m.entity, "chunk_id": m.chunk_id, "count": m.count, "subject": m.subject} for m in g.mentions
            ]
            await tx.run(
                _FILE,
                store=g.store_id,
                file=g.file_id,
                title=g.title,
                at=int(time.time()),
                extractor=g.extractor,
                mentions=mentions,
            )
            merged: dict[tuple[str, str, str], dict[str, Any]] = {}
            for r in g.relations:
                key = (r.source, r.target, r.type)
                if key in merged:
                    merged[key]["weight"] += r.weight
                else:
                    merged[key] = {
                        "source": r.source,
                        "target": r.target,
                        "type": r.type,
                        "weight": r.weight,
                        "chunk_id": r.chunk_id,
                    }
            await tx.run(_RELATIONS, store=g.store_id, file=g.file_id, rows=list(merged.values()))
            await tx.run(_ORPHANS, store=g.store_id)

        async with self._driver.session() as session:
            await session.execute_write(work)

    async def delete_file(self, store_id: str, file_id: str) -> None:
        await self._run(_DELETE_RELS, store=store_id, file=file_id)
        await self._run(
            "MATCH (f:KgFile {store_id: $store, file_id: $file}) DETACH DELETE f", store=store_id, file=file_id
        )
        await self._run(_ORPHANS, store=store_id)

    async def drop_store(self, store_id: str) -> None:
        await self._run(
            "MATCH (n) WHERE (n:KgEntity OR n:KgFile) AND n.store_id = $store DETACH DELETE n", store=store_id
        )

    # -- reads -------------------------------------------------------------------------------------
    async def has_file(self, store_id: str, file_id: str) -> bool:
        rows = await self._run(
            "MATCH (f:KgFile {store_id: $store, file_id: $file}) RETURN 1 AS one", store=store_id, file=file_id
        )
        return bool(rows)

    async def titles(self, store_id: str) -> list[str]:
        rows = await self._run("MATCH (f:KgFile {store_id: $store}) RETURN DISTINCT f.title AS title", store=store_id)
        return [r["title"] for r in rows if r["title"]]

    async def entities(self, store_id: str, keys: Sequence[str]) -> dict[str, Entity]:
        rows = await self._run(
            "MATCH (e:KgEntity {store_id: $store}) WHERE e.key IN $keys RETURN e.key AS key, e.name AS name, "
            "e.type AS type, e.aliases AS aliases",
            store=store_id,
            keys=list(keys),
        )
        return {r["key"]: Entity(r["key"], r["name"], r["type"], tuple(r["aliases"] or ())) for r in rows}

    async def search_entities(
        self, store_id: str, text: str, limit: int, file_id: str | None = None
    ) -> list[tuple[Entity, int]]:
        rows = await self._run(
            "MATCH (e:KgEntity {store_id: $store}) "
            "WHERE (e.key CONTAINS $text OR toLower(e.name) CONTAINS toLower($text)) "
            "AND ($file IS NULL OR EXISTS { MATCH (:KgFile {store_id: $store, file_id: $file})-[:MENTIONS]->(e) }) "
            "OPTIONAL MATCH (f:KgFile)-[m:MENTIONS]->(e) WHERE $file IS NULL OR f.file_id = $file "
            "WITH e, COALESCE(SUM(m.count), 0) AS n "
            "RETURN e.key AS key, e.name AS name, e.type AS type, e.aliases AS aliases, n "
            "ORDER BY (e.key = $text) DESC, n DESC, e.key LIMIT $limit",
            store=store_id,
            text=text,
            limit=limit,
            file=file_id,
        )
        return [(Entity(r["key"], r["name"], r["type"], tuple(r["aliases"] or ())), int(r["n"])) for r in rows]

    async def mention_counts(self, store_id: str, keys: Sequence[str]) -> dict[str, int]:
        rows = await self._run(
            "MATCH (e:KgEntity {store_id: $store}) WHERE e.key IN $keys "
            "MATCH (f:KgFile {store_id: $store})-[:MENTIONS]->(e) RETURN e.key AS key, COUNT(DISTINCT f) AS n",
            store=store_id,
            keys=list(keys),
        )
        return {r["key"]: int(r["n"]) for r in rows}

    async def edges(self, store_id: str, keys: Sequence[str], per_entity: int = 50) -> list[Edge]:
        rows = await self._run(_EDGES, store=store_id, keys=list(keys))
        edges = [Edge(r["source"], r["target"], r["type"], float(r["weight"]), tuple(sorted(r["files"]))) for r in rows]
        edges.sort(key=lambda e: (e.type == "co_occurs", -e.weight))
        wanted = set(keys)
        kept: list[Edge] = []
        seen: dict[tuple[str, str], int] = {}
        for e in edges:
            ends = [("s", e.source), ("t", e.target)]
            if any(k in wanted and seen.get((d, k), 0) < per_entity for d, k in ends):
                kept.append(e)
                for d, k in ends:
                    seen[(d, k)] = seen.get((d, k), 0) + 1
        return kept

    async def mentions(self, store_id: str, keys: Sequence[str], limit: int = 200) -> list[MentionRow]:
        rows = await self._run(
            _ENTITY_MENTIONS,
            store=store_id,
            keys=list(keys),
            limit=limit,
        )
        return [MentionRow(r["entity"], r["file_id"], r["chunk_id"], int(r["n"]), bool(r["subject"])) for r in rows]

    async def chunk_mentions(
        self, store_id: str, chunk_ids: Sequence[str], entities: Collection[str] | None = None
    ) -> list[MentionRow]:
        if entities is not None and not entities:
            return []
        keys = None if entities is None else list(entities)
        rows = await self._run(_CHUNK_MENTIONS, store=store_id, ids=list(chunk_ids), keys=keys)
        return [MentionRow(r["entity"], r["file_id"], r["chunk_id"], int(r["n"]), bool(r["subject"])) for r in rows]

    async def chunk_relation_types(
        self, store_id: str, chunk_ids: Sequence[str], types: Collection[str] | None = None
    ) -> dict[str, set[str]]:
        wanted = None if types is None else sorted(set(types) - {"co_occurs"})
        if wanted is not None and not wanted:
            return {}
        rows = await self._run(
            "MATCH ()-[r:KG_REL]->() WHERE r.chunk_id IN $ids AND r.store_id = $store AND r.type <> 'co_occurs' "
            "AND ($types IS NULL OR r.type IN $types) "
            "RETURN DISTINCT r.chunk_id AS chunk_id, r.type AS type",
            store=store_id,
            ids=list(chunk_ids),
            types=wanted,
        )
        out: dict[str, set[str]] = {}
        for r in rows:
            out.setdefault(r["chunk_id"], set()).add(r["type"])
        return out

    async def file_times(self, store_id: str, file_ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        rows = await self._run(
            "MATCH (f:KgFile {store_id: $store}) WHERE f.file_id IN $ids "
            "RETURN f.file_id AS file_id, f.title AS title, f.extracted_at AS at",
            store=store_id,
            ids=list(file_ids),
        )
        return {r["file_id"]: (r["title"], int(r["at"])) for r in rows}

    async def unextracted(self, limit: int) -> list[tuple[str, str]]:
        """The vector-store files live in the gateway's database, not here: no backfill on Neo4j
        (files ingested while the graph was off get their graph when re-added)."""
        return []
