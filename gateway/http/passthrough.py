"""Chat Completions, Completions and Embeddings forwarded to the backend byte for byte.

Chat clients such as Open WebUI share the gateway's base URL. Bodies are relayed as they arrive
(no parsing, no re-encoding), so a streamed completion reaches the client chunk by chunk with
negligible overhead.
"""

from __future__ import annotations

import logging
import time

from aiohttp import web

from gateway.common.errors import APIError
from gateway.http.common import read_json
from gateway.http.research import chat_research
from gateway.http.state import runtime
from gateway.inference.client import BackendClient, ClientGone
from gateway.inference.picker import Affinity
from gateway.research.chat import research_request
from gateway.usage.meter import metered

log = logging.getLogger(__name__)
routes = web.RouteTableDef()
HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"})


async def _forward(request: web.Request, path: str) -> web.StreamResponse:
    """Relay the body to the backend and its reply back, through the one backend client: its
    errors (a 4xx/5xx, the backend down) reach the client as the gateway's error bodies."""
    client: BackendClient = runtime(request).backend_client
    parsed = await read_json(request)  # malformed JSON is the client's error, answered here with a 400
    model = parsed.get("model") if isinstance(parsed, dict) else None
    cache_key = parsed.get("prompt_cache_key") if isinstance(parsed, dict) else None
    chain: Affinity | None = None
    if isinstance(cache_key, str) and cache_key:  # the key's stored replica, as a response's (#27)
        chain = Affinity("key:" + cache_key, await _stored(request, cache_key) if client.fleet else None)
    body = await request.read()
    resp: web.StreamResponse | None = None
    try:
        async with client.post(path, body, model=model if isinstance(model, str) else None, key=chain) as upstream:
            headers = {k: v for k, v in upstream.headers.items() if k.lower() not in HOP_BY_HOP}
            resp = web.StreamResponse(status=upstream.status, headers=headers)
            await resp.prepare(request)
            async for chunk in metered(upstream.content.iter_any(), path, body, upstream.status):
                try:
                    await resp.write(chunk)
                except ConnectionError:  # our client left: not the backend's failure
                    raise ClientGone from None
            await resp.write_eof()
        if chain is not None and client.fleet and chain.served is not None and chain.served != chain.stored:
            await _record(request, chain.served, str(cache_key))
        return resp
    except ClientGone:
        return resp or web.Response(status=499)
    except APIError as err:
        if resp is None:  # nothing sent yet: the error body, from the error middleware
            raise
        log.warning("passthrough %s cut after its headers: %s", path, err.message)
        if request.transport is not None:  # the status is gone: end the connection without the body's end,
            request.transport.close()  # so the client sees a cut reply, not a complete one
        return resp


async def _stored(request: web.Request, cache_key: str) -> str | None:
    """The replica a `prompt_cache_key` last went to; a failed read costs a cache miss, never the reply."""
    try:
        rt = runtime(request)  # a key in steady use keeps its row (its age restarts past half the horizon)
        refresh = time.time() - rt.settings.cache_key_affinity_seconds / 2
        return await rt.stores.state.cache_key_replica(cache_key, refresh)
    except Exception:
        log.warning("could not read the replica of a prompt_cache_key", exc_info=True)
        return None


async def _record(request: web.Request, replica: str, cache_key: str) -> None:
    """Store the replica a `prompt_cache_key` moved to (or was first placed on); a failed write
    costs a cache miss later, never the reply."""
    try:
        await runtime(request).stores.state.record_replica(replica, cache_key=cache_key)
    except Exception:
        log.warning("could not store the replica of a prompt_cache_key", exc_info=True)


@routes.post("/v1/chat/completions")
async def chat_completions(request: web.Request) -> web.StreamResponse:
    asked = research_request(await read_json(request))  # "research ..." / "deep research ..." (#13)
    if asked is not None and runtime(request).research is not None:
        return await chat_research(request, await read_json(request), *asked)
    return await _forward(request, "/chat/completions")


@routes.post("/v1/completions")
async def completions(request: web.Request) -> web.StreamResponse:
    return await _forward(request, "/completions")


@routes.post("/v1/embeddings")
async def embeddings(request: web.Request) -> web.StreamResponse:
    return await _forward(request, "/embeddings")
