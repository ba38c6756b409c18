"""The aiohttp application: wiring of the engine and its lifecycle."""

from __future__ import annotations

import logging

from aiohttp import web

from gateway.bootstrap import build_auth, build_deps
from gateway.config import Settings
from gateway.engine.conversations import ConversationsService
from gateway.engine.service import ResponsesService
from gateway.http import (
    admin,
    conversations,
    meta,
    ops,
    passthrough,
    prompts,
    research,
    responses,
    usage,
    vector_stores,
)
from gateway.http import connectors as connector_routes
from gateway.http import console as console_routes
from gateway.http import tracing as http_tracing
from gateway.http.auth import auth_middleware, rate_headers
from gateway.http.common import error_middleware, ids_middleware
from gateway.http.guard import TenantSlots
from gateway.http.keywatch import watch_key
from gateway.mcp import shutdown as close_mcp_sessions
from gateway.usage import stop as usage_stop
from gateway.usage.prices import Prices

log = logging.getLogger(__name__)

__all__ = ["build_deps", "create_app"]  # build_deps lives in gateway.bootstrap; re-exported for callers


def create_app(settings: Settings) -> web.Application:
    app = web.Application(
        client_max_size=settings.max_body_bytes, middlewares=[error_middleware, ids_middleware, auth_middleware]
    )
    deps, http = build_deps(settings)
    app["settings"] = settings
    app["deps"] = deps
    app["store"] = deps.store
    app["backend"] = deps.backend
    app["backend_http"] = http
    app["models"] = deps.models
    app["auth"], app["keys"] = build_auth(settings, deps.stores)
    app["responses"] = ResponsesService(deps)
    app["conversations"] = ConversationsService(deps.store)
    app["websockets"] = set()  # open WebSocket-mode connections (capped; closed at shutdown)
    app["tenant_slots"] = TenantSlots(settings.max_concurrent_per_tenant)  # fairness between tenants (#26)
    app["key_watch"] = watch_key  # long streams outside gateway.http (/mcp) re-check their key with it (#26)
    app["websocket_slots"] = TenantSlots(settings.max_websockets_per_tenant)
    for table in (responses.routes, conversations.routes, passthrough.routes, meta.routes, prompts.routes):
        app.add_routes(table)
    app.add_routes(connector_routes.routes)
    app.add_routes(admin.routes)
    app.add_routes(console_routes.routes)  # the console's static front end at /console/ (#32)
    app.add_routes(usage.routes)
    app["ledger"] = deps.stores.usage  # the Usage and Costs APIs read it
    app["prices"] = Prices(settings.model_prices)
    app.on_response_prepare.append(rate_headers)
    ops.install(app)  # request ids, access log, metrics, drain gate, /metrics
    http_tracing.install(app)  # the server span, outermost (only when OTEL_* turn tracing on)

    async def startup(app: web.Application) -> None:
        await deps.stores.open()
        await app["responses"].start()
        deps.models.start()

    async def cleanup(app: web.Application) -> None:
        for ws in list(app["websockets"]):
            await ws.close(message=b"shutting down")
        await app["responses"].shutdown()
        await usage_stop()  # the ledger's queue is written, leases of quota given back
        await close_mcp_sessions(deps)
        await deps.models.stop()
        await deps.backend.close()
        await deps.stores.close()

    app.on_startup.append(startup)
    app.on_cleanup.append(cleanup)
    vector_stores.install(app, deps)  # files + vector stores; ingestion starts after the store opens
    research.install(app)  # research mode (#13): after retrieval, which it searches
    if settings.mcp_server:  # the knowledge base to MCP clients at /mcp (#14)
        from gateway.mcp_server.http import install as install_mcp_server

        install_mcp_server(app, app["retrieval"])
    return app
