"""The read side of the sqlite-vec backend: store-scoped KNN, BM25 and their fusion.

Each function takes a connection and runs whole on a reader thread. Filters are evaluated over the
store's files (`vs_files`, one row per file) and become the set of allowed chunk rowids, which is
cheap because a chunk's rowid is `fno << SEQ_BITS | seq` (see sqlite_vec._upsert):

* vector: `rowid IN (<allowed rowids>)` inside the vec0 KNN, so the scan itself skips other chunks
  and a filtered search still returns up to k. A broad filter (>= 30% of the store) first tries
  an over-fetched unfiltered KNN (k / share x 1.5) and keeps allowed rows: checking 12.5k listed
  rowids cost ~35 ms against ~27 ms for the plain scan; if too few survive, the exact path runs;
* keyword: the BM25-ranked match list is read in rank order, keeping rows whose file is allowed,
  until n are found (FTS5 ranks every match before the first row anyway; a `rowid IN` constraint
  instead makes FTS5 re-run the MATCH per rowid, measured at seconds).
"""

from __future__ import annotations

from typing import Any

import orjson

from vectorstore import filters as flt
from vectorstore.base import Filter, Hit
from vectorstore.fusion import Fusion, fuse, keyword_score, vector_score

SEQ_BITS = 20  # chunk rowid = file number << SEQ_BITS | sequence within the file
BROAD_FILTER = 0.3  # filters keeping at least this share of a store's chunks post-filter an over-fetch
MAX_K = 4096  # sqlite-vec's largest k


def vec_table(dimension: int) -> str:
    return f"vs_vec_{int(dimension)}"


def store_of(c: Any, store_id: str) -> tuple[int, int] | None:
    """(sid, dimension) of a store, or None."""
    row = c.execute("SELECT sid, dimension FROM vs_stores WHERE store_id = ?", (store_id,)).fetchone()
    return (int(row[0]), int(row[1])) if row else None


def _allowed_files(c: Any, sid: int, filters: Filter | None) -> list[tuple[int, int]] | None:
    """(fno, next_seq) of the store's files passing the filter; None when there is no filter."""
    if filters is None:
        return None
    sql, params = flt.to_sql(filters, "attributes")
    return c.execute(f"SELECT fno, next_seq FROM vs_files WHERE sid = ? AND {sql}", (sid, *params)).fetchall()


def _knn(c: Any, sid: int, dim: int, blob: bytes, n: int, files: list[tuple[int, int]] | None) -> dict[int, float]:
    sql = f"SELECT rowid, distance FROM {vec_table(dim)} WHERE embedding MATCH ? AND k = ? AND sid = ?"
    if files is None:
        return {r[0]: vector_score(r[1]) for r in c.execute(sql, (blob, n, sid))}
    allowed = sum(top for _, top in files)
    total = c.execute("SELECT sum(next_seq) FROM vs_files WHERE sid = ?", (sid,)).fetchone()[0] or 1
    if allowed >= BROAD_FILTER * total:
        # A broad filter: over-fetch without it and keep the allowed rows (one plain partition scan,
        # cheaper than checking 10k+ listed rowids); fall back below if too few survive.
        fnos = {fno for fno, _ in files}
        wanted = min(MAX_K, int(n * total / allowed * 1.5) + 1)
        rows = [(r, d) for r, d in c.execute(sql, (blob, wanted, sid)) if r >> SEQ_BITS in fnos]
        if len(rows) >= n or wanted >= total:
            return {r: vector_score(d) for r, d in rows[:n]}
    # Rowids of deleted chunks may be listed too: harmless, and no join with vs_chunks needed.
    rowids = [fno << SEQ_BITS | seq for fno, top in files for seq in range(top)]
    rows = c.execute(
        sql + " AND rowid IN (SELECT value FROM json_each(?))", (blob, n, sid, orjson.dumps(rowids).decode())
    )
    return {r[0]: vector_score(r[1]) for r in rows}


def _bm25(c: Any, sid: int, match: str, n: int, files: list[tuple[int, int]] | None) -> dict[int, float]:
    cursor = c.execute(
        "SELECT rowid, rank FROM vs_fts WHERE vs_fts MATCH ? ORDER BY rank", (f'store : "{sid}" AND ({match})',)
    )
    allowed = None if files is None else {fno for fno, _ in files}
    out: dict[int, float] = {}
    for rowid, rank in cursor:
        if allowed is None or rowid >> SEQ_BITS in allowed:
            out[rowid] = keyword_score(-rank)
            if len(out) >= n:
                break
    return out


