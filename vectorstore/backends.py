"""Choosing the vector backend from settings.

sqlite-vec is the default: it lives in the gateway's own SQLite file (no extra process, shared by
the HTTP server and the ExtProc through WAL). Milvus is for deployments that outgrow one machine;
its client is imported only when chosen, so the default path never loads pymilvus.
"""

from __future__ import annotations

from typing import Any

from vectorstore.base import VectorBackend


def build_vector_backend(settings: Any, sqlite_store: Any) -> VectorBackend:
    """The backend named by `settings.vector_backend` (not yet opened: the caller awaits `open()`)."""
    if settings.vector_backend == "milvus":
        from vectorstore.milvus import MilvusBackend

        uri = settings.milvus_uri or str(settings.data_dir / "milvus.db")
        return MilvusBackend(uri, settings.milvus_token)
    if settings.vector_backend == "sqlite-vec":
        from vectorstore.sqlite_vec import SqliteVecBackend

        return SqliteVecBackend(sqlite_store.path)
    raise ValueError(f"unknown vector backend {settings.vector_backend!r}")
