"""The ExtProc's spans: one server span per gRPC stream (one HTTP request through Envoy).

Its parent is the trace context Envoy's OpenTelemetry tracer puts in the ext_proc call's gRPC
metadata (`traceparent`), so one trace reads Envoy -> ExtProc -> backend; without Envoy tracing, a
`traceparent` the client sent (in the request headers Envoy forwards) is the parent instead. Only
used when `gateway.telemetry.tracing.ON`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from gateway.telemetry import tracing

SPAN_NAME = "envoy.service.ext_proc.v3.ExternalProcessor/Process"
_KEYS = ("traceparent", "tracestate")


def _metadata(context: Any) -> dict[str, str]:
    try:
        pairs: Iterable[tuple[str, Any]] = context.invocation_metadata() or ()
    except Exception:  # a test double, or a context without metadata
        return {}
    found: dict[str, str] = {}
    for k, v in pairs:  # (a loop, not a comprehension: most keys are not ours, and a frame less)
        if k in _KEYS:
            found[k] = v if type(v) is str else v.decode("latin-1")
    return found


def server_span(context: Any, headers: Callable[[], dict[str, str]]) -> tuple[Any, bool]:
    """The stream's server span, and whether Envoy traces this request (its metadata named the
    parent); ``headers`` gives the request's (`traceparent`, `tracestate` only), read only when
    Envoy's metadata names no parent (Envoy traces: the usual case).

    When Envoy traces, its router writes its upstream span's `traceparent` on the backend request
    after every filter (`spawn_upstream_span`), over whatever the ExtProc put there: the ExtProc
    then adds none (a header mutation copied, built and applied per request for nothing, #31)."""
    envoy = _metadata(context)
    carrier = envoy or headers()
    span = tracing.start_span(
        SPAN_NAME,
        "server",
        {
            "rpc.system": "grpc",
            "rpc.service": "envoy.service.ext_proc.v3.ExternalProcessor",
            "rpc.method": "Process",
        },
        parent=tracing.extract(carrier),
        own=True,
    )
    return span, "traceparent" in envoy
