"""The knowledge graph in PostgreSQL: `storage.graph.SQLiteGraphStore`'s methods and semantics, shared
by every replica (with `GATEWAY_DATABASE_URL` the vector stores it hangs off live there too).

Same tables as SQLite (migration 0009's twin). A file's rows are replaced in one transaction; the
file's `kg_files` row is locked first (`pg_advisory_xact_lock` on the store and file), so two
replicas re-extracting one file never interleave.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from typing import Any

import orjson

from storage.graph import ComposedReads, Edge, Entity, FileGraph, MentionRow, merge_aliases
from storage.postgres.db import Database


async def _delete_file_rows(c: Any, store_id: str, file_id: str) -> None:
    keys = [
        r[0]
        for r in await c.fetch(
            "SELECT DISTINCT entity FROM kg_mentions WHERE store_id = $1 AND file_id = $2", store_id, file_id
        )
    ]
    await c.execute("DELETE FROM kg_mentions WHERE store_id = $1 AND file_id = $2", store_id, file_id)
    await c.execute("DELETE FROM kg_relations WHERE store_id = $1 AND file_id = $2", store_id, file_id)
    await c.execute("DELETE FROM kg_files WHERE store_id = $1 AND file_id = $2", store_id, file_id)
    if keys:
        await c.execute(
            "DELETE FROM kg_entities e WHERE e.store_id = $1 AND e.key = ANY($2::text[]) AND NOT EXISTS "
            "(SELECT 1 FROM kg_mentions m WHERE m.store_id = e.store_id AND m.entity = e.key)",
            store_id,
            keys,
        )


def _rows(records: list[Any]) -> list[MentionRow]:
    return [MentionRow(r[0], r[1], r[2], int(r[3]), bool(r[4])) for r in records]


class PostgresGraphStore(ComposedReads):
    """The combined reads (`entity_counts`, `hop`, ...) are the single ones run concurrently on the
    pool's connections (`ComposedReads`): nothing here queues on one thread."""

    name = "postgres"

    def __init__(self, db: Database) -> None:
        self._db = db

    # -- writes ------------------------------------------------------------------------------------
    async def replace_file(self, graph: FileGraph) -> None:
        g = graph
        async with self._db.pool.acquire() as c, c.transaction():
            await c.execute("SELECT pg_advisory_xact_lock(hashtext($1))", f"kg:{g.store_id}:{g.file_id}")
            await _delete_file_rows(c, g.store_id, g.file_id)
            await c.executemany(
                "INSERT INTO kg_entities (store_id, key, name, type, aliases) VALUES ($1, $2, $3, $4, $5) "
                "ON CONFLICT (store_id, key) DO UPDATE SET type = CASE WHEN kg_entities.type = 'entity' "
                "THEN excluded.type ELSE kg_entities.type END",
                [(g.store_id, e.key, e.name, e.type, orjson.dumps(list(e.aliases))) for e in g.entities],
            )
            with_aliases = {e.key: e.aliases for e in g.entities if e.aliases}
            if with_aliases:  # a file's short forms ("Moravec") join those other files found
                rows = await c.fetch(
                    "SELECT key, aliases FROM kg_entities WHERE store_id = $1 AND key = ANY($2::text[])",
                    g.store_id,
                    list(with_aliases),
                )
                await c.executemany(
                    "UPDATE kg_entities SET aliases = $3 WHERE store_id = $1 AND key = $2",
                    [
                        (g.store_id, r[0], orjson.dumps(merge_aliases(orjson.loads(r[1]), with_aliases[r[0]])))
                        for r in rows
                    ],
                )
            await c.executemany(
                "INSERT INTO kg_mentions (store_id, file_id, chunk_id, entity, count, subject) "
                "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (store_id, entity, file_id, chunk_id) DO UPDATE "
                "SET count = kg_mentions.count + excluded.count, "
                "subject = GREATEST(kg_mentions.subject, excluded.subject)",
                [(g.store_id, g.file_id, m.chunk_id, m.entity, m.count, int(m.subject)) for m in g.mentions],
            )
            await c.executemany(
                "INSERT INTO kg_relations (store_id, file_id, source, target, type, weight, chunk_id) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (store_id, file_id, source, target, type) "
                "DO UPDATE SET weight = kg_relations.weight + excluded.weight",
                [(g.store_id, g.file_id, r.source, r.target, r.type, r.weight, r.chunk_id) for r in g.relations],
            )
            await c.execute(
                "INSERT INTO kg_files (store_id, file_id, title, extracted_at, extractor) VALUES ($1, $2, $3, $4, $5)",
                g.store_id,
                g.file_id,
                g.title,
                int(time.time()),
                g.extractor,
            )

    async def delete_file(self, store_id: str, file_id: str) -> None:
        async with self._db.pool.acquire() as c, c.transaction():
            await c.execute("SELECT pg_advisory_xact_lock(hashtext($1))", f"kg:{store_id}:{file_id}")
            await _delete_file_rows(c, store_id, file_id)

    async def drop_store(self, store_id: str) -> None:
        async with self._db.pool.acquire() as c, c.transaction():
            for table in ("kg_mentions", "kg_relations", "kg_files", "kg_entities"):
                await c.execute(f"DELETE FROM {table} WHERE store_id = $1", store_id)

    # -- reads -------------------------------------------------------------------------------------
    async def has_file(self, store_id: str, file_id: str) -> bool:
        row = await self._db.pool.fetchval(
            "SELECT 1 FROM kg_files WHERE store_id = $1 AND file_id = $2", store_id, file_id
        )
        return row is not None

    async def titles(self, store_id: str) -> list[str]:
        rows = await self._db.pool.fetch("SELECT DISTINCT title FROM kg_files WHERE store_id = $1", store_id)
        return [r[0] for r in rows if r[0]]

    async def entities(self, store_id: str, keys: Sequence[str]) -> dict[str, Entity]:
        rows = await self._db.pool.fetch(
            "SELECT key, name, type, aliases FROM kg_entities WHERE store_id = $1 AND key = ANY($2::text[])",
            store_id,
            list(keys),
        )
        return {r[0]: Entity(r[0], r[1], r[2], tuple(orjson.loads(r[3]))) for r in rows}

    async def search_entities(
        self, store_id: str, text: str, limit: int, file_id: str | None = None
    ) -> list[tuple[Entity, int]]:
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = await self._db.pool.fetch(
            "SELECT e.key, e.name, e.type, e.aliases, (SELECT COALESCE(SUM(m.count), 0) FROM kg_mentions m "
            "WHERE m.store_id = e.store_id AND m.entity = e.key AND ($5::text IS NULL OR m.file_id = $5)) AS n "
            "FROM kg_entities e WHERE e.store_id = $1 AND (e.key LIKE $2 OR e.name ILIKE $2) "
            "AND ($5::text IS NULL OR EXISTS (SELECT 1 FROM kg_mentions m WHERE m.store_id = e.store_id "
            "AND m.entity = e.key AND m.file_id = $5)) "
            "ORDER BY (e.key = $3) DESC, n DESC, e.key LIMIT $4",
            store_id,
            pattern,
            text,
            limit,
            file_id,
        )
        return [(Entity(r[0], r[1], r[2], tuple(orjson.loads(r[3]))), int(r[4])) for r in rows]

    async def mention_counts(self, store_id: str, keys: Sequence[str]) -> dict[str, int]:
        rows = await self._db.pool.fetch(
            "SELECT entity, COUNT(DISTINCT file_id) FROM kg_mentions WHERE store_id = $1 "
            "AND entity = ANY($2::text[]) GROUP BY entity",
            store_id,
            list(keys),
        )
        return {r[0]: int(r[1]) for r in rows}

    async def edges(self, store_id: str, keys: Sequence[str], per_entity: int = 50) -> list[Edge]:
        out: list[Edge] = []
        for end in ("source", "target"):
            rows = await self._db.pool.fetch(
                f"SELECT source, target, type, w, files FROM (SELECT source, target, type, SUM(weight) AS w, "
                "array_agg(file_id ORDER BY file_id) AS files, "
                f"ROW_NUMBER() OVER (PARTITION BY {end} ORDER BY (type = 'co_occurs'), SUM(weight) DESC) AS rn "
                f"FROM kg_relations WHERE store_id = $1 AND {end} = ANY($2::text[]) "
                "GROUP BY source, target, type) ranked WHERE rn <= $3",
                store_id,
                list(keys),
                per_entity,
            )
            out.extend(Edge(r[0], r[1], r[2], float(r[3]), tuple(r[4])) for r in rows)
        return list(dict.fromkeys(out))

    async def mentions(self, store_id: str, keys: Sequence[str], limit: int = 200) -> list[MentionRow]:
        rows = await self._db.pool.fetch(
            "SELECT entity, file_id, chunk_id, count, subject FROM kg_mentions WHERE store_id = $1 "
            "AND entity = ANY($2::text[]) "
            'ORDER BY subject DESC, count DESC, file_id COLLATE "C", chunk_id COLLATE "C" LIMIT $3',
            store_id,
            list(keys),
            limit,
        )
        return _rows(rows)

    async def chunk_mentions(
        self, store_id: str, chunk_ids: Sequence[str], entities: Collection[str] | None = None
    ) -> list[MentionRow]:
        if entities is not None and not entities:
            return []
        rows = await self._db.pool.fetch(
            "SELECT entity, file_id, chunk_id, count, subject FROM kg_mentions WHERE store_id = $1 "
            "AND chunk_id = ANY($2::text[]) AND ($3::text[] IS NULL OR entity = ANY($3::text[]))",
            store_id,
            list(chunk_ids),
            None if entities is None else list(entities),
        )
        return _rows(rows)

    async def chunk_relation_types(
        self, store_id: str, chunk_ids: Sequence[str], types: Collection[str] | None = None
    ) -> dict[str, set[str]]:
        wanted = None if types is None else sorted(set(types) - {"co_occurs"})
        if wanted is not None and not wanted:
            return {}
        rows = await self._db.pool.fetch(
            "SELECT DISTINCT chunk_id, type FROM kg_relations WHERE store_id = $1 AND type <> 'co_occurs' "
            "AND chunk_id = ANY($2::text[]) AND ($3::text[] IS NULL OR type = ANY($3::text[]))",
            store_id,
            list(chunk_ids),
            wanted,
        )
        out: dict[str, set[str]] = {}
        for chunk_id, kind in rows:
            out.setdefault(chunk_id, set()).add(kind)
        return out

    async def file_times(self, store_id: str, file_ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        rows = await self._db.pool.fetch(
            "SELECT file_id, title, extracted_at FROM kg_files WHERE store_id = $1 AND file_id = ANY($2::text[])",
            store_id,
            list(file_ids),
        )
        return {r[0]: (r[1], int(r[2])) for r in rows}

    async def unextracted(self, limit: int) -> list[tuple[str, str]]:
        rows = await self._db.pool.fetch(
            "SELECT v.store_id, v.file_id FROM vector_store_files v LEFT JOIN kg_files k "
            "ON k.store_id = v.store_id AND k.file_id = v.file_id "
            "WHERE v.status = 'completed' AND k.file_id IS NULL LIMIT $1",
            limit,
        )
        return [(r[0], r[1]) for r in rows]
