"""The "store on both backends" helper: what `gateway/bootstrap.py` builds, on SQLite or PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gateway.bootstrap import build_deps
from gateway.config import Settings
from tests.pg import truncate


async def built_store(kind: str, tmp_path: Path, request: pytest.FixtureRequest, **settings: Any) -> Any:
    """The state store `gateway/bootstrap.py` builds for `kind` ("sqlite", or "postgres": the
    session's server named by `GATEWAY_DATABASE_URL`, emptied), opened. Every store suite runs on
    this, so it tests what production runs, not a class production never builds."""
    url = request.getfixturevalue("postgres_url") if kind == "postgres" else None
    if url is not None:
        settings.setdefault("database_pool_size", 4)
    deps, _ = build_deps(Settings(data_dir=tmp_path, database_url=url, **settings))
    await deps.store.open()
    if url is not None:
        await truncate(url)
    return deps.store
