"""The export of queued spans from the door's own event loop, for a plain `http://` collector over
`http/protobuf`: no export thread (#31).

Why: with the export thread (`span_queue.Recorder`) a batch's encoding and POST run in a second
thread that takes the GIL from the event loop, and the queue and export path read ~4 points of the
HTTP door's CPU in place against ~8-10 us a request hot (ARCHITECTURE, thirteenth pass). Here the
same work runs on the loop, between its events: the batch's records are encoded in slices (the loop
serves requests between them), and the joined bytes are POSTed over one kept-alive connection by
asyncio's streams (uvloop's transports), never awaited by a request.

Same rules as the thread (`Recorder.drain`): a full batch is sent when it is complete; at each
`OTEL_BSP_SCHEDULE_DELAY` tick one batch of whatever waits, then full ones; one export at a time,
spans arriving meanwhile wait in the bounded queue (full, `queue_span` drops them). The exporter's
settings are the library exporter's own (endpoint, headers with its content type and user agent,
timeout, compression), and so are its retry rules: retryable statuses and connection errors are
retried with exponential backoff and jitter (`Retry-After` honoured) until the timeout, a refused
connection's batch is dropped then; nothing grows while the collector is dead or slow.

Taken only when the exporter posts through `otlp_http.KeepAliveTransport` (plain http, no proxy,
`.netrc` or credential provider: `otlp_exporter.plain_http`); anything else keeps the thread, and
so does a process without a running loop (`tracing.on_loop` is what switches, from
`gateway.process.loop.run`). At the loop's end `close` sends what is left within a bound; what a
dead collector leaves then goes to the exit flush (`tracing.shutdown`: the thread path's exporter).
"""

from __future__ import annotations

import asyncio
import gzip
import logging
import random
import zlib
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from gateway.telemetry.otlp_encode import record_bytes
from gateway.telemetry.span_queue import Recorder

log = logging.getLogger(__name__)

SLICE = 64  # records encoded between two turns of the loop (~0.3-0.6 ms of CPU)
MAX_RETRIES = 6  # the library's `_MAX_RETRIES`
RETRYABLE = frozenset({429, 502, 503, 504})  # the library's `_RETRYABLE_STATUS_CODES`


class Wake:
    """What `span_queue`'s `put`/`queue_span` call as the recorder's `wake` (a `threading.Event`
    for the thread): ``set`` schedules a send of the full batch on the loop, once until it runs."""

    __slots__ = ("flag", "kick")

    def __init__(self, kick: Callable[[], None]) -> None:
        self.flag = False
        self.kick = kick

    def is_set(self) -> bool:
        return self.flag

    def set(self) -> None:
        self.flag = True
        self.kick()

    def clear(self) -> None:
        self.flag = False


