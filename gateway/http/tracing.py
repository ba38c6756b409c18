"""The HTTP door's server span (OpenTelemetry HTTP semantic conventions), one per request.

Installed as the outermost middleware only when tracing is on (`gateway.telemetry.tracing.ON`), so with
tracing off no request pays for it. An incoming `traceparent`/`tracestate` (Envoy's, on the
re-routed tool-loop path, or any client's) is the parent; the span is current while the handler
runs, so the engine's spans and the log lines of the request belong to it. A streamed reply is
written inside the handler, so the span covers the whole stream.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from gateway.telemetry import tracing

_VERSIONS: dict[Any, str] = {}  # "1.1" by aiohttp's HttpVersion: made once, not per request


def _route(request: web.Request) -> str:
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else ""


def _version(version: Any) -> str:
    text = _VERSIONS[version] = f"{version.major}.{version.minor}"
    return text


@web.middleware
async def tracing_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    parent = tracing.extract(request.headers)
    version = request.version
    host, _, port = (request.host or "").partition(":")
    attributes: dict[str, Any] = {
        "http.request.method": request.method,
        "url.path": request.path,
        "url.scheme": request.scheme,
        "server.address": host,
        "network.protocol.version": _VERSIONS.get(version) or _version(version),
    }
    if port.isdigit():
        attributes["server.port"] = int(port)
    if request.remote:
        attributes["client.address"] = request.remote
    if agent := request.headers.get("User-Agent"):
        attributes["user_agent.original"] = agent[:256]
    route = _route(request)
    if route:
        attributes["http.route"] = route
    name = f"{request.method} {route}" if route else request.method
    span = tracing.start_span(name, "server", attributes, parent=parent, own=True)
    token = tracing.attach(span)
    try:
        resp = await handler(request)
    except web.HTTPException as exc:
        span.set_attribute("http.response.status_code", exc.status)
        if exc.status >= 500:
            tracing.fail(span, str(exc.status))
        raise
    except asyncio.CancelledError:
        span.set_attribute("gateway.client_gone", True)
        raise
    except Exception as exc:
        tracing.fail(span, exc)
        raise
    else:
        done: dict[str, Any] = {"http.response.status_code": resp.status}
        if rid := request.get("ctx", {}).get("response_id"):
            done["gen_ai.response.id"] = rid
        span.set_attributes(done)
        if resp.status >= 500:
            tracing.fail(span, str(resp.status))
        return resp
    finally:
        tracing.detach(token)
        span.end()


def install(app: web.Application) -> None:
    """Put the tracing middleware outermost, when tracing is on in this process."""
    if tracing.ON:
        app.middlewares.insert(0, tracing_middleware)
