"""The ExtProc's spans: one server span per gRPC stream (one HTTP request through Envoy).

Its parent is the trace context Envoy's OpenTelemetry tracer puts in the ext_proc call's gRPC
metadata (`traceparent`), so one trace reads Envoy -> ExtProc -> backend; without Envoy tracing, a
`traceparent` the client sent (in the request headers Envoy forwards) is the parent instead. Only
used when `gateway.telemetry.tracing.ON`.

Why it reads so little: it runs once per request on the ExtProc's event loop, and there every µs of
Python costs ~5x its hot-loop time (#31). The two values are picked out of the metadata in one
pass (no dict), and `tracing.start_under` makes the span from Envoy's canonical `traceparent`
directly (no `SpanContext`, no `extract` carrier).
"""

from __future__ import annotations

from typing import Any

from gateway.telemetry import tracing

SPAN_NAME = "envoy.service.ext_proc.v3.ExternalProcessor/Process"
RPC_SERVICE = "envoy.service.ext_proc.v3.ExternalProcessor"
_preset: Any = None  # the server span's `tracing.preset` (made at the first span: tracing is on by then)


def _make_preset() -> Any:
    global _preset
    _preset = tracing.preset(SPAN_NAME, {"rpc.system": "grpc", "rpc.service": RPC_SERVICE, "rpc.method": "Process"})
    return _preset


def _text(value: Any) -> str:
    return value if type(value) is str else bytes(value).decode("latin-1")


def client_context(msg: Any) -> tuple[str | None, str]:
    """A client's own `traceparent`/`tracestate` from the first ext_proc message's request headers
    (the parent when Envoy itself does not trace); (None, "") when there is none."""
    parent, state = None, ""
    if msg.WhichOneof("request") != "request_headers":
        return parent, state
    for h in msg.request_headers.headers.headers:  # one pass for both names
        key = h.key
        if key == "traceparent" or key == "tracestate":
            value = h.raw_value.decode("latin-1") if h.raw_value else h.value
            if value and key == "traceparent":
                parent = value
            elif value:
                state = value
    return parent, state


def server_span(context: Any, msg: Any) -> tuple[Any, bool]:
    """The stream's server span, and whether Envoy traces this request (its metadata carries a
    `traceparent`); ``msg`` (the stream's first message) is read for a client's own `traceparent`
    only when Envoy's metadata names no parent (Envoy traces: the usual case).

    When Envoy traces, its router writes its own span's `traceparent` on the backend request after
    every filter (the upstream attempt's with a fleet, `spawn_upstream_span`; else the ingress
    span's), over whatever the ExtProc put there: the ExtProc then adds none (a header mutation
    copied, built and applied per request for nothing, #31)."""
    parent: str | None = None
    state = ""
    try:
        pairs = context.invocation_metadata() or ()
    except Exception:  # a test double, or a context without metadata
        pairs = ()
    for key, value in pairs:  # (4 pairs from Envoy: x-forwarded-for, traceparent, tracestate, x-envoy-internal)
        if key == "traceparent":
            parent = _text(value)
        elif key == "tracestate":
            state = _text(value)
    envoy = parent is not None
    if not envoy:
        parent, state = client_context(msg)
    preset = _preset or _make_preset()
    return tracing.start_under(SPAN_NAME, "server", {}, parent, state, preset), envoy
