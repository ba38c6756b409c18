"""File metadata in SQLite, on the process's shared connections.

The bytes are in a `FileBlobStore`; a row here is what the Files API lists. Expired files are
invisible at once (every read filters on `expires_at`) and swept later, off the request path.
"""

from __future__ import annotations

import time
from typing import Any

from storage.base import JSON, Page
from storage.files import (
    _COLUMNS,
    file_object,
)
from storage.pages import Binds, PageRequest
from storage.scope import filter_sql, owning_project
from storage.sqlite.conn import ThreadConnection, WriterConnection


class SQLiteFileStore:
    def __init__(self, writer: WriterConnection, reader: ThreadConnection) -> None:
        self._writer = writer
        self._reader = reader

    async def insert(self, row: JSON) -> JSON:
        project = owning_project()

        def write(c: Any) -> None:
            c.execute(
                f"INSERT INTO files ({_COLUMNS}, project) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row["id"],
                    row["created_at"],
                    row["expires_at"],
                    row["purpose"],
                    row["filename"],
                    row["bytes"],
                    row.get("content_type"),
                    row["blob"],
                    project,
                ),
            )

        await self._writer.transact(write)
        return row

    async def get(self, file_id: str) -> JSON | None:
        """The row as a dict (with `blob` and `content_type`), None when missing or expired."""
        where, params = filter_sql()

        def read(c: Any) -> Any:
            return c.execute(
                f"SELECT {_COLUMNS} FROM files WHERE id = ? AND (expires_at IS NULL OR expires_at > ?){where}",
                (file_id, int(time.time()), *params),
            ).fetchone()

        row = await self._reader.run(read)
        if row is None:
            return None
        return {**file_object(row), "content_type": row[6], "blob": row[7]}

    async def get_many(self, file_ids: list[str]) -> dict[str, JSON]:
        where, params = filter_sql()

        def read(c: Any) -> list[Any]:
            marks = ",".join("?" * len(file_ids))
            return list(
                c.execute(
                    f"SELECT {_COLUMNS} FROM files WHERE id IN ({marks}) AND (expires_at IS NULL OR expires_at > ?)"
                    + where,
                    (*file_ids, int(time.time()), *params),
                )
            )

        if not file_ids:
            return {}
        return {r[0]: {**file_object(r), "content_type": r[6], "blob": r[7]} for r in await self._reader.run(read)}

    async def list_files(self, *, purpose: str | None, limit: int, order: str, after: str | None) -> Page:
        req, b = PageRequest.of(limit, order, after), Binds("sqlite")
        where = b.project() + ("" if purpose is None else f" AND purpose = {b(purpose)}")
        sql = (
            f"SELECT {_COLUMNS} FROM files WHERE (expires_at IS NULL OR expires_at > {b(int(time.time()))}){where}"
            + req.keyset(b, "files", "rowid")
        )
        return req.page(await self._reader.run(lambda c: c.execute(sql, b.values).fetchall()), file_object)

    async def delete(self, file_id: str) -> str | None:
        """Delete the row; return its blob key (the caller removes the bytes), None if missing."""

        where, params = filter_sql()

        def write(c: Any) -> str | None:
            row = c.execute(f"SELECT blob FROM files WHERE id = ?{where}", (file_id, *params)).fetchone()
            if row is None:
                return None
            c.execute("DELETE FROM files WHERE id = ?", (file_id,))
            return str(row[0])

        return await self._writer.transact(write)

    async def expired(self, now: int, limit: int = 100) -> list[str]:
        def read(c: Any) -> list[str]:
            rows = c.execute(
                "SELECT id FROM files WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT ?", (now, limit)
            )
            return [r[0] for r in rows]

        return await self._reader.run(read)
