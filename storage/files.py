"""Files' metadata, whichever database holds it: the columns and the OpenAI `File` object of a row
(`storage/sqlite/files.py`, `storage/postgres/files.py` implement the store)."""

from __future__ import annotations

from typing import Any

from storage.base import JSON

_COLUMNS = "id, created_at, expires_at, purpose, filename, bytes, content_type, blob"


def file_object(row: Any) -> JSON:
    """The OpenAI `File` object for a row."""
    return {
        "id": row[0],
        "object": "file",
        "bytes": row[5],
        "created_at": row[1],
        "expires_at": row[2],
        "filename": row[4],
        "purpose": row[3],
        "status": "processed",
        "status_details": None,
    }
