"""Vector stores, their files and file batches in SQLite, on the process's shared connections.

`file_counts`, `usage_bytes` and statuses are computed from `vector_store_files` at read time, so
they are exact by construction (no counters to drift after a crash). A file's status only leaves
`in_progress` through a conditional update, so a file that was cancelled or removed while it was
being ingested is never resurrected by the ingestion worker finishing late.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from storage.base import JSON, Page
from storage.pages import Binds, PageRequest
from storage.scope import Scope, filter_sql, owning_project
from storage.sqlite.conn import ThreadConnection, WriterConnection, visible
from storage.vector_stores import (
    _FILE_COLUMNS,
    STATUSES,
    _expires_at,
    _file_object,
    _store_object,
    batch_object,
    files_query,
)


def _counts(c: Any, where: str, args: tuple[Any, ...]) -> tuple[dict[str, int], int]:
    counts = dict.fromkeys(STATUSES, 0)
    usage = 0
    for status, n, used in c.execute(
        f"SELECT status, COUNT(*), SUM(usage_bytes) FROM vector_store_files WHERE {where} GROUP BY status", args
    ):
        counts[status] = n
        usage += used or 0
    counts["total"] = sum(counts[s] for s in STATUSES)
    return counts, usage


_STORE_COLUMNS = "id, created_at, last_active_at, expires_at, embedder, data, dimension"


class SQLiteVectorStoreStore:
    def __init__(self, writer: WriterConnection, reader: ThreadConnection) -> None:
        self._writer = writer
        self._reader = reader

    # -- stores ------------------------------------------------------------------------------------
    async def create_store(self, store_id: str, *, embedder: str, dimension: int, data: JSON) -> None:
        now = int(time.time())
        project = owning_project()

        def write(c: Any) -> None:
            c.execute(
                "INSERT INTO vector_stores (id, created_at, last_active_at, expires_at, embedder, dimension, data, "
                "project) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    store_id,
                    now,
                    now,
                    _expires_at(data.get("expires_after"), now),
                    embedder,
                    dimension,
                    orjson.dumps(data),
                    project,
                ),
            )

        await self._writer.transact(write)

    @staticmethod
    def _read_store(c: Any, store_id: str, scope: Scope) -> JSON | None:
        where, params = scope
        row = c.execute(
            f"SELECT {_STORE_COLUMNS} FROM vector_stores WHERE id = ?{where}", (store_id, *params)
        ).fetchone()
        if row is None:
            return None
        counts, usage = _counts(c, "store_id = ?", (store_id,))
        return _store_object(row, counts, usage, int(time.time()))

    async def get_store(self, store_id: str) -> JSON | None:
        return await self._reader.run(self._read_store, store_id, filter_sql())

    async def store_embedder(self, store_id: str) -> tuple[str, int] | None:
        """The embedder name and dimension a store was created with."""
        where, params = filter_sql()
        row = await self._reader.run(
            lambda c: c.execute(
                f"SELECT embedder, dimension FROM vector_stores WHERE id = ?{where}", (store_id, *params)
            ).fetchone()
        )
        return None if row is None else (str(row[0]), int(row[1]))

    async def existing(self, store_ids: list[str]) -> set[str]:
        where, params = filter_sql()

        def read(c: Any) -> set[str]:
            marks = ",".join("?" * len(store_ids))
            sql = f"SELECT id FROM vector_stores WHERE id IN ({marks}){where}"
            return {r[0] for r in c.execute(sql, (*store_ids, *params))}

        return await self._reader.run(read) if store_ids else set()

    async def searchable(self, embedder: str, limit: int) -> list[str]:
        """Ids of the caller's unexpired stores built with `embedder`, newest first: one indexed read
        (no file counts), for searches over every store (the MCP server's `search`, #14)."""
        where, params = filter_sql()
        now = int(time.time())

        def read(c: Any) -> list[str]:
            sql = (
                f"SELECT id FROM vector_stores WHERE embedder = ? AND (expires_at IS NULL OR expires_at > ?){where} "
                "ORDER BY rowid DESC LIMIT ?"
            )
            return [r[0] for r in c.execute(sql, (embedder, now, *params, limit))]

        return await self._reader.run(read)

    async def list_stores(self, *, limit: int, order: str, after: str | None, before: str | None) -> Page:
        req, b = PageRequest.of(limit, order, after, before), Binds("sqlite")
        sql = f"SELECT {_STORE_COLUMNS} FROM vector_stores WHERE TRUE{b.project()}" + req.keyset(
            b, "vector_stores", "rowid"
        )

        def read(c: Any) -> Page:
            now = int(time.time())
            rows = c.execute(sql, b.values).fetchall()
            return req.page(rows, lambda r: _store_object(r, *_counts(c, "store_id = ?", (r[0],)), now))

        return await self._reader.run(read)

    async def update_store(self, store_id: str, changes: JSON) -> JSON | None:
        """Apply `name`/`metadata`/`expires_after` changes (a None value clears the field)."""
        scope = filter_sql()

        def write(c: Any) -> JSON | None:
            if not visible(c, "vector_stores", store_id, scope):
                return None
            row = c.execute("SELECT data, last_active_at FROM vector_stores WHERE id = ?", (store_id,)).fetchone()
            if row is None:
                return None
            data = {**orjson.loads(row[0]), **changes}
            c.execute(
                "UPDATE vector_stores SET data = ?, expires_at = ? WHERE id = ?",
                (orjson.dumps(data), _expires_at(data.get("expires_after"), row[1]), store_id),
            )
            return self._read_store(c, store_id, scope)

        return await self._writer.transact(write)

    async def touch(self, store_ids: list[str]) -> None:
        """Mark stores active now (moves `expires_at` of stores that expire after inactivity)."""
        now = int(time.time())

        def write(c: Any) -> None:
            for sid in store_ids:
                row = c.execute("SELECT data FROM vector_stores WHERE id = ?", (sid,)).fetchone()
                if row is not None:
                    expires = _expires_at(orjson.loads(row[0]).get("expires_after"), now)
                    c.execute(
                        "UPDATE vector_stores SET last_active_at = ?, expires_at = ? WHERE id = ?", (now, expires, sid)
                    )

        await self._writer.transact(write)

    async def delete_store(self, store_id: str) -> bool:
        where, params = filter_sql()

        def write(c: Any) -> bool:
            if c.execute(f"DELETE FROM vector_stores WHERE id = ?{where}", (store_id, *params)).rowcount == 0:
                return False
            c.execute("DELETE FROM vector_store_files WHERE store_id = ?", (store_id,))
            c.execute("DELETE FROM vector_store_file_batches WHERE store_id = ?", (store_id,))
            return True

        return await self._writer.transact(write)

    # -- files -------------------------------------------------------------------------------------
    async def add_files(self, store_id: str, entries: list[JSON], *, batch_id: str | None = None) -> bool:
        """Attach files (`file_id`, `attributes`, `chunking_strategy`) as `in_progress`; a file
        already in the store is reset and ingested again. False when the store is gone."""
        now = int(time.time())
        scope = filter_sql()

        def write(c: Any) -> bool:
            if not visible(c, "vector_stores", store_id, scope):
                return False
            if batch_id is not None:
                c.execute(
                    "INSERT INTO vector_store_file_batches (id, store_id, created_at) VALUES (?, ?, ?)",
                    (batch_id, store_id, now),
                )
            c.executemany(
                f"INSERT OR REPLACE INTO vector_store_files ({_FILE_COLUMNS}) "
                "VALUES (?, ?, ?, 'in_progress', ?, 0, NULL, ?, ?)",
                [
                    (
                        store_id,
                        e["file_id"],
                        now,
                        batch_id,
                        orjson.dumps(e.get("attributes") or {}),
                        orjson.dumps(e["chunking_strategy"]),
                    )
                    for e in entries
                ],
            )
            return True

        return await self._writer.transact(write)

    async def get_file(self, store_id: str, file_id: str) -> JSON | None:
        scope = filter_sql()

        def read(c: Any) -> Any:
            if not visible(c, "vector_stores", store_id, scope):
                return None
            return c.execute(
                f"SELECT {_FILE_COLUMNS} FROM vector_store_files WHERE store_id = ? AND file_id = ?",
                (store_id, file_id),
            ).fetchone()

        row = await self._reader.run(read)
        return None if row is None else _file_object(row)

    async def list_files(
        self,
        store_id: str,
        *,
        batch_id: str | None = None,
        status: str | None,
        limit: int,
        order: str,
        after: str | None,
        before: str | None,
    ) -> Page:
        scope = filter_sql()
        req = PageRequest.of(limit, order, after, before)
        sql, values = files_query("sqlite", "rowid", store_id, batch_id, status, req)

        def read(c: Any) -> Page:
            if not visible(c, "vector_stores", store_id, scope):
                return Page()
            return req.page(c.execute(sql, values).fetchall(), _file_object)

        return await self._reader.run(read)

    async def finish_file(
        self, store_id: str, file_id: str, status: str, *, usage_bytes: int = 0, last_error: JSON | None = None
    ) -> bool:
        """Move an `in_progress` file to a final status; False if it is no longer in progress."""

        def write(c: Any) -> bool:
            cur = c.execute(
                "UPDATE vector_store_files SET status = ?, usage_bytes = ?, last_error = ? "
                "WHERE store_id = ? AND file_id = ? AND status = 'in_progress'",
                (status, usage_bytes, orjson.dumps(last_error) if last_error else None, store_id, file_id),
            )
            return bool(cur.rowcount)

        return await self._writer.transact(write)

    async def update_attributes(self, store_id: str, file_id: str, attributes: JSON) -> JSON | None:
        scope = filter_sql()

        def write(c: Any) -> Any:
            if not visible(c, "vector_stores", store_id, scope):
                return None
            c.execute(
                "UPDATE vector_store_files SET attributes = ? WHERE store_id = ? AND file_id = ?",
                (orjson.dumps(attributes), store_id, file_id),
            )
            return c.execute(
                f"SELECT {_FILE_COLUMNS} FROM vector_store_files WHERE store_id = ? AND file_id = ?",
                (store_id, file_id),
            ).fetchone()

        row = await self._writer.transact(write)
        return None if row is None else _file_object(row)

    async def delete_file(self, store_id: str, file_id: str) -> bool:
        scope = filter_sql()

        def write(c: Any) -> bool:
            if not visible(c, "vector_stores", store_id, scope):
                return False
            cur = c.execute("DELETE FROM vector_store_files WHERE store_id = ? AND file_id = ?", (store_id, file_id))
            return bool(cur.rowcount)

        return await self._writer.transact(write)

    async def detach_everywhere(self, file_id: str) -> list[str]:
        """Remove a (deleted) file from every store; return those stores' ids."""

        def write(c: Any) -> list[str]:
            stores = [r[0] for r in c.execute("SELECT store_id FROM vector_store_files WHERE file_id = ?", (file_id,))]
            c.execute("DELETE FROM vector_store_files WHERE file_id = ?", (file_id,))
            return stores

        return await self._writer.transact(write)

    async def pending(self) -> list[tuple[str, str]]:
        """Every `in_progress` (store, file) pair in the order it was added: the ingestion backlog."""
        rows = await self._reader.run(
            lambda c: c.execute(
                "SELECT store_id, file_id FROM vector_store_files WHERE status = 'in_progress' ORDER BY rowid"
            ).fetchall()
        )
        return [(r[0], r[1]) for r in rows]

    # -- claims of the ingestion backlog ------------------------------------------------------------
    async def claim_files(self, owner: str, limit: int, lease: float) -> list[tuple[str, str]]:
        """Claim up to `limit` `in_progress` files nobody holds (or whose holder's claim ran out), oldest
        first, for `lease` seconds; the writer's transaction makes two claimers take different files."""

        def write(c: Any) -> list[tuple[str, str]]:
            now = time.time()
            rows = c.execute(
                "SELECT rowid, store_id, file_id FROM vector_store_files WHERE status = 'in_progress' "
                "AND (claimed_by IS NULL OR claim_until < ?) ORDER BY rowid LIMIT ?",
                (now, limit),
            ).fetchall()
            c.executemany(
                "UPDATE vector_store_files SET claimed_by = ?, claim_until = ? WHERE rowid = ?",
                [(owner, now + lease, r[0]) for r in rows],
            )
            return [(r[1], r[2]) for r in rows]

        return await self._writer.transact(write)

    async def renew_file_claims(self, owner: str, keys: list[tuple[str, str]], lease: float) -> None:
        """Extend `owner`'s claims on the files it is still working on (`keys`: (store id, file id))."""
        if not keys:
            return
        until = time.time() + lease
        await self._writer.write_rows(
            [
                (
                    "UPDATE vector_store_files SET claim_until = ? "
                    "WHERE claimed_by = ? AND store_id = ? AND file_id = ?",
                    [(until, owner, sid, fid) for sid, fid in keys],
                )
            ]
        )

    async def release_file_claims(self, owner: str) -> None:
        """Give back every claim of `owner` (a process stopping): another process takes them at once."""
        await self._writer.write_rows(
            [("UPDATE vector_store_files SET claimed_by = NULL, claim_until = NULL WHERE claimed_by = ?", [(owner,)])]
        )

    # -- batches -----------------------------------------------------------------------------------
    async def get_batch(self, store_id: str, batch_id: str) -> JSON | None:
        scope = filter_sql()

        def read(c: Any) -> JSON | None:
            if not visible(c, "vector_stores", store_id, scope):
                return None
            row = c.execute(
                "SELECT id, created_at, cancelled FROM vector_store_file_batches WHERE id = ? AND store_id = ?",
                (batch_id, store_id),
            ).fetchone()
            if row is None:
                return None
            counts, _usage = _counts(c, "store_id = ? AND batch_id = ?", (store_id, batch_id))
            return batch_object(row, store_id, counts)

        return await self._reader.run(read)

    async def cancel_batch(self, store_id: str, batch_id: str) -> list[str] | None:
        """Cancel a batch's files that are still in progress; return their ids (None: no batch)."""
        scope = filter_sql()

        def write(c: Any) -> list[str] | None:
            if not visible(c, "vector_stores", store_id, scope):
                return None
            cur = c.execute(
                "UPDATE vector_store_file_batches SET cancelled = 1 WHERE id = ? AND store_id = ?", (batch_id, store_id)
            )
            if not cur.rowcount:
                return None
            ids = [
                r[0]
                for r in c.execute(
                    "SELECT file_id FROM vector_store_files "
                    "WHERE store_id = ? AND batch_id = ? AND status = 'in_progress'",
                    (store_id, batch_id),
                )
            ]
            c.execute(
                "UPDATE vector_store_files SET status = 'cancelled' "
                "WHERE store_id = ? AND batch_id = ? AND status = 'in_progress'",
                (store_id, batch_id),
            )
            return ids

        return await self._writer.transact(write)
