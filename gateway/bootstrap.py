"""The composition root's builders: each part of a process's `Runtime` (`gateway.runtime`), built
from the settings without I/O (nothing is opened here; `Runtime.run` opens and closes them).

This is the one place outside `storage/` that names a concrete store class; everything else sees
the store protocols of `storage.base`.
"""

from __future__ import annotations

from dataclasses import dataclass

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
from gateway.engine.deps import EngineDeps
from gateway.engine.models import ModelCatalog
from gateway.knowledge.service import Knowledge
from gateway.mcp.tool import session_pool
from gateway.research.service import ResearchService
from gateway.retrieval.core import Retrieval
from gateway.tools.builtin import register_builtin_tools
from gateway.usage import recorder as usage_recorder
from gateway.usage.metering import UsageMetrics
from gateway.usage.prices import Prices
from gateway.usage.recorder import Recorder
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


def hide_secrets(settings: Settings) -> None:
    """Keys and internal hosts of `settings` never reach a client (`gateway.redact`)."""
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
    settings: Settings, store: StateStore | None = None, *, research: bool = False
) -> tuple[EngineDeps, BackendClient]:
    """The engine's dependencies (nothing opened), with the backend client they share; `research`:
    this process runs research (the HTTP server), so the engine gets a `ResearchService`."""
    hide_secrets(settings)
    http, backend = build_backend(settings)
    store = build_state_store(settings) if store is None else store
    models = ModelCatalog(backend, settings.models_refresh_seconds, settings.default_model)
    retrieval = Retrieval(settings, store, Knowledge.build(settings, store))
    service = ResearchService(settings, http, models, retrieval, families.research_queue(store)) if research else None
    deps = EngineDeps(
        settings=settings,
        store=store,
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
    """Usage, limits and budgets of one process (#30): the ledger (the state store's database), the
    shared limits, the recorder writing the ledger off the request path, the prices."""

    ledger: families.UsageStore
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


def build_usage(settings: Settings, store: StateStore) -> Usage:
    ledger = families.usage_store(store)
    prices = Prices(settings.model_prices)
    shared = limits.Limits(
        settings.project_limits, ledger, prices=prices, spend=ledger, warn_ratio=settings.budget_warn_ratio
    )
    recorder = Recorder(
        ledger,
        door=metrics.door(),
        replica=settings.replica_name,
        flush_seconds=settings.usage_flush_seconds,
        retention_days=settings.usage_retention_days,
    )
    counted = UsageMetrics(prices)
    recorder.listeners.extend([shared.charge, counted.add])
    recorder.on_flush.append(counted.flush)
    return Usage(ledger, prices, shared, recorder)


def build_auth(settings: Settings, store: StateStore) -> tuple[Authenticator, KeyStore]:
    """The authenticator every door shares and the key store it reads (the state store's database)."""
    keys = families.key_store(store)
    return Authenticator(settings, keys), keys  # type: ignore[arg-type]
