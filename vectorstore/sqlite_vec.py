"""The default vector backend: sqlite-vec + FTS5 inside the gateway's own SQLite file.

Layout (all tables prefixed `vs_`, created on open):

* `vs_stores(sid, store_id, dimension)`: a small integer per vector store. That integer is the vec0
  partition key (a store-scoped KNN scans only its own partition: ≈33 ms at 25k rows vs ≈115 ms for
  the whole 100k table, DESIGN §6) and the FTS5 `store` token.
* `vs_files(sid, file_id, filename, attributes)`: attributes live per file, as in OpenAI's API.
  Filters are evaluated here — over a store's files, not its chunks — and select chunk rowids
  (measured: json_extract over 25k chunk rows costs 40-100 ms; over the files it is ~1 ms).
* `vs_chunks(id, sid, chunk_id, file_id, idx, text)`: `id` is the rowid shared by the vector and
  full-text rows of a chunk.
* `vs_vec_<dim>`: one vec0 table per dimension, `sid` as partition key, cosine distance.
* `vs_fts`: contentless FTS5 (text is stored once, in vs_chunks) with porter stemming; the `store`
  column holds the sid, and every MATCH is `store : <sid> AND (<terms>)`, so keyword search also
  touches one store only.

A filtered search passes `rowid IN (<chunks of the matching files>)` into the vec0 KNN and the FTS5
MATCH, so the filter is applied inside the scan and a filtered search still returns up to k hits.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import sqlite_vec

from storage.sqlite_conn import Checkpointer, ThreadConnection, WriterConnection, connect
from vectorstore import filters as flt
from vectorstore.base import Chunk, Filter, Hit, SearchMode
from vectorstore.fusion import DEFAULT_FUSION, Fusion, candidates, fuse, keyword_score, vector_score
from vectorstore.keyword import fts5_query

_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS vs_stores (sid INTEGER PRIMARY KEY, store_id TEXT NOT NULL UNIQUE, "
    "dimension INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS vs_files (sid INTEGER NOT NULL, file_id TEXT NOT NULL, filename TEXT NOT NULL, "
    "attributes TEXT NOT NULL, PRIMARY KEY (sid, file_id)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS vs_chunks (id INTEGER PRIMARY KEY, sid INTEGER NOT NULL, chunk_id TEXT NOT NULL, "
    "file_id TEXT NOT NULL, idx INTEGER NOT NULL, text TEXT NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS vs_chunks_chunk ON vs_chunks (sid, chunk_id)",
    "CREATE INDEX IF NOT EXISTS vs_chunks_file ON vs_chunks (sid, file_id, idx)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS vs_fts USING fts5(store, text, content='', contentless_delete=1, "
    "tokenize='porter unicode61 remove_diacritics 2')",
]
# vec0 stores vectors in blocks of `chunk_size` rows per partition; 1024 (the default) costs 1.5 MB
# per store at 384-d even for one small file. 256 keeps small stores small; measured no slower.
VEC_CHUNK_SIZE = 256
READERS = 2  # concurrent searches (one connection and thread each); the machine has 2 cores


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


def _vec_table(dimension: int) -> str:
    return f"vs_vec_{int(dimension)}"


def _store(c: Any, store_id: str) -> tuple[int, int] | None:
    row = c.execute("SELECT sid, dimension FROM vs_stores WHERE store_id = ?", (store_id,)).fetchone()
    return (int(row[0]), int(row[1])) if row else None


def _create_store(c: Any, store_id: str, dimension: int) -> tuple[int, int]:
    found = _store(c, store_id)
    if found is not None:
        if found[1] != dimension:
            raise ValueError(f"vector store {store_id} holds {found[1]}-d vectors, not {dimension}-d")
        return found
    c.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {_vec_table(dimension)} USING vec0(sid INTEGER PARTITION KEY, "
        f"embedding float[{int(dimension)}] distance_metric=cosine, chunk_size={VEC_CHUNK_SIZE})"
    )
    cur = c.execute("INSERT INTO vs_stores (store_id, dimension) VALUES (?, ?)", (store_id, dimension))
    return int(cur.lastrowid), dimension


def _delete_rows(c: Any, table: str, ids: list[int]) -> None:
    c.executemany(f"DELETE FROM {table} WHERE rowid = ?", [(i,) for i in ids])


def _delete_chunks(c: Any, dimension: int, where: str, params: tuple[Any, ...]) -> None:
    ids = [r[0] for r in c.execute(f"SELECT id FROM vs_chunks WHERE {where}", params)]
    _delete_rows(c, _vec_table(dimension), ids)
    _delete_rows(c, "vs_fts", ids)
    _delete_rows(c, "vs_chunks", ids)


def _upsert(c: Any, chunks: list[Chunk]) -> None:
    stores: dict[str, tuple[int, int]] = {}
    files: dict[tuple[int, str], tuple[str, str]] = {}
    for ch in chunks:
        if ch.store_id not in stores:
            stores[ch.store_id] = _store(c, ch.store_id) or _create_store(c, ch.store_id, len(ch.vector))
        sid, dim = stores[ch.store_id]
        if len(ch.vector) != dim:
            raise ValueError(f"chunk {ch.id}: {len(ch.vector)}-d vector for a {dim}-d store")
        old = c.execute("SELECT id FROM vs_chunks WHERE sid = ? AND chunk_id = ?", (sid, ch.id)).fetchone()
        if old is not None:
            _delete_chunks(c, dim, "id = ?", (old[0],))
        cur = c.execute(
            "INSERT INTO vs_chunks (sid, chunk_id, file_id, idx, text) VALUES (?, ?, ?, ?, ?)",
            (sid, ch.id, ch.file_id, ch.index, ch.text),
        )
        rowid = cur.lastrowid
        c.execute(
            f"INSERT INTO {_vec_table(dim)} (rowid, sid, embedding) VALUES (?, ?, ?)", (rowid, sid, _blob(ch.vector))
        )
        c.execute("INSERT INTO vs_fts (rowid, store, text) VALUES (?, ?, ?)", (rowid, str(sid), ch.text))
        files[(sid, ch.file_id)] = (ch.filename, orjson.dumps(ch.attributes).decode())
    c.executemany(
        "INSERT INTO vs_files (sid, file_id, filename, attributes) VALUES (?, ?, ?, ?) ON CONFLICT (sid, file_id) "
        "DO UPDATE SET filename = excluded.filename, attributes = excluded.attributes",
        [(sid, fid, name, attrs) for (sid, fid), (name, attrs) in files.items()],
    )


def _drop_store(c: Any, store_id: str) -> None:
    found = _store(c, store_id)
    if found is None:
        return
    sid, dim = found
    _delete_chunks(c, dim, "sid = ?", (sid,))
    c.execute("DELETE FROM vs_files WHERE sid = ?", (sid,))
    c.execute("DELETE FROM vs_stores WHERE sid = ?", (sid,))


def _delete_file(c: Any, store_id: str, file_id: str) -> None:
    found = _store(c, store_id)
    if found is not None:
        _delete_chunks(c, found[1], "sid = ? AND file_id = ?", (found[0], file_id))
        c.execute("DELETE FROM vs_files WHERE sid = ? AND file_id = ?", (found[0], file_id))


def _update_attributes(c: Any, store_id: str, file_id: str, attributes: dict[str, Any]) -> None:
    found = _store(c, store_id)
    if found is not None:
        c.execute(
            "UPDATE vs_files SET attributes = ? WHERE sid = ? AND file_id = ?",
            (orjson.dumps(attributes).decode(), found[0], file_id),
        )


def _hits(c: Any, sid: int, scored: list[tuple[int, float]]) -> list[Hit]:
    """Hits in the given order for (chunk rowid, score) pairs."""
    if not scored:
        return []
    rows = c.execute(
        "SELECT c.id, c.chunk_id, c.file_id, f.filename, c.text, f.attributes FROM vs_chunks c "
        "JOIN vs_files f ON f.sid = c.sid AND f.file_id = c.file_id "
        "WHERE c.id IN (SELECT value FROM json_each(?))",
        (orjson.dumps([i for i, _ in scored]).decode(),),
    ).fetchall()
    by_id = {r[0]: r for r in rows}
    return [
        Hit(chunk_id=r[1], file_id=r[2], filename=r[3], text=r[4], score=score, attributes=orjson.loads(r[5]))
        for i, score in scored
        if (r := by_id.get(i)) is not None
    ]


def _file_chunks(c: Any, store_id: str, file_id: str) -> list[Hit]:
    found = _store(c, store_id)
    if found is None:
        return []
    rows = c.execute(
        "SELECT c.id FROM vs_chunks c WHERE c.sid = ? AND c.file_id = ? ORDER BY c.idx", (found[0], file_id)
    ).fetchall()
    return _hits(c, found[0], [(r[0], 0.0) for r in rows])


class _Query:
    """One store-scoped search, run whole on a reader thread."""

    def __init__(self, c: Any, sid: int, dim: int, filters: Filter | None) -> None:
        self.c, self.sid, self.table = c, sid, _vec_table(dim)
        self.where, self.params = "", []
        if filters is not None:
            sql, params = flt.to_sql(filters, "f.attributes")
            self.where = (
                " AND rowid IN (SELECT c.id FROM vs_files f JOIN vs_chunks c ON c.sid = f.sid AND c.file_id = f.file_id"
                f" WHERE f.sid = ? AND {sql})"
            )
            self.params = [sid, *params]

    def vector(self, blob: bytes, n: int) -> dict[int, float]:
        rows = self.c.execute(
            f"SELECT rowid, distance FROM {self.table} WHERE embedding MATCH ? AND k = ? AND sid = ?{self.where}",
            (blob, n, self.sid, *self.params),
        )
        return {r[0]: vector_score(r[1]) for r in rows}

    def keyword(self, match: str, n: int) -> dict[int, float]:
        rows = self.c.execute(
            f"SELECT rowid, bm25(vs_fts, 0.0, 1.0) FROM vs_fts WHERE vs_fts MATCH ?{self.where} ORDER BY rank LIMIT ?",
            (f'store : "{self.sid}" AND ({match})', *self.params, n),
        )
        return {r[0]: keyword_score(-r[1]) for r in rows}

    def vector_of(self, blob: bytes, ids: list[int]) -> dict[int, float]:
        """Cosine scores of chosen chunks (keyword-only hybrid candidates)."""
        out: dict[int, float] = {}
        for i in ids:
            row = self.c.execute(
                f"SELECT vec_distance_cosine(embedding, ?) FROM {self.table} WHERE rowid = ?", (blob, i)
            ).fetchone()
            if row is not None:
                out[i] = vector_score(row[0])
        return out

    def keyword_of(self, match: str, ids: list[int]) -> dict[int, float]:
        """BM25 scores of chosen chunks (vector-only hybrid candidates); absent = no term matches."""
        rows = self.c.execute(
            "SELECT rowid, bm25(vs_fts, 0.0, 1.0) FROM vs_fts WHERE vs_fts MATCH ? "
            "AND rowid IN (SELECT value FROM json_each(?))",
            (f'store : "{self.sid}" AND ({match})', orjson.dumps(ids).decode()),
        )
        return {r[0]: keyword_score(-r[1]) for r in rows}


def _search(
    c: Any,
    store_id: str,
    blob: bytes | None,
    query: str,
    k: int,
    filters: Filter | None,
    mode: SearchMode,
    fusion: Fusion,
) -> list[Hit]:
    found = _store(c, store_id)
    if found is None or k <= 0:
        return []
    q = _Query(c, found[0], found[1], filters)
    match = fts5_query(query) if mode != "vector" else None
    if mode == "vector" or (mode == "hybrid" and match is None):
        if blob is None:
            raise ValueError("a vector search needs a query vector")
        scored = sorted(q.vector(blob, k).items(), key=lambda item: -item[1])
    elif mode == "keyword":
        scored = sorted(q.keyword(match, k).items(), key=lambda item: -item[1]) if match else []
    else:
        assert match is not None and blob is not None, "hybrid search needs a query vector"
        n = candidates(k)
        vec, kw = q.vector(blob, n), q.keyword(match, n)
        vec.update(q.vector_of(blob, [i for i in kw if i not in vec]))
        kw.update(q.keyword_of(match, [i for i in vec if i not in kw]))
        scored = fuse(vec, kw, k, fusion)
    return _hits(c, found[0], scored)


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
        self._checkpointer = Checkpointer(self.path) if checkpoint else None

    async def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        await self._writer.open()
        await self._writer.transact(lambda c: [c.execute(sql) for sql in _SCHEMA])
        for reader in self._readers:
            await reader.open()
            self._idle.put_nowait(reader)
        if self._checkpointer is not None:
            self._checkpointer.start()

    async def close(self) -> None:
        for reader in self._readers:
            await reader.close()
        await self._writer.close()
        if self._checkpointer is not None:
            self._checkpointer.stop()

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
        result: list[Hit] = await self._read(_file_chunks, store_id, file_id)
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
        blob = _blob(vector) if vector is not None else None
        result: list[Hit] = await self._read(_search, store_id, blob, query, k, filters, mode, fusion or self.fusion)
        return result
