"""The Milvus vector backend: milvus-lite in `data_dir/milvus.db` by default, or a Milvus server.

Layout: one collection per vector dimension (`vs_chunks_<dim>`), with `store_id` as the partition
key (Milvus's multi-tenancy design: a store-scoped search prunes to the store's partition), a JSON
`attributes` field, a dense `vector` (cosine) and a `sparse` field that a BM25 function fills from
`text` at insert time — so keyword search is Milvus's own full-text search, on milvus-lite too.

* Filters become Milvus boolean expressions (`filters.to_milvus`) ANDed with `store_id == "<id>"`
  and passed as the search's `filter`, so Milvus applies them inside the search and returns up to k.
* DDL uses the sync `MilvusClient` (AsyncMilvusClient cannot create collections on milvus-lite);
  every call runs on one worker thread, off the event loop (milvus-lite is not thread-safe).
* Which collection holds a store is remembered per process and rediscovered by a one-row query
  after a restart, so no second registry has to be kept consistent.
* milvus-lite is an embedded, single-process store: the HTTP server and the ExtProc must not both
  open one milvus.db. Use a Milvus server (`milvus_uri`) when both serve file_search.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from vectorstore import filters as flt
from vectorstore.base import Chunk, Filter, Hit, SearchMode
from vectorstore.fusion import DEFAULT_FUSION, Fusion, candidates, fuse, keyword_score
from vectorstore.keyword import STOPWORDS, query_terms

PREFIX = "vs_chunks_"
MAX_TEXT_BYTES = 65_535  # Milvus VARCHAR limit
# English stemming and stopwords, as sqlite-vec's FTS5 (porter) does. milvus-lite's analyzer knows
# only the tokenizer and the stop filter and ignores the stemmer, so on milvus-lite "foxes" does not
# match "fox"; a Milvus server stems.
ANALYZER: dict[str, Any] = {
    "tokenizer": "standard",
    "filter": [
        "lowercase",
        {"type": "stemmer", "language": "english"},
        {"type": "stop", "stop_words": sorted(STOPWORDS)},
    ],
}
_FIELDS = ["pk", "store_id", "chunk_id", "file_id", "filename", "idx", "text", "attributes"]


def _lit(value: str) -> str:
    return flt.milvus_literal(value)


class MilvusBackend:
    """`VectorBackend` on Milvus / milvus-lite."""

    name = "milvus"

    def __init__(self, uri: str, token: str | None = None, *, fusion: Fusion = DEFAULT_FUSION) -> None:
        self.uri, self.token, self.fusion = uri, token, fusion
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="milvus")
        self._client: Any = None
        self._dims: dict[str, int] = {}  # store_id -> dimension (so, collection)
        self._lite = "://" not in uri

    async def _call(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def open(self) -> None:
        def connect() -> Any:
            from pymilvus import MilvusClient

            if self._lite:
                Path(self.uri).parent.mkdir(parents=True, exist_ok=True)
            client = MilvusClient(self.uri, token=self.token or "")
            for name in client.list_collections():
                if name.startswith(PREFIX):
                    client.load_collection(name)
            return client

        self._client = await self._call(connect)

    async def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await self._call(client.close)
        self._executor.shutdown(wait=True)

    # --- DDL -----------------------------------------------------------------------------------

    def _ensure_collection(self, dimension: int) -> str:
        from pymilvus import DataType, Function, FunctionType

        name = f"{PREFIX}{int(dimension)}"
        c = self._client
        if c.has_collection(name):
            return name
        s = c.create_schema(auto_id=False, enable_dynamic_field=False)
        s.add_field("pk", DataType.VARCHAR, is_primary=True, max_length=1024)
        s.add_field("store_id", DataType.VARCHAR, max_length=256, is_partition_key=True)
        s.add_field("chunk_id", DataType.VARCHAR, max_length=512)
        s.add_field("file_id", DataType.VARCHAR, max_length=256)
        s.add_field("filename", DataType.VARCHAR, max_length=1024)
        s.add_field("idx", DataType.INT64)
        s.add_field("text", DataType.VARCHAR, max_length=MAX_TEXT_BYTES, enable_analyzer=True, analyzer_params=ANALYZER)
        s.add_field("attributes", DataType.JSON)
        s.add_field("vector", DataType.FLOAT_VECTOR, dim=int(dimension))
        s.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
        s.add_function(
            Function(
                name="bm25", function_type=FunctionType.BM25, input_field_names=["text"], output_field_names=["sparse"]
            )
        )
        index = c.prepare_index_params()
        index.add_index("vector", index_type="FLAT" if self._lite else "AUTOINDEX", metric_type="COSINE")
        index.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
        c.create_collection(name, schema=s, index_params=index, consistency_level="Strong")
        c.load_collection(name)
        return name

    def _collection_of(self, store_id: str) -> str | None:
        """The collection holding a store's chunks, or None for an unknown or empty store."""
        if store_id in self._dims:
            return f"{PREFIX}{self._dims[store_id]}"
        for name in self._client.list_collections():
            if name.startswith(PREFIX) and self._client.query(
                name, filter=f"store_id == {_lit(store_id)}", output_fields=["pk"], limit=1
            ):
                self._dims[store_id] = int(name[len(PREFIX) :])
                return name
        return None

    async def create_store(self, store_id: str, dimension: int) -> None:
        known = self._dims.get(store_id)
        if known is not None and known != dimension:
            raise ValueError(f"vector store {store_id} holds {known}-d vectors, not {dimension}-d")
        await self._call(self._ensure_collection, dimension)
        self._dims[store_id] = dimension

    async def drop_store(self, store_id: str) -> None:
        def drop() -> None:
            for name in self._client.list_collections():
                if name.startswith(PREFIX):
                    self._client.delete(name, filter=f"store_id == {_lit(store_id)}")

        await self._call(drop)
        self._dims.pop(store_id, None)

    # --- writes --------------------------------------------------------------------------------

    async def upsert(self, chunks: list[Chunk]) -> None:
        by_dim: dict[int, list[dict[str, Any]]] = {}
        for ch in chunks:
            dim = self._dims.setdefault(ch.store_id, len(ch.vector))
            if len(ch.vector) != dim:
                raise ValueError(f"chunk {ch.id}: {len(ch.vector)}-d vector for a {dim}-d store")
            if len(ch.text.encode()) > MAX_TEXT_BYTES:
                raise ValueError(f"chunk {ch.id}: text over Milvus's {MAX_TEXT_BYTES}-byte limit; use smaller chunks")
            by_dim.setdefault(dim, []).append(
                {
                    "pk": f"{ch.store_id}/{ch.id}",
                    "store_id": ch.store_id,
                    "chunk_id": ch.id,
                    "file_id": ch.file_id,
                    "filename": ch.filename,
                    "idx": ch.index,
                    "text": ch.text,
                    "attributes": ch.attributes,
                    "vector": [float(x) for x in ch.vector],
                }
            )

        def write() -> None:
            for dim, rows in by_dim.items():
                self._client.upsert(self._ensure_collection(dim), rows)

        await self._call(write)

    def _file_expr(self, store_id: str, file_id: str) -> str:
        return f"store_id == {_lit(store_id)} and file_id == {_lit(file_id)}"

    async def delete_file(self, store_id: str, file_id: str) -> None:
        def delete() -> None:
            name = self._collection_of(store_id)
            if name is not None:
                self._client.delete(name, filter=self._file_expr(store_id, file_id))

        await self._call(delete)

    async def update_attributes(self, store_id: str, file_id: str, attributes: dict[str, Any]) -> None:
        """Milvus has no partial update of a JSON field: re-upsert the file's chunks (vectors kept)."""

        def update() -> None:
            name = self._collection_of(store_id)
            if name is None:
                return
            rows = self._client.query(
                name, filter=self._file_expr(store_id, file_id), output_fields=[*_FIELDS, "vector"]
            )
            for row in rows:
                row["attributes"] = attributes
                row["vector"] = [float(x) for x in row["vector"]]
                row.pop("sparse", None)
            if rows:
                self._client.upsert(name, [dict(r) for r in rows])

        await self._call(update)

    # --- reads ---------------------------------------------------------------------------------

    async def file_chunks(self, store_id: str, file_id: str) -> list[Hit]:
        def read() -> list[dict[str, Any]]:
            name = self._collection_of(store_id)
            if name is None:
                return []
            return list(self._client.query(name, filter=self._file_expr(store_id, file_id), output_fields=_FIELDS))

        rows = sorted(await self._call(read), key=lambda r: r["idx"])
        return [_hit(r, 0.0) for r in rows]

    async def chunks(self, store_id: str, refs: Sequence[tuple[str, str]]) -> list[Hit]:
        """Read per file (the collection is filtered by file), kept to the chunks asked for."""
        wanted = {cid for _, cid in refs}
        files = list(dict.fromkeys(f for f, _ in refs))
        out: list[Hit] = []
        for found in await asyncio.gather(*(self.file_chunks(store_id, f) for f in files)):
            out.extend(h for h in found if h.chunk_id in wanted)
        return out

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
        expr = f"store_id == {_lit(store_id)}"
        if filters is not None:
            expr += f" and ({flt.to_milvus(filters, 'attributes')})"
        text = " ".join(query_terms(query)) if mode != "vector" else ""
        if mode != "keyword" and vector is None:
            raise ValueError("a vector search needs a query vector")
        result: list[Hit] = await self._call(self._search, store_id, vector, text, k, expr, mode, fusion or self.fusion)
        return result

    def _search(
        self,
        store_id: str,
        vector: list[float] | None,
        text: str,
        k: int,
        expr: str,
        mode: SearchMode,
        fusion: Fusion,
    ) -> list[Hit]:
        name = self._collection_of(store_id)
        if name is None or k <= 0:
            return []
        if mode == "keyword" or (mode == "hybrid" and vector is not None and text):
            n = k if mode == "keyword" else candidates(k)
            kw = self._bm25(name, text, n, expr) if text else {}
            if mode == "keyword":
                return [_hit(row, s) for row, s in sorted(kw.values(), key=lambda item: -item[1])]
            assert vector is not None
            vec = self._dense(name, vector, n, expr)
            rows = {pk: row for pk, (row, _) in (kw | vec).items()}
            vec_scores = {pk: s for pk, (_, s) in vec.items()}
            kw_scores = {pk: s for pk, (_, s) in kw.items()}
            vec_scores |= self._cosines(name, vector, [pk for pk in kw if pk not in vec])
            missing = [pk for pk in vec if pk not in kw]
            if missing:
                pks = "[" + ", ".join(_lit(pk) for pk in missing) + "]"
                kw_scores |= {pk: s for pk, (_, s) in self._bm25(name, text, len(missing), f"pk in {pks}").items()}
            return [_hit(rows[pk], s) for pk, s in fuse(vec_scores, kw_scores, k, fusion)]
        assert vector is not None
        dense = self._dense(name, vector, k, expr)
        return [_hit(row, s) for row, s in sorted(dense.values(), key=lambda item: -item[1])]

    def _dense(self, name: str, vector: list[float], n: int, expr: str) -> dict[str, tuple[dict[str, Any], float]]:
        res = self._client.search(
            name,
            data=[[float(x) for x in vector]],
            anns_field="vector",
            limit=n,
            filter=expr,
            output_fields=_FIELDS,
            search_params={"metric_type": "COSINE"},
        )
        # COSINE "distance" in Milvus is the similarity itself (higher is better).
        return {h["entity"]["pk"]: (h["entity"], min(1.0, max(0.0, float(h["distance"])))) for h in res[0]}

    def _bm25(self, name: str, text: str, n: int, expr: str) -> dict[str, tuple[dict[str, Any], float]]:
        res = self._client.search(
            name,
            data=[text],
            anns_field="sparse",
            limit=n,
            filter=expr,
            output_fields=_FIELDS,
            search_params={"metric_type": "BM25"},
        )
        # milvus-lite reports BM25 negated (more negative is better); a server reports it positive.
        return {h["entity"]["pk"]: (h["entity"], keyword_score(abs(float(h["distance"])))) for h in res[0]}

    def _cosines(self, name: str, vector: list[float], pks: list[str]) -> dict[str, float]:
        if not pks:
            return {}
        expr = f"pk in [{', '.join(_lit(p) for p in pks)}]"
        rows = self._client.query(name, filter=expr, output_fields=["pk", "vector"])
        q = np.asarray(vector, dtype=np.float32)
        q /= max(float(np.linalg.norm(q)), 1e-12)
        out: dict[str, float] = {}
        for row in rows:
            v = np.asarray(row["vector"], dtype=np.float32)
            out[row["pk"]] = min(1.0, max(0.0, float(q @ v) / max(float(np.linalg.norm(v)), 1e-12)))
        return out


def _hit(row: dict[str, Any], score: float) -> Hit:
    return Hit(
        chunk_id=row["chunk_id"],
        file_id=row["file_id"],
        filename=row["filename"],
        text=row["text"],
        score=score,
        attributes=dict(row.get("attributes") or {}),
    )