class LoopExporter:
    """Drains a `Recorder`'s queue from ``loop`` to ``url`` (see the module)."""

    def __init__(
        self,
        recorder: Recorder,
        loop: asyncio.AbstractEventLoop,
        *,
        url: str,
        headers: dict[str, str],
        timeout: float,
        compression: str,
        encode: Callable[[list[Any]], bytes],
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme.lower() != "http" or parts.username is not None:
            raise ValueError(f"the loop's export sends plain http only, not {parts.scheme}://")
        self.recorder, self.loop, self.encode = recorder, loop, encode
        self.host, self.port = parts.hostname or "localhost", parts.port or 80
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        fields = {k.lower(): v for k, v in headers.items()}
        if compression != "none" and "content-encoding" not in fields:
            fields["content-encoding"] = compression
        host = self.host if parts.port is None else f"{self.host}:{self.port}"
        lines = [f"POST {path} HTTP/1.1", f"Host: {host}"]
        lines += [f"{k}: {v}" for k, v in fields.items() if k not in ("host", "content-length", "connection")]
        self.head = ("\r\n".join(lines) + "\r\nContent-Length: ").encode("latin-1")
        self.timeout = timeout
        self.compression = compression
        self.wake = Wake(self._kick)
        self.sending: asyncio.Task[None] | None = None
        self.tick: asyncio.TimerHandle | None = None
        self.stream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self.closed = False
        self.sent = self.failed = 0  # batches (tests, diagnosis)

    def start(self) -> None:
        """Take the queue over from the recorder's thread (stopped here; what it holds stays queued)."""
        self.recorder.wake = self.wake  # type: ignore[assignment]
        self.tick = self.loop.call_later(self.recorder.delay_s, self._tick)
        if len(self.recorder.queue) >= self.recorder.max_batch:
            self._kick()

    # -- scheduling (the thread's `_run`/`drain` rules) --------------------------------------------
    def _kick(self) -> None:
        try:
            self.loop.call_soon_threadsafe(self._pump, False)  # (a span may end off the loop)
        except RuntimeError:  # the loop is closed: the exit flush takes the queue
            pass

    def _tick(self) -> None:
        self.tick = self.loop.call_later(self.recorder.delay_s, self._tick)
        self._pump(True)

    def _pump(self, one: bool) -> None:
        """Start a send of one batch (any size when ``one``, else a full one), unless one is on the wire."""
        self.wake.clear()
        if self.closed or self.sending is not None:
            return
        queue, size = self.recorder.queue, self.recorder.max_batch
        if queue and (one or len(queue) >= size):
            take = queue.popleft
            batch = [take() for _ in range(min(len(queue), size))]
            self.sending = self.loop.create_task(self._send(batch))
            self.sending.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self.sending = None
        if not task.cancelled() and task.exception() is not None:
            log.error("exporting spans failed", exc_info=task.exception())
        if not self.closed:
            self._pump(False)  # full batches that came meanwhile

    # -- one batch ---------------------------------------------------------------------------------
    async def _send(self, batch: list[Any]) -> None:
        data = await self._encoded(batch)
        if self.compression == "gzip":
            data = gzip.compress(data)
        elif self.compression == "deflate":
            data = zlib.compress(data)
        request = b"".join((self.head, str(len(data)).encode(), b"\r\n\r\n", data))
        deadline = self.loop.time() + self.timeout
        for retry in range(MAX_RETRIES):
            backoff = 2**retry * random.uniform(0.8, 1.2)
            status, retry_after, error = await self._post(request, deadline)
            if error is not None and isinstance(error, OSError) and self.loop.time() < deadline:
                status, retry_after, error = await self._post(request, deadline)  # a stale connection: once more
            if status is not None and 200 <= status < 400:
                self.sent += 1
                return
            retryable = status in RETRYABLE if status is not None else isinstance(error, OSError)
            if not retryable:
                break
            if retry_after is not None:
                backoff = retry_after
            if retry + 1 == MAX_RETRIES or backoff > deadline - self.loop.time() or self.closed:
                break
            await asyncio.sleep(backoff)
        self.failed += 1
        log.error("failed to export %d spans: status %s, %s", len(batch), status, error or "no success")

    async def _encoded(self, batch: list[Any]) -> bytes:
        """The batch's request body; records encoded `SLICE` at a time, the loop's other work between."""
        for start in range(0, len(batch), SLICE):
            if start:
                await asyncio.sleep(0)
            for i in range(start, min(start + SLICE, len(batch))):
                body = batch[i]
                if type(body) is not bytes:
                    try:
                        batch[i] = record_bytes(body)
                    except Exception:  # never the batch over one span
                        log.exception("encoding span %r failed", body[5] if len(body) > 5 else "?")
                        self.recorder.lost()
                        batch[i] = b""
        return self.encode([body for body in batch if body])

    async def _post(self, request: bytes, deadline: float) -> tuple[int | None, float | None, Exception | None]:
        """One POST over the kept-alive connection (opened if need be): its status and `Retry-After`,
        or the error that stopped it (the connection is then dropped)."""
        try:
            async with asyncio.timeout_at(deadline):
                if self.stream is None:
                    self.stream = await asyncio.open_connection(self.host, self.port)
                reader, writer = self.stream
                writer.write(request)
                await writer.drain()
                status, retry_after, keep = await _response(reader)
            if not keep:
                self._drop()
            return status, retry_after, None
        except Exception as error:  # reported as the result: retried or logged, never raised
            self._drop()
            return None, None, error

    def _drop(self) -> None:
        if self.stream is not None:
            self.stream[1].close()
            self.stream = None

    # -- the end -----------------------------------------------------------------------------------
    async def close(self, seconds: float) -> None:
        """Send what is queued (whole batches while time is left), at most ``seconds``; then hand the
        queue back to the recorder (a threading `Event` again) for the exit flush."""
        import threading

        if self.tick is not None:
            self.tick.cancel()
        deadline = self.loop.time() + seconds
        try:
            async with asyncio.timeout_at(deadline):
                if self.sending is not None:
                    await asyncio.shield(self.sending)
                while self.recorder.queue:
                    self._pump(True)
                    if self.sending is None:
                        break
                    await asyncio.shield(self.sending)
        except (TimeoutError, asyncio.CancelledError):
            log.warning("spans left unsent at the loop's end: %d", len(self.recorder.queue))
        self.closed = True
        if self.sending is not None:
            self.sending.cancel()
        self._drop()
        self.recorder.wake = threading.Event()


async def _response(reader: asyncio.StreamReader) -> tuple[int, float | None, bool]:
    """Read one response: its status, `Retry-After` (seconds) and whether the connection may carry another."""
    line = await reader.readline()
    parts = line.split(None, 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/"):
        raise ConnectionError(f"not an HTTP response: {line[:80]!r}")
    status = int(parts[1])
    length, chunked, keep, retry_after = -1, False, parts[0] == b"HTTP/1.1", None
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.partition(b":")
        name, value = name.strip().lower(), value.strip()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding":
            chunked = b"chunked" in value.lower()
        elif name == b"connection":
            keep = value.lower() != b"close" and (keep or value.lower() == b"keep-alive")
        elif name == b"retry-after" and value.isdigit():
            retry_after = float(value)
    if chunked:
        while size := int((await reader.readline()).split(b";")[0].strip() or b"0", 16):
            await reader.readexactly(size + 2)
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass  # trailers
    elif length >= 0:
        await reader.readexactly(length)
    elif status >= 200 and status not in (204, 304):
        await reader.read()  # the body runs to the connection's end
        keep = False
    return status, retry_after, keep


def loop_exporter(recorder: Recorder, exporter: Any, loop: asyncio.AbstractEventLoop) -> LoopExporter | None:
    """A `LoopExporter` with ``exporter``'s settings, or None when the export stays on the thread:
    not the kept-alive plain-http exporter (`otlp_http`), or a library version whose private
    client this module does not know."""
    from gateway.telemetry.otlp_http import KeepAliveTransport

    client: Any = getattr(exporter, "_client", None)
    encode = getattr(recorder, "encode", None)
    if not isinstance(getattr(client, "_transport", None), KeepAliveTransport) or encode is None:
        return None
    try:
        compression = str(getattr(client._compression, "value", client._compression) or "none").lower()
        return LoopExporter(
            recorder,
            loop,
            url=str(client._endpoint),
            headers=dict(client._headers),
            timeout=float(client._timeout),
            compression=compression,
            encode=encode,
        )
    except (AttributeError, TypeError, ValueError):
        return None
