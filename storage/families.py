"""The prompt and connector stores that go with a state store: SQLite's or PostgreSQL's.

Callers outside `storage/` ask here instead of naming a backend's class, so a gateway on
`GATEWAY_DATABASE_URL` keeps prompts and connectors in PostgreSQL (shared by every replica) and one
on SQLite keeps them in its file. (Until the store bundle of `storage.base` replaces this.)
"""

from __future__ import annotations

from typing import Any

from storage.connectors import ConnectorStore
from storage.postgres.connectors import PostgresConnectorStore
from storage.postgres.hybrid import PostgresStateStore
from storage.postgres.prompts import PostgresPromptStore
from storage.prompts import PromptStore
from storage.sqlite import SQLiteStore

AnyPromptStore = PromptStore | PostgresPromptStore
AnyConnectorStore = ConnectorStore | PostgresConnectorStore


def prompt_store(state: Any) -> AnyPromptStore | None:
    if isinstance(state, PostgresStateStore):
        return PostgresPromptStore(state.postgres.db)
    return PromptStore(state) if isinstance(state, SQLiteStore) else None


def connector_store(state: Any) -> AnyConnectorStore | None:
    if isinstance(state, PostgresStateStore):
        return PostgresConnectorStore(state.postgres.db)
    return ConnectorStore(state) if isinstance(state, SQLiteStore) else None
