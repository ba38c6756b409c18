"""Spans exported by `fastotel`'s native processor, when it is installed and the protocol is
`http/protobuf` (#31): its `Processor.on_end` copies an ended span into Rust and returns; a native
thread batches, encodes, compresses and POSTs without the GIL (the `OTEL_EXPORTER_OTLP_*` and
`OTEL_BSP_*` semantics and retries of the SDK's exporter and batch processor). Our `Recorder` path
(`span_queue`, `otlp_encode`) stays for `grpc`, and whenever `fastotel` does not import.

Why: the HTTP door's steadiest tracing cost was the queue-and-export path (~4 points: the record,
our Python encoder at ~2.1 us a span on the export thread, the POST, all holding the GIL).

What the native side reads (probed with a logging proxy; fastotel 0.9.1) from the object given to
`on_end`, which need not be an SDK `ReadableSpan`: `name`, `start_time`, `end_time`, `attributes` (a
mapping), `dropped_attributes`/`_events`/`_links`, `kind.value`, `status.status_code.value` and
`status.description`, `context.trace_id`/`span_id`/`trace_flags` (an int: unsampled is not
exported)/`trace_state.items()`, `parent` (None, or `trace_id`/`span_id`/`is_remote`), `events` (each
`name`, `timestamp`, `attributes`, `dropped_attributes`), `links` (the API's `Link`s), `resource`
(`attributes`, `schema_url`) and `instrumentation_scope` (`name`, `version`, `attributes`,
`schema_url`). So a `LeanSpan`'s end hands it a `_View` (one slotted object, itself the span's
context) and builds no SDK object.

Pre-alpha risk (fastotel says so): "a process forked after the first span exports nothing from the
child". The doors call `tracing.setup` after any fork, and no span is made before it, so a pool
parent never has.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opentelemetry import trace

from gateway.telemetry.readable import api_kind
from gateway.telemetry.span_records import queue_span

# OTLP kind number (a `LeanSpan`'s) -> the API's `SpanKind` (numbered from 0: the native side adds 1)
_KINDS = {number: api_kind(number) for number in range(1, 6)}
_EMPTY: dict[str, Any] = {}  # (read only: an event without attributes, a span without trace state)


class _Status:
    __slots__ = ("description", "status_code")

    def __init__(self, code: int, description: str | None) -> None:
        self.status_code = trace.StatusCode(code)
        self.description = description


_STATUS = {code.value: _Status(code.value, None) for code in trace.StatusCode}


class _Parent:
    __slots__ = ("is_remote", "span_id", "trace_id")

    def __init__(self, trace_id: int, span_id: int, is_remote: bool) -> None:
        self.trace_id = trace_id
        self.span_id = span_id
        self.is_remote = is_remote


class _Event:
    __slots__ = ("attributes", "name", "timestamp")
    dropped_attributes = 0

    def __init__(self, name: str, timestamp: int, attributes: Mapping[str, Any] | None) -> None:
        self.name = name
        self.timestamp = timestamp
        self.attributes = attributes if attributes is not None else _EMPTY


class _View:
    """An ended `LeanSpan` as the native processor reads it (see the module); also its own
    `context` (trace_id, span_id, trace_flags, trace_state)."""

    __slots__ = (
        "attributes",
        "dropped_attributes",
        "end_time",
        "events",
        "kind",
        "links",
        "name",
        "parent",
        "span_id",
        "start_time",
        "status",
        "trace_id",
        "trace_state",
    )
    trace_flags = 1  # (sampled: a `LeanSpan` is one)
    dropped_events = 0
    dropped_links = 0
    resource: Any = None  # the process's, set by `NativeExport`
    instrumentation_scope: Any = None

    @property
    def context(self) -> _View:
        return self


class NativeExport:
    """The `fastotel` processor spans go to; `LeanSpan._queue` is bound to `queue` by `setup`."""

    def __init__(self, env: Mapping[str, str], door: str, default_service: str, scope: str) -> None:
        from fastotel import OTLPSpanProcessor
        from opentelemetry.sdk.util.instrumentation import InstrumentationScope

        from gateway.telemetry.span_queue import number, resource_of

        _View.resource = resource_of(env, door, default_service)
        _View.instrumentation_scope = InstrumentationScope(scope)
        # (fastotel reads the environment itself too; these are the values our `Recorder` reads)
        self.processor = OTLPSpanProcessor(
            max_queue_size=number(env, "OTEL_BSP_MAX_QUEUE_SIZE", 2048),
            schedule_delay_millis=number(env, "OTEL_BSP_SCHEDULE_DELAY", 5000),
            max_export_batch_size=min(
                number(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512), number(env, "OTEL_BSP_MAX_QUEUE_SIZE", 2048)
            ),
        )
        self.on_end = self.processor._native.on_end  # (the native call itself: a Python frame less a span)

    def stop(self) -> None:
        """Export what is queued and stop the native thread (`tracing.shutdown`)."""
        self.processor.shutdown()

    @property
    def dropped(self) -> int:
        return int(self.processor._native.dropped_spans())


def queue(span: Any) -> None:
    """`LeanSpan._queue` on the native path: the ended ``span`` as a `_View`, to the processor (a
    `Recorder` put in its place, as tests do, gets the span as our own path queues it)."""
    recorder = span.recorder
    if type(recorder) is not NativeExport:
        queue_span(span)
        return
    view = _View()
    view.name = span.name
    view.trace_id = span.trace_id
    view.span_id = span.span_id
    state = span.trace_state
    view.trace_state = state if state is not None else _EMPTY
    remote = span.parent_remote
    view.parent = None if remote is None else _Parent(span.trace_id, span.parent_id, remote)
    view.kind = _KINDS[span.kind]
    message = span.status_message
    view.status = _Status(span.status_code, message) if message else _STATUS[span.status_code]
    view.start_time = span.start
    view.end_time = span.end_ns
    preset = span.preset
    attributes = span.attributes if preset is None else {**preset.attributes, **span.attributes}
    if None in attributes.values():  # (a None given at the start: left out, as the library's encoder does)
        attributes = {key: value for key, value in attributes.items() if value is not None}
    view.attributes = attributes
    view.dropped_attributes = span.dropped_attributes
    events = span.events
    view.events = () if events is None else [_Event(name, at, attributes) for name, at, attributes in events]
    links = span.links
    view.links = () if links is None else links
    recorder.on_end(view)
