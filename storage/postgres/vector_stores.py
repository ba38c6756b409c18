"""Vector stores, their files and batches in PostgreSQL: `storage.sqlite.vector_stores.SQLiteVectorStoreStore`'s
methods and semantics, shared by every replica.

Counts and statuses are computed at read time from `vector_store_files`, as on SQLite; a file
leaves `in_progress` only through a conditional update. List order is insertion order (`seq`, a
BIGSERIAL, plays SQLite's rowid). Every entry point that names a store first checks that the
caller's project sees it (`hidden`), like the SQLite store's `visible`.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from storage.base import JSON, Page
from storage.pages import Binds, PageRequest
from storage.postgres.db import Database, hidden
from storage.scope import current_project, owning_project
from storage.vector_stores import STATUSES, _expires_at, _file_object, _store_object, batch_object, files_query

_STORE_COLUMNS = "id, created_at, last_active_at, expires_at, embedder, data, dimension"
_FILE_COLUMNS = "store_id, file_id, created_at, status, batch_id, usage_bytes, last_error, attributes, chunking"


async def _counts(c: Any, store_id: str, batch_id: str | None = None) -> tuple[dict[str, int], int]:
    rows = await c.fetch(
        "SELECT status, COUNT(*), COALESCE(SUM(usage_bytes), 0) FROM vector_store_files "
        "WHERE store_id = $1 AND ($2::text IS NULL OR batch_id = $2) GROUP BY status",
        store_id,
        batch_id,
    )
    counts = dict.fromkeys(STATUSES, 0)
    usage = 0
    for status, n, used in rows:
        counts[status] = int(n)
        usage += int(used)
    counts["total"] = sum(counts[s] for s in STATUSES)
    return counts, usage


class PostgresVectorStoreStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    # -- stores ------------------------------------------------------------------------------------
    async def create_store(self, store_id: str, *, embedder: str, dimension: int, data: JSON) -> None:
        now = int(time.time())
        await self._db.pool.execute(
            "INSERT INTO vector_stores (id, created_at, last_active_at, expires_at, embedder, dimension, data, "
            "project) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            store_id,
            now,
            now,
            _expires_at(data.get("expires_after"), now),
            embedder,
            dimension,
            orjson.dumps(data),
            owning_project(),
        )

    async def _read_store(self, c: Any, store_id: str) -> JSON | None:
        row = await c.fetchrow(
            f"SELECT {_STORE_COLUMNS} FROM vector_stores WHERE id = $1 AND ($2::text IS NULL OR project = $2)",
            store_id,
            current_project(),
        )
        if row is None:
            return None
        counts, usage = await _counts(c, store_id)
        return _store_object(tuple(row), counts, usage, int(time.time()))

    async def get_store(self, store_id: str) -> JSON | None:
        async with self._db.pool.acquire() as c:
            return await self._read_store(c, store_id)

    async def store_embedder(self, store_id: str) -> tuple[str, int] | None:
        row = await self._db.pool.fetchrow(
            "SELECT embedder, dimension FROM vector_stores WHERE id = $1 AND ($2::text IS NULL OR project = $2)",
            store_id,
            current_project(),
        )
        return None if row is None else (str(row[0]), int(row[1]))

    async def existing(self, store_ids: list[str]) -> set[str]:
        if not store_ids:
            return set()
        rows = await self._db.pool.fetch(
            "SELECT id FROM vector_stores WHERE id = ANY($1::text[]) AND ($2::text IS NULL OR project = $2)",
            store_ids,
            current_project(),
        )
        return {r[0] for r in rows}

    async def searchable(self, embedder: str, limit: int) -> list[str]:
        """Ids of the caller's unexpired stores built with `embedder`, newest first (the SQLite
        store's `searchable`: the MCP server's `search` over every store, #14)."""
        rows = await self._db.pool.fetch(
            "SELECT id FROM vector_stores WHERE embedder = $1 AND (expires_at IS NULL OR expires_at > $2) "
            "AND ($3::text IS NULL OR project = $3) ORDER BY seq DESC LIMIT $4",
            embedder,
            int(time.time()),
            current_project(),
            limit,
        )
        return [r[0] for r in rows]

    async def list_stores(self, *, limit: int, order: str, after: str | None, before: str | None) -> Page:
        req, b = PageRequest.of(limit, order, after, before), Binds("postgres")
        sql = f"SELECT {_STORE_COLUMNS} FROM vector_stores WHERE TRUE{b.project()}" + req.keyset(
            b, "vector_stores", "seq"
        )
        async with self._db.pool.acquire() as c:
            rows = await c.fetch(sql, *b.values)
            now = int(time.time())
            counted = {r[0]: await _counts(c, r[0]) for r in rows[:limit]}
        return req.page(rows, lambda r: _store_object(tuple(r), *counted[r[0]], now))

    async def update_store(self, store_id: str, changes: JSON) -> JSON | None:
        """Apply `name`/`metadata`/`expires_after` changes (a None value clears the field)."""
        if await hidden(self._db, "vector_stores", store_id):
            return None
        async with self._db.pool.acquire() as c, c.transaction():
            row = await c.fetchrow("SELECT data, last_active_at FROM vector_stores WHERE id = $1 FOR UPDATE", store_id)
            if row is None:
                return None
            data = {**orjson.loads(row[0]), **changes}
            await c.execute(
                "UPDATE vector_stores SET data = $1, expires_at = $2 WHERE id = $3",
                orjson.dumps(data),
                _expires_at(data.get("expires_after"), row[1]),
                store_id,
            )
            return await self._read_store(c, store_id)

    async def touch(self, store_ids: list[str]) -> None:
        """Mark stores active now (moves `expires_at` of stores that expire after inactivity)."""
        now = int(time.time())
        async with self._db.pool.acquire() as c:
            for sid in store_ids:
                data = await c.fetchval("SELECT data FROM vector_stores WHERE id = $1", sid)
                if data is not None:
                    expires = _expires_at(orjson.loads(data).get("expires_after"), now)
                    await c.execute(
                        "UPDATE vector_stores SET last_active_at = $1, expires_at = $2 WHERE id = $3", now, expires, sid
                    )

    async def delete_store(self, store_id: str) -> bool:
        async with self._db.pool.acquire() as c, c.transaction():
            gone = await c.fetchval(
                "DELETE FROM vector_stores WHERE id = $1 AND ($2::text IS NULL OR project = $2) RETURNING 1",
                store_id,
                current_project(),
            )
            if gone is None:
                return False
            await c.execute("DELETE FROM vector_store_files WHERE store_id = $1", store_id)
            await c.execute("DELETE FROM vector_store_file_batches WHERE store_id = $1", store_id)
            return True

    # -- files -------------------------------------------------------------------------------------
    async def add_files(self, store_id: str, entries: list[JSON], *, batch_id: str | None = None) -> bool:
        """Attach files as `in_progress`; a file already in the store is reset and ingested again."""
        if await hidden(self._db, "vector_stores", store_id):
            return False
        now = int(time.time())
        async with self._db.pool.acquire() as c, c.transaction():
            if await c.fetchval("SELECT 1 FROM vector_stores WHERE id = $1 FOR SHARE", store_id) is None:
                return False
            if batch_id is not None:
                await c.execute(
                    "INSERT INTO vector_store_file_batches (id, store_id, created_at) VALUES ($1, $2, $3)",
                    batch_id,
                    store_id,
                    now,
                )
            # delete + insert (not ON CONFLICT UPDATE): a re-added file moves to the end, as SQLite's
            # INSERT OR REPLACE gives it a new rowid
            await c.execute(
                "DELETE FROM vector_store_files WHERE store_id = $1 AND file_id = ANY($2::text[])",
                store_id,
                [e["file_id"] for e in entries],
            )
            await c.executemany(
                f"INSERT INTO vector_store_files ({_FILE_COLUMNS}) "
                "VALUES ($1, $2, $3, 'in_progress', $4, 0, NULL, $5, $6)",
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

    async def get_file(self, store_id: str, file_id: str) -> JSON | None:
        if await hidden(self._db, "vector_stores", store_id):
            return None
        row = await self._db.pool.fetchrow(
            f"SELECT {_FILE_COLUMNS} FROM vector_store_files WHERE store_id = $1 AND file_id = $2", store_id, file_id
        )
        return None if row is None else _file_object(tuple(row))

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
        if await hidden(self._db, "vector_stores", store_id):
            return Page()
        req = PageRequest.of(limit, order, after, before)
        sql, values = files_query("postgres", "seq", store_id, batch_id, status, req)
        return req.page(await self._db.pool.fetch(sql, *values), lambda r: _file_object(tuple(r)))

    async def finish_file(
        self, store_id: str, file_id: str, status: str, *, usage_bytes: int = 0, last_error: JSON | None = None
    ) -> bool:
        """Move an `in_progress` file to a final status; False if it is no longer in progress."""
        done = await self._db.pool.fetchval(
            "UPDATE vector_store_files SET status = $1, usage_bytes = $2, last_error = $3 "
            "WHERE store_id = $4 AND file_id = $5 AND status = 'in_progress' RETURNING 1",
            status,
            usage_bytes,
            orjson.dumps(last_error) if last_error else None,
            store_id,
            file_id,
        )
        return done is not None

    async def update_attributes(self, store_id: str, file_id: str, attributes: JSON) -> JSON | None:
        if await hidden(self._db, "vector_stores", store_id):
            return None
        row = await self._db.pool.fetchrow(
            "UPDATE vector_store_files SET attributes = $1 WHERE store_id = $2 AND file_id = $3 "
            f"RETURNING {_FILE_COLUMNS}",
            orjson.dumps(attributes),
            store_id,
            file_id,
        )
        return None if row is None else _file_object(tuple(row))

    async def delete_file(self, store_id: str, file_id: str) -> bool:
        if await hidden(self._db, "vector_stores", store_id):
            return False
        gone = await self._db.pool.fetchval(
            "DELETE FROM vector_store_files WHERE store_id = $1 AND file_id = $2 RETURNING 1", store_id, file_id
        )
        return gone is not None

    async def detach_everywhere(self, file_id: str) -> list[str]:
        """Remove a (deleted) file from every store; return those stores' ids."""
        rows = await self._db.pool.fetch(
            "DELETE FROM vector_store_files WHERE file_id = $1 RETURNING store_id", file_id
        )
        return [r[0] for r in rows]

    async def pending(self) -> list[tuple[str, str]]:
        """Every `in_progress` (store, file) pair in the order it was added: the ingestion backlog."""
        rows = await self._db.pool.fetch(
            "SELECT store_id, file_id FROM vector_store_files WHERE status = 'in_progress' ORDER BY seq"
        )
        return [(r[0], r[1]) for r in rows]

    # -- claims of the ingestion backlog ------------------------------------------------------------
    async def claim_files(self, owner: str, limit: int, lease: float) -> list[tuple[str, str]]:
        """Claim up to `limit` unheld (or expired) `in_progress` files, oldest first: `FOR UPDATE SKIP
        LOCKED`, so replicas claiming at once take different files without waiting on each other.
        Times are the database's clock, the one clock every replica shares."""
        rows = await self._db.pool.fetch(
            "UPDATE vector_store_files v "
            "SET claimed_by = $1, claim_until = extract(epoch FROM clock_timestamp()) + $3 "
            "FROM (SELECT store_id, file_id FROM vector_store_files WHERE status = 'in_progress' "
            "AND (claimed_by IS NULL OR claim_until < extract(epoch FROM clock_timestamp())) "
            "ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED) p "
            "WHERE v.store_id = p.store_id AND v.file_id = p.file_id RETURNING v.seq, v.store_id, v.file_id",
            owner,
            limit,
            lease,
        )
        return [(r[1], r[2]) for r in sorted(rows, key=lambda r: r[0])]

    async def renew_file_claims(self, owner: str, keys: list[tuple[str, str]], lease: float) -> None:
        """Extend `owner`'s claims on the files it is still working on (`keys`: (store id, file id))."""
        if not keys:
            return
        await self._db.pool.execute(
            "UPDATE vector_store_files v SET claim_until = extract(epoch FROM clock_timestamp()) + $2 "
            "FROM unnest($3::text[], $4::text[]) AS k(store_id, file_id) "
            "WHERE v.claimed_by = $1 AND v.store_id = k.store_id AND v.file_id = k.file_id",
            owner,
            lease,
            [k[0] for k in keys],
            [k[1] for k in keys],
        )

    async def release_file_claims(self, owner: str) -> None:
        await self._db.pool.execute(
            "UPDATE vector_store_files SET claimed_by = NULL, claim_until = NULL WHERE claimed_by = $1", owner
        )

    # -- batches -----------------------------------------------------------------------------------
    async def get_batch(self, store_id: str, batch_id: str) -> JSON | None:
        if await hidden(self._db, "vector_stores", store_id):
            return None
        async with self._db.pool.acquire() as c:
            row = await c.fetchrow(
                "SELECT id, created_at, cancelled FROM vector_store_file_batches WHERE id = $1 AND store_id = $2",
                batch_id,
                store_id,
            )
            if row is None:
                return None
            counts, _usage = await _counts(c, store_id, batch_id)
        return batch_object(tuple(row), store_id, counts)

    async def cancel_batch(self, store_id: str, batch_id: str) -> list[str] | None:
        """Cancel a batch's files that are still in progress; return their ids (None: no batch)."""
        if await hidden(self._db, "vector_stores", store_id):
            return None
        async with self._db.pool.acquire() as c, c.transaction():
            found = await c.fetchval(
                "UPDATE vector_store_file_batches SET cancelled = 1 WHERE id = $1 AND store_id = $2 RETURNING 1",
                batch_id,
                store_id,
            )
            if found is None:
                return None
            rows = await c.fetch(
                "UPDATE vector_store_files SET status = 'cancelled' "
                "WHERE store_id = $1 AND batch_id = $2 AND status = 'in_progress' RETURNING file_id",
                store_id,
                batch_id,
            )
            return [r[0] for r in rows]
