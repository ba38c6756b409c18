"""SQLite stores: every family in one file shared by the processes of one host (WAL).

`sqlite_stores` builds the bundle: the state store owns the process's writer and reader
connections, and every other family's store runs its statements on them.
"""

from __future__ import annotations

from pathlib import Path

from storage.blobs import FilesystemBlobStore
from storage.bundle import Stores
from storage.sqlite.api_keys import SQLiteKeyStore
from storage.sqlite.connectors import SQLiteConnectorStore
from storage.sqlite.files import SQLiteFileStore
from storage.sqlite.graph import SQLiteGraphStore
from storage.sqlite.prompts import SQLitePromptStore
from storage.sqlite.research import SQLiteResearchQueue
from storage.sqlite.state import SQLiteStore
from storage.sqlite.usage import SQLiteUsageStore
from storage.sqlite.vector_stores import SQLiteVectorStoreStore

__all__ = ["SQLiteStore", "sqlite_stores"]


def sqlite_stores(path: Path | str, *, blob_dir: Path | str, lease_seconds: float = 10.0) -> Stores:
    """Every family in the SQLite file `path`, the files' bytes under `blob_dir` (not opened)."""
    state = SQLiteStore(path, lease_seconds=lease_seconds)
    return Stores(
        state=state,
        files=SQLiteFileStore(state.writer, state.reader),
        blobs=FilesystemBlobStore(Path(blob_dir)),
        vector_stores=SQLiteVectorStoreStore(state.writer, state.reader),
        prompts=SQLitePromptStore(state),
        connectors=SQLiteConnectorStore(state),
        keys=SQLiteKeyStore(state),
        graph=SQLiteGraphStore(state.writer, state.reader),
        research=SQLiteResearchQueue(state),
        usage=SQLiteUsageStore(state),
        local_sqlite=state.path,
    )
