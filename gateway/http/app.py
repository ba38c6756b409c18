"""The aiohttp application: wiring of the engine and its lifecycle."""

from __future__ import annotations

import logging

from aiohttp import web

from gateway.backends.chat_completions import ChatCompletionsBackend
from gateway.backends.http_client import BackendHTTP
from gateway.backends.responses_api import ResponsesBackend
from gateway.config import Settings
from gateway.engine.context import EngineDeps
from gateway.engine.conversations import ConversationsService
from gateway.engine.models import ModelCatalog
from gateway.engine.service import ResponsesService
from gateway.http import connectors as connector_routes
from gateway.http import conversations, meta, ops, passthrough, prompts, responses, vector_stores
from gateway.http.common import error_middleware
from gateway.mcp import shutdown as close_mcp_sessions
from gateway.tools.builtin import register_builtin_tools
from storage.sqlite import SQLiteStore

log = logging.getLogger(__name__)


def build_deps(settings: Settings) -> tuple[EngineDeps, BackendHTTP]:
    """The engine's dependencies, shared by both front doors."""
    http = BackendHTTP(
        settings.backend_base, settings.backend_api_key, settings.backend_connect_timeout, settings.backend_read_timeout
    )
    backend = ResponsesBackend(http) if settings.backend_api == "responses" else ChatCompletionsBackend(http)
    store = SQLiteStore(settings.db_path)
    models = ModelCatalog(backend, settings.models_refresh_seconds, settings.default_model)
    deps = EngineDeps(settings=settings, store=store, backend=backend, models=models)
    register_builtin_tools(deps)
    return deps, http


def create_app(settings: Settings) -> web.Application:
    app = web.Application(client_max_size=settings.max_body_bytes, middlewares=[error_middleware])
    deps, http = build_deps(settings)
    app["settings"] = settings
    app["deps"] = deps
    app["store"] = deps.store
    app["backend"] = deps.backend
    app["backend_http"] = http
    app["models"] = deps.models
    app["responses"] = ResponsesService(deps)
    app["conversations"] = ConversationsService(deps.store)
    for table in (responses.routes, conversations.routes, passthrough.routes, meta.routes, prompts.routes):
        app.add_routes(table)
    app.add_routes(connector_routes.routes)
    ops.install(app)  # request ids, access log, metrics, drain gate, /metrics

    async def startup(app: web.Application) -> None:
        await deps.store.open()
        await app["responses"].recover()
        deps.models.start()

    async def cleanup(app: web.Application) -> None:
        await app["responses"].shutdown()
        await close_mcp_sessions(deps)
        await deps.models.stop()
        await deps.backend.close()
        await deps.store.close()

    app.on_startup.append(startup)
    app.on_cleanup.append(cleanup)
    vector_stores.install(app, deps)  # files + vector stores; ingestion starts after the store opens
    return app
