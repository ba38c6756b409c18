"""A `LeanSpan` as the SDK's `ReadableSpan` (split from `gateway.telemetry.lean_tracer`): the
library's OTLP encoder run on it must give `gateway.telemetry.otlp_encode`'s bytes. Used by the byte-compatibility
test and `bench.tracing_micro`'s comparison, not by the doors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.trace import SpanContext, Status, StatusCode, TraceFlags, TraceState

if TYPE_CHECKING:
    from gateway.telemetry.lean_tracer import LeanSpan

_API_KINDS = {1: trace.SpanKind.INTERNAL, 2: trace.SpanKind.SERVER, 3: trace.SpanKind.CLIENT}
_API_KINDS.update({4: trace.SpanKind.PRODUCER, 5: trace.SpanKind.CONSUMER})  # (OTLP Span.SpanKind numbers)
_SAMPLED = TraceFlags(TraceFlags.SAMPLED)


def api_kind(kind: int) -> trace.SpanKind:
    """The API's `SpanKind` of an OTLP kind number (tests build SDK spans from lean ones)."""
    return _API_KINDS[kind]


def to_readable(span: LeanSpan, resource: Any, scope: Any) -> Any:
    """The SDK `ReadableSpan` holding what ``span`` holds: the library's encoder run on it must give
    `gateway.telemetry.otlp_encode`'s bytes (the compatibility test, and `bench.tracing_micro`'s comparison)."""
    from opentelemetry.attributes import BoundedAttributes
    from opentelemetry.sdk.trace import Event, ReadableSpan

    attributes = BoundedAttributes(attributes={k: v for k, v in span.all_attributes().items() if v is not None})
    attributes.dropped = span.dropped_attributes

    state = span.trace_state if span.trace_state is not None else TraceState()
    parent = None
    if span.parent_remote is not None:
        parent = SpanContext(span.trace_id, span.parent_id, span.parent_remote, _SAMPLED, state)
    return ReadableSpan(
        name=span.name,
        context=span.get_span_context(),
        parent=parent,
        resource=resource,
        attributes=attributes,
        events=[Event(name, attrs, timestamp) for name, timestamp, attrs in span.events or ()],
        links=list(span.links or ()),
        kind=api_kind(span.kind),
        status=Status(StatusCode(span.status_code), span.status_message or None),
        start_time=span.start,
        end_time=span.end_ns,
        instrumentation_scope=scope,
    )
