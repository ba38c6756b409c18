"""Slow and greedy clients: a deadline for request headers and a cap on connections per client address.

Why: aiohttp waits as long as a client likes for the rest of a request's headers, and accepts any
number of connections, so a handful of clients that trickle bytes (slowloris) can hold every file
descriptor of a worker. The guard sits between the listening socket and aiohttp's protocol: a
connection whose first request's headers are not complete within `GATEWAY_HEADER_TIMEOUT_SECONDS`
is closed, and an address that already holds `GATEWAY_MAX_CONNECTIONS_PER_CLIENT` connections has
its next one closed at once. Slow bodies are bounded where bodies are read (`read_json`, uploads).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import Counter
from collections.abc import Callable
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest
from aiohttp.web_response import StreamResponse

from gateway.auth.slots import TenantSlots
from gateway.common.jsonutil import dumps
from gateway.common.redact import redact
from gateway.http.state import RUNTIME

log = logging.getLogger(__name__)

__all__ = ["ConnectionGuard", "GuardedAppRunner", "TenantSlots", "mark_headers_received", "tenant_of"]

# transports whose first request's headers have arrived (marked by `mark_headers_received`)
_HEADERS_SEEN: weakref.WeakSet[asyncio.BaseTransport] = weakref.WeakSet()


def mark_headers_received(request: web.Request) -> None:
    """Called by the outermost middleware: this connection's first request has its headers."""
    if request.transport is not None:
        _HEADERS_SEEN.add(request.transport)


class _Guarded(asyncio.Protocol):
    """Forwards everything to aiohttp's protocol; adds the deadline and the per-address count."""

    def __init__(self, inner: Any, guard: ConnectionGuard) -> None:
        self._inner = inner
        self._guard = guard
        self._peer: str | None = None
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self._peer = str(peer[0]) if isinstance(peer, tuple) and peer else None
        if self._peer is not None and not self._guard.admit(self._peer):
            log.warning("refused a connection from %s: too many open connections from that address", self._peer)
            self._peer = None
            transport.close()
            return
        if self._guard.header_timeout > 0:
            self._deadline = asyncio.get_running_loop().call_later(
                self._guard.header_timeout, self._check_headers, transport
            )
        self._inner.connection_made(transport)

    def _check_headers(self, transport: asyncio.BaseTransport) -> None:
        if transport not in _HEADERS_SEEN and not transport.is_closing():
            log.info(
                "closed a connection from %s: request headers incomplete after %.0fs",
                self._peer,
                self._guard.header_timeout,
            )
            transport.close()

    def data_received(self, data: bytes) -> None:
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()  # type: ignore[no-any-return]

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        if self._peer is not None:
            self._guard.release(self._peer)
        self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()


