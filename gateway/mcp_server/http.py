"""`/mcp` on the aiohttp server: streamable HTTP, stateless, through the SDK's session manager.

The SDK's `StreamableHTTPSessionManager` is an ASGI application; `asgi_bridge` runs one ASGI request
inside an aiohttp handler (scope from the request, `receive` from its body, `send` into a
`StreamResponse`). The route sits behind the app's middlewares like every `/v1` route (errors,
metrics, access log, drain, and API keys once they exist), so there is no separate auth here.

Stateless mode (a fresh transport per POST, no session id) is what makes it work behind a load
balancer and across `GATEWAY_WORKERS`: any worker or replica answers any request. JSON responses
(no SSE) for plain requests: one body, no stream to hold open.

The SDK takes ~2 s to import, so it is imported on a thread after start-up; a request that comes
before it is ready waits for it. The session manager's task group must be entered and left by one
task, so it lives in its own task for the process's lifetime.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from aiohttp import web

from gateway.common.errors import APIError
from gateway.config import Settings
from gateway.mcp_server.knowledge_base import KnowledgeBase
from gateway.mcp_server.memory import Memory, RetentionSweeper
from gateway.retrieval.core import Retrieval
from gateway.tools.mcp.client import SDK_IMPORT_LOCK  # the client's SDK loader may run at the same time

log = logging.getLogger("gateway.mcp_server")

PATH = "/mcp"
# the HTTP door's key re-check around a long stream (gateway.http.keywatch.watch_key)
KeyWatch = Callable[[web.Request, Callable[[APIError], None]], AbstractAsyncContextManager[None]]
READY_TIMEOUT = 60.0
DISCONNECT_POLL_S = 0.5  # how soon a stream notices that its client went away


def _scope(request: web.Request) -> dict[str, Any]:
    peer = request.transport.get_extra_info("peername") if request.transport else None
    sock = request.transport.get_extra_info("sockname") if request.transport else None
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": f"{request.version.major}.{request.version.minor}",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.raw_path.split("?", 1)[0].encode(),
        "query_string": request.query_string.encode(),
        "root_path": "",
        "headers": [(k.lower(), v) for k, v in request.raw_headers],
        "client": tuple(peer[:2]) if isinstance(peer, tuple) else None,
        "server": tuple(sock[:2]) if isinstance(sock, tuple) else None,
        "state": {},
    }


async def asgi_bridge(app: Any, request: web.Request, stop: asyncio.Event | None = None) -> web.StreamResponse:
    """Serve one aiohttp request with an ASGI app; returns the (prepared, finished) response.
    `stop` set ends the exchange as a client disconnect would (its key was revoked, #26)."""
    body = await request.read()
    done = stop or asyncio.Event()
    sent_body = False
    response: web.StreamResponse | None = None

    async def receive() -> dict[str, Any]:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}
        # nothing more to read: report the disconnect when the exchange is over or the client left
        # (aiohttp does not cancel a handler whose client went away; a standalone GET stream would
        # otherwise run until a write fails)
        while not done.is_set():
            if request.transport is None or request.transport.is_closing():
                done.set()
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), DISCONNECT_POLL_S)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal response
        if message["type"] == "http.response.start":
            response = web.StreamResponse(status=message["status"])
            for name, value in message.get("headers", []):
                key = name.decode("latin-1")
                if key.lower() in ("content-length", "transfer-encoding", "connection"):
                    continue
                response.headers.add(key, value.decode("latin-1"))
            await response.prepare(request)
        elif message["type"] == "http.response.body":
            assert response is not None, "ASGI app sent a body before its start"
            if done.is_set():
                return  # the client left: what is still sent goes nowhere (an ordinary end, not an error)
            try:
                chunk = message.get("body", b"")
                if chunk:
                    await response.write(chunk)
                if not message.get("more_body", False):
                    await response.write_eof()
            except ConnectionResetError:  # aiohttp's ClientConnectionResetError is one
                done.set()  # receive() reports the disconnect; the SDK ends the stream quietly

    try:
        await app(_scope(request), receive, send)
    finally:
        done.set()
    if response is None:
        raise web.HTTPInternalServerError(text="the MCP server sent no response")
    return response


class McpHttp:
    """The process's MCP server on HTTP: built after start-up, served until shutdown."""

    def __init__(self, kb: KnowledgeBase, key_watch: KeyWatch | None = None) -> None:
        self.kb = kb
        self.key_watch = key_watch
        self.memory = Memory(kb)
        self.sweeper = RetentionSweeper(self.memory, kb.settings.mcp_server_retention_sweep_seconds)
        self.server: Any = None  # the KnowledgeServer
        self.manager: Any = None
        self._ready: asyncio.Future[None] | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._ready = asyncio.get_running_loop().create_future()
        self._task = asyncio.get_running_loop().create_task(self._own(), name="mcp-server")
        self.sweeper.start()

    async def stop(self) -> None:
        await self.sweeper.stop()
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._task, 5)

    async def _own(self) -> None:
        assert self._ready is not None
        try:
            await asyncio.to_thread(_import_sdk)
            from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

            from gateway.mcp_server.crawl import crawl_tools
            from gateway.mcp_server.server import KnowledgeServer
            from gateway.mcp_server.tools import ToolBox

            toolbox = ToolBox(self.kb, self.memory, crawl_tools(self.kb, self.memory))
            self.server = KnowledgeServer(toolbox, self.kb.settings)
            self.manager = StreamableHTTPSessionManager(self.server.server, json_response=True, stateless=True)
            async with self.manager.run():
                self._ready.set_result(None)
                await self._stop.wait()
                self.server.listen.close()
        except Exception as exc:
            log.exception("the MCP server could not start")
            if not self._ready.done():
                self._ready.set_exception(exc)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if self._ready is None:
            raise web.HTTPServiceUnavailable(text="the MCP server is not started")
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), READY_TIMEOUT)
        except Exception:
            raise web.HTTPServiceUnavailable(text="the MCP server is unavailable") from None
        # A stream held open (the standalone GET, a long tool call) re-checks its key (#26): the
        # HTTP door's `key_watch` (gateway.http.keywatch) ends it once the key stops working.
        watch = self.key_watch
        if watch is None:
            return await asgi_bridge(self.manager.handle_request, request)
        stop = asyncio.Event()
        async with watch(request, lambda _err: stop.set()):
            return await asgi_bridge(self.manager.handle_request, request, stop)


def _import_sdk() -> None:

    with SDK_IMPORT_LOCK:
        import mcp.server.lowlevel.server
        import mcp.server.streamable_http_manager  # noqa: F401


def install(
    app: web.Application, retrieval: Retrieval, settings: Settings, *, key_watch: KeyWatch | None = None
) -> McpHttp:
    """Serve `/mcp` (all methods) on the app; start after the runtime opens, stop before it closes."""
    mcp_http = McpHttp(KnowledgeBase(retrieval, settings), key_watch)
    app.router.add_route("*", PATH, mcp_http.handle)

    async def start(app: web.Application) -> None:
        await mcp_http.start()

    async def stop(app: web.Application) -> None:
        await mcp_http.stop()

    app.on_startup.append(start)
    app.on_shutdown.append(stop)
    return mcp_http
