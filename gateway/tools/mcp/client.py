"""MCP client sessions: connect (streamable HTTP, falling back to SSE) and a per-process session cache.

Why a cache: a connection costs HTTP round trips plus the protocol handshake, and a conversation
calls the same server turn after turn. Sessions are keyed by (server_url, hash of the credentials),
so two callers with different tokens never share one; a session idle for `idle_ttl` seconds is
closed, a broken one is replaced on next use, and all are closed cleanly on shutdown.

Why one owner task per session: the SDK's transports are anyio task groups that must be entered and
left by the same task. A request's task ends long before a cached session should, so each session
lives in its own task and requests only send calls over it (the SDK multiplexes concurrent calls).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the SDK takes ~2 s to import: see `load_sdk`
    import httpx2
    from mcp import Client

    from gateway.net.netguard import AddressPolicy

from gateway.common.redact import redact_url
from gateway.telemetry import tracing

log = logging.getLogger(__name__)

CONNECTION_CLOSED = -32000  # JSON-RPC codes as the MCP SDK uses them
REQUEST_TIMEOUT = -32001
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
MAX_LIST_PAGES = 100


class McpFailure(Exception):
    """A failure talking to an MCP server, carrying OpenAI's `McpToolCallError` object."""

    def __init__(self, error: dict[str, Any], *, broken: bool = False) -> None:
        self.error = error
        self.broken = broken  # the session is unusable: drop it from the cache
        super().__init__(self.message)

    @property
    def message(self) -> str:
        if "message" in self.error:
            return str(self.error["message"])
        content = self.error.get("content")
        if isinstance(content, list):
            return " ".join(str(c.get("text", c)) if isinstance(c, dict) else str(c) for c in content)
        return str(content)


def protocol_error(code: int, message: str, *, broken: bool = False) -> McpFailure:
    return McpFailure({"type": "mcp_protocol_error", "code": code, "message": message}, broken=broken)


def http_error(status: int, message: str) -> McpFailure:
    return McpFailure({"type": "http_error", "code": status, "message": message}, broken=True)


def execution_error(content: list[Any]) -> McpFailure:
    return McpFailure({"type": "mcp_tool_execution_error", "content": content})


@dataclass(frozen=True)
class ServerSpec:
    """Where an MCP server is and what to send it; `key` never contains the credentials themselves."""

    url: str
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def make(cls, url: str, headers: dict[str, str] | None, authorization: str | None) -> ServerSpec:
        merged = {k: v for k, v in (headers or {}).items() if not (authorization and k.lower() == "authorization")}
        if authorization:
            merged["Authorization"] = f"Bearer {authorization}"
        return cls(url, tuple(sorted(merged.items())))

    @property
    def key(self) -> tuple[str, str]:
        return self.url, hashlib.sha256(repr(self.headers).encode()).hexdigest()


_sdk_loaded = False
# Held while any thread imports the SDK (this client's loader, the MCP server's in gateway/mcp_server):
# two threads importing its circular package at once get a partially initialised module.
SDK_IMPORT_LOCK = threading.Lock()


def _import_sdk() -> None:
    with SDK_IMPORT_LOCK:
        import httpx2  # noqa: F401
        import mcp.client.sse
        import mcp.client.streamable_http
        import mcp.shared.exceptions  # noqa: F401


async def load_sdk() -> None:
    """Import the MCP SDK on a worker thread the first time it is needed.

    It takes ~2 s: imported at start-up it would slow every gateway and ExtProc start, and imported
    on the event loop it would stall every other request once. The local imports below then only
    read `sys.modules`.
    """
    global _sdk_loaded
    if not _sdk_loaded:
        await asyncio.to_thread(_import_sdk)
        _sdk_loaded = True


