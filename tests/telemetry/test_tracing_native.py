"""The native export path (`gateway.telemetry.native_export`, fastotel's processor, #31): the bytes a
collector receives from it decode to the very request the OpenTelemetry exporters' own encoder makes
for the same spans, and a door on http/protobuf takes it (on grpc, or with `GATEWAY_OTEL_NATIVE=0`,
our own `Recorder` path), its spans reaching the collector."""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.support.procs import ROOT, free_port
from tests.telemetry.test_tracing import lean_spans

pytest.importorskip("fastotel")


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
    """`lean_spans` (every field the encoder must carry) ended through `native_export.queue`: the
    request the collector gets parses to the message the library's `encode_spans` makes for the
    same spans as SDK `ReadableSpan`s (field for field, in order; bytes may differ in field order)."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope

    from gateway.telemetry import native_export
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


DOOR = """
import sys
import gateway.telemetry.tracing as t
assert t.setup("http")
print(type(t._recorder).__name__)
with t.span("outer", "server", {"a": 1}) as outer:
    with t.span("inner", "client") as inner:
        pass
t.shutdown()
"""


@pytest.mark.parametrize(
    ("extra", "path"), [({}, "NativeExport"), ({"GATEWAY_OTEL_NATIVE": "0"}, "Recorder")], ids=["native", "ours"]
)
def test_a_process_on_http_protobuf_exports_through_the_native_path(extra: dict[str, str], path: str) -> None:
    """`tracing.setup` on http/protobuf hands spans to fastotel's processor (our `Recorder` when
    told not to), and a parent and its child reach the collector as one trace, the child under it."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    with raw_receiver() as (endpoint, bodies):
        env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        env.update({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": endpoint, "OTEL_BSP_SCHEDULE_DELAY": "50", **extra})
        done = subprocess.run([sys.executable, "-c", DOOR], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == [path]
        spans = [
            span
            for body in bodies
            for rs in ExportTraceServiceRequest.FromString(body).resource_spans
            for ss in rs.scope_spans
            for span in ss.spans
        ]
    named = {s.name: s for s in spans}
    assert sorted(named) == ["inner", "outer"]
    assert named["inner"].trace_id == named["outer"].trace_id and named["inner"].parent_span_id == named["outer"].span_id
    assert (named["outer"].kind, named["inner"].kind) == (2, 3)  # server, client
