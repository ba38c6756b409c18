"""API keys, whichever database holds them: the record authentication reads and the admin API's
view of a row (`storage/sqlite/api_keys.py`, `storage/postgres/api_keys.py` implement the store)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from storage.base import JSON

_COLUMNS = "id, project, name, prefix, created_at, expires_at, revoked_at, last_used_at, limits"


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """What authentication needs of a key: whose it is and whether it still works."""

    id: str
    project: str
    expires_at: int | None
    revoked_at: int | None
    limits: str | None = None  # JSON: the key's own requests/tokens per minute (migration 0020)


def key_object(row: Any) -> JSON:
    """The admin API's view of a key (never its secret or hash)."""
    return {
        "object": "organization.project.api_key",
        "id": row[0],
        "project_id": row[1],
        "name": row[2],
        "redacted_value": row[3] + "...",
        "created_at": row[4],
        "expires_at": row[5],
        "revoked_at": row[6],
        "last_used_at": row[7],
        **({"limits": json.loads(row[8])} if len(row) > 8 and row[8] else {}),
    }