def _leaf(exc: BaseException) -> BaseException:
    """The first real exception inside (nested) task-group exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


@dataclass(eq=False)
class Connection:
    """One MCP session, owned by its own task (see the module docstring)."""

    spec: ServerSpec
    policy: AddressPolicy | None = None  # vets every address the session connects to (SSRF)
    users: int = 0
    last_used: float = field(default_factory=time.monotonic)
    broken: bool = False
    last_http_status: int | None = None  # the last HTTP error the server answered (the SDK drops it)
    _ready: asyncio.Future[Client] = field(init=False)
    _closing: asyncio.Event = field(init=False, default_factory=asyncio.Event)
    _task: asyncio.Task[None] = field(init=False)

    def __post_init__(self) -> None:
        self._ready = asyncio.get_running_loop().create_future()
        self._task = asyncio.get_running_loop().create_task(
            self._own(), name=f"mcp-session {redact_url(self.spec.url)}"
        )

    async def client(self, limit: float) -> Client:
        try:
            # shield: one waiter's timeout must not cancel the connection others wait for
            return await asyncio.wait_for(asyncio.shield(self._ready), limit)
        except TimeoutError:
            self.broken = True
            self._task.cancel()
            raise protocol_error(REQUEST_TIMEOUT, f"Timed out connecting to the MCP server after {limit:g}s") from None

    async def _record_status(self, response: httpx2.Response) -> None:
        self.last_http_status = response.status_code if response.status_code >= 400 else None

    def _http(
        self,
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        """The session's HTTP client (also the SDK's `httpx_client_factory` for SSE): every
        connection it opens goes through the address policy."""
        import httpx2

        from gateway.net.netguard_httpx import vetted_transport  # httpx2 loads only where MCP is used

        return httpx2.AsyncClient(
            transport=None if self.policy is None else vetted_transport(self.policy),
            headers=dict(self.spec.headers) if headers is None else headers,
            timeout=timeout or httpx2.Timeout(30.0, read=300.0),
            auth=auth,
            event_hooks={"response": [self._record_status]},
        )

    async def _serve(self, transport: Callable[[httpx2.AsyncClient], AbstractAsyncContextManager[Any]]) -> None:
        from mcp import Client

        async with AsyncExitStack() as stack:
            http = await stack.enter_async_context(self._http())
            client = await stack.enter_async_context(Client(transport(http), cache=None))
            self._ready.set_result(client)
            await self._closing.wait()

    async def _own(self) -> None:
        url = self.spec.url
        try:
            await load_sdk()
            from mcp.client.sse import sse_client
            from mcp.client.streamable_http import streamable_http_client

            try:
                await self._serve(lambda http: streamable_http_client(url, http_client=http))
                return
            except Exception as exc:
                if self._ready.done():
                    raise
                first = self._failure(exc, connecting=True)
            # Servers that only speak the older HTTP+SSE transport answer the streamable POST with a
            # 4xx (404/405/400); credentials problems and unreachable servers are not retried.
            status = first.error.get("code") if first.error["type"] == "http_error" else None
            if status in (401, 403) or first.error.get("code") in (CONNECTION_CLOSED, REQUEST_TIMEOUT):
                raise first
            self.last_http_status = None
            try:
                await self._serve(
                    lambda http: sse_client(url, headers=dict(self.spec.headers), httpx_client_factory=self._http)
                )
            except Exception as exc:
                if self._ready.done():
                    raise
                raise first from exc
        except Exception as exc:
            if not self._ready.done():
                self._ready.set_exception(exc if isinstance(exc, McpFailure) else self._failure(exc, connecting=True))
            else:
                log.info("MCP session to %s ended: %r", redact_url(url), _leaf(exc))
        finally:
            self.broken = True
            if not self._ready.done():
                self._ready.set_exception(protocol_error(CONNECTION_CLOSED, "The MCP session closed", broken=True))
            with contextlib.suppress(BaseException):
                self._ready.exception()  # mark retrieved: nobody may be waiting any more

    def _failure(self, exc: BaseException, *, connecting: bool = False) -> McpFailure:
        """Map whatever the SDK or the HTTP client raised to OpenAI's error object."""
        import httpx2
        from mcp.shared.exceptions import MCPError

        exc = _leaf(exc)
        if isinstance(exc, McpFailure):
            return exc
        if isinstance(exc, httpx2.HTTPStatusError):
            return http_error(exc.response.status_code, f"The MCP server answered HTTP {exc.response.status_code}")
        if isinstance(exc, MCPError):
            status = self.last_http_status
            if status is not None and exc.error.code in (INTERNAL_ERROR, -32601, -32600):
                return http_error(status, f"The MCP server answered HTTP {status}")
            return protocol_error(exc.error.code, exc.error.message, broken=exc.error.code == CONNECTION_CLOSED)
        if isinstance(exc, httpx2.TimeoutException | TimeoutError):
            return protocol_error(REQUEST_TIMEOUT, "Timed out talking to the MCP server", broken=True)
        if isinstance(exc, httpx2.TransportError | OSError):
            verb = "connect to" if connecting else "reach"
            return protocol_error(CONNECTION_CLOSED, f"Could not {verb} the MCP server: {exc}", broken=True)
        return protocol_error(INTERNAL_ERROR, f"MCP client error: {type(exc).__name__}: {exc}", broken=True)

    async def close(self) -> None:
        self.broken = True
        self._closing.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), 2.0)
        except (TimeoutError, Exception):
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task


