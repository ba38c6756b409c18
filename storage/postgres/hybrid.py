"""The state store `gateway/bootstrap.py` builds for `GATEWAY_DATABASE_URL`: PostgreSQL, whole.

It IS a `PostgresStore`: every `StateStore` method is PostgreSQL's by inheritance, so a method
added to the protocol later cannot be left behind (an earlier version inherited `SQLiteStore` and
copied a hand-kept list of methods onto itself; the two added after the list, `requeue_response`
and `claim_requeued`, ran against a local SQLite file and background runs failed at shutdown
instead of being handed back). `storage/families.py` hands out the PostgreSQL store of every other
family for it (prompts, connectors, files, vector-store metadata, API keys, graph, research), so
everything a client sees is shared by every replica.

What is left of the replica's own disk is `path`: the SQLite file an explicitly chosen
`GATEWAY_VECTOR_BACKEND=sqlite-vec` keeps its chunks in (the default on PostgreSQL is pgvector).
No state store owns that file here, so that backend runs its own WAL checkpoints
(`sqlite_file_unmanaged`).
"""

from __future__ import annotations

from pathlib import Path

from storage.postgres.db import Database
from storage.postgres.state import PostgresStore


class PostgresStateStore(PostgresStore):
    """`StateStore` on PostgreSQL, plus the path of the replica's local SQLite file (vectors only)."""

    sqlite_file_unmanaged = True  # no SQLite writer here: a sqlite-vec backend checkpoints `path` itself

    def __init__(
        self,
        postgres: PostgresStore | Database | str,
        local_sqlite: Path | str,
        *,
        pool_size: int = 10,
        lease_seconds: float = 10.0,
    ) -> None:
        db = postgres.db if isinstance(postgres, PostgresStore) else postgres
        super().__init__(db, pool_size=pool_size, lease_seconds=lease_seconds)
        self.path = Path(local_sqlite)

    @property
    def postgres(self) -> PostgresStore:
        """Itself (callers written for the two-part store read `state.postgres.db`)."""
        return self
