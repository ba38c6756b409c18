"""The default vector backend: sqlite-vec + FTS5 inside the gateway's own SQLite file.

Layout (all tables prefixed `vs_`, created on open):

* `vs_stores(sid, store_id, dimension)`: a small integer per vector store. That integer is the vec0
  partition key (a store-scoped KNN scans only its own partition: ≈33 ms at 25k rows vs ≈115 ms for
  the whole 100k table, DESIGN §6) and the FTS5 `store` token.
* `vs_files(sid, file_id, fno, next_seq, filename, attributes)`: attributes live per file, as in
  OpenAI's API, and filters are evaluated here, over a store's files rather than its chunks
  (measured: json_extract over 25k chunk rows costs 40-100 ms; over 500 files about 1 ms).
* `vs_chunks(id, sid, chunk_id, file_id, idx, text)`: `id` = `fno << 20 | seq` is the rowid shared
  by the chunk's vector and full-text rows, so the chunk rowids of the files a filter selects follow
  from `vs_files` alone (joining vs_chunks for 12.5k rowids cost 40 ms).
* `vs_vec_<dim>`: one vec0 table per dimension, `sid` as partition key, cosine distance.
* `vs_fts`: contentless FTS5 (text is stored once, in vs_chunks) with porter stemming; the `store`
  column holds the sid, and every MATCH is `store : <sid> AND (<terms>)`, so keyword search also
  touches one store only. BM25's IDF is computed over the whole table (every store), as FTS5 does.

Searches (sqlite_vec_search.py) apply filters inside the vec0 scan and while reading the BM25
ranking, so a filtered search still returns up to k hits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import sqlite_vec

from storage.sqlite.conn import Checkpointer, ThreadConnection, WriterConnection, connect
from vectorstore import filters as flt
from vectorstore import sqlite_vec_search as q
from vectorstore.base import Chunk, Filter, Hit, SearchMode
from vectorstore.fusion import DEFAULT_FUSION, Fusion, candidates
from vectorstore.keyword import fts5_query
from vectorstore.sqlite_vec_search import SEQ_BITS, store_of, vec_table

_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS vs_stores (sid INTEGER PRIMARY KEY, store_id TEXT NOT NULL UNIQUE, "
    "dimension INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS vs_files (sid INTEGER NOT NULL, file_id TEXT NOT NULL, fno INTEGER NOT NULL UNIQUE, "
    "next_seq INTEGER NOT NULL, filename TEXT NOT NULL, attributes TEXT NOT NULL, PRIMARY KEY (sid, file_id)) "
    "WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS vs_chunks (id INTEGER PRIMARY KEY, sid INTEGER NOT NULL, chunk_id TEXT NOT NULL, "
    "file_id TEXT NOT NULL, idx INTEGER NOT NULL, text TEXT NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS vs_chunks_chunk ON vs_chunks (sid, chunk_id)",
    "CREATE INDEX IF NOT EXISTS vs_chunks_file ON vs_chunks (sid, file_id, idx)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS vs_fts USING fts5(store, text, content='', contentless_delete=1, "
    "tokenize='porter unicode61 remove_diacritics 2')",
    # `rank` = BM25 over the text column only (the store column is a constant within a store)
    "INSERT INTO vs_fts (vs_fts, rank) VALUES ('rank', 'bm25(0.0, 1.0)')",
]
# vec0 stores vectors in blocks of `chunk_size` rows per partition; 1024 (the default) costs 1.5 MB
# per store at 384-d even for one small file. 256 keeps small stores small (KNN at 25k rows measured
# 27.4 ms against 26.0 ms with 1024, within the noise of this machine).
VEC_CHUNK_SIZE = 256
READERS = 2  # concurrent searches (one connection and thread each); the machine has 2 cores


def _create_schema(c: Any) -> None:
    columns = {row[1] for row in c.execute("PRAGMA table_info(vs_files)")}
    if columns and "fno" not in columns:  # the layout of an early development build
        raise RuntimeError("the vs_* tables come from an older development build; drop them to re-index")
    for sql in _SCHEMA:
        c.execute(sql)


def connect_vec(path: Path | str) -> Any:
    """A connection (WAL pragmas of storage/) with the sqlite-vec extension loaded."""
    conn = connect(path)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)
    return conn


class _VecReader(ThreadConnection):
    async def open(self) -> None:
        self._conn = await self.call(connect_vec, self._path)


class _VecWriter(WriterConnection):
    async def open(self) -> None:
        self._conn = await self.call(connect_vec, self._path)


def _blob(vector: list[float]) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def _create_store(c: Any, store_id: str, dimension: int) -> tuple[int, int]:
    found = store_of(c, store_id)
    if found is not None:
        if found[1] != dimension:
            raise ValueError(f"vector store {store_id} holds {found[1]}-d vectors, not {dimension}-d")
        return found
    c.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {vec_table(dimension)} USING vec0(sid INTEGER PARTITION KEY, "
        f"embedding float[{int(dimension)}] distance_metric=cosine, chunk_size={VEC_CHUNK_SIZE})"
    )
    cur = c.execute("INSERT INTO vs_stores (store_id, dimension) VALUES (?, ?)", (store_id, dimension))
    return int(cur.lastrowid), dimension


def _delete_rows(c: Any, table: str, ids: list[int]) -> None:
    c.executemany(f"DELETE FROM {table} WHERE rowid = ?", [(i,) for i in ids])


def _delete_chunks(c: Any, dimension: int, where: str, params: tuple[Any, ...]) -> None:
    ids = [r[0] for r in c.execute(f"SELECT id FROM vs_chunks WHERE {where}", params)]
    _delete_rows(c, vec_table(dimension), ids)
    _delete_rows(c, "vs_fts", ids)
    _delete_rows(c, "vs_chunks", ids)


def _file_slot(c: Any, sid: int, file_id: str, filename: str, attributes: str) -> tuple[int, int]:
    """(file number, next chunk sequence) of a file, registering it (or its new attributes)."""
    row = c.execute("SELECT fno, next_seq FROM vs_files WHERE sid = ? AND file_id = ?", (sid, file_id)).fetchone()
    if row is not None:
        c.execute(
            "UPDATE vs_files SET filename = ?, attributes = ? WHERE sid = ? AND file_id = ?",
            (filename, attributes, sid, file_id),
        )
        return int(row[0]), int(row[1])
    fno = int(c.execute("SELECT coalesce(max(fno), 0) + 1 FROM vs_files").fetchone()[0])
    c.execute(
        "INSERT INTO vs_files (sid, file_id, fno, next_seq, filename, attributes) VALUES (?, ?, ?, 0, ?, ?)",
        (sid, file_id, fno, filename, attributes),
    )
    return fno, 0


def _upsert(c: Any, chunks: list[Chunk]) -> None:
    """Insert chunks (replacing any with the same id). A chunk's rowid is fno << SEQ_BITS | seq, so
    the rowids of a file's chunks are known from vs_files alone: filters never join vs_chunks."""
    stores: dict[str, tuple[int, int]] = {}
    slots: dict[tuple[int, str], list[int]] = {}  # (sid, file_id) -> [fno, next_seq]
    for ch in chunks:
        if ch.store_id not in stores:
            stores[ch.store_id] = store_of(c, ch.store_id) or _create_store(c, ch.store_id, len(ch.vector))
        sid, dim = stores[ch.store_id]
        if len(ch.vector) != dim:
            raise ValueError(f"chunk {ch.id}: {len(ch.vector)}-d vector for a {dim}-d store")
        slot = slots.get((sid, ch.file_id))
        if slot is None:
            attrs = orjson.dumps(ch.attributes).decode()
            slot = slots[(sid, ch.file_id)] = list(_file_slot(c, sid, ch.file_id, ch.filename, attrs))
        old = c.execute("SELECT id FROM vs_chunks WHERE sid = ? AND chunk_id = ?", (sid, ch.id)).fetchone()
        if old is not None:
            _delete_chunks(c, dim, "id = ?", (old[0],))
        if slot[1] >= 1 << SEQ_BITS:
            raise ValueError(f"file {ch.file_id} has more than {1 << SEQ_BITS} chunks")
        rowid = slot[0] << SEQ_BITS | slot[1]
        slot[1] += 1
        c.execute(
            "INSERT INTO vs_chunks (id, sid, chunk_id, file_id, idx, text) VALUES (?, ?, ?, ?, ?, ?)",
            (rowid, sid, ch.id, ch.file_id, ch.index, ch.text),
        )
        c.execute(
            f"INSERT INTO {vec_table(dim)} (rowid, sid, embedding) VALUES (?, ?, ?)", (rowid, sid, _blob(ch.vector))
        )
        c.execute("INSERT INTO vs_fts (rowid, store, text) VALUES (?, ?, ?)", (rowid, str(sid), ch.text))
    c.executemany(
        "UPDATE vs_files SET next_seq = ? WHERE sid = ? AND file_id = ?",
        [(seq, sid, fid) for (sid, fid), (_fno, seq) in slots.items()],
    )


