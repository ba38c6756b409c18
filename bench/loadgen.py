"""A cheap HTTP/1.1 load generator for the benchmarks.

The benchmark machine has 2 cores shared by the backend, the gateway and this generator, so every
microsecond the generator spends is taken from the servers it measures. Hence a raw asyncio
`Protocol` client instead of a general-purpose one: requests are pre-encoded bytes sent on
keep-alive connections, responses are framed (Content-Length or chunked) without building header
objects, and timestamps are taken in `data_received`, i.e. when the bytes come off the socket, not
when a waiting coroutine is next scheduled. `--client aiohttp` swaps in aiohttp's client for a
cross-check (it costs several times more CPU per request).

Each request yields one `Sample`:
    t0     just before the request bytes are written
    first  the first complete SSE event has arrived (streams only; else the end of the body)
    token  the first model-text chunk has arrived (streams only; see `Marker`)
    end    the response is complete
"""

from __future__ import annotations

import asyncio
import gc
import math
import time
from dataclasses import dataclass, field
from typing import Any

import orjson

perf = time.perf_counter

# Byte markers of the first model-text chunk. Backend alone: the first chat chunk whose delta
# *starts* with content (vLLM's key order: the role chunk is `{"role":"assistant","content":""}`).
# Gateway: the first `response.output_text.delta` event.
CHAT_TOKEN = b'"delta":{"content":"'
RESPONSES_TOKEN = b"event: response.output_text.delta"
TAIL = 4096  # a stream is checked for its done marker in this many trailing bytes (the final
# `response.completed` event carries a ~1.5 KB snapshot after its `event:` line)


@dataclass(slots=True)
class Sample:
    status: int
    t0: float
    first: float
    token: float
    end: float
    ok: bool


@dataclass
class Target:
    """One kind of request: where it goes and how its reply is checked."""

    name: str
    host: str
    port: int
    path: str
    body: dict[str, Any]
    stream: bool = False
    token_marker: bytes | None = None
    done_marker: bytes | None = None  # must appear in the tail of a successful stream
    request: bytes = field(init=False)

    def __post_init__(self) -> None:
        payload = orjson.dumps(self.body)
        self.request = (
            f"POST {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nAccept: */*\r\nContent-Length: {len(payload)}\r\n\r\n"
        ).encode() + payload

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{self.path}"


_HEAD, _BODY, _CSIZE, _CDATA, _CCRLF, _TRAILER = range(6)


