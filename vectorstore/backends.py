"""Choosing the vector backend from settings.

sqlite-vec is the default: it lives in the gateway's own SQLite file (no extra process, shared by
the HTTP server and the ExtProc through WAL). Milvus is for deployments that outgrow one machine;
its client is imported only when chosen, so the default path never loads pymilvus. pgvector keeps
the chunks in the PostgreSQL database of `GATEWAY_DATABASE_URL` (the default when that is set).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vectorstore.base import VectorBackend


def build_vector_backend(settings: Any, sqlite_file: Path, *, checkpoint: bool = False) -> VectorBackend:
    """The backend named by `settings.vector_backend` (not yet opened: the caller awaits `open()`).
    `sqlite_file` is where sqlite-vec keeps its chunks; `checkpoint` when no SQLite state store owns
    that file (state in PostgreSQL: `storage.bundle.Stores.local_sqlite_unmanaged`)."""
    if settings.vector_backend == "milvus":
        from vectorstore.milvus import MilvusBackend

        uri = settings.milvus_uri or str(settings.data_dir / "milvus.db")
        return MilvusBackend(uri, settings.milvus_token)
    database_url = getattr(settings, "database_url", None)
    chosen = "vector_backend" in getattr(settings, "model_fields_set", ())
    if settings.vector_backend == "pgvector" or (database_url and not chosen):
        # pgvector is the default when the state is in PostgreSQL (replicas then share the chunks)
        from vectorstore.pgvector import PgvectorBackend

        if not database_url:
            raise ValueError("GATEWAY_VECTOR_BACKEND=pgvector needs GATEWAY_DATABASE_URL")
        return PgvectorBackend(database_url)
    if settings.vector_backend == "sqlite-vec":
        from vectorstore.sqlite_vec import SqliteVecBackend

        return SqliteVecBackend(sqlite_file, checkpoint=checkpoint)
    raise ValueError(f"unknown vector backend {settings.vector_backend!r}")
