"""The OTLP/HTTP exporter's transport to a plain `http://` collector: one kept-alive `http.client`
connection, used only by the export thread.

Why: the exporter's default transport (`requests`) spent ~1.0-1.4 ms of CPU on every export
(session and adapter layers, header dicts, URL parsing, `urllib3`'s pool, a `Protocol` isinstance
check), against ~0.27 ms here for the same POST; `urllib3`'s own transport was ~0.6 ms. The export
thread shares the GIL with the event loop, so each batch's request is CPU the door pays (#31,
`bench.tracing_micro --export`). The exporter keeps everything else: endpoint, headers
(`OTEL_EXPORTER_OTLP_*HEADERS`, its content type and user agent), timeout, compression, retries
and backoff; this transport only sends a request and reports an error as its result.

Only for plain `http://` with nothing the environment could add (proxies, `.netrc`, a
credential provider: `otlp_exporter.plain_http`); anything else keeps the exporter's own transport.
"""

from __future__ import annotations

import http.client
import inspect
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from opentelemetry.exporter.http.transport._base import BaseHTTPResult, BaseHTTPTransport


@dataclass(frozen=True, slots=True)
class Result(BaseHTTPResult):
    """A collector's answer (or, with ``error``, why there was none)."""

    body: bytes = b""
    header: Any = None  # the response's `http.client.HTTPMessage`: a case-insensitive mapping

    def content(self) -> bytes:
        return self.body

    def headers(self) -> Mapping[str, str]:
        return self.header if self.header is not None else {}  # type: ignore[no-any-return]


class KeepAliveTransport(BaseHTTPTransport):
    """POSTs over one persistent connection to the collector, reopened after any failure."""

    def __init__(self) -> None:
        self._connection: http.client.HTTPConnection | None = None
        self._target: tuple[str, int, str] | None = None
        self._path = "/"
        self._lock = threading.Lock()  # the export thread, or the exit flush after it: never both at once

    def request(
        self,
        method: str,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
        data: bytes | None = None,
    ) -> BaseHTTPResult:
        with self._lock:
            try:
                connection, path = self._connect(url, timeout)
                connection.request(method, path, body=data, headers=headers or {})
                response = connection.getresponse()
                body = response.read()  # all of it, so the connection can carry the next export
                if response.will_close:
                    self._close()
                return Result(status_code=response.status, reason=response.reason, body=body, header=response.msg)
            except Exception as error:  # reported to the exporter, which retries or logs; never raised
                self._close()
                return Result(error=error)

    def _connect(self, url: str, timeout: float | None) -> tuple[http.client.HTTPConnection, str]:
        if self._target is None or self._target[2] != url:
            self._close()
            parts = urlsplit(url)
            if parts.scheme.lower() != "http" or parts.username is not None:  # never https in clear text
                raise ValueError(f"the kept-alive transport sends plain http only, not {parts.scheme}://")
            path = parts.path or "/"
            self._target = (parts.hostname or "localhost", parts.port or 80, url)
            self._path = path + (f"?{parts.query}" if parts.query else "")
        connection = self._connection
        if connection is None:
            host, port, _ = self._target
            connection = self._connection = http.client.HTTPConnection(host, port, timeout=timeout)
        elif connection.sock is not None:
            connection.sock.settimeout(timeout)
        connection.timeout = timeout
        return connection, self._path

    def _close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def is_connection_error(self, exception: Exception | None) -> bool:
        """A refused, reset or stale connection (the exporter retries it at once, once); a timeout is not."""
        if isinstance(exception, TimeoutError):
            return False
        return isinstance(exception, (OSError, http.client.HTTPException))

    def close(self) -> None:
        with self._lock:
            self._close()


_REQUEST_PARAMETERS = ["self", "method", "url", "headers", "timeout", "data"]


def exporter(trace_exporter: Any) -> Any:
    """The library's `OTLPSpanExporter` over a `KeepAliveTransport`, or None when this version of
    the exporter takes no transport, or calls it otherwise than this module was written against
    (the hook is private: a changed `request` signature would fail every export with only a log
    line, so the exporter then keeps its own transport), or its endpoint is not plain http."""
    if list(inspect.signature(BaseHTTPTransport.request).parameters) != _REQUEST_PARAMETERS:
        return None
    try:
        built = trace_exporter.OTLPSpanExporter(_transport=KeepAliveTransport())
    except TypeError:
        return None
    endpoint = urlsplit(str(getattr(built, "_endpoint", "")))
    if endpoint.scheme.lower() != "http" or endpoint.username is not None:
        built.shutdown()
        return None
    return built
