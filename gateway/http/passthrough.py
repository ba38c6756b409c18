"""Chat Completions, Completions and Embeddings forwarded to the backend byte for byte.

Chat clients such as Open WebUI share the gateway's base URL. Bodies are relayed as they arrive
(no parsing, no re-encoding), so a streamed completion reaches the client chunk by chunk with
negligible overhead.
"""

from __future__ import annotations

import aiohttp
from aiohttp import web

from gateway.backends.http_client import BackendHTTP
from gateway.errors import BackendError, BackendTimeout
from gateway.http.common import error_response, read_json
from gateway.http.research import chat_research
from gateway.research.chat import research_request
from gateway.usage.meter import metered

routes = web.RouteTableDef()
HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"})


async def _forward(request: web.Request, path: str) -> web.StreamResponse:
    http: BackendHTTP = request.app["backend_http"]
    await read_json(request)  # malformed JSON is the client's error, answered here with a 400
    body = await request.read()
    try:
        async with http.session.post(http.url(path), data=body, headers=http.headers) as upstream:
            headers = {k: v for k, v in upstream.headers.items() if k.lower() not in HOP_BY_HOP}
            resp = web.StreamResponse(status=upstream.status, headers=headers)
            await resp.prepare(request)
            async for chunk in metered(upstream.content.iter_any(), path, body, upstream.status):
                await resp.write(chunk)
            await resp.write_eof()
            return resp
    except (aiohttp.ClientConnectorError, ConnectionRefusedError) as exc:
        return error_response(BackendError(f"could not connect to the inference backend: {exc}"))
    except TimeoutError:
        return error_response(BackendTimeout("the inference backend timed out"))


@routes.post("/v1/chat/completions")
async def chat_completions(request: web.Request) -> web.StreamResponse:
    asked = research_request(await read_json(request))  # "research ..." / "deep research ..." (#13)
    if asked is not None and "research" in request.app:
        return await chat_research(request, await read_json(request), *asked)
    return await _forward(request, "/chat/completions")


@routes.post("/v1/completions")
async def completions(request: web.Request) -> web.StreamResponse:
    return await _forward(request, "/completions")


@routes.post("/v1/embeddings")
async def embeddings(request: web.Request) -> web.StreamResponse:
    return await _forward(request, "/embeddings")
