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
from gateway.telemetry.presets import Preset, PresetCache

_VERSIONS: dict[Any, str] = {}  # "1.1" by aiohttp's HttpVersion: made once, not per request
_presets = PresetCache()  # what a server span's preset depends on -> its `Preset` (clients, hosts, agents: few)


def _version(version: Any) -> str:
    text = _VERSIONS[version] = f"{version.major}.{version.minor}"
    return text


def _preset(key: tuple[Any, ...]) -> Preset:
    """The server span's name and the attributes every request of ``key`` shares (method, route,
    scheme, Host, protocol version, client address, user agent): made once per key, encoded once
    (`presets.Preset`); the path (ids in it) stays the span's own."""
    method, route, scheme, host_header, version, remote, agent = key
    host, _, port = (host_header or "").partition(":")
    attributes: dict[str, Any] = {
        "http.request.method": method,
        "url.scheme": scheme,
        "server.address": host,
        "network.protocol.version": _VERSIONS.get(version) or _version(version),
    }
    if port.isdigit():
        attributes["server.port"] = int(port)
    if remote:
        attributes["client.address"] = remote
    if agent:
        attributes["user_agent.original"] = agent[:256]
    if route:
        attributes["http.route"] = route
    return _presets.make(key, f"{method} {route}" if route else method, attributes)


@web.middleware
async def tracing_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    parent = tracing.extract(request.headers)
    # a request the sampler leaves out: nothing read for its span (#31)
    span: Any = tracing.left_out(parent)
    if span is None:
        # the server span, from its preset (see `_preset`) and its path; written out here rather
        # than in a helper: it runs once a request, cold, where each Python call of ours costs
        # several times its hot-loop time (#31)
        resource = request.match_info.route.resource
        key = (
            request.method,
            resource.canonical if resource is not None else "",
            request.scheme,
            request.host,
            request.version,
            request.remote,
            request.headers.get("User-Agent"),
        )
        preset = _presets.get(key) or _preset(key)
        span = tracing.start_span(
            preset.name, "server", {"url.path": request.path}, parent=parent, own=True, preset=preset
        )
    token = tracing.attach(span)
    done: dict[str, Any] | None = None  # set at the end with the span's end
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
        if span.records:  # (a recorded span: its end's attributes; an unsampled one has none)
            done = {"http.response.status_code": resp.status}
            if (ctx := request.get("ctx")) is not None and (rid := ctx.get("response_id")):
                done["gen_ai.response.id"] = rid
            if resp.status >= 500:
                tracing.fail(span, str(resp.status))
        return resp
    finally:
        tracing.detach(token)
        span.end_with(done)  # (one call: the attributes, then the end)


def install(app: web.Application) -> None:
    """Put the tracing middleware outermost, when tracing is on in this process."""
    if tracing.ON:
        app.middlewares.insert(0, tracing_middleware)