def vector_candidates(c: Any, store_id: str, blob: bytes, n: int, filters: Filter | None) -> dict[int, float]:
    found = store_of(c, store_id)
    if found is None or n <= 0:
        return {}
    files = _allowed_files(c, found[0], filters)
    return {} if files == [] else _knn(c, found[0], found[1], blob, n, files)


def keyword_candidates(c: Any, store_id: str, match: str, n: int, filters: Filter | None) -> dict[int, float]:
    found = store_of(c, store_id)
    if found is None or n <= 0:
        return {}
    files = _allowed_files(c, found[0], filters)
    return {} if files == [] else _bm25(c, found[0], match, n, files)


def hits(c: Any, scored: list[tuple[int, float]]) -> list[Hit]:
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


def _ranked(scores: dict[int, float], k: int) -> list[tuple[int, float]]:
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]


def vector_search(c: Any, store_id: str, blob: bytes, k: int, filters: Filter | None) -> list[Hit]:
    return hits(c, _ranked(vector_candidates(c, store_id, blob, k, filters), k))


def keyword_search(c: Any, store_id: str, match: str, k: int, filters: Filter | None) -> list[Hit]:
    return hits(c, _ranked(keyword_candidates(c, store_id, match, k, filters), k))


def keyword_candidates_scored(
    c: Any, store_id: str, match: str, blob: bytes, n: int, filters: Filter | None
) -> tuple[dict[int, float], dict[int, float]]:
    """Keyword candidates and their vector scores (the hybrid's keyword side).

    The BM25 ranking takes ~6 ms and the KNN scan on the other reader thread ~25 ms, so the vec0
    point lookups (~0.15 ms each) for these candidates happen here, while that scan still runs."""
    kw = keyword_candidates(c, store_id, match, n, filters)
    found = store_of(c, store_id)
    vec: dict[int, float] = {}
    if found is not None:
        sql = f"SELECT vec_distance_cosine(embedding, ?) FROM {vec_table(found[1])} WHERE rowid = ?"
        for rowid in kw:
            row = c.execute(sql, (blob, rowid)).fetchone()
            if row is not None:
                vec[rowid] = vector_score(row[0])
    return kw, vec


def fuse_hits(
    c: Any,
    store_id: str,
    match: str,
    vec: dict[int, float],
    kw: dict[int, float],
    n: int,
    k: int,
    fusion: Fusion,
) -> list[Hit]:
    """Complete the keyword scores of vector-only candidates, fuse, and fetch the hits.

    `vec` already holds the vector scores of the keyword candidates (keyword_candidates_scored).
    If the keyword side returned fewer than n rows it returned every match, so the other chunks
    score exactly 0 there; otherwise one MATCH with the rowids kept out of FTS5 (`+rowid`) scores
    them (a plain `rowid IN` makes FTS5 re-run the MATCH per rowid)."""
    found = store_of(c, store_id)
    if found is None:
        return []
    kw = dict(kw)
    missing = [i for i in vec if i not in kw]
    if missing and len(kw) >= n:
        rows = c.execute(
            "SELECT rowid, rank FROM vs_fts WHERE vs_fts MATCH ? AND +rowid IN (SELECT value FROM json_each(?))",
            (f'store : "{found[0]}" AND ({match})', orjson.dumps(missing).decode()),
        )
        kw.update({r[0]: keyword_score(-r[1]) for r in rows})
    return hits(c, fuse(vec, kw, k, fusion))


def chunks(c: Any, store_id: str, refs: list[tuple[str, str]]) -> list[Hit]:
    """The chunks `refs` names (file id, chunk id) in one statement, by the (sid, chunk_id) index:
    grouped by file in the order `refs` first names each file, a file's by their position in it."""
    found = store_of(c, store_id)
    if found is None or not refs:
        return []
    order = {f: i for i, f in enumerate(dict.fromkeys(f for f, _ in refs))}
    rows = c.execute(
        "SELECT id, file_id, idx FROM vs_chunks WHERE sid = ? AND chunk_id IN (SELECT value FROM json_each(?))",
        (found[0], orjson.dumps([cid for _, cid in refs]).decode()),
    ).fetchall()
    rows = sorted((r for r in rows if r[1] in order), key=lambda r: (order[r[1]], r[2]))
    return hits(c, [(r[0], 0.0) for r in rows])


def file_chunks(c: Any, store_id: str, file_id: str) -> list[Hit]:
    found = store_of(c, store_id)
    if found is None:
        return []
    rows = c.execute("SELECT id FROM vs_chunks WHERE sid = ? AND file_id = ? ORDER BY idx", (found[0], file_id))
    return hits(c, [(r[0], 0.0) for r in rows])
