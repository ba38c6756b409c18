"""The composition root: builds the engine's dependencies (store, backend, models, tools).

Both front doors (the aiohttp server in `gateway.http` and the Envoy ExtProc in `extproc`) start
from here, so neither imports the other. This is the one place outside `storage/` that names a
store backend (`build_stores`); everything else reads a family's store from the `storage.bundle.Stores`
it builds.
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
from storage.bundle import Stores
from storage.postgres import postgres_stores
from storage.sqlite import sqlite_stores


def build_stores(settings: Settings) -> Stores:
    """Every store family of `settings` (not opened): all in PostgreSQL on `GATEWAY_DATABASE_URL`
    (shared by every replica), else all in the SQLite file of the data dir (files' bytes beside it).
    The conformance suites run on what this returns (tests/stores.py `built_stores`)."""
    if settings.database_url:  # many replicas: everything in PostgreSQL
        return postgres_stores(
            settings.database_url,
            local_sqlite=settings.db_path,  # only an explicitly chosen sqlite-vec backend uses it
            pool_size=settings.database_pool_size,
            lease_seconds=settings.run_lease_seconds,
        )
    return sqlite_stores(
        settings.db_path, blob_dir=settings.data_dir / "files", lease_seconds=settings.run_lease_seconds
    )


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
    stores = build_stores(settings)
    models = ModelCatalog(backend, settings.models_refresh_seconds, settings.default_model)
    deps = EngineDeps(settings=settings, stores=stores, backend=backend, models=models)
    register_builtin_tools(deps)
    return deps, http


def build_auth(settings: Settings, stores: Stores) -> tuple[Authenticator, KeyStore]:
    """The authenticator both doors share and the key store it reads (the bundle's database);
    with them the shared limits, budgets and usage ledger on the same database (#30)."""
    ledger = stores.usage
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
    return Authenticator(settings, stores.keys), stores.keys