class _OpenAIErrors(RequestHandler):
    """aiohttp's protocol, whose own rejections (before any route: a request line or header over
    8 KB, a malformed header) are OpenAI error bodies instead of `text/plain` (#26), and end with a
    lingering close.

    Why linger: such a refusal comes while the client may still be sending the rest of the line.
    Closing a socket with unread input makes the kernel answer with a reset, which can reach the
    client before it reads the 400 (it sees a broken pipe or a reset, not the error). As nginx does,
    the refusal is sent, the write side half-closed, and input read and thrown away until the client
    closes its side, goes quiet for `LINGER_IDLE` seconds or `LINGER_MAX` seconds have passed.
    """

    LINGER_IDLE = 2.0
    LINGER_MAX = 10.0

    _refused = False
    _lingering: asyncio.Event | None = None

    def data_received(self, data: bytes) -> None:
        if self._lingering is not None:
            self._lingering.set()  # input still coming: the idle clock restarts
            return
        super().data_received(data)

    def eof_received(self) -> None:
        if self._lingering is not None:
            self._lingering.set()
            self._refused = False  # the client is done: stop lingering
        super().eof_received()

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._lingering is not None:
            self._refused = False
            self._lingering.set()
        super().connection_lost(exc)

    async def finish_response(
        self, request: BaseRequest, resp: StreamResponse, start_time: float | None
    ) -> tuple[StreamResponse, bool]:
        result = await super().finish_response(request, resp, start_time)
        if self._refused and self.transport is not None and not self.transport.is_closing():
            await self._linger(self.transport)
        return result

    async def shutdown(self, timeout: float | None = 15.0) -> None:  # noqa: ASYNC109 (aiohttp's signature)
        """A lingering refusal ends at once when the server stops: it holds no work worth waiting for
        (else aiohttp counts it as a request in progress and waits for it, twice)."""
        self._refused = False
        if self._lingering is not None:
            self._lingering.set()
        await super().shutdown(timeout)

    async def _linger(self, transport: asyncio.Transport) -> None:
        """Half-close, then discard input until the client closes, goes quiet, or time is up."""
        self._lingering = asyncio.Event()
        transport.resume_reading()  # aiohttp pauses reading when its queue of (error) messages fills
        if transport.can_write_eof():
            transport.write_eof()
        loop = asyncio.get_running_loop()
        end = loop.time() + self.LINGER_MAX
        while self._refused and (left := end - loop.time()) > 0:
            self._lingering.clear()
            try:
                await asyncio.wait_for(self._lingering.wait(), min(self.LINGER_IDLE, left))
            except TimeoutError:
                return

    def handle_error(
        self, request: BaseRequest, status: int = 500, exc: BaseException | None = None, message: str | None = None
    ) -> StreamResponse:
        if status >= 500:
            return super().handle_error(request, status, exc, message)  # logged with its traceback
        log.info("refused a malformed request from %s: %s", request.remote, exc)
        if request.writer.output_size > 0:
            raise ConnectionError("Response is sent already, cannot send another response with the error message")
        text = redact(str(message or exc or "malformed request"))[:300]
        body = {
            "error": {
                "message": f"The request could not be read: {text}",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_request",
            }
        }
        resp = web.Response(status=status, body=dumps(body), content_type="application/json")
        resp.force_close()
        self._refused = True
        return resp


class ConnectionGuard:
    """A protocol factory wrapping aiohttp's `web.Server` (everything else is delegated to it)."""

    def __init__(
        self,
        inner: web.Server,
        *,
        header_timeout: float,
        max_per_client: int,
        exempt: Callable[[str], bool] = lambda peer: False,
    ) -> None:
        self._inner = inner
        self.header_timeout = header_timeout
        self.max_per_client = max_per_client
        self.exempt = exempt
        self._open: Counter[str] = Counter()

    def admit(self, peer: str) -> bool:
        if self.exempt(peer):  # a proxy's pooled connections carry every tenant: `TenantSlots` caps those
            self._open[peer] += 1
            return True
        if self.max_per_client > 0 and self._open[peer] >= self.max_per_client:
            return False
        self._open[peer] += 1
        return True

    def release(self, peer: str) -> None:
        self._open[peer] -= 1
        if self._open[peer] <= 0:
            del self._open[peer]

    def __call__(self) -> asyncio.Protocol:
        server = self._inner
        handler: RequestHandler
        try:
            handler = _OpenAIErrors(server, loop=server._loop, **server._kwargs)
        except TypeError:  # aiohttp's own fallback for handler arguments it does not know
            handler = server()
        return _Guarded(handler, self)

    def __getattr__(self, name: str) -> Any:  # connections, shutdown, pre_shutdown, ...
        return getattr(self._inner, name)


class GuardedAppRunner(web.AppRunner):
    """An AppRunner whose server is wrapped by a `ConnectionGuard`."""

    def __init__(self, app: web.Application, *, header_timeout: float, max_per_client: int, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self._header_timeout = header_timeout
        self._max_per_client = max_per_client

    async def _make_server(self) -> Any:
        inner = await super()._make_server()
        auth = self._app[RUNTIME].authenticator
        return ConnectionGuard(
            inner,
            header_timeout=self._header_timeout,
            max_per_client=self._max_per_client,
            # with credentials, a trusted proxy (Envoy) is no tenant: its requests are capped per project
            exempt=lambda peer: bool(auth.enabled and auth.trusted_peer(peer)),
        )


def tenant_of(request: web.Request) -> str | None:
    """The fairness key: the project when credentials name one, else the client address, unless
    that address is a trusted proxy's (Envoy's: it speaks for every client; None, no cap)."""
    auth = request.app[RUNTIME].authenticator
    project = request.get("project")
    if project is not None and auth.enabled:
        return f"project:{project}"
    if request.remote is None or auth.trusted_peer(request.remote):
        return None
    return f"address:{request.remote}"
