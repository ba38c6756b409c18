"""The sampler and what it leaves out: `Sampler` (`OTEL_TRACES_SAMPLER`/`_ARG`), `UnsampledSpan`
(a span it left out, made from ints) and `left_out` (the HTTP server span's decision before anything
is built for it), behind `gateway.telemetry.lean_tracer` and `gateway.telemetry.tracing` (#31).

Why a module of its own: the not-recording path (`always_off`, a ratio's left-out traces, an
unsampled remote parent under a parent-based sampler) runs several times a request, and its fast
paths must decide exactly as the SDK's samplers do (tests/telemetry/test_sampling_parity.py checks
them against the SDK's over every sampler setting); here they sit beside the sampler they mirror.
"""

from __future__ import annotations

import logging
import random
from typing import Any

from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, TraceState

__all__ = ["Sampler", "UnsampledSpan", "left_out"]

log = logging.getLogger(__name__)

_NOT_SAMPLED = TraceFlags(TraceFlags.DEFAULT)
U64 = (1 << 64) - 1
_bits = random.getrandbits


class Sampler:
    """`OTEL_TRACES_SAMPLER`/`_ARG` (the SDK's six: always_on, always_off, traceidratio and their
    parentbased_ forms; anything else warns and is parentbased_always_on, as the SDK does). A child
    of a parent follows the parent's decision when parent-based; the ratio samples a trace when its
    id's low 64 bits are below ratio * 2^64 (so every process decides alike for one trace)."""

    __slots__ = ("bound", "parent_based")

    def __init__(self, name: str = "parentbased_always_on", arg: str | None = None) -> None:
        name = name.strip().lower() or "parentbased_always_on"
        known = ("always_on", "always_off", "traceidratio")
        base = name.removeprefix("parentbased_")
        if base not in known:
            log.warning("Couldn't recognize sampler %s.", name)
            name, base = "parentbased_always_on", "always_on"
        self.parent_based = name.startswith("parentbased_")
        if base == "always_on":
            rate = 1.0
        elif base == "always_off":
            rate = 0.0
        else:
            try:
                rate = float(arg or "")
                if not 0.0 <= rate <= 1.0:
                    raise ValueError(rate)
            except ValueError:
                log.warning("Could not convert TRACES_SAMPLER_ARG to float. Using default rate 1.0.")
                rate = 1.0
        self.bound = round(rate * (U64 + 1))  # sampled when the id's low 64 bits are below it

    def sampled(self, trace_id: int, parent_sampled: bool | None) -> bool:
        if parent_sampled is not None and self.parent_based:
            return parent_sampled
        return trace_id & U64 < self.bound


class UnsampledSpan(NonRecordingSpan):
    """A span the sampler left out: the API's `NonRecordingSpan` (it propagates its ids, sampled
    flag off), with `LeanSpan.end_with` as the no-op it is here.

    It holds its ids as ints and makes its `SpanContext` (and an empty `TraceState`) only when
    something asks for it: the not-recording path made both for every span, ~1 us hot of a span's
    ~1.6, and the call sites run it several times a request (#31). Its children in the process and
    its `traceparent` are made from the ints (`child`, `tracing.inject`). (Its bases declare no
    slots, so it has a `__dict__` all the same; its own slots are for quicker reads. Its context is
    `_span_context`, not the base's `_context`: the base types that one as always made.)"""

    __slots__ = ("_span_context", "span_id", "trace_id", "trace_state", "trace_state_header")
    records = False  # (`LeanSpan.records`: whether a call site should build the span's attributes)

    def __init__(
        self, trace_id: int, span_id: int, trace_state: TraceState | None = None, header: str | None = None
    ) -> None:
        self.trace_id = trace_id
        self.span_id = span_id
        self.trace_state = trace_state
        # ``header``: the trace state's, when the caller has it (a child: its parent's, not re-serialised)
        self.trace_state_header = header if header is not None else trace_state.to_header() if trace_state else ""
        self._span_context: SpanContext | None = None  # (made when asked: `get_span_context`)

    def get_span_context(self) -> SpanContext:
        context = self._span_context
        if context is None:
            state = self.trace_state if self.trace_state is not None else TraceState()
            context = self._span_context = SpanContext(self.trace_id, self.span_id, False, _NOT_SAMPLED, state)
        return context

    def child(self) -> UnsampledSpan:
        """A child in this process, for when the sampler leaves it out too (`tracing.start_span`
        asks `Sampler.sampled(trace_id, False)` first): the same trace, a fresh span id."""
        return UnsampledSpan(self.trace_id, _bits(64) or _bits(64) or 1, self.trace_state, self.trace_state_header)

    def end_with(self, attributes: dict[str, Any] | None, event: tuple[str, int] | None = None) -> None:
        pass

    def __repr__(self) -> str:
        return f"NonRecordingSpan({self.get_span_context()!r})"


def left_out(sampler: Sampler, parent: SpanContext | None) -> UnsampledSpan | None:
    """The span the sampler makes under ``parent`` (a remote parent, or None for a new trace) when
    it leaves it out, else None (the caller then starts it as usual, and builds its attributes).
    Exact under a parent: the decision rests on the parent's trace id and flag alone. A root is
    left out here only when the sampler samples nothing: under a ratio its fresh trace id decides,
    drawn once by the tracer (drawing one here and another there would sample ratio² of traces)."""
    if parent is None:
        if sampler.bound:
            return None
        return UnsampledSpan(_bits(128) or _bits(128) or 1, _bits(64) or _bits(64) or 1)
    if sampler.sampled(parent.trace_id, bool(parent.trace_flags & 1)):
        return None
    return UnsampledSpan(parent.trace_id, _bits(64) or _bits(64) or 1, parent.trace_state or None)
