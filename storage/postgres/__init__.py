"""PostgreSQL stores: every family in one database shared by every replica.

`postgres_stores` builds the bundle: the state store owns the process's `Database` (pool and
listening connection), and every other family's store runs its statements on it. Nothing a client
sees stays on the replica's disk; `local_sqlite` is only where an explicitly chosen
`GATEWAY_VECTOR_BACKEND=sqlite-vec` keeps its chunks (the default on PostgreSQL is pgvector).
"""

from __future__ import annotations

from pathlib import Path

from storage.bundle import Stores
from storage.postgres.api_keys import PostgresKeyStore
from storage.postgres.connectors import PostgresConnectorStore
from storage.postgres.db import Database
from storage.postgres.files import PostgresBlobStore, PostgresFileStore
from storage.postgres.graph import PostgresGraphStore
from storage.postgres.prompts import PostgresPromptStore
from storage.postgres.research import PostgresResearchQueue
from storage.postgres.state import PostgresStore
from storage.postgres.usage import PostgresUsageStore
from storage.postgres.vector_stores import PostgresVectorStoreStore

__all__ = ["Database", "PostgresStore", "postgres_stores"]


def postgres_stores(url: str, *, local_sqlite: Path | str, pool_size: int = 10, lease_seconds: float = 10.0) -> Stores:
    """Every family in the PostgreSQL database at `url` (not opened)."""
    state = PostgresStore(url, pool_size=pool_size, lease_seconds=lease_seconds)
    db = state.db
    return Stores(
        state=state,
        files=PostgresFileStore(db),
        blobs=PostgresBlobStore(db),
        vector_stores=PostgresVectorStoreStore(db),
        prompts=PostgresPromptStore(db),
        connectors=PostgresConnectorStore(db),
        keys=PostgresKeyStore(db),
        graph=PostgresGraphStore(db),
        research=PostgresResearchQueue(db),
        usage=PostgresUsageStore(db),
        local_sqlite=Path(local_sqlite),
        local_sqlite_unmanaged=True,  # no SQLite state store here: a sqlite-vec backend checkpoints it
    )
