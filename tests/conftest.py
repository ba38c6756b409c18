"""Shared fixtures: one scripted backend and one gateway per session, reached through the real SDK."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from openai import OpenAI

from tests.procs import Backend, Gateway, gateway, scripted_backend


@pytest.fixture(scope="session")
def backend() -> Iterator[Backend]:
    with scripted_backend() as b:
        yield b


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gateway-data")


@pytest.fixture(scope="session")
def http_gateway(backend: Backend, data_dir: Path) -> Iterator[Gateway]:
    with gateway(backend.url, data_dir) as gw:
        yield gw


@pytest.fixture(scope="session")
def door(http_gateway: Gateway) -> str:
    """The base URL a client uses (the HTTP server; the Envoy suite overrides this)."""
    return http_gateway.url


@pytest.fixture(scope="session")
def door_kind() -> str:
    return "http"


@pytest.fixture
def client(door: str) -> OpenAI:
    return OpenAI(base_url=door, api_key="test-key", max_retries=0, timeout=30)


@pytest.fixture
def marker() -> str:
    """A unique string a test puts in its input so the scripted backend can match its requests."""
    return f"mk-{uuid.uuid4().hex[:12]}"
