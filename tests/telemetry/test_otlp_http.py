"""The OTLP/HTTP export to a plain `http://` collector (`gateway.telemetry.otlp_http`, #31): the
exporter's own request (path, content type, `OTEL_EXPORTER_OTLP_TRACES_HEADERS`, body) over one
kept-alive connection, a collector restarted under it (a stale connection) costs no batch, and a
collector that is gone fails the export without raising."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.support.procs import free_port


class _Collector(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int) -> None:
        self.seen: list[dict[str, Any]] = []
        self.connections: list[socket.socket] = []
        super().__init__(("127.0.0.1", port), _Handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        connection, address = super().get_request()
        self.connections.append(connection)
        return connection, address


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a collector answers

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        server: Any = self.server
        headers = {k.lower(): v for k, v in self.headers.items()}
        server.seen.append({"path": self.path, "headers": headers, "body": body, "peer": self.client_address})
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def _collector(port: int) -> Iterator[_Collector]:
    server = _Collector(port)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        for connection in server.connections:  # a stopped collector drops its kept-alive connections
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


def test_plain_http_export_keeps_the_exporters_request_and_survives_restarts(monkeypatch: pytest.MonkeyPatch) -> None:
    from opentelemetry.sdk.trace.export import SpanExportResult

    from gateway.telemetry import otlp_exporter, otlp_http

    port = free_port()
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-tenant=blue",
        "OTEL_EXPORTER_OTLP_TIMEOUT": "2",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    if not otlp_exporter.plain_http(env):
        pytest.skip("a proxy variable or .netrc here: the exporter keeps its own transport")
    exporter = otlp_exporter.exporter(env, lambda batch: b"".join(batch))
    assert isinstance(exporter._client._transport, otlp_http.KeepAliveTransport)
    with _collector(port) as collector:
        assert exporter.export([b"one"]) is SpanExportResult.SUCCESS
        assert exporter.export([b"two"]) is SpanExportResult.SUCCESS
        first, second = collector.seen
        assert first["path"] == "/v1/traces" and first["body"] == b"one" and second["body"] == b"two"
        assert first["headers"]["content-type"] == "application/x-protobuf"
        assert first["headers"]["x-tenant"] == "blue"
        assert first["peer"] == second["peer"]  # one connection, kept alive
    with _collector(port) as collector:  # the same collector restarted: the kept connection is stale
        assert exporter.export([b"three"]) is SpanExportResult.SUCCESS
        assert [r["body"] for r in collector.seen] == [b"three"]
    exporter._client._shutdown_event.set()  # no backoff sleeps: a failed export returns at once
    assert exporter.export([b"four"]) is SpanExportResult.FAILURE  # nobody listens: fails, never raises
    exporter.shutdown()


@pytest.mark.parametrize(
    ("endpoint", "extra"),
    [
        ("http://127.0.0.1:4318", {"Http_Proxy": "http://proxy.invalid:3128"}),  # any case, as urllib reads it
        ("http://127.0.0.1:4318", {"all_proxy": "http://proxy.invalid:3128"}),
        ("http://user:secret@127.0.0.1:4318", {}),  # `requests` sends the user as Basic auth
        ("https://127.0.0.1:4318", {}),
    ],
)
def test_anything_the_environment_or_url_adds_keeps_the_exporters_own_transport(
    monkeypatch: pytest.MonkeyPatch, endpoint: str, extra: dict[str, str]
) -> None:
    from gateway.telemetry import otlp_exporter, otlp_http

    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, **extra}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert not otlp_exporter.plain_http(env)
    exporter = otlp_exporter.exporter(env, lambda batch: b"".join(batch))
    try:
        assert not isinstance(exporter._client._transport, otlp_http.KeepAliveTransport)
    finally:
        exporter.shutdown()
