"""The "store on both backends" helper: the bundle `gateway.bootstrap.build_stores` builds, on
SQLite or PostgreSQL. Every store family's suite runs on it (the `stores` and `state` fixtures of
tests/conftest.py), so the suites test what production runs, not a class production never builds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gateway.bootstrap import build_stores
from gateway.config import Settings
from storage.bundle import Stores
from tests.support.pg import truncate


async def built_stores(kind: str, tmp_path: Path, request: pytest.FixtureRequest, **settings: Any) -> Stores:
    """The bundle `build_stores` returns for `kind` ("sqlite", or "postgres": the session's server
    named by `postgres_url`, emptied), opened; the caller closes it."""
    url = request.getfixturevalue("postgres_url") if kind == "postgres" else None
    if url is not None:
        settings.setdefault("database_pool_size", 4)
    stores = build_stores(Settings(data_dir=tmp_path, database_url=url, **settings))
    await stores.open()
    if url is not None:
        await truncate(url)
    return stores


async def built_store(kind: str, tmp_path: Path, request: pytest.FixtureRequest, **settings: Any) -> Any:
    """The state store of `built_stores` (closing it closes the bundle: the families hold nothing of
    their own)."""
    return (await built_stores(kind, tmp_path, request, **settings)).state