def _drop_store(c: Any, store_id: str) -> None:
    found = store_of(c, store_id)
    if found is None:
        return
    sid, dim = found
    _delete_chunks(c, dim, "sid = ?", (sid,))
    c.execute("DELETE FROM vs_files WHERE sid = ?", (sid,))
    c.execute("DELETE FROM vs_stores WHERE sid = ?", (sid,))


def _delete_file(c: Any, store_id: str, file_id: str) -> None:
    found = store_of(c, store_id)
    if found is not None:
        _delete_chunks(c, found[1], "sid = ? AND file_id = ?", (found[0], file_id))
        c.execute("DELETE FROM vs_files WHERE sid = ? AND file_id = ?", (found[0], file_id))


def _update_attributes(c: Any, store_id: str, file_id: str, attributes: dict[str, Any]) -> None:
    found = store_of(c, store_id)
    if found is not None:
        c.execute(
            "UPDATE vs_files SET attributes = ? WHERE sid = ? AND file_id = ?",
            (orjson.dumps(attributes).decode(), found[0], file_id),
        )


class SqliteVecBackend:
    """`VectorBackend` on sqlite-vec; see the module docstring for the layout."""

    name = "sqlite-vec"

    def __init__(
        self, path: Path | str, *, fusion: Fusion = DEFAULT_FUSION, readers: int = READERS, checkpoint: bool = False
    ) -> None:
        """`checkpoint=True` runs WAL checkpoints here (standalone use); in the gateway the
        SQLiteStore that owns the file already does."""
        self.path = Path(path)
        self.fusion = fusion
        self._writer = _VecWriter(self.path, "vec-writer")
        self._readers = [_VecReader(self.path, f"vec-reader-{i}") for i in range(readers)]
        self._idle: asyncio.Queue[_VecReader] = asyncio.Queue()
        self._checkpointer = Checkpointer(self.path, restart=self._writer.request_restart) if checkpoint else None

    async def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        await self._writer.open()
        await self._writer.transact(_create_schema)
        for reader in self._readers:
            await reader.open()
            self._idle.put_nowait(reader)
        if self._checkpointer is not None:
            self._checkpointer.start()

    async def close(self) -> None:
        if self._checkpointer is not None:  # first: it may still ask the writer for a restart
            self._checkpointer.stop()
        for reader in self._readers:
            await reader.close()
        await self._writer.close()

    async def _read(self, fn: Any, *args: Any) -> Any:
        reader = await self._idle.get()
        try:
            return await reader.run(fn, *args)
        finally:
            self._idle.put_nowait(reader)

    async def create_store(self, store_id: str, dimension: int) -> None:
        await self._writer.transact(_create_store, store_id, dimension)

    async def drop_store(self, store_id: str) -> None:
        await self._writer.transact(_drop_store, store_id)

    async def upsert(self, chunks: list[Chunk]) -> None:
        if chunks:
            await self._writer.transact(_upsert, chunks)

    async def delete_file(self, store_id: str, file_id: str) -> None:
        await self._writer.transact(_delete_file, store_id, file_id)

    async def update_attributes(self, store_id: str, file_id: str, attributes: dict[str, Any]) -> None:
        await self._writer.transact(_update_attributes, store_id, file_id, attributes)

    async def file_chunks(self, store_id: str, file_id: str) -> list[Hit]:
        result: list[Hit] = await self._read(q.file_chunks, store_id, file_id)
        return result

    async def chunks(self, store_id: str, refs: Sequence[tuple[str, str]]) -> list[Hit]:
        result: list[Hit] = await self._read(q.chunks, store_id, list(refs)) if refs else []
        return result

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
        fusion = fusion or self.fusion
        blob = _blob(vector) if vector is not None else None
        match = fts5_query(query) if mode != "vector" else None
        if mode == "keyword":
            return await self._read(q.keyword_search, store_id, match, k, filters) if match else []
        if blob is None:
            raise ValueError("a vector search needs a query vector")
        if mode == "vector" or match is None:
            return await self._read(q.vector_search, store_id, blob, k, filters)  # type: ignore[no-any-return]
        # Hybrid: the KNN scan (~25 ms) runs on one reader thread while the other ranks BM25 and
        # looks up its candidates' vector scores (sqlite releases the GIL); a last hop fuses.
        n = candidates(k)
        vec, (kw, kw_vec) = await asyncio.gather(
            self._read(q.vector_candidates, store_id, blob, n, filters),
            self._read(q.keyword_candidates_scored, store_id, match, blob, n, filters),
        )
        result: list[Hit] = await self._read(q.fuse_hits, store_id, match, {**kw_vec, **vec}, kw, n, k, fusion)
        return result
