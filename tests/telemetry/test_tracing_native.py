"""fastotel's native span processor as `bench.tracing_native` hands it our spans (#31; measured, not
wired: see docs/ARCHITECTURE.md, Tracing, "Fourteenth pass"): the bytes a collector receives from it
decode to the very request the OpenTelemetry exporters' own encoder makes for the same spans, so the
bench prices an export path that sends what ours sends."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import fastotel  # noqa: F401  (the test extra installs it: pyproject.toml)
import pytest

from tests.support.procs import free_port
from tests.telemetry.test_tracing import lean_spans


@contextmanager
def raw_receiver() -> Iterator[tuple[str, list[bytes]]]:
    """An OTLP/HTTP endpoint keeping each request's body as sent."""
    bodies: list[bytes] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1/traces", bodies
    finally:
        server.shutdown()
        thread.join(5)


def test_native_export_sends_what_the_library_encoder_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    """`lean_spans` (every field the encoder must carry) ended through the bench's `queue`: the
    request the collector gets parses to the message the library's `encode_spans` makes for the
    same spans as SDK `ReadableSpan`s (field for field, in order; bytes may differ in field order)."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope

    from bench import tracing_native as native_export
    from gateway.telemetry.lean_tracer import LeanSpan
    from gateway.telemetry.readable import to_readable

    spans = lean_spans()  # (ended with no recorder: nothing queued yet)
    with raw_receiver() as (endpoint, bodies):
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", endpoint)
        native = native_export.NativeExport({}, "http", "svc", "gateway")
        monkeypatch.setattr(LeanSpan, "recorder", native)
        for span in spans:
            native_export.queue(span)
        assert native.processor.force_flush(10_000)
        native.stop()
        assert len(bodies) == 1 and native.dropped == 0
        got = ExportTraceServiceRequest.FromString(bodies[0])
    resource, scope = native_export._View.resource, InstrumentationScope("gateway")
    library = encode_spans([to_readable(s, resource, scope) for s in spans])
    assert got == library
    assert [s.name for s in got.resource_spans[0].scope_spans[0].spans][:4] == ["child", "server", "renamed", ""]
    attributes = {kv.key: kv.value.string_value for kv in got.resource_spans[0].resource.attributes}
    assert attributes["service.name"] == "svc" and attributes["gateway.door"] == "http"
