"""The composition root: builds the engine's dependencies (store, backend, models, tools).

Both front doors (the aiohttp server in `gateway.http` and the Envoy ExtProc in `extproc`) start
from here, so neither imports the other. This is the one place outside `storage/` that names a
concrete store class; everything else sees the store protocols of `storage.base`.
"""

from __future__ import annotations

from gateway import redact
from gateway.auth import limits
from gateway.auth.authenticator import Authenticator
from gateway.auth.keys import KeyStore
from gateway.backends.base import Backend
from gateway.backends.chat_completions import ChatCompletionsBackend
from gateway.backends.client import BackendClient
from gateway.backends.fleet import FleetBackend
from gateway.backends.responses_api import ResponsesBackend
from gateway.config import Settings
from gateway.engine.context import EngineDeps
from gateway.engine.models import ModelCatalog
from gateway.tools.builtin import register_builtin_tools
from storage import families
from storage.base import StateStore
from storage.postgres import PostgresStore
from storage.postgres.hybrid import PostgresStateStore
from storage.sqlite import SQLiteStore


def build_deps(settings: Settings) -> tuple[EngineDeps, BackendClient]:
    """The engine's dependencies, shared by both front doors; the store is not opened yet."""
    pools = settings.pools
    redact.register(
        [
            settings.backend_api_key,
            settings.embedding_api_key,
            settings.web_search_api_key,
            settings.milvus_token,
            settings.admin_key,
            *(pool.api_key for pool in pools),
        ]
    )
    upstreams = [url for pool in pools for url in pool.urls] + [f"http://{p.dns}" for p in pools if p.dns]
    redact.register_hosts([settings.backend_base, settings.embedding_url, *upstreams])  # hidden from clients, not logs
    http = BackendClient.from_settings(settings)
    backend: Backend
    if settings.backends:  # a fleet: turns routed by model to their pool's adapter (#27)
        backend = FleetBackend(http)
    elif settings.backend_api == "responses":
        backend = ResponsesBackend(http)
    else:
        backend = ChatCompletionsBackend(http)
    store: StateStore
    if settings.database_url:  # many replicas: state in PostgreSQL
        postgres = PostgresStore(
            settings.database_url, pool_size=settings.database_pool_size, lease_seconds=settings.run_lease_seconds
        )
        # files, vector stores, prompts, connectors: still in this replica's SQLite file (storage.postgres.hybrid)
        store = PostgresStateStore(postgres, settings.db_path, lease_seconds=settings.run_lease_seconds)
    else:
        store = SQLiteStore(settings.db_path, lease_seconds=settings.run_lease_seconds)
    models = ModelCatalog(backend, settings.models_refresh_seconds, settings.default_model)
    deps = EngineDeps(settings=settings, store=store, backend=backend, models=models)
    register_builtin_tools(deps)
    return deps, http


def build_auth(settings: Settings, store: StateStore) -> tuple[Authenticator, KeyStore]:
    """The authenticator both doors share and the key store it reads (the state store's database)."""
    limits.configure(settings.project_limits)
    keys = families.key_store(store)  # type: ignore[arg-type]
    return Authenticator(settings, keys), keys
