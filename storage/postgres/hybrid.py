"""PostgreSQL state, with a local SQLite file kept for what has no PostgreSQL store of its own.

Every `StateStore` method (responses, items, streams, cancels, leases, conversations) goes to
PostgreSQL, and `storage/families.py` hands out the PostgreSQL stores of prompts, connectors,
files, vector-store metadata and API keys for it: everything a client sees is shared by every
replica (the chunks are in pgvector). This class still IS a `SQLiteStore` (a local file in the data
dir, for callers that take the SQLite writer and reader) until those callers go through
`storage.families` only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from storage.postgres.state import PostgresStore
from storage.sqlite import SQLiteStore

# The StateStore methods that go to PostgreSQL (everything but open/close/ping, which do both).
DELEGATED = (
    "write_response",
    "get_response",
    "wait_for_change",
    "request_cancel",
    "take_cancel_requests",
    "get_response_events",
    "append_response_events",
    "response_events_after",
    "delete_response",
    "list_input_items",
    "list_responses",
    "response_history",
    "get_items",
    "renew_leases",
    "expire_leases",
    "create_conversation",
    "get_conversation",
    "update_conversation",
    "delete_conversation",
    "add_conversation_items",
    "list_conversation_items",
    "conversation_items",
    "get_conversation_item",
    "delete_conversation_item",
)


class PostgresStateStore(SQLiteStore):
    """`StateStore` on PostgreSQL; `writer`/`reader` of a local SQLite file for the other families."""

    def __init__(self, postgres: PostgresStore, local_sqlite: Path | str, *, lease_seconds: float = 10.0) -> None:
        super().__init__(local_sqlite, lease_seconds=lease_seconds)
        self.postgres = postgres
        for name in DELEGATED:
            setattr(self, name, getattr(postgres, name))

    async def open(self) -> None:
        await super().open()
        await self.postgres.open()

    async def close(self) -> None:
        await self.postgres.close()
        await super().close()

    async def ping(self) -> bool:
        return await self.postgres.ping() and await super().ping()

    def __getattr__(self, name: str) -> Any:  # attributes PostgresStore adds later (db, lease_seconds)
        return getattr(self.postgres, name)
