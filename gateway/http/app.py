"""The aiohttp application: the HTTP door's routes and middlewares over the process's `Runtime`.

`create_app` builds the Runtime (no I/O) and enters it as the app's lifespan (`cleanup_ctx`): it
opens before the first request and closes, in reverse, after the last (WebSocket-mode connections
are closed first). Handlers read it through the typed keys of `gateway.http.state`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

from aiohttp import web

from gateway.auth.slots import TenantSlots
from gateway.config import Settings
from gateway.http import (
    admin,
    conversations,
    meta,
    ops,
    passthrough,
    prompts,
    responses,
    usage,
    vector_stores,
)
from gateway.http import connectors as connector_routes
from gateway.http import console as console_routes
from gateway.http import tracing as http_tracing
from gateway.http.auth import auth_middleware, rate_headers
from gateway.http.common import error_middleware, ids_middleware
from gateway.http.keywatch import watch_key
from gateway.http.state import DOOR, RUNTIME, HttpDoor
from gateway.mcp_server.http import install as install_mcp_server
from gateway.runtime import Door, Runtime

log = logging.getLogger(__name__)


def create_app(settings: Settings) -> web.Application:
    app = web.Application(
        client_max_size=settings.max_body_bytes, middlewares=[error_middleware, ids_middleware, auth_middleware]
    )
    runtime = Runtime.build(settings, Door.HTTP)
    assert runtime.responses is not None and runtime.research is not None  # the HTTP door has both
    app[RUNTIME] = runtime
    app[DOOR] = door = HttpDoor(
        responses=runtime.responses,
        research=runtime.research,
        tenant_slots=TenantSlots(settings.max_concurrent_per_tenant),
        websocket_slots=TenantSlots(settings.max_websockets_per_tenant),
    )

    async def lifespan(app: web.Application) -> AsyncIterator[None]:
        async with runtime.run():
            yield
            for ws in list(door.websockets):
                await ws.close(message=b"shutting down")

    app.cleanup_ctx.append(lifespan)
    for table in (responses.routes, conversations.routes, passthrough.routes, meta.routes, prompts.routes):
        app.add_routes(table)
    app.add_routes(connector_routes.routes)
    app.add_routes(admin.routes)
    app.add_routes(console_routes.routes)  # the console's static front end at /console/ (#32)
    app.add_routes(usage.routes)
    app.on_response_prepare.append(rate_headers)
    ops.install(app)  # request ids, access log, metrics, drain gate, /metrics
    http_tracing.install(app)  # the server span, outermost (only when OTEL_* turn tracing on)
    vector_stores.install(app)  # the Files and Vector Stores APIs
    if settings.mcp_server:  # the knowledge base to MCP clients at /mcp (#14); long streams re-check their key
        install_mcp_server(app, runtime.retrieval, settings, key_watch=watch_key)
    return app
