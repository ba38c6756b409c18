"""The pgvector backend: chunks in the PostgreSQL database every replica shares.

Layout (like Milvus's collections): one table per vector dimension, `vs_chunks_<dim>`, keyed by
(store_id, chunk_id), with an HNSW index (cosine), a generated `tsvector` column (English stemming
and stopwords, as sqlite-vec's FTS5 porter tokenizer) under a GIN index, and JSONB attributes.
`vs_dims` remembers each store's dimension. Tables appear on first use of a dimension (under an
advisory lock, so replicas never race on DDL); they are not in the state schema's versioned
migrations because their shape depends on the embedder's dimension, as Milvus's collections do.

* Filters are SQL over the JSONB attributes (`pgvector_sql.filter_sql`), inside the query, and
  `hnsw.iterative_scan = strict_order` lets the index scan go on until k filtered rows are found, so
  a narrow filter still returns up to k hits (pgvector >= 0.8).
* Keyword search is PostgreSQL's full-text search: `websearch_to_tsquery` over the question's terms
  (ORed, quoted), ranked by `ts_rank` (term frequency; it has no IDF, so keyword search alone ranks
  below FTS5's BM25 on the retrieval benchmark, hybrid equals it), squashed into [0, 1) like BM25
  (`fusion.keyword_score`).
* Hybrid takes `candidates(k)` from each side, computes BOTH scores for every candidate in one
  statement, and fuses them with `fusion.fuse` (the same blend or RRF as every backend).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import asyncpg
import orjson

from vectorstore import filters as flt
from vectorstore.base import Chunk, Filter, Hit, SearchMode
from vectorstore.fusion import DEFAULT_FUSION, Fusion, candidates, fuse, keyword_score
from vectorstore.pgvector_sql import Params, filter_sql, vector_literal, websearch_query

_DDL_LOCK = 0x76_65_63_74  # pg_advisory_xact_lock key for the backend's DDL
_COLUMNS = "chunk_id, file_id, filename, text, attributes"
MAX_DIMENSION = 2000  # pgvector's HNSW limit for `vector`


async def _init_connection(conn: Any) -> None:
    await conn.set_type_codec("jsonb", encoder=lambda v: v, decoder=orjson.loads, schema="pg_catalog")
    # A real `vector` parameter: with `$n::text::vector` a generic plan re-parsed the query vector for
    # every row (measured: 6 ms instead of well under 1 ms per search over 300 chunks).
    await conn.set_type_codec("vector", encoder=vector_literal, decoder=str, schema="public", format="text")


class PgvectorBackend:
    """`VectorBackend` on PostgreSQL + pgvector."""

    name = "pgvector"

    def __init__(self, url: str, *, pool_size: int = 5, fusion: Fusion = DEFAULT_FUSION) -> None:
        self.url, self.pool_size, self.fusion = url, pool_size, fusion
        self._pool: asyncpg.Pool | None = None
        self._dims: dict[str, int] = {}
        self._tables: set[int] = set()

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("the pgvector backend is not open")
        return self._pool

    async def open(self) -> None:
        conn = await asyncpg.connect(self.url)  # the extension first: the pool's connections use its type
        try:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1)", _DDL_LOCK)
                await conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        finally:
            await conn.close()
        self._pool = await asyncpg.create_pool(
            self.url,
            min_size=1,
            max_size=self.pool_size,
            init=_init_connection,
            server_settings={"hnsw.iterative_scan": "strict_order"},
        )
        async with self._pool.acquire() as c, c.transaction():
            await c.execute("SELECT pg_advisory_xact_lock($1)", _DDL_LOCK)
            await c.execute(
                "CREATE TABLE IF NOT EXISTS vs_dims (store_id TEXT PRIMARY KEY, dimension INTEGER NOT NULL)"
            )

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    # --- DDL -----------------------------------------------------------------------------------
    async def _ensure_table(self, dim: int) -> str:
        name = f"vs_chunks_{int(dim)}"
        if dim in self._tables:
            return name
        if not 1 <= dim <= MAX_DIMENSION:
            raise ValueError(f"pgvector indexes vectors of 1 to {MAX_DIMENSION} dimensions, not {dim}")
        async with self.pool.acquire() as c, c.transaction():
            await c.execute("SELECT pg_advisory_xact_lock($1)", _DDL_LOCK)
            await c.execute(
                f"CREATE TABLE IF NOT EXISTS {name} (store_id TEXT NOT NULL, chunk_id TEXT NOT NULL, "
                "file_id TEXT NOT NULL, filename TEXT NOT NULL, idx INTEGER NOT NULL, text TEXT NOT NULL, "
                f"attributes JSONB NOT NULL, embedding vector({int(dim)}) NOT NULL, "
                "tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED, "
                "PRIMARY KEY (store_id, chunk_id))"
            )
            await c.execute(
                f"CREATE INDEX IF NOT EXISTS {name}_hnsw ON {name} USING hnsw (embedding vector_cosine_ops)"
            )
            await c.execute(f"CREATE INDEX IF NOT EXISTS {name}_tsv ON {name} USING gin (tsv)")
            await c.execute(f"CREATE INDEX IF NOT EXISTS {name}_file ON {name} (store_id, file_id, idx)")
        self._tables.add(dim)
        return name

    async def _dim_of(self, store_id: str) -> int | None:
        if store_id not in self._dims:
            found = await self.pool.fetchval("SELECT dimension FROM vs_dims WHERE store_id = $1", store_id)
            if found is None:
                return None
            self._dims[store_id] = int(found)
        return self._dims[store_id]

    async def _table_of(self, store_id: str) -> str | None:
        dim = await self._dim_of(store_id)
        return None if dim is None else await self._ensure_table(dim)

    async def create_store(self, store_id: str, dimension: int) -> None:
        await self._ensure_table(dimension)
        known = await self.pool.fetchval(
            "INSERT INTO vs_dims (store_id, dimension) VALUES ($1, $2) "
            "ON CONFLICT (store_id) DO UPDATE SET store_id = excluded.store_id RETURNING dimension",
            store_id,
            dimension,
        )
        if known != dimension:
            raise ValueError(f"vector store {store_id} holds {known}-d vectors, not {dimension}-d")
        self._dims[store_id] = dimension

    async def drop_store(self, store_id: str) -> None:
        table = await self._table_of(store_id)
        async with self.pool.acquire() as c, c.transaction():
            if table is not None:
                await c.execute(f"DELETE FROM {table} WHERE store_id = $1", store_id)
            await c.execute("DELETE FROM vs_dims WHERE store_id = $1", store_id)
        self._dims.pop(store_id, None)

    # --- writes --------------------------------------------------------------------------------
    async def upsert(self, chunks: list[Chunk]) -> None:
        by_table: dict[str, list[Chunk]] = {}
        for ch in chunks:
            dim = await self._dim_of(ch.store_id)
            if dim is None:  # a store this backend has not seen: it takes the first chunk's dimension
                await self.create_store(ch.store_id, len(ch.vector))
                dim = len(ch.vector)
            if len(ch.vector) != dim:
                raise ValueError(f"chunk {ch.id}: {len(ch.vector)}-d vector for a {dim}-d store")
            by_table.setdefault(await self._ensure_table(dim), []).append(ch)
        async with self.pool.acquire() as c, c.transaction():
            for table, rows in by_table.items():
                await c.execute(
                    f"INSERT INTO {table} (store_id, chunk_id, file_id, filename, idx, text, attributes, embedding) "
                    "SELECT t.s, t.c, t.f, t.n, t.i, t.x, t.a::jsonb, t.e::vector FROM unnest($1::text[], "
                    "$2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::text[]) "
                    "AS t(s, c, f, n, i, x, a, e) "
                    "ON CONFLICT (store_id, chunk_id) DO UPDATE SET file_id = excluded.file_id, "
                    "filename = excluded.filename, idx = excluded.idx, text = excluded.text, "
                    "attributes = excluded.attributes, embedding = excluded.embedding",
                    [r.store_id for r in rows],
                    [r.id for r in rows],
                    [r.file_id for r in rows],
                    [r.filename for r in rows],
                    [r.index for r in rows],
                    [r.text.replace("\x00", "") for r in rows],  # PostgreSQL text cannot hold NUL
                    [orjson.dumps(r.attributes).decode() for r in rows],
                    [vector_literal(r.vector) for r in rows],
                )

    async def delete_file(self, store_id: str, file_id: str) -> None:
        table = await self._table_of(store_id)
        if table is not None:
            await self.pool.execute(f"DELETE FROM {table} WHERE store_id = $1 AND file_id = $2", store_id, file_id)

    async def update_attributes(self, store_id: str, file_id: str, attributes: dict[str, Any]) -> None:
        table = await self._table_of(store_id)
        if table is not None:
            await self.pool.execute(
                f"UPDATE {table} SET attributes = $3::text::jsonb WHERE store_id = $1 AND file_id = $2",
                store_id,
                file_id,
                orjson.dumps(attributes).decode(),
            )

    # --- reads ---------------------------------------------------------------------------------
    async def file_chunks(self, store_id: str, file_id: str) -> list[Hit]:
        table = await self._table_of(store_id)
        if table is None:
            return []
        rows = await self.pool.fetch(
            f"SELECT {_COLUMNS} FROM {table} WHERE store_id = $1 AND file_id = $2 ORDER BY idx", store_id, file_id
        )
        return [_hit(r, 0.0) for r in rows]

    async def chunks(self, store_id: str, refs: Sequence[tuple[str, str]]) -> list[Hit]:
        """One read by the (store_id, chunk_id) key, in `refs`' file order and each file's own."""
        table = await self._table_of(store_id)
        if table is None or not refs:
            return []
        order = {f: i for i, f in enumerate(dict.fromkeys(f for f, _ in refs))}
        rows = await self.pool.fetch(
            f"SELECT {_COLUMNS}, idx FROM {table} WHERE store_id = $1 AND chunk_id = ANY($2::text[])",
            store_id,
            [cid for _, cid in refs],
        )
        rows = sorted((r for r in rows if r["file_id"] in order), key=lambda r: (order[r["file_id"]], r["idx"]))
        return [_hit(r, 0.0) for r in rows]

    async def search(
        self,
        store_id: str,
        *,
        vector: list[float] | None,
        query: str,
        k: int,
        filters: Filter | None = None,
        mode: SearchMode = "hybrid",
        fusion: Fusion | None = None,
    ) -> list[Hit]:
        if filters is not None:
            flt.validate(filters)
        if mode != "keyword" and vector is None:
            raise ValueError("a vector search needs a query vector")
        table = await self._table_of(store_id)
        if table is None or k <= 0:
            return []
        text = websearch_query(query) if mode != "vector" else None
        if mode == "keyword" and text is None:
            return []
        if mode == "hybrid" and text is None:
            mode = "vector"  # no searchable word: a vector search rather than a failure
        params = Params(5)
        where = "store_id = $1" + (f" AND ({filter_sql(filters, 'attributes', params)})" if filters else "")
        # $1 store, $2 vector (text), $3 websearch query, $4 candidates per side
        vec = vector
        n = k if mode != "hybrid" else candidates(k)
        q = "websearch_to_tsquery('english', $3::text)"
        if mode == "vector":
            sql = (
                f"SELECT {_COLUMNS}, 1 - (embedding <=> $2::vector) AS cos FROM {table} "
                f"WHERE {where} AND $3::text IS NULL ORDER BY embedding <=> $2::vector LIMIT $4"
            )
            rows = await self._fetch(sql, store_id, vec, None, n, *params.values)
            return [_hit(r, _clamp(r["cos"])) for r in rows]
        if mode == "keyword":
            sql = (
                f"SELECT {_COLUMNS}, ts_rank(tsv, {q}) AS kw FROM {table} WHERE {where} AND tsv @@ {q} "
                "AND $2::text IS NULL ORDER BY kw DESC, chunk_id LIMIT $4"
            )
            rows = await self._fetch(sql, store_id, None, text, n, *params.values)
            return [_hit(r, keyword_score(float(r["kw"]))) for r in rows]
        sql = (
            f"WITH v AS (SELECT chunk_id FROM {table} WHERE {where} ORDER BY embedding <=> $2::vector LIMIT $4), "
            f"k AS (SELECT chunk_id FROM {table} WHERE {where} AND tsv @@ {q} "
            f"ORDER BY ts_rank(tsv, {q}) DESC LIMIT $4) "
            f"SELECT {_COLUMNS}, 1 - (embedding <=> $2::vector) AS cos, "
            f"CASE WHEN tsv @@ {q} THEN ts_rank(tsv, {q}) ELSE 0 END AS kw "
            f"FROM {table} WHERE store_id = $1 AND chunk_id IN (SELECT chunk_id FROM v UNION SELECT chunk_id FROM k)"
        )
        rows = await self._fetch(sql, store_id, vec, text, n, *params.values)
        by_id = {r["chunk_id"]: r for r in rows}
        vec_scores = {cid: _clamp(r["cos"]) for cid, r in by_id.items()}
        kw_scores = {cid: keyword_score(float(r["kw"])) for cid, r in by_id.items() if r["kw"] > 0}
        return [_hit(by_id[cid], s) for cid, s in fuse(vec_scores, kw_scores, k, fusion or self.fusion)]

    async def _fetch(self, sql: str, *args: Any) -> list[Any]:
        return list(await self.pool.fetch(sql, *args))


def _clamp(cos: Any) -> float:
    return min(1.0, max(0.0, float(cos)))


def _hit(row: Any, score: float) -> Hit:
    return Hit(
        chunk_id=row["chunk_id"],
        file_id=row["file_id"],
        filename=row["filename"],
        text=row["text"],
        score=score,
        attributes=dict(row["attributes"] or {}),
    )
