"""File metadata and bytes in PostgreSQL, so replicas share uploads and no disk.

`PostgresFileStore` has `storage.sqlite.files.SQLiteFileStore`'s methods and semantics (`seq` plays rowid for
list order; expired files are invisible at once). `PostgresBlobStore` is a `FileBlobStore` whose
bytes are `bytea` parts of 1 MiB in `file_blobs` (rows, not large objects: they are deleted with
plain SQL, dumped and replicated like everything else, and a part never holds a whole upload in
one value). A write is all or nothing: the parts go in one transaction, committed only when the
stream ended within `max_bytes`. The table appears on first use, like pgvector's chunk tables.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from storage.base import JSON, Page
from storage.blobs import BlobTooLarge
from storage.files import file_object
from storage.pages import Binds, PageRequest
from storage.postgres.db import Database
from storage.scope import current_project, owning_project

_COLUMNS = "id, created_at, expires_at, purpose, filename, bytes, content_type, blob"
PART_BYTES = 1 << 20


def _row(r: Any) -> JSON:
    return {**file_object(r), "content_type": r[6], "blob": r[7]}


class PostgresFileStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def insert(self, row: JSON) -> JSON:
        await self._db.pool.execute(
            f"INSERT INTO files ({_COLUMNS}, project) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            row["id"],
            int(row["created_at"]),
            None if row["expires_at"] is None else int(row["expires_at"]),
            row["purpose"],
            row["filename"],
            int(row["bytes"]),
            row.get("content_type"),
            row["blob"],
            owning_project(),
        )
        return row

    async def get(self, file_id: str) -> JSON | None:
        """The row as a dict (with `blob` and `content_type`), None when missing or expired."""
        r = await self._db.pool.fetchrow(
            f"SELECT {_COLUMNS} FROM files WHERE id = $1 AND (expires_at IS NULL OR expires_at > $2) "
            "AND ($3::text IS NULL OR project = $3)",
            file_id,
            int(time.time()),
            current_project(),
        )
        return None if r is None else _row(r)

    async def get_many(self, file_ids: list[str]) -> dict[str, JSON]:
        if not file_ids:
            return {}
        rows = await self._db.pool.fetch(
            f"SELECT {_COLUMNS} FROM files WHERE id = ANY($1::text[]) AND (expires_at IS NULL OR expires_at > $2) "
            "AND ($3::text IS NULL OR project = $3)",
            file_ids,
            int(time.time()),
            current_project(),
        )
        return {r[0]: _row(r) for r in rows}

    async def list_files(self, *, purpose: str | None, limit: int, order: str, after: str | None) -> Page:
        req, b = PageRequest.of(limit, order, after), Binds("postgres")
        where = b.project() + ("" if purpose is None else f" AND purpose = {b(purpose)}")
        sql = (
            f"SELECT {_COLUMNS} FROM files WHERE (expires_at IS NULL OR expires_at > {b(int(time.time()))}){where}"
            + req.keyset(b, "files", "seq")
        )
        return req.page(await self._db.pool.fetch(sql, *b.values), file_object)

    async def delete(self, file_id: str) -> str | None:
        """Delete the row; return its blob key (the caller removes the bytes), None if missing."""
        blob = await self._db.pool.fetchval(
            "DELETE FROM files WHERE id = $1 AND ($2::text IS NULL OR project = $2) RETURNING blob",
            file_id,
            current_project(),
        )
        return None if blob is None else str(blob)

    async def expired(self, now: int, limit: int = 100) -> list[str]:
        rows = await self._db.pool.fetch(
            "SELECT id FROM files WHERE expires_at IS NOT NULL AND expires_at <= $1 LIMIT $2", now, limit
        )
        return [r[0] for r in rows]


class PostgresBlobStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._ready = False

    async def _ensure(self) -> None:
        if not self._ready:
            await self._db.pool.execute(
                "CREATE TABLE IF NOT EXISTS file_blobs (key TEXT NOT NULL, part INTEGER NOT NULL, "
                "data BYTEA NOT NULL, PRIMARY KEY (key, part))"
            )
            self._ready = True

    async def write(self, key: str, chunks: AsyncIterator[bytes], *, max_bytes: int) -> int:
        await self._ensure()
        size = 0
        too_large = False
        buffered = bytearray()
        async with self._db.pool.acquire() as c:
            tx = c.transaction()
            await tx.start()
            try:
                await c.execute("DELETE FROM file_blobs WHERE key = $1", key)
                part = 0
                async for chunk in chunks:
                    size += len(chunk)
                    if too_large or size > max_bytes:
                        too_large = True  # keep draining the request body, keep nothing
                        continue
                    buffered += chunk
                    while len(buffered) >= PART_BYTES:
                        await c.execute(
                            "INSERT INTO file_blobs (key, part, data) VALUES ($1, $2, $3)",
                            key,
                            part,
                            bytes(buffered[:PART_BYTES]),
                        )
                        del buffered[:PART_BYTES]
                        part += 1
                if not too_large and (buffered or part == 0):
                    await c.execute(
                        "INSERT INTO file_blobs (key, part, data) VALUES ($1, $2, $3)", key, part, bytes(buffered)
                    )
            except BaseException:
                await tx.rollback()
                raise
            if too_large:
                await tx.rollback()
                raise BlobTooLarge(max_bytes)
            await tx.commit()
        return size

    async def read(self, key: str) -> bytes:
        return b"".join([chunk async for chunk in self.stream(key)])

    async def stream(self, key: str, chunk_size: int = 1 << 20) -> AsyncIterator[bytes]:
        """The parts one query each, so a large file is never in memory whole."""
        await self._ensure()
        part = 0
        while True:
            data = await self._db.pool.fetchval("SELECT data FROM file_blobs WHERE key = $1 AND part = $2", key, part)
            if data is None:
                if part == 0:
                    raise FileNotFoundError(key)
                return
            for i in range(0, len(data), chunk_size):
                yield bytes(data[i : i + chunk_size])
            part += 1

    async def delete(self, key: str) -> None:
        await self._ensure()
        await self._db.pool.execute("DELETE FROM file_blobs WHERE key = $1", key)