class SessionPool:
    """MCP sessions of one process, reused within a request and across requests."""

    def __init__(self, timeout: float, idle_ttl: float = 300.0, policy: AddressPolicy | None = None) -> None:
        self.timeout = timeout  # bounds connecting, listing and each call
        self.idle_ttl = idle_ttl
        self.policy = policy
        self._conns: dict[tuple[str, str], Connection] = {}
        self._reaper: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._conns)

    @asynccontextmanager
    async def session(self, spec: ServerSpec, *, fresh: bool = False) -> AsyncIterator[tuple[Client, Connection]]:
        conn = self._conns.get(spec.key)
        if conn is None or conn.broken or fresh:
            if conn is not None:
                self._drop(conn)
            conn = self._conns[spec.key] = Connection(spec, self.policy)
            self._start_reaper()
        conn.users += 1
        try:
            yield await conn.client(self.timeout), conn
        except McpFailure as exc:
            if exc.broken:
                self._drop(conn)
            raise
        finally:
            conn.users -= 1
            conn.last_used = time.monotonic()

    async def list_tools(self, spec: ServerSpec) -> list[Any]:
        """Every tool the server lists (all pages). A cached session that fails is retried once fresh."""
        for attempt in (0, 1):
            reused = attempt == 0 and spec.key in self._conns and not self._conns[spec.key].broken
            try:
                async with self.session(spec, fresh=attempt == 1) as (client, conn):
                    try:
                        async with asyncio.timeout(self.timeout):
                            tools: list[Any] = []
                            cursor: str | None = None
                            for _ in range(MAX_LIST_PAGES):
                                page = await client.list_tools(cursor=cursor)
                                tools.extend(page.tools)
                                if not (cursor := page.next_cursor):
                                    break
                            return tools
                    except Exception as exc:
                        raise conn._failure(exc) from exc
            except McpFailure as exc:
                if not (reused and exc.broken):
                    raise
        raise AssertionError("unreachable")

    async def call_tool(self, spec: ServerSpec, name: str, arguments: dict[str, Any]) -> Any:
        """The tool's `CallToolResult`; raises `McpFailure` for protocol, transport and timeout errors.

        With tracing on, the call is a `tools/call {name}` client span whose context rides the
        request's `_meta` (`traceparent`, as MCP's trace-context convention has it): the session's
        HTTP connection is shared by many requests, so per-request HTTP headers cannot carry it."""
        if not tracing.ON:
            return await self._call_tool(spec, name, arguments, None)
        host, port = _host_port(spec.url)
        attributes = {
            "mcp.method.name": "tools/call",
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "server.address": host,
            "server.port": port,
        }
        with tracing.span(f"tools/call {name}", "client", attributes) as span:
            result = await self._call_tool(spec, name, arguments, tracing.carrier())
            if span is not None and getattr(result, "is_error", False):
                tracing.fail(span, "tool_error")
            return result

    async def _call_tool(
        self, spec: ServerSpec, name: str, arguments: dict[str, Any], meta: dict[str, str] | None
    ) -> Any:
        async with self.session(spec) as (client, conn):
            try:
                async with asyncio.timeout(self.timeout):
                    if meta:
                        return await client.call_tool(name, arguments, meta=meta)  # type: ignore[arg-type]
                    return await client.call_tool(name, arguments)
            except TimeoutError:
                raise protocol_error(REQUEST_TIMEOUT, f"The MCP call timed out after {self.timeout:g}s") from None
            except Exception as exc:
                raise conn._failure(exc) from exc

    def _drop(self, conn: Connection) -> None:
        if self._conns.get(conn.spec.key) is conn:
            del self._conns[conn.spec.key]
        task = asyncio.get_running_loop().create_task(conn.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def _start_reaper(self) -> None:
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.get_running_loop().create_task(self._reap(), name="mcp-session-reaper")

    async def _reap(self) -> None:
        """Close sessions idle longer than the TTL; ends when the cache is empty."""
        while self._conns:
            await asyncio.sleep(min(self.idle_ttl / 2, 30.0))
            now = time.monotonic()
            for conn in list(self._conns.values()):
                if conn.broken or (conn.users == 0 and now - conn.last_used > self.idle_ttl):
                    self._drop(conn)

    async def close(self) -> None:
        """Close every session (shutdown)."""
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(BaseException):
                await self._reaper
        conns, self._conns = list(self._conns.values()), {}
        await asyncio.gather(*(c.close() for c in conns), *self._closing, return_exceptions=True)


def _host_port(url: str) -> tuple[str, int]:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