class RawConn(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection; one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.fut: asyncio.Future[Sample] | None = None
        self.lost: BaseException | None = None
        self.keep_body = False
        self.body = bytearray()

    # -- asyncio.Protocol ----------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = exc or ConnectionResetError("server closed the connection")
        if self.fut is not None and not self.fut.done():
            self.fut.set_exception(self.lost)

    def data_received(self, data: bytes) -> None:
        now = perf()
        self.buf += data
        try:
            self._advance(now)
        except Exception as exc:  # a framing bug must not hang the benchmark
            if self.fut is not None and not self.fut.done():
                self.fut.set_exception(exc)

    # -- request ---------------------------------------------------------------------------------------
    def request(self, target: Target, keep_body: bool = False) -> asyncio.Future[Sample]:
        if self.lost is not None or self.transport is None:
            raise ConnectionError("connection is closed")
        loop = asyncio.get_running_loop()
        self.fut = loop.create_future()
        self.target = target
        self.keep_body = keep_body
        self.body = bytearray()
        self.state = _HEAD
        self.status = 0
        self.remaining = 0
        self.first = 0.0
        self.token = 0.0 if target.token_marker else -1.0
        self.scan = bytearray() if target.stream else None
        self.tail = b""
        self.t0 = perf()
        self.transport.write(target.request)
        return self.fut

    def _on_body(self, data: bytes | bytearray, now: float) -> None:
        if self.keep_body:
            self.body += data
        if self.scan is None:
            return
        if self.target.done_marker is not None:
            self.tail = (self.tail + data)[-TAIL:]
        if self.first and self.token:
            return
        self.scan += data
        if not self.first and b"\n\n" in self.scan:
            self.first = now
        if not self.token and self.target.token_marker in self.scan:  # type: ignore[operator]
            self.token = now
        if self.first and self.token:
            self.scan = bytearray()

    def _finish(self, now: float) -> None:
        ok = self.status == 200
        if ok and self.target.done_marker is not None:
            ok = self.target.done_marker in self.tail
        if not self.first:
            self.first = now
        if self.token <= 0:
            self.token = now if self.token == 0.0 else self.first
        sample = Sample(self.status, self.t0, self.first, self.token, now, ok)
        self.state = _HEAD
        fut, self.fut = self.fut, None
        if fut is not None and not fut.done():
            fut.set_result(sample)

    def _advance(self, now: float) -> None:
        buf = self.buf
        while self.fut is not None:
            state = self.state
            if state == _HEAD:
                i = buf.find(b"\r\n\r\n")
                if i < 0:
                    return
                head = bytes(buf[:i]).lower()
                del buf[: i + 4]
                self.status = int(head[9:12])
                if b"\r\ntransfer-encoding: chunked" in head:
                    self.state = _CSIZE
                else:
                    j = head.find(b"\r\ncontent-length:")
                    if j < 0:
                        raise ValueError("response without Content-Length or chunked encoding")
                    k = head.find(b"\r\n", j + 2)
                    self.remaining = int(head[j + 17 : k if k >= 0 else None])
                    self.state = _BODY
                    if self.remaining == 0:
                        self._finish(now)
            elif state == _BODY:
                if not buf:
                    return
                n = min(len(buf), self.remaining)
                self._on_body(buf[:n], now)
                del buf[:n]
                self.remaining -= n
                if self.remaining == 0:
                    self._finish(now)
            elif state == _CSIZE:
                i = buf.find(b"\r\n")
                if i < 0:
                    return
                size = int(bytes(buf[:i]).split(b";", 1)[0], 16)
                del buf[: i + 2]
                self.remaining = size
                self.state = _CDATA if size else _TRAILER
            elif state == _CDATA:
                if not buf:
                    return
                n = min(len(buf), self.remaining)
                self._on_body(buf[:n], now)
                del buf[:n]
                self.remaining -= n
                if self.remaining == 0:
                    self.state = _CCRLF
            elif state == _CCRLF:
                if len(buf) < 2:
                    return
                del buf[:2]
                self.state = _CSIZE
            else:  # _TRAILER: trailer lines until an empty one
                i = buf.find(b"\r\n")
                if i < 0:
                    return
                empty = i == 0
                del buf[: i + 2]
                if empty:
                    self._finish(now)


class RawClient:
    """Opens `RawConn`s; `send` reconnects once if the server dropped an idle connection."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.conn: RawConn | None = None

    async def _connect(self) -> RawConn:
        loop = asyncio.get_running_loop()
        _t, conn = await loop.create_connection(RawConn, self.target.host, self.target.port)
        return conn

    async def send(self, keep_body: bool = False, target: Target | None = None) -> tuple[Sample, bytes]:
        target = target or self.target
        if self.conn is None or self.conn.lost is not None:
            self.conn = await self._connect()
        try:
            sample = await self.conn.request(target, keep_body)
        except ConnectionError:
            self.conn = await self._connect()
            sample = await self.conn.request(target, keep_body)
        return sample, bytes(self.conn.body)

    async def close(self) -> None:
        if self.conn is not None and self.conn.transport is not None:
            self.conn.transport.close()


class AiohttpClient:
    """The same measurements through aiohttp's client (for cross-checking the raw client)."""

    def __init__(self, target: Target, session: Any) -> None:
        self.target = target
        self.session = session
        self.payload = orjson.dumps(target.body)
        self.headers = {"Content-Type": "application/json"}

    async def send(self, keep_body: bool = False, target: Target | None = None) -> tuple[Sample, bytes]:
        t = target or self.target
        first = token = 0.0
        body = bytearray()
        scan = bytearray()
        t0 = perf()
        payload = self.payload if t is self.target else orjson.dumps(t.body)
        async with self.session.post(t.url, data=payload, headers=self.headers) as resp:
            async for chunk in resp.content.iter_any():
                now = perf()
                body += chunk
                if t.stream and not (first and token):
                    scan += chunk
                    if not first and b"\n\n" in scan:
                        first = now
                    if t.token_marker and not token and t.token_marker in scan:
                        token = now
            end = perf()
            status = resp.status
        ok = status == 200 and (t.done_marker is None or t.done_marker in body[-TAIL:])
        first = first or end
        token = token or (first if not t.token_marker else end)
        return Sample(status, t0, first, token, end, ok), bytes(body) if keep_body else b""

    async def close(self) -> None:
        pass


class Generator:
    """Runs closed-loop load against `Target`s with the chosen client kind."""

    def __init__(self, kind: str = "raw") -> None:
        self.kind = kind
        self.session: Any = None

    async def __aenter__(self) -> Generator:
        if self.kind == "aiohttp":
            import aiohttp

            self.session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0, force_close=False), auto_decompress=False
            )
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self.session is not None:
            await self.session.close()

    def client(self, target: Target) -> RawClient | AiohttpClient:
        return AiohttpClient(target, self.session) if self.kind == "aiohttp" else RawClient(target)

    async def sequential(self, target: Target, count: int, client: Any = None) -> list[Sample]:
        """`count` requests one after the other (concurrency 1)."""
        own = client is None
        client = client or self.client(target)
        out = []
        try:
            for _ in range(count):
                sample, _body = await client.send()
                out.append(sample)
        finally:
            if own:
                await client.close()
        return out

    async def closed_loop(self, target: Target, clients: int, warmup: float, duration: float) -> dict[str, Any]:
        """`clients` workers each send back-to-back requests; completions inside the window count."""
        conns = [self.client(target) for _ in range(clients)]
        for c in conns:  # connect (and warm) every connection before the clock starts
            await c.send()
        start = perf()
        window_start = start + warmup
        window_end = window_start + duration
        samples: list[Sample] = []
        errors = 0

        async def worker(c: Any) -> None:
            nonlocal errors
            while perf() < window_end:
                try:
                    sample, _ = await c.send()
                except (ConnectionError, OSError):
                    errors += 1
                    continue
                samples.append(sample)

        gc.collect()
        gc.disable()
        try:
            await asyncio.gather(*(worker(c) for c in conns))
        finally:
            gc.enable()
            for c in conns:
                await c.close()
        inside = [s for s in samples if window_start <= s.end <= window_end]
        return {
            "samples": inside,
            "all_completed": len(samples) + clients,  # including warmup and connection set-up
            "completed": len(inside),
            "failed": sum(1 for s in inside if not s.ok) + errors,
            "window_start": window_start,
            "window_end": window_end,
        }


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of unsorted values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[k]
