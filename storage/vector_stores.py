"""Vector stores, their files and batches, whichever database holds them: the OpenAI objects of a
row and the file listing written once for both dialects (`storage/sqlite/vector_stores.py`,
`storage/postgres/vector_stores.py` implement the store).
"""

from __future__ import annotations

from typing import Any

import orjson

from storage.base import JSON
from storage.pages import Binds, Dialect, PageRequest

STATUSES = ("in_progress", "completed", "failed", "cancelled")
_FILE_COLUMNS = "store_id, file_id, created_at, status, batch_id, usage_bytes, last_error, attributes, chunking"


def _store_object(row: Any, counts: dict[str, int], usage: int, now: int) -> JSON:
    data = orjson.loads(row[5])
    status = "completed"
    if row[3] is not None and row[3] <= now:
        status = "expired"
    elif counts["in_progress"]:
        status = "in_progress"
    return {
        "id": row[0],
        "object": "vector_store",
        "created_at": row[1],
        "name": data.get("name") or "",
        "usage_bytes": usage,
        "file_counts": counts,
        "status": status,
        "expires_after": data.get("expires_after"),
        "expires_at": row[3],
        "last_active_at": row[2],
        "metadata": data.get("metadata") or {},
    }


def _file_object(row: Any) -> JSON:
    return {
        "id": row[1],
        "object": "vector_store.file",
        "usage_bytes": row[5],
        "created_at": row[2],
        "vector_store_id": row[0],
        "status": row[3],
        "last_error": orjson.loads(row[6]) if row[6] else None,
        "attributes": orjson.loads(row[7]),
        "chunking_strategy": orjson.loads(row[8]),
    }


def batch_object(row: Any, store_id: str, counts: dict[str, int]) -> JSON:
    """OpenAI's `vector_store.files_batch` from a batch row (id, created_at, cancelled) and its files' counts."""
    if row[2]:
        status = "cancelled"  # its in-progress files were cancelled in the same transaction
    elif counts["in_progress"]:
        status = "in_progress"
    elif counts["total"] and counts["failed"] == counts["total"]:
        status = "failed"
    else:
        status = "completed"
    return {
        "id": row[0],
        "object": "vector_store.files_batch",
        "created_at": row[1],
        "vector_store_id": store_id,
        "status": status,
        "file_counts": counts,
    }


def _expires_at(expires_after: JSON | None, last_active_at: int) -> int | None:
    return None if not expires_after else last_active_at + int(expires_after["days"]) * 86400


def files_query(
    dialect: Dialect, key: str, store_id: str, batch_id: str | None, status: str | None, req: PageRequest
) -> tuple[str, list[Any]]:
    """A page of a store's files (of one batch, in one status); cursors are file ids within the store."""
    b = Binds(dialect)
    s = b(store_id)
    where = "" if batch_id is None else f" AND batch_id = {b(batch_id)}"
    where += "" if status is None else f" AND status = {b(status)}"
    sql = f"SELECT {_FILE_COLUMNS} FROM vector_store_files WHERE store_id = {s}{where}"
    return sql + req.keyset(b, "vector_store_files", key, f"store_id = {s} AND file_id"), b.values
