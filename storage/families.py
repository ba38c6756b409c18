"""The prompt, connector and file stores that go with a state store: SQLite's or PostgreSQL's.

Callers outside `storage/` ask here instead of naming a backend's class, so a gateway on
`GATEWAY_DATABASE_URL` keeps prompts, connectors and files (metadata and bytes) in PostgreSQL,
shared by every replica, and one on SQLite keeps them in its file and data dir. (Until the store
bundle of `storage.base` replaces this.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from storage.api_keys import SQLiteKeyStore
from storage.blobs import FileBlobStore, FilesystemBlobStore
from storage.connectors import ConnectorStore
from storage.files import FileStore
from storage.graph import SQLiteGraphStore
from storage.postgres.api_keys import PostgresKeyStore
from storage.postgres.connectors import PostgresConnectorStore
from storage.postgres.files import PostgresBlobStore, PostgresFileStore
from storage.postgres.graph import PostgresGraphStore
from storage.postgres.hybrid import PostgresStateStore
from storage.postgres.prompts import PostgresPromptStore
from storage.postgres.research import PostgresResearchQueue
from storage.postgres.usage import PostgresUsageStore
from storage.postgres.vector_stores import PostgresVectorStoreStore
from storage.prompts import PromptStore
from storage.research import SQLiteResearchQueue
from storage.sqlite import SQLiteStore
from storage.usage import SQLiteUsageStore
from storage.vector_stores import VectorStoreStore

AnyPromptStore = PromptStore | PostgresPromptStore
AnyConnectorStore = ConnectorStore | PostgresConnectorStore
AnyFileStore = FileStore | PostgresFileStore
AnyVectorStoreStore = VectorStoreStore | PostgresVectorStoreStore
ResearchQueue = SQLiteResearchQueue | PostgresResearchQueue
UsageStore = SQLiteUsageStore | PostgresUsageStore


def prompt_store(state: Any) -> AnyPromptStore | None:
    if isinstance(state, PostgresStateStore):
        return PostgresPromptStore(state.postgres.db)
    return PromptStore(state) if isinstance(state, SQLiteStore) else None


def connector_store(state: Any) -> AnyConnectorStore | None:
    if isinstance(state, PostgresStateStore):
        return PostgresConnectorStore(state.postgres.db)
    return ConnectorStore(state) if isinstance(state, SQLiteStore) else None


def file_stores(state: Any, blob_dir: Path) -> tuple[AnyFileStore, FileBlobStore]:
    """File metadata and bytes: in PostgreSQL (shared by replicas) or SQLite + `blob_dir`."""
    if isinstance(state, PostgresStateStore):
        return PostgresFileStore(state.postgres.db), PostgresBlobStore(state.postgres.db)
    return FileStore(state.writer, state.reader), FilesystemBlobStore(blob_dir)


def key_store(state: Any) -> SQLiteKeyStore | PostgresKeyStore:
    """API keys: in PostgreSQL when state is (every replica sees a revocation), else in the SQLite file."""
    if isinstance(state, PostgresStateStore):
        return PostgresKeyStore(state.postgres.db)
    return SQLiteKeyStore(state)


def vector_store_store(state: Any) -> AnyVectorStoreStore:
    """Vector stores, their files and batches: in PostgreSQL (every replica sees them) or SQLite."""
    if isinstance(state, PostgresStateStore):
        return PostgresVectorStoreStore(state.postgres.db)
    return VectorStoreStore(state.writer, state.reader)


def graph_store(state: Any) -> SQLiteGraphStore | PostgresGraphStore:
    """The knowledge graph (#12): in PostgreSQL beside the vector stores it hangs off (every replica
    sees the same graph), or in the SQLite file."""
    if isinstance(state, PostgresStateStore):
        return PostgresGraphStore(state.postgres.db)
    return SQLiteGraphStore(state.writer, state.reader)


def research_queue(state: Any) -> ResearchQueue:
    """Research slots: in PostgreSQL (the limits hold across replicas) or in the SQLite file."""
    if isinstance(state, PostgresStateStore):
        return PostgresResearchQueue(state.postgres.db)
    return SQLiteResearchQueue(state)


def usage_store(state: Any) -> UsageStore:
    """The usage ledger and the shared rate windows (#30): in PostgreSQL (every replica adds to and
    leases from the same rows) or in the SQLite file (every process of this host)."""
    if isinstance(state, PostgresStateStore):
        return PostgresUsageStore(state.postgres.db)
    return SQLiteUsageStore(state)
