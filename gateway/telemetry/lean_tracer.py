"""A lean span recorder behind `gateway.telemetry.tracing`: spans of our own, exported by the OTLP exporters.

Why not the SDK's `Tracer`/`Span`: with a local collector, tracing cost the doors +30-49 % CPU per
non-streamed request against the issue's 5 % (#31). Most of it was the SDK's own bookkeeping, not
OTLP: a bare span (start + end) took ~34 us (a sampler call through three layers, `BoundedAttributes`
with a lock and a per-value type check, two `SpanContext`s, the processor chain, a `ReadableSpan`
copy at the end), and encoding took ~35 us more a span. A `LeanSpan` is a slotted record: ids,
times, the attribute dict as given, events and links as lists; `end` appends a record of it (a tuple
of atoms, which the garbage collector soon untracks) to a deque, or for a span holding containers
or mutable values its OTLP bytes (`gateway.telemetry.span_records`; `gateway.telemetry.otlp_encode`,
byte-identical to the library's encoder for the same spans). A daemon thread takes batches off it
every `OTEL_BSP_SCHEDULE_DELAY` (or when `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` wait), joins them into one
export request and hands it to the library's `OTLPSpanExporter` of the configured protocol, which
keeps its headers, timeout, compression and retries (and its transport, but to a plain-http
collector: `gateway.telemetry.otlp_http`). A full queue (`OTEL_BSP_MAX_QUEUE_SIZE`) drops the span,
so a dead collector never holds the event loop.

What stays OpenTelemetry's: `LeanSpan` *is* an `opentelemetry.trace.Span`, made current in our own
context variable, which the API's runtime context is bridged to
(`gateway.telemetry.context_bridge`), so the API's propagators (`traceparent`/`tracestate` out),
`get_current_span` and anything else using the API see it as any span. The `Resource` is the SDK's
(`Resource.create`: `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, detectors), and
`OTEL_TRACES_SAMPLER`/`_ARG` name the same six samplers with the SDK's semantics (the ratio test on
the trace id's low 64 bits).

What it costs to maintain: the span limits are a count (128 attributes, events, links, the SDK's
defaults; `OTEL_*_COUNT_LIMIT`), not the SDK's value-length truncation; attribute values are stored
as given (call sites pass str/bool/int/float or lists of those; anything else is left out when
encoded, as the library's encoder does). A change of the OTLP protos would need `otlp_encode`
updated; the byte-compatibility test fails first.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Link, SpanContext, Status, StatusCode, TraceFlags, TraceState

from gateway.telemetry.presets import Preset
from gateway.telemetry.sampling import U64 as _U64
from gateway.telemetry.sampling import Sampler, UnsampledSpan
from gateway.telemetry.span_queue import Recorder
from gateway.telemetry.span_records import queue_span

__all__ = ["KINDS", "LeanSpan", "LeanTracer", "Recorder", "Sampler", "UnsampledSpan"]

KINDS = {"internal": 1, "server": 2, "client": 3, "producer": 4, "consumer": 5}  # OTLP Span.SpanKind
_SAMPLED = TraceFlags(TraceFlags.SAMPLED)
_time_ns = time.time_ns
_bits = random.getrandbits


class LeanSpan(trace.Span):
    """One span being recorded (sampled), then queued for export at `end`. Its attributes are a
    plain dict (no lock: a span lives on one event loop), over a `Preset`'s shared ones until it sets
    one of the preset's keys (then it takes its own copy)."""

    __slots__ = (
        "_context",
        "attributes",
        "dropped_attributes",
        "end_ns",
        "events",
        "kind",
        "links",
        "name",
        "parent_id",
        "parent_remote",
        "preset",
        "span_id",
        "start",
        "status_code",
        "status_message",
        "trace_id",
        "trace_state",
        "trace_state_header",
    )
    limit = 128  # attributes, events and links per span (OTEL_SPAN_*_COUNT_LIMIT, set by `setup`)
    recorder: Recorder | None = None
    records = True  # a call site builds the span's attributes only for a recorded span (#31)

    def __init__(
        self,
        name: str,
        kind: int,
        trace_id: int,
        span_id: int,
        parent_id: int,
        parent_remote: bool | None,
        trace_state: TraceState | None,
        attributes: dict[str, Any],
        links: list[Link] | None,
        preset: Preset | None = None,
    ) -> None:
        self.name = name
        self.preset = preset  # attributes shared with other spans, before ``attributes`` (see `Preset`)
        self.kind = kind
        self.trace_id = trace_id
        self.span_id = span_id
        self.parent_id = parent_id
        self.parent_remote = parent_remote  # None: a root; else whether the parent came from elsewhere
        self.trace_state = trace_state
        self.trace_state_header = trace_state.to_header() if trace_state else ""
        self.attributes = attributes
        self.dropped_attributes = 0
        # (a tuple when `end_with` adds the only one: a list less per span)
        self.events: list[tuple[str, int, Any]] | tuple[tuple[str, int, Any], ...] | None = None
        self.links = links
        self.status_code = 0
        self.status_message = ""
        self.end_ns = 0
        self._context: SpanContext | None = None
        self.start = _time_ns()

    # -- the API's Span ------------------------------------------------------------------------------
    def get_span_context(self) -> SpanContext:
        context = self._context
        if context is None:
            state = self.trace_state if self.trace_state is not None else TraceState()
            context = self._context = SpanContext(self.trace_id, self.span_id, False, _SAMPLED, state)
        return context

    def all_attributes(self) -> dict[str, Any]:
        """The preset's attributes and the span's own, as exported (a copy when there is a preset)."""
        preset = self.preset
        return self.attributes if preset is None else {**preset.attributes, **self.attributes}

    def _own_preset(self) -> None:
        """One of the preset's keys is being set: the span takes the preset's attributes as its
        own (first, as they were) and stops sharing them."""
        self.attributes = self.all_attributes()
        self.preset = None

    def set_attribute(self, key: str, value: Any) -> None:
        if self.end_ns or value is None:
            return
        preset = self.preset
        if preset is not None and key in preset.keys:
            self._own_preset()
            preset = None
        attributes = self.attributes
        if key not in attributes and len(attributes) + (len(preset.keys) if preset else 0) >= self.limit:
            self.dropped_attributes += 1
            return
        attributes[key] = value

    def set_attributes(self, attributes: Mapping[str, Any]) -> None:
        if self.end_ns:
            return
        self._update(attributes)

    def _update(self, attributes: Mapping[str, Any]) -> None:
        """Add ``attributes``; past the limit, the last ones are dropped (and counted)."""
        preset = self.preset
        if preset is not None and not preset.keys.isdisjoint(attributes):
            self._own_preset()
            preset = None
        mine = self.attributes
        mine.update(attributes)
        room = self.limit - (len(preset.keys) if preset else 0)
        if len(mine) > room:
            for key in list(mine)[max(room, 0) :]:
                del mine[key]
                self.dropped_attributes += 1

    def add_event(self, name: str, attributes: Mapping[str, Any] | None = None, timestamp: int | None = None) -> None:
        if self.end_ns:
            return
        events = self.events
        if events is None:
            events = self.events = []
        if len(events) < self.limit:
            assert type(events) is list  # (a tuple only once ended)
            events.append((name, timestamp or _time_ns(), attributes))

    def add_link(self, context: SpanContext, attributes: Mapping[str, Any] | None = None) -> None:
        if self.end_ns or not context.is_valid:
            return
        if self.links is None:
            self.links = []
        if len(self.links) < self.limit:
            self.links.append(Link(context, attributes))

    def update_name(self, name: str) -> None:
        if not self.end_ns:
            self.name = name

    def is_recording(self) -> bool:
        return not self.end_ns

    def set_status(self, status: Status | StatusCode, description: str | None = None) -> None:
        if self.end_ns or self.status_code == StatusCode.OK.value:  # OK is final, as in the SDK
            return
        if isinstance(status, Status):
            code, description = status.status_code, status.description
        else:
            code = status
        self.status_code = code.value
        self.status_message = (description or "") if code is StatusCode.ERROR else ""

    def record_exception(
        self,
        exception: BaseException,
        attributes: Mapping[str, Any] | None = None,
        timestamp: int | None = None,
        escaped: bool = False,
    ) -> None:
        kind = type(exception)
        qualified = (
            kind.__qualname__ if kind.__module__ in ("builtins", "") else f"{kind.__module__}.{kind.__qualname__}"
        )
        event: dict[str, Any] = {
            "exception.type": qualified,
            "exception.message": str(exception),
            "exception.escaped": str(escaped),
        }
        event.update(attributes or {})
        self.add_event("exception", event, timestamp)

    def end_with(self, attributes: dict[str, Any] | None, event: tuple[str, int] | None = None) -> None:
        """`set_attributes(attributes)`, `add_event(*event)` (a name and its time, no attributes)
        and `end()` in one call: what a call site knows at a span's end, set at once (three calls
        per span of a request fewer, #31)."""
        if self.end_ns:
            return
        if attributes:
            preset = self.preset
            mine = self.attributes
            if preset is None and len(mine) + len(attributes) <= self.limit:
                mine.update(attributes)  # (the usual case, without a call)
            elif (
                preset is not None
                and preset.keys.isdisjoint(attributes)
                and (len(preset.keys) + len(mine) + len(attributes) <= self.limit)
            ):
                mine.update(attributes)
            else:
                self._update(attributes)
        if event is not None:
            events = self.events
            if events is None:
                self.events = ((event[0], event[1], None),)
            elif type(events) is list and len(events) < self.limit:
                events.append((event[0], event[1], None))
        self.end_ns = _time_ns()  # `end()`, written out (a call less per span)
        if self.recorder is not None:
            self._queue()

    def end(self, end_time: int | None = None) -> None:
        if self.end_ns:
            return
        self.end_ns = end_time or _time_ns()
        if self.recorder is not None:
            self._queue()

    _queue = queue_span  # (`span_records`: the record, or the bytes, put on the queue)


