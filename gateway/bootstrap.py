"""The composition root: builds the engine's dependencies (store, backend, models, tools).

Both front doors (the aiohttp server in `gateway.http` and the Envoy ExtProc in `extproc`) start
from here, so neither imports the other. This is the one place outside `storage/` that names a
concrete store class; everything else sees the store protocols of `storage.base`.
"""

from __future__ import annotations

from gateway import metrics, redact
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
from gateway.usage.metering import UsageMetrics
from gateway.usage.prices import Prices
from gateway.usage.recorder import Recorder
from gateway.usage.recorder import configure as configure_recorder
from storage import families
from storage.base import StateStore
from storage.postgres.hybrid import PostgresStateStore
from storage.sqlite import SQLiteStore


def build_state_store(settings: Settings) -> StateStore:
    """The state store of `settings` (not opened): PostgreSQL's on `GATEWAY_DATABASE_URL` (the
    other families follow it through `storage.families`), else the SQLite file in the data dir.
    The conformance suites run on what this returns (tests/conftest.py `built_store`)."""
    if settings.database_url:  # many replicas: state in PostgreSQL
        return PostgresStateStore(
            settings.database_url,
            settings.db_path,  # only an explicitly chosen sqlite-vec backend uses it
            pool_size=settings.database_pool_size,
            lease_seconds=settings.run_lease_seconds,
        )
    return SQLiteStore(settings.db_path, lease_seconds=settings.run_lease_seconds)


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
            settings.compaction_key,
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
    store = build_state_store(settings)
    models = ModelCatalog(backend, settings.models_refresh_seconds, settings.default_model)
    deps = EngineDeps(settings=settings, store=store, backend=backend, models=models)
    register_builtin_tools(deps)
    return deps, http


def build_auth(settings: Settings, store: StateStore) -> tuple[Authenticator, KeyStore]:
    """The authenticator both doors share and the key store it reads (the state store's database);
    with them the shared limits, budgets and usage ledger on the same database (#30)."""
    ledger = families.usage_store(store)
    prices = Prices(settings.model_prices)
    shared = limits.configure(
        settings.project_limits,
        ledger,
        prices=prices,
        spend=ledger,
        warn_ratio=settings.budget_warn_ratio,
        reserve_output=settings.reserve_output_tokens,
    )
    recorder = Recorder(
        ledger,
        door="envoy" if metrics.door() == "extproc" else "http",  # the ledger names the client's door
        replica=settings.replica_name,
        flush_seconds=settings.usage_flush_seconds,
        retention_days=settings.usage_retention_days,
    )
    counted = UsageMetrics(prices)
    recorder.listeners.extend([shared.charge, counted.add])
    recorder.on_flush.append(counted.flush)
    configure_recorder(recorder)
    keys = families.key_store(store)  # type: ignore[arg-type]
    return Authenticator(settings, keys), keys
