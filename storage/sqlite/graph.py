"""The knowledge graph in SQLite (migration 0009): `storage.graph.GraphStore` in the gateway's own
file, so both doors and every worker share it with no extra service (the embedded default).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from typing import Any

import orjson

from storage.graph import ChunkSignals, Edge, Entity, FileGraph, MentionRow, merge_aliases
from storage.sqlite import graph_reads as reads
from storage.sqlite.conn import ThreadConnection, WriterConnection
from storage.sqlite.graph_reads import marks as _marks
from storage.sqlite.graph_reads import parts as _chunks


def _delete_file_rows(c: Any, store_id: str, file_id: str) -> None:
    keys = [
        r[0]
        for r in c.execute(
            "SELECT DISTINCT entity FROM kg_mentions WHERE store_id = ? AND file_id = ?", (store_id, file_id)
        )
    ]
    c.execute("DELETE FROM kg_mentions WHERE store_id = ? AND file_id = ?", (store_id, file_id))
    c.execute("DELETE FROM kg_relations WHERE store_id = ? AND file_id = ?", (store_id, file_id))
    c.execute("DELETE FROM kg_files WHERE store_id = ? AND file_id = ?", (store_id, file_id))
    for part in _chunks(keys):
        if part:
            c.execute(
                f"DELETE FROM kg_entities WHERE store_id = ? AND key IN ({_marks(len(part))}) AND NOT EXISTS "
                "(SELECT 1 FROM kg_mentions m WHERE m.store_id = kg_entities.store_id AND m.entity = kg_entities.key)",
                (store_id, *part),
            )


class SQLiteGraphStore:
    """The graph in the gateway's SQLite database, on the process's shared writer and reader."""

    name = "sqlite"

    def __init__(self, writer: WriterConnection, reader: ThreadConnection) -> None:
        self._writer = writer
        self._reader = reader

    # -- writes ------------------------------------------------------------------------------------
    async def replace_file(self, graph: FileGraph) -> None:
        now = int(time.time())

        def write(c: Any) -> None:
            g = graph
            _delete_file_rows(c, g.store_id, g.file_id)
            c.executemany(
                "INSERT INTO kg_entities (store_id, key, name, type, aliases) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (store_id, key) DO UPDATE SET type = CASE WHEN kg_entities.type = 'entity' "
                "THEN excluded.type ELSE kg_entities.type END",
                [(g.store_id, e.key, e.name, e.type, orjson.dumps(list(e.aliases))) for e in g.entities],
            )
            for e in g.entities:  # a file's short forms ("Moravec") join those other files found
                if e.aliases:
                    (stored,) = c.execute(
                        "SELECT aliases FROM kg_entities WHERE store_id = ? AND key = ?", (g.store_id, e.key)
                    ).fetchone()
                    merged = merge_aliases(orjson.loads(stored), e.aliases)
                    c.execute(
                        "UPDATE kg_entities SET aliases = ? WHERE store_id = ? AND key = ?",
                        (orjson.dumps(merged), g.store_id, e.key),
                    )
            c.executemany(
                "INSERT INTO kg_mentions (store_id, file_id, chunk_id, entity, count, subject) "
                "VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT DO UPDATE SET count = kg_mentions.count + excluded.count, "
                "subject = max(kg_mentions.subject, excluded.subject)",
                [(g.store_id, g.file_id, m.chunk_id, m.entity, m.count, int(m.subject)) for m in g.mentions],
            )
            c.executemany(
                "INSERT INTO kg_relations (store_id, file_id, source, target, type, weight, chunk_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET weight = kg_relations.weight + excluded.weight",
                [(g.store_id, g.file_id, r.source, r.target, r.type, r.weight, r.chunk_id) for r in g.relations],
            )
            c.execute(
                "INSERT INTO kg_files (store_id, file_id, title, extracted_at, extractor) VALUES (?, ?, ?, ?, ?)",
                (g.store_id, g.file_id, g.title, now, g.extractor),
            )

        await self._writer.transact(write)

    async def delete_file(self, store_id: str, file_id: str) -> None:
        await self._writer.transact(_delete_file_rows, store_id, file_id)

    async def drop_store(self, store_id: str) -> None:
        def write(c: Any) -> None:
            for table in ("kg_mentions", "kg_relations", "kg_files", "kg_entities"):
                c.execute(f"DELETE FROM {table} WHERE store_id = ?", (store_id,))

        await self._writer.transact(write)

    # -- reads -------------------------------------------------------------------------------------
    async def has_file(self, store_id: str, file_id: str) -> bool:
        row = await self._reader.run(
            lambda c: c.execute(
                "SELECT 1 FROM kg_files WHERE store_id = ? AND file_id = ?", (store_id, file_id)
            ).fetchone()
        )
        return row is not None

    async def titles(self, store_id: str) -> list[str]:
        rows = await self._reader.run(
            lambda c: c.execute("SELECT DISTINCT title FROM kg_files WHERE store_id = ?", (store_id,)).fetchall()
        )
        return [r[0] for r in rows if r[0]]

    async def entities(self, store_id: str, keys: Sequence[str]) -> dict[str, Entity]:
        return await self._reader.run(reads.entities, store_id, keys)

    async def search_entities(
        self, store_id: str, text: str, limit: int, file_id: str | None = None
    ) -> list[tuple[Entity, int]]:
        """Entities whose key or name contains `text`, most mentioned first; with `file_id`, only
        those that file mentions, counted in it (what extraction found in one file)."""
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        in_file = "" if file_id is None else " AND m.file_id = ?"
        only_file = (
            ""
            if file_id is None
            else " AND EXISTS (SELECT 1 FROM kg_mentions m WHERE m.store_id = e.store_id AND m.entity = e.key"
            " AND m.file_id = ?)"
        )
        args = (file_id,) if file_id is not None else ()

        def read(c: Any) -> list[tuple[Entity, int]]:
            rows = c.execute(
                "SELECT e.key, e.name, e.type, e.aliases, (SELECT COALESCE(SUM(m.count), 0) FROM kg_mentions m "
                f"WHERE m.store_id = e.store_id AND m.entity = e.key{in_file}) AS n FROM kg_entities e "
                f"WHERE e.store_id = ? AND (e.key LIKE ? ESCAPE '\\' OR e.name LIKE ? ESCAPE '\\'){only_file} "
                "ORDER BY (e.key = ?) DESC, n DESC, e.key LIMIT ?",
                (*args, store_id, pattern, pattern, *args, text, limit),
            ).fetchall()
            return [(Entity(r[0], r[1], r[2], tuple(orjson.loads(r[3]))), int(r[4])) for r in rows]

        return await self._reader.run(read)

    async def mention_counts(self, store_id: str, keys: Sequence[str]) -> dict[str, int]:
        return await self._reader.run(reads.mention_counts, store_id, keys)

    async def edges(self, store_id: str, keys: Sequence[str], per_entity: int = 50) -> list[Edge]:
        """Relations touching `keys` (either end), summed over files; typed relations before
        co-occurrence and heavier before lighter, at most `per_entity` for each key and direction."""
        return await self._reader.run(reads.edges, store_id, keys, per_entity)

    async def mentions(self, store_id: str, keys: Sequence[str], limit: int = 200) -> list[MentionRow]:
        """Chunks mentioning `keys`: subjects first, then by count, at most `limit`."""
        return await self._reader.run(reads.mentions, store_id, keys, limit)

    async def chunk_mentions(
        self, store_id: str, chunk_ids: Sequence[str], entities: Collection[str] | None = None
    ) -> list[MentionRow]:
        """The mention rows of `chunk_ids`; with `entities`, only theirs (the `kg` ranker scores a
        chunk by the entities its walk reached: a long page names hundreds it never reached)."""
        if entities is not None and not entities:
            return []
        return await self._reader.run(reads.chunk_mentions, store_id, chunk_ids, entities)

    async def chunk_relation_types(
        self, store_id: str, chunk_ids: Sequence[str], types: Collection[str] | None = None
    ) -> dict[str, set[str]]:
        """The typed relations (not co-occurrence) each chunk states; with `types`, only those."""
        if types is not None and not set(types) - {"co_occurs"}:
            return {}
        return await self._reader.run(reads.chunk_relation_types, store_id, chunk_ids, types)

    async def file_times(self, store_id: str, file_ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        """(title, extracted_at) per extracted file."""
        return await self._reader.run(reads.file_times, store_id, file_ids)

    # -- combined reads: one hop to the reader thread each (`storage.graph.GraphStore`) -------------
    async def entity_counts(self, store_id: str, keys: Sequence[str]) -> tuple[dict[str, Entity], dict[str, int]]:
        return await self._reader.run(reads.entity_counts, store_id, keys)

    async def hop(
        self, store_id: str, keys: Sequence[str], per_entity: int, parents: Sequence[str], parent_limit: int
    ) -> tuple[list[Edge], list[MentionRow]]:
        return await self._reader.run(reads.hop, store_id, keys, per_entity, parents, parent_limit)

    async def mentions_each(self, store_id: str, keys: Sequence[str], limit: int) -> list[MentionRow]:
        return await self._reader.run(reads.mentions_each, store_id, keys, limit) if keys else []

    async def chunk_signals(
        self,
        store_id: str,
        keys: Sequence[str],
        limit: int,
        chunk_ids: Sequence[str],
        file_ids: Collection[str],
        entities: Collection[str],
        types: Collection[str],
    ) -> ChunkSignals:
        return await self._reader.run(reads.chunk_signals, store_id, keys, limit, chunk_ids, file_ids, entities, types)

    async def unextracted(self, limit: int) -> list[tuple[str, str]]:
        """(store, file) of completed vector-store files that have no graph yet (ingested before the
        graph existed, or while it was off, or whose extraction failed): the backfill's work list."""
        rows = await self._reader.run(
            lambda c: c.execute(
                "SELECT v.store_id, v.file_id FROM vector_store_files v LEFT JOIN kg_files k "
                "ON k.store_id = v.store_id AND k.file_id = v.file_id "
                "WHERE v.status = 'completed' AND k.file_id IS NULL LIMIT ?",
                (limit,),
            ).fetchall()
        )
        return [(r[0], r[1]) for r in rows]