def new_span(
    name: str,
    kind: int,
    trace_id: int,
    parent_id: int,
    remote: bool | None,
    state: TraceState | None,
    attributes: Mapping[str, Any] | None,
    own: bool,
    links: Sequence[Link] | None,
    preset: Preset | None,
    span_id: int = 0,
) -> LeanSpan:
    """The one place a `LeanSpan` is made (every start path of `LeanTracer` and `tracing.start_span`'s
    one-step child): a fresh span id unless given, ``attributes`` kept when ``own`` (the caller's
    fresh dict) else copied, only valid ``links``."""
    return LeanSpan(
        name,
        kind,
        trace_id,
        span_id or _bits(64) or _bits(64) or 1,
        parent_id,
        remote,
        state,
        attributes if own and type(attributes) is dict else dict(attributes) if attributes else {},
        [link for link in links if link.context.is_valid] if links else None,
        preset,
    )


class LeanTracer:
    """Starts spans: the parent's ids (a `LeanSpan` read directly, any other span through its
    `SpanContext`), the sampler's decision, fresh random ids."""

    def __init__(self, sampler: Sampler) -> None:
        self.sampler = sampler
        # a recorded parent's children are recorded: a parent-based sampler follows the parent, and
        # always_on (or a ratio of 1) samples every trace id (the bench's sampler: it took the
        # sampler's path for every child span, #31)
        self.follows_parent = sampler.parent_based or sampler.bound > _U64

    def start(
        self,
        name: str,
        kind: int,
        attributes: Mapping[str, Any] | None,
        parent: trace.Span | SpanContext | None,
        links: Sequence[Link] | None = None,
        own: bool = False,
        preset: Preset | None = None,
    ) -> LeanSpan | UnsampledSpan:
        """A span under ``parent`` (a span, a remote `SpanContext`, or None for a new trace);
        ``own``: ``attributes`` is the caller's fresh dict, kept rather than copied; ``preset``:
        the attributes it starts with before ``attributes`` (its name is ``name``)."""
        if preset is not None and attributes and not preset.keys.isdisjoint(attributes):
            attributes, preset, own = {**preset.attributes, **attributes}, None, True
        kind_of_parent = type(parent)
        if kind_of_parent is LeanSpan:
            trace_id, parent_id, remote, state = parent.trace_id, parent.span_id, False, parent.trace_state  # type: ignore[union-attr]
            if self.follows_parent:  # the usual case (a child of a recorded span) in one step, #31
                return new_span(name, kind, trace_id, parent_id, False, state, attributes, own, links, preset)
            parent_sampled: bool | None = True
        else:
            # The usual parents tested by type first: None (a new trace) and a remote `SpanContext`
            # (read as the tuple it is, no property calls); `isinstance` against the API's `Span`, an
            # ABC, only for another span. In a door these run cold, ~10x their hot-loop time (#31).
            context: Any = parent  # (a SpanContext is a tuple: trace_id, span_id, is_remote, flags, state, valid)
            if parent is not None and kind_of_parent is not SpanContext and isinstance(parent, trace.Span):
                context = parent.get_span_context()
            if context is not None and context[5]:
                trace_id, parent_id, remote, flags, state = context[:5]
                parent_sampled = bool(flags & 1)  # TraceFlags.SAMPLED
            else:
                trace_id, parent_id, remote, state, parent_sampled = 0, 0, None, None, None
                while not trace_id:
                    trace_id = _bits(128)
        span_id = 0
        while not span_id:
            span_id = _bits(64)
        if not self.sampler.sampled(trace_id, parent_sampled):
            return UnsampledSpan(trace_id, span_id, state or None)
        return new_span(name, kind, trace_id, parent_id, remote, state or None, attributes, own, links, preset, span_id)
