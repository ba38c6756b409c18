"""`Stores`: one store of every family, all on one database (SQLite's file or PostgreSQL).

The composition root (`gateway.bootstrap.build_stores`) builds one per process with
`storage.sqlite.sqlite_stores` or `storage.postgres.postgres_stores`, and everything else reads a
family's store from its field: nobody outside `storage/` picks a backend's class, and no family can
be left on the other database (the half-SQLite PostgreSQL state store of before #25 kept two
families' methods in the replica's local file). The conformance suites run on the bundles
`build_stores` returns, on both backends (`tests/support/stores.py`).

The family stores are stateless over the state store's connections (SQLite's writer and reader,
PostgreSQL's pool): opening the bundle opens the state store first (connect, migrate) and closing
it closes the state store last.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from storage.base import StateStore
from storage.blobs import FileBlobStore
from storage.graph import GraphStore

if TYPE_CHECKING:  # the two implementations of each family, for the type checker only
    from storage.postgres.api_keys import PostgresKeyStore
    from storage.postgres.connectors import PostgresConnectorStore
    from storage.postgres.files import PostgresFileStore
    from storage.postgres.prompts import PostgresPromptStore
    from storage.postgres.research import PostgresResearchQueue
    from storage.postgres.usage import PostgresUsageStore
    from storage.postgres.vector_stores import PostgresVectorStoreStore
    from storage.sqlite.api_keys import SQLiteKeyStore
    from storage.sqlite.connectors import SQLiteConnectorStore
    from storage.sqlite.files import SQLiteFileStore
    from storage.sqlite.prompts import SQLitePromptStore
    from storage.sqlite.research import SQLiteResearchQueue
    from storage.sqlite.usage import SQLiteUsageStore
    from storage.sqlite.vector_stores import SQLiteVectorStoreStore

    FileStores: TypeAlias = SQLiteFileStore | PostgresFileStore
    VectorStoreStores: TypeAlias = SQLiteVectorStoreStore | PostgresVectorStoreStore
    PromptStores: TypeAlias = SQLitePromptStore | PostgresPromptStore
    ConnectorStores: TypeAlias = SQLiteConnectorStore | PostgresConnectorStore
    KeyStores: TypeAlias = SQLiteKeyStore | PostgresKeyStore
    ResearchQueues: TypeAlias = SQLiteResearchQueue | PostgresResearchQueue
    UsageStores: TypeAlias = SQLiteUsageStore | PostgresUsageStore


@dataclass
class Stores:
    """Every store family of one process, on one database."""

    state: StateStore  # responses, items, conversations, background runs
    files: FileStores  # the Files API's metadata
    blobs: FileBlobStore  # the files' bytes (a data dir beside SQLite; rows in PostgreSQL)
    vector_stores: VectorStoreStores  # vector stores, their files and batches (not the chunks)
    prompts: PromptStores
    connectors: ConnectorStores  # MCP connectors
    keys: KeyStores  # API keys
    graph: GraphStore  # the knowledge graph of each vector store
    research: ResearchQueues  # deep research's slots
    usage: UsageStores  # the usage ledger and the shared rate windows
    # The SQLite file on this host that a sqlite-vec vector backend keeps its chunks in (the state's
    # own file on SQLite; on PostgreSQL used only when sqlite-vec is chosen explicitly), and whether
    # that backend must checkpoint it itself (True when no SQLite state store owns the file).
    local_sqlite: Path
    local_sqlite_unmanaged: bool = False

    async def open(self) -> None:
        """Connect and migrate (the state store holds the connections every family uses)."""
        await self.state.open()

    async def close(self) -> None:
        await self.state.close()
