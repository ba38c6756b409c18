"""The composition root's builders: each part of a process's `Runtime` (`gateway.runtime`), built
from the settings without I/O (nothing is opened here; `Runtime.run` opens and closes them).

This is the one place outside `storage/` that names a store backend (`build_stores`); everything
else reads a family's store from the `storage.bundle.Stores` it builds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gateway.auth import limits
from gateway.auth.authenticator import Authenticator
from gateway.auth.keys import KeyStore
from gateway.common import redact
from gateway.config import Settings
from gateway.engine.deps import EngineDeps
from gateway.engine.models import ModelCatalog
from gateway.inference.base import Backend
from gateway.inference.chat_completions import ChatCompletionsBackend
from gateway.inference.client import BackendClient
from gateway.inference.fleet import FleetBackend
from gateway.inference.responses_api import ResponsesBackend
from gateway.research.service import ResearchService
from gateway.retrieval.core import Retrieval
from gateway.telemetry import metrics
from gateway.tools.builtin import register_builtin_tools
from gateway.tools.mcp.tool import session_pool
from gateway.usage import recorder as usage_recorder
from gateway.usage.metering import UsageMetrics
from gateway.usage.prices import Prices
from gateway.usage.recorder import Recorder
from storage.bundle import Stores
from storage.postgres import postgres_stores
from storage.sqlite import sqlite_stores

if TYPE_CHECKING:  # the bundle's family types exist for the type checker only
    from storage.bundle import UsageStores


def build_stores(settings: Settings) -> Stores:
    """Every store family of `settings` (not opened): all in PostgreSQL on `GATEWAY_DATABASE_URL`
    (shared by every replica), else all in the SQLite file of the data dir (files' bytes beside it).
    The conformance suites run on what this returns (tests/support/stores.py `built_stores`)."""
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


def hide_secrets(settings: Settings) -> None:
    """Keys and internal hosts of `settings` never reach a client (`gateway.common.redact`)."""
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


def build_backend(settings: Settings) -> tuple[BackendClient, Backend]:
    """The one backend client every inference call goes through, and the Responses turns' adapter."""
    http = BackendClient.from_settings(settings)
    backend: Backend
    if settings.backends:  # a fleet: turns routed by model to their pool's adapter (#27)
        backend = FleetBackend(http)
    elif settings.backend_api == "responses":
        backend = ResponsesBackend(http)
    else:
        backend = ChatCompletionsBackend(http)
    return http, backend


def build_deps(
    settings: Settings, stores: Stores | None = None, *, research: bool = False
) -> tuple[EngineDeps, BackendClient]:
    """The engine's dependencies (nothing opened), with the backend client they share; `research`:
    this process runs research (the HTTP server), so the engine gets a `ResearchService`."""
    hide_secrets(settings)
    http, backend = build_backend(settings)
    stores = build_stores(settings) if stores is None else stores
    models = ModelCatalog(backend, settings.models_refresh_seconds, settings.default_model)
    retrieval = Retrieval(settings, stores)  # builds its knowledge graph, with its embedder for relation phrases
    service = ResearchService(settings, http, models, retrieval, stores.research) if research else None
    deps = EngineDeps(
        settings=settings,
        stores=stores,
        backend=backend,
        models=models,
        retrieval=retrieval,
        mcp_sessions=session_pool(settings),
        research=service,
    )
    register_builtin_tools(deps)
    return deps, http


@dataclass
class Usage:
    """Usage, limits and budgets of one process (#30): the ledger (the bundle's database), the
    shared limits, the recorder writing the ledger off the request path, the prices."""

    ledger: UsageStores
    prices: Prices
    limits: limits.Limits
    recorder: Recorder

    def install(self) -> None:
        """Make these the process's limits and recorder (the call sites' `usage.record`)."""
        limits.LIMITS = self.limits
        usage_recorder.configure(self.recorder)

    async def stop(self) -> None:
        """Write the ledger's queue, give back leases of quota."""
        await self.recorder.stop()
        await self.limits.shared.stop()


def build_usage(settings: Settings, stores: Stores) -> Usage:
    ledger = stores.usage
    prices = Prices(settings.model_prices)
    shared = limits.Limits(
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
    return Usage(ledger, prices, shared, recorder)


def build_auth(settings: Settings, stores: Stores) -> tuple[Authenticator, KeyStore]:
    """The authenticator every door shares and the key store it reads (the bundle's database)."""
    return Authenticator(settings, stores.keys), stores.keys
