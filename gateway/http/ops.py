"""The HTTP door's operational surface: request ids, one access line per request, metrics, the
drain gate, and `GET /metrics`.

`ops_middleware` is the outermost middleware: it sees every request, including the error
middleware's replies, so the status it counts and logs is the one the client got.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterator
from typing import Any

from aiohttp import web

from gateway.http.common import json_response
from gateway.http.guard import mark_headers_received
from gateway.http.state import DOOR, Drain
from gateway.telemetry import metrics
from gateway.telemetry.logs import ACCESS_LOGGER, new_request_id, request_context

routes = web.RouteTableDef()
access_log = logging.getLogger(ACCESS_LOGGER)

# Probes and scrapes still answer while draining (readiness says 503 itself).
OPS_PATHS = frozenset({"/health", "/ready", "/metrics"})
TERMINAL = frozenset({"response.completed", "response.failed", "response.incomplete", "response.cancelled"})


def shutting_down() -> web.Response:
    resp = json_response(
        {
            "error": {
                "message": "The gateway is shutting down and accepts no new requests; retry shortly.",
                "type": "server_error",
                "param": None,
                "code": "shutting_down",
            }
        },
        status=503,
    )
    resp.headers["Retry-After"] = "1"
    resp.force_close()
    return resp


def _route(request: web.Request) -> str:
    """The matched route's pattern (bounded label values), not the raw path."""
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else "unmatched"


@web.middleware
async def ops_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    mark_headers_received(request)
    drain: Drain = request.app[DOOR].drain
    ctx = {"request_id": new_request_id(request.headers.get("x-request-id")), "response_id": None}
    ctx["response_id"] = request.match_info.get("response_id")
    token = request_context.set(ctx)
    clock = [0.0]
    clock_token = metrics.backend_clock.set(clock)
    request["ctx"], request["started"] = ctx, time.perf_counter()
    status = 500
    tracked = request.path not in OPS_PATHS
    try:
        if drain.draining and tracked:
            resp: web.StreamResponse = shutting_down()
        else:
            if tracked:
                drain.enter()
            try:
                resp = await handler(request)
            finally:
                if tracked:
                    drain.leave()
        status = resp.status
        return resp
    except asyncio.CancelledError:
        status = 499  # the client went away
        raise
    finally:
        seconds = time.perf_counter() - request["started"]
        if tracked:
            route = _route(request)
            metrics.request_done(route, request.method, status, seconds, clock[0])
            access_log.info(
                "%s %s %d %.1fms",
                request.method,
                route,
                status,
                seconds * 1000,
                extra={
                    "door": "http",
                    "route": route,
                    "method": request.method,
                    "status": status,
                    "duration_ms": round(seconds * 1000, 2),
                },
            )
        metrics.backend_clock.reset(clock_token)
        request_context.reset(token)


async def on_prepare(request: web.Request, response: web.StreamResponse) -> None:
    ctx = request.get("ctx")
    if ctx is not None:
        response.headers["x-request-id"] = ctx["request_id"]
    # Which worker answered (an index, not a pid): lets an operator or a test see the spread.
    response.headers["x-gateway-worker"] = str(request.app[DOOR].worker)


def note_response_id(request: web.Request, response_id: str) -> None:
    """The doors call this once they know which response a request makes (for the log lines)."""
    ctx = request.get("ctx")
    if ctx is not None:
        ctx["response_id"] = response_id


@contextlib.contextmanager
def stream_open() -> Iterator[None]:
    """Count an SSE stream as active while it is open (a context manager, not a generator around
    the events: that would be one more layer every streamed token passes through)."""
    metrics.stream_open(1)
    try:
        yield
    finally:
        metrics.stream_open(-1)


def first_event(request: web.Request) -> None:
    """Time from the request's arrival to its stream's first event."""
    metrics.first_event(time.perf_counter() - request["started"])


@routes.get("/metrics")
async def metrics_route(request: web.Request) -> web.Response:
    if not metrics.enabled():
        return web.Response(status=404, text="metrics are off in this process\n")
    body, content_type = await asyncio.to_thread(metrics.render)
    return web.Response(body=body, headers={"Content-Type": content_type})


def install(app: web.Application) -> None:
    app.middlewares.insert(0, ops_middleware)
    app.on_response_prepare.append(on_prepare)
    app.add_routes(routes)
