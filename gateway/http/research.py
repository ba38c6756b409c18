"""The HTTP door's side of research: chat completions that ask for research run it here.

A client that goes away stops its run within a second: a watcher notices the closed connection
(aiohttp does not cancel handlers by itself) and cancels the run's task, so no further backend,
search or page request is made and its queue slot is freed at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

from aiohttp import web

from gateway.common.jsonutil import dumps
from gateway.http.common import json_response
from gateway.http.state import door
from gateway.research.chat import ChatRendering
from gateway.research.service import ResearchService

T = TypeVar("T")
WATCH_SECONDS = 0.2


async def until_gone(request: web.Request, work: Awaitable[T]) -> T:
    """Await `work`, cancelling it when the client's connection closes."""
    task = asyncio.ensure_future(work)
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=WATCH_SECONDS)
            transport = request.transport
            if not task.done() and (transport is None or transport.is_closing()):
                task.cancel()
        return task.result()
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def chat_research(request: web.Request, body: dict[str, Any], kind: str, question: str) -> web.StreamResponse:
    service: ResearchService = door(request).research
    model = str(body.get("model") or await service.models.resolve(None))
    render = ChatRendering(model)
    events = service.events(kind, question, model)
    if not body.get("stream"):
        try:
            return json_response(await until_gone(request, render.completion(events)))
        finally:
            await events.aclose()
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await resp.prepare(request)

    async def pump(chunks: AsyncIterator[dict[str, Any]]) -> None:
        async for chunk in chunks:
            await resp.write(b"data: " + dumps(chunk) + b"\n\n")
        await resp.write(b"data: [DONE]\n\n")

    try:
        await until_gone(request, pump(render.chunks(events)))
    except (ConnectionResetError, ConnectionError, asyncio.CancelledError):
        pass
    finally:
        await events.aclose()
    return resp
