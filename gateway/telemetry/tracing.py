"""OpenTelemetry tracing, configured only by the standard `OTEL_*` variables (`tracing_setup` says
which, and reads them when `setup` turns tracing on).

Why a module of our own in front of the API: off must cost nothing. Every call site asks `ON` (a
module global) before it does anything, and nothing of OpenTelemetry is imported until `setup` finds
an endpoint. When on, spans are `gateway.telemetry.lean_tracer` records (the SDK's span machinery cost the
doors +30-49 % CPU a request; see that module for why and what it keeps of OpenTelemetry), exported
in batches by a daemon thread through the OTLP exporters: a span's end only appends to a bounded
queue (full: the span is dropped), so a slow or dead collector never blocks the event loop nor
fails a request. At exit the flush is bounded too.

The current span lives in a context variable of our own (`context_bridge.CURRENT_SPAN`: one
`ContextVar.set` per span made current, not a new OpenTelemetry `Context`), which the API's runtime
context is bridged to (so `trace.get_current_span`, the propagators and a foreign span attached
through the API work as before); what a task starts inherits its parent (detached runs, concurrent
tool calls); `inject` writes `traceparent`/`tracestate` into outgoing headers through the API's
propagators, and `extract` reads them from incoming ones (W3C Trace Context; another
`OTEL_PROPAGATORS` choice goes through the API's propagators as well).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gateway.telemetry import tracing_setup
from gateway.telemetry.context_bridge import CURRENT_SPAN
from gateway.telemetry.presets import Preset
from gateway.telemetry.tracing_setup import endpoint_of

if TYPE_CHECKING:
    from typing import TypeAlias

    from opentelemetry.trace import Link, Span, SpanContext

    from gateway.telemetry.lean_tracer import LeanSpan, LeanTracer, Recorder
    from gateway.telemetry.sampling import UnsampledSpan

    Started: TypeAlias = LeanSpan | UnsampledSpan  # what `start_span` makes: its `records` says which

ON = False  # read by every call site before it touches a span: the whole cost of tracing when off
CAPTURE_CONTENT = False  # OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: prompts and completions
DEFAULT_SERVICE_NAME = "responses-gateway"
SHUTDOWN_SECONDS = 3.0  # at exit: the most a flush to a slow or dead collector may hold the process
SCOPE = "gateway"  # the instrumentation scope of every span

_tracer: LeanTracer | None = None
_recorder: Recorder | None = None
_exporter_obj: Any = None
# The API, bound once by `setup` (a `from … import` inside a function costs microseconds per call,
# and these run several times per request): `opentelemetry.trace`, `.propagate`, `Context`, keys.
_trace: Any = None
_propagate: Any = None
_Context: Any = None
_SPAN_KEY: Any = None
_BAGGAGE_KEY: Any = None
_LeanSpan: Any = None
_Unsampled: Any = None  # `sampling.UnsampledSpan`
_left_out: Any = None  # `sampling.left_out`
_get_context: Any = None  # the API runtime context's get: its ContextVar's own when it is the default
# `ContextVarsRuntimeContext` (a Python call less), else the runtime's (under our bridge's)
_new_span: Any = None  # `lean_tracer.new_span`
_w3c: Any = None  # the traceparent pattern, when the propagators are the default W3C ones
_SpanContext: Any = None  # `opentelemetry.trace.SpanContext`, made by `extract` as `tuple.__new__` makes it
_new_context = tuple.__new__
_NO_STATE: Any = None  # the API's `DEFAULT_TRACE_STATE` (what a `SpanContext` made without one holds)
_FLAGS: dict[str, Any] = {}  # a `traceparent`'s two hex digits of flags -> their `TraceFlags`
_KINDS: dict[str, int] = {}
_follows_parent = False  # a recorded parent's children are recorded (`LeanTracer.follows_parent`)
_U64 = (1 << 64) - 1  # (`sampling.U64`: a sampler whose bound is above it records every new trace)
_bits: Any = None  # `random.getrandbits`
_ours = CURRENT_SPAN.get  # the current span when our code made it current (`attach`), else None
_set_ours, _reset_ours = CURRENT_SPAN.set, CURRENT_SPAN.reset
CURRENT: Any = object()  # `start_span`'s default parent: the current span


def setup(door: str, environ: Mapping[str, str] | None = None) -> bool:
    """Turn tracing on in this process when the environment names an endpoint; True if it did.

    Called once per door process, after any fork (the export thread does not survive one).
    """
    global ON, CAPTURE_CONTENT, _tracer, _recorder, _exporter_obj, _get_context, _follows_parent
    global _trace, _propagate, _Context, _SPAN_KEY, _BAGGAGE_KEY, _LeanSpan, _w3c, _new_span, _Unsampled
    global _left_out, _bits, _SpanContext, _NO_STATE
    env = os.environ if environ is None else environ
    if endpoint_of(env) is None or ON:
        return ON
    made = tracing_setup.install(env, door, DEFAULT_SERVICE_NAME, SCOPE)
    _recorder, _exporter_obj, _tracer = made.recorder, made.exporter, made.tracer
    _follows_parent = made.tracer.follows_parent
    _trace, _propagate, _Context, _SPAN_KEY = made.trace, made.propagate, made.context, made.span_key
    _get_context, _LeanSpan, _BAGGAGE_KEY, _new_span = made.get_context, made.lean_span, made.baggage_key, made.new_span
    _Unsampled, _left_out, _bits = made.unsampled, made.left_out, made.bits
    if made.w3c is not None:
        _w3c = made.w3c
    _SpanContext, _NO_STATE = made.span_context, made.no_state
    _FLAGS.update(made.flags)
    _KINDS.update(made.kinds)
    CAPTURE_CONTENT = made.capture_content
    ON = True
    atexit.register(shutdown)
    return True


def shutdown() -> None:
    """Flush what is queued and stop, waiting at most `SHUTDOWN_SECONDS` (a dead collector must not
    hold a stopping process: the flush runs in a daemon thread that is abandoned after that)."""
    global ON
    recorder, exporter = _recorder, _exporter_obj
    ON = False
    if recorder is None:
        return

    def flush() -> None:
        recorder.stop()
        exporter.shutdown()

    worker = threading.Thread(target=flush, name="otel-shutdown", daemon=True)
    worker.start()
    worker.join(SHUTDOWN_SECONDS)


# -- spans ------------------------------------------------------------------------------------------
def _current_span() -> Any:
    """The current span: ours (`attach`), else the API's context's (None when there is none)."""
    current = _ours()
    return current if current is not None else _get_context().get(_SPAN_KEY)


def start_span(
    name: str,
    kind: str = "internal",
    attributes: Mapping[str, Any] | None = None,
    *,
    parent: Span | SpanContext | None = CURRENT,
    links: Sequence[Link] | None = None,
    root: bool = False,
    own: bool = False,
    preset: Preset | None = None,
) -> Started:
    """A started span (call only when `ON`): a child of the current span, of ``parent`` (a span,
    or what `extract` returned: a remote parent, or None for a new trace), or a new trace's root
    with ``root``. ``own``: ``attributes`` is a dict the caller built for this span alone, which
    the span keeps as its own (no copy; the hot call sites build theirs per span, #31). ``preset``
    (from `preset`): the attributes the span starts with, shared with the call site's other spans
    alike and encoded once; ``attributes`` are then this span's own, after them."""
    assert _tracer is not None
    if root:
        parent = None
    elif parent is CURRENT:
        current: Any = _ours()
        if current is None:  # (a span made current through the API, or none)
            current = _get_context().get(_SPAN_KEY)
        parent = current
        if (
            type(current) is _LeanSpan
            and _follows_parent
            and links is None
            and (preset is None or not attributes or preset.keys.isdisjoint(attributes))
        ):
            # the usual span (a child of the current recorded span, whose children the sampler
            # records) made here in one step: no tracer or sampler call in between (#31)
            c = current
            made: LeanSpan = _new_span(
                name, _KINDS[kind], c.trace_id, c.span_id, False, c.trace_state, attributes, own, None, preset
            )
            return made
    if (
        parent is None
        and _tracer.sampler.bound > _U64  # (read here, not kept: tests swap the sampler)
        and links is None
        and (preset is None or not attributes or preset.keys.isdisjoint(attributes))
    ):
        # a new trace's root when every trace is recorded (the HTTP door's server span without a
        # `traceparent`) in one step, as `LeanTracer.start` makes it (a trace id, then the span's)
        root_span: LeanSpan = _new_span(
            name, _KINDS[kind], _bits(128) or _bits(128) or 1, 0, None, None, attributes, own, None, preset
        )
        return root_span
    if type(parent) is _Unsampled and links is None and not _tracer.sampler.sampled(parent.trace_id, False):  # type: ignore[union-attr]
        # a child of a span the sampler left out, which it leaves out too (the same test the
        # tracer makes, on the same trace id): its ids only, no `SpanContext` (the not-recording
        # path: `always_off`, a ratio's left-out traces, #31)
        unsampled: UnsampledSpan = parent.child()  # type: ignore[union-attr]
        return unsampled
    return _tracer.start(name, _KINDS[kind], attributes, parent, links, own, preset)


def left_out(parent: SpanContext | None) -> Started | None:
    """The span `start_span(..., parent=parent)` makes when the sampler leaves it out, else None
    (`sampling.left_out`): a call site that builds a span's name and attributes from the request
    (the HTTP server span) asks first, and builds nothing for a span nobody records (#31)."""
    assert _tracer is not None
    return _left_out(_tracer.sampler, parent)  # type: ignore[no-any-return]


def preset(name: str, attributes: Mapping[str, Any]) -> Preset:
    """A span name and starting attributes that many spans share (see `presets.Preset`; call sites keep
    theirs in a `presets.PresetCache`) and hand them to `start_span`."""
    return Preset(name, attributes)


_CANONICAL = re.compile(r"00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}")  # version 00: nothing may follow


def start_under(
    name: str, kind: str, attrs: dict[str, Any], traceparent: str | None, state: str, preset: Preset | None = None
) -> Started:
    """`start_span(name, kind, attrs, parent=extract(...), own=True, preset=preset)` for an
    incoming `traceparent`/`tracestate` (None: none came), in one step for the usual header (version
    00, canonical, no `tracestate`, the default W3C propagators): its ids are read by slicing, and no
    `SpanContext` is made (the ExtProc's server span, #31). Anything else goes through `extract`."""
    if traceparent is not None and _w3c is not None and not state and len(traceparent) == 55:
        if _CANONICAL.fullmatch(traceparent) is not None:
            trace_id, parent_id = int(traceparent[3:35], 16), int(traceparent[36:52], 16)
            if trace_id and parent_id:  # (all-zero ids are invalid: a new trace, as `extract` says)
                sampled = traceparent[54] in "13579bdf"  # the flags' low bit
                assert _tracer is not None
                span_id = _bits(64) or _bits(64) or 1
                if not _tracer.sampler.sampled(trace_id, sampled):
                    return _Unsampled(trace_id, span_id)  # type: ignore[no-any-return]
                # (`attrs` is the caller's fresh dict, kept; they follow ``preset``'s)
                return _new_span(
                    name, _KINDS[kind], trace_id, parent_id, True, None, attrs, True, None, preset, span_id
                )  # type: ignore[no-any-return]
    carrier = {"traceparent": traceparent} if traceparent else {}
    if traceparent and state:
        carrier["tracestate"] = state
    return start_span(name, kind, attrs, parent=extract(carrier), own=True, preset=preset)


# `attach(span)`: make ``span`` current in this context; give the token to `detach`. It *is* our
# context variable's `set` (`context_bridge.CURRENT_SPAN`): no OpenTelemetry `Context` is built (the
# API sees the span through `context_bridge.Bridge`), and no Python frame either: it runs three times
# a request at the HTTP door, each cold, and a frame of ours cost more than the set itself (#31).
attach: Callable[[Span], object] = _set_ours  # type: ignore[assignment]


def detach(token: object) -> None:
    """Undo `attach`. Quietly does nothing when the context changed underneath (an async generator
    closed from another task): the span still ends; only the current-span bookkeeping is moot.
    (A try block, not `contextlib.suppress`: that builds a context manager object per call.)"""
    try:
        _reset_ours(token)  # type: ignore[arg-type]
    except Exception:  # (see above)
        pass


@contextlib.contextmanager
def span(name: str, kind: str = "internal", attributes: Mapping[str, Any] | None = None) -> Iterator[Started | None]:
    """A current span around a block (None, at no cost, when tracing is off); an exception that
    leaves the block marks it as an error."""
    if not ON:
        yield None
        return
    s = start_span(name, kind, attributes)
    token = attach(s)
    try:
        yield s
    except Exception as exc:  # a cancellation is not the span's failure
        fail(s, exc)
        raise
    finally:
        detach(token)
        s.end()


class span_current:  # (lower case: used as a function, `with tracing.span_current(s):`)
    """``s`` (started elsewhere, ended elsewhere) is current for the block. A class rather than a
    `contextlib.contextmanager` generator: the ExtProc enters it twice a request, and a
    generator-based manager costs a generator, a helper object and two `next` calls each time."""

    __slots__ = ("span", "token")

    def __init__(self, s: Span) -> None:
        self.span = s
        self.token: object = None

    def __enter__(self) -> Span:
        self.token = attach(self.span)
        return self.span

    def __exit__(self, *exc: object) -> None:
        detach(self.token)


def fail(s: Started, exc: BaseException | str) -> None:
    """Mark ``s`` as failed: `error.type` (the error's code, or its class), status ERROR."""
    if not s.records:  # (an unsampled span: nothing to mark)
        return
    status = _trace.Status(_trace.StatusCode.ERROR, str(exc)[:200] if isinstance(exc, BaseException) else None)
    if isinstance(exc, BaseException):
        s.set_attribute("error.type", str(getattr(exc, "code", None) or type(exc).__name__))
    else:
        s.set_attribute("error.type", exc)
    s.set_status(status)


def current_link() -> Link | None:
    """A link to the current span (a background run points back at the request that queued it)."""
    current = _current_span()
    if current is None:
        return None
    ctx = current.get_span_context()
    return _trace.Link(ctx) if ctx.is_valid else None


def current_ids() -> tuple[str, str] | None:
    """The current trace and span ids in hex (for log lines), or None outside any span: an
    unsampled span's too, as the SDK's logging instrumentation writes them (a log line still
    names its request's trace when the trace is not recorded)."""
    if not ON:
        return None
    current = _current_span()
    if current is None:
        return None
    if type(current) is _LeanSpan or type(current) is _Unsampled:
        return format(current.trace_id, "032x"), format(current.span_id, "016x")
    ctx = current.get_span_context()
    if not ctx.is_valid:
        return None
    return format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")


# -- propagation (W3C Trace Context) ----------------------------------------------------------------
def _inject(out: dict[str, str]) -> None:
    """What the API's propagators write for the current context. The common case (default W3C
    propagators, a lean span current, no baggage) is written here: the very header the API's
    `TraceContextTextMapPropagator` writes, without its three context look-ups."""
    current = _ours()
    kind = type(current)
    if _w3c is not None and (kind is _LeanSpan or kind is _Unsampled) and _BAGGAGE_KEY not in _get_context():
        flags = "01" if kind is _LeanSpan else "00"  # (an unsampled span: the API writes its flags, 00)
        out["traceparent"] = f"00-{current.trace_id:032x}-{current.span_id:016x}-{flags}"
        if current.trace_state_header:
            out["tracestate"] = current.trace_state_header
        return
    _propagate.inject(out)


def inject(headers: dict[str, str]) -> dict[str, str]:
    """``headers`` plus `traceparent` (and `tracestate`) of the current span: a copy when tracing is
    on, the very dict when off (so a shared header dict is never written into)."""
    if not ON:
        return headers
    out = dict(headers)
    _inject(out)
    return out


def carrier() -> dict[str, str]:
    """`traceparent`/`tracestate` of the current span alone (e.g. an MCP request's `_meta`)."""
    if not ON:
        return {}
    out: dict[str, str] = {}
    _inject(out)
    return out


def extract(headers: Mapping[str, str]) -> SpanContext | None:  # (lower-case keys, or a case-insensitive mapping)
    """The remote parent an incoming request names in its `traceparent`/`tracestate`, None when it
    names none (the span is then a new trace's root). Call only when `ON`.

    The common case, a `traceparent` alone under the default W3C propagators, is parsed here with
    the API propagator's own pattern and rules (its `extract` builds two contexts and a span to
    hand back what this returns); anything else goes through the API's propagators."""
    parent = headers.get("traceparent")  # aiohttp's headers are case-insensitive; the ExtProc's lower-case
    if not parent:
        return None
    state = headers.get("tracestate")
    if _w3c is not None and not state:
        if len(parent) == 55 and _CANONICAL.fullmatch(parent) is not None:
            # the canonical header (version 00, nothing before or after: what Envoy and the SDKs
            # write), read by slicing; the `SpanContext` laid out as its constructor lays it out,
            # its ids checked valid here (#31: half the general path's time, no match groups)
            trace_id, span_id = int(parent[3:35], 16), int(parent[36:52], 16)
            if not trace_id or not span_id:
                return None
            return _new_context(_SpanContext, (trace_id, span_id, True, _FLAGS[parent[53:]], _NO_STATE, True))  # type: ignore[no-any-return]
        found = _w3c.search(parent) if len(parent) <= 512 else None
        if found is None:
            return None
        version, trace_id, span_id, flags, rest = found.groups()
        if trace_id == "0" * 32 or span_id == "0" * 16 or version == "ff" or (version == "00" and rest):
            return None
        return _trace.SpanContext(int(trace_id, 16), int(span_id, 16), True, _trace.TraceFlags(int(flags, 16)))  # type: ignore[no-any-return]
    carrier = {"traceparent": parent}
    if state:
        carrier["tracestate"] = state
    context = _propagate.extract(carrier, context=_Context())
    span_context = _trace.get_current_span(context).get_span_context()
    return span_context if span_context.is_valid else None  # type: ignore[no-any-return]
