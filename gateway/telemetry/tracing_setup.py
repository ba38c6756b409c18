"""Turning tracing on in a process, configured only by the standard `OTEL_*` variables.

Tracing is on when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set (and
`OTEL_SDK_DISABLED` is not `true`, `OTEL_TRACES_EXPORTER` not `none`); the rest is read as the SDK
reads it: `OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL` (`grpc` or `http/protobuf`, the default), the
exporters' endpoint, headers, timeout and compression, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
`OTEL_TRACES_SAMPLER`/`_ARG`, `OTEL_BSP_*`, `OTEL_PROPAGATORS`.

Apart from `gateway.telemetry.tracing` because it runs once per process, not per request: `install`
imports OpenTelemetry (nothing of it is imported before, so tracing off costs nothing), builds the
recorder, its exporter and the tracer, bridges the API's runtime context to ours, and hands back what
`tracing.setup` binds to that module's globals, which its per-request paths read (#31).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gateway.telemetry.lean_tracer import LeanTracer, Recorder


def endpoint_of(environ: Mapping[str, str]) -> str | None:
    """The OTLP endpoint tracing exports to, or None when tracing is off."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    if environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() == "none":
        return None
    return (
        environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
        or environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
        or None
    )


@dataclass
class Installed:
    """What `install` made and what of the API the per-request paths use, for `tracing.setup` to
    bind to `tracing`'s globals (it names which global each field becomes)."""

    recorder: Recorder
    exporter: Any
    tracer: LeanTracer
    trace: Any  # `opentelemetry.trace`
    propagate: Any  # `opentelemetry.propagate`
    context: Any  # `opentelemetry.context.Context`
    span_key: Any
    baggage_key: Any
    get_context: Any  # the API runtime context's get (see `tracing._get_context`)
    lean_span: Any  # `lean_tracer.LeanSpan`
    new_span: Any  # `lean_tracer.new_span`
    unsampled: Any  # `sampling.UnsampledSpan`
    left_out: Any  # `sampling.left_out`
    bits: Any  # `random.getrandbits`
    w3c: Any  # the traceparent pattern, when the propagators are the default W3C ones (else None)
    span_context: Any  # `opentelemetry.trace.SpanContext`
    no_state: Any  # the API's `DEFAULT_TRACE_STATE`
    flags: dict[str, Any]  # a `traceparent`'s two hex digits of flags -> their `TraceFlags`
    kinds: dict[str, int]
    capture_content: bool


def install(env: Mapping[str, str], door: str, service_name: str, scope: str) -> Installed:
    """Make this process's recorder, exporter and tracer from ``env`` and install the runtime-context
    bridge (call once per door process, after any fork: the export thread does not survive one)."""
    import opentelemetry.context as api_context
    from opentelemetry import propagate, trace
    from opentelemetry.baggage import _BAGGAGE_KEY as baggage_key
    from opentelemetry.context import _RUNTIME_CONTEXT, Context
    from opentelemetry.context.contextvars_context import ContextVarsRuntimeContext
    from opentelemetry.trace.propagation import _SPAN_KEY as span_key
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
    from opentelemetry.trace.span import DEFAULT_TRACE_STATE

    from gateway.telemetry import context_bridge, lean_tracer, sampling, span_queue

    recorder, exporter = span_queue.from_env(env, door, service_name, scope)
    lean_tracer.LeanSpan.recorder = recorder
    limit = span_queue.number(env, "OTEL_ATTRIBUTE_COUNT_LIMIT", 128)
    lean_tracer.LeanSpan.limit = span_queue.number(env, "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", limit)
    tracer = lean_tracer.LeanTracer(
        lean_tracer.Sampler(env.get("OTEL_TRACES_SAMPLER", ""), env.get("OTEL_TRACES_SAMPLER_ARG"))
    )
    bridge = context_bridge.bridge_class()
    inner: Any = _RUNTIME_CONTEXT  # (the configured runtime context; under our bridge if set up before)
    if isinstance(inner, bridge):
        inner = inner.inner
    get_context = inner._current_context.get if type(inner) is ContextVarsRuntimeContext else inner.get_current
    # the API's readers and writers (`get_current_span`, `context.attach`...) see ours through it
    api_context._RUNTIME_CONTEXT = bridge(inner)
    w3c = None
    propagators = env.get("OTEL_PROPAGATORS", "tracecontext,baggage").replace(" ", "").lower()
    if propagators in ("tracecontext,baggage", "tracecontext", "baggage,tracecontext"):
        w3c = TraceContextTextMapPropagator._TRACEPARENT_HEADER_FORMAT_RE
    return Installed(
        recorder=recorder,
        exporter=exporter,
        tracer=tracer,
        trace=trace,
        propagate=propagate,
        context=Context,
        span_key=span_key,
        baggage_key=baggage_key,
        get_context=get_context,
        lean_span=lean_tracer.LeanSpan,
        new_span=lean_tracer.new_span,
        unsampled=sampling.UnsampledSpan,
        left_out=sampling.left_out,
        bits=sampling._bits,
        w3c=w3c,
        span_context=trace.SpanContext,
        no_state=DEFAULT_TRACE_STATE,
        flags={f"{n:02x}": trace.TraceFlags(n) for n in range(256)},
        kinds=lean_tracer.KINDS,
        capture_content=env.get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "").strip().lower() == "true",
    )
