"""OpenTelemetry tracing, configured only by the standard `OTEL_*` variables.

Tracing is on when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set (and
`OTEL_SDK_DISABLED` is not `true`, `OTEL_TRACES_EXPORTER` not `none`); the SDK itself reads the rest:
`OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL` (`grpc` or `http/protobuf`, the default), `OTEL_SERVICE_NAME`,
`OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER`/`_ARG`, `OTEL_BSP_*`, `OTEL_EXPORTER_OTLP_*HEADERS`.

Why a module of our own in front of the API: off must cost nothing. Every call site asks `ON` (a
module global) before it does anything, and nothing of OpenTelemetry is imported until `setup` finds
an endpoint. When on, spans are batched by the SDK's `BatchSpanProcessor`, whose worker thread does
the exporting: a span's end only appends to a bounded queue (full: the span is dropped), so a slow
or dead collector never blocks the event loop nor fails a request. At exit the flush is bounded too.

Context lives in OpenTelemetry's own context variable, so what a task starts inherits its parent
(detached runs, concurrent tool calls); `inject` writes `traceparent`/`tracestate` into outgoing
headers and `extract` reads them from incoming ones (W3C Trace Context).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Link, Span, Tracer

ON = False  # read by every call site before it touches a span: the whole cost of tracing when off
CAPTURE_CONTENT = False  # OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: prompts and completions
DEFAULT_SERVICE_NAME = "responses-gateway"
SHUTDOWN_SECONDS = 3.0  # at exit: the most a flush to a slow or dead collector may hold the process

_tracer: Tracer | None = None
_provider: TracerProvider | None = None
# The API, bound once by `setup` (a `from … import` inside a function costs microseconds per call,
# and these run several times per request): module `opentelemetry.context`, `opentelemetry.trace`,
# `opentelemetry.propagate`, and the runtime context whose detach must not log.
_ctx: Any = None
_trace: Any = None
_propagate: Any = None
_runtime: Any = None
_KINDS: dict[str, Any] = {}


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


def protocol_of(environ: Mapping[str, str]) -> str:
    """`grpc` or `http/protobuf` (the specification's default)."""
    value = (
        environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "").strip()
        or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "").strip()
        or "http/protobuf"
    )
    return value.lower()


def setup(door: str, environ: Mapping[str, str] | None = None) -> bool:
    """Turn tracing on in this process when the environment names an endpoint; True if it did.

    Called once per door process, after any fork (the batch processor's thread does not survive one).
    """
    global ON, CAPTURE_CONTENT, _tracer, _provider, _ctx, _trace, _propagate, _runtime
    env = os.environ if environ is None else environ
    if endpoint_of(env) is None or ON:
        return ON
    from opentelemetry import context, propagate, trace
    from opentelemetry.context import _RUNTIME_CONTEXT
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    attributes: dict[str, Any] = {"gateway.door": door}
    named = env.get("OTEL_SERVICE_NAME") or "service.name=" in env.get("OTEL_RESOURCE_ATTRIBUTES", "")
    if not named:
        attributes["service.name"] = DEFAULT_SERVICE_NAME
    # Resource.create merges OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME; the sampler comes from
    # OTEL_TRACES_SAMPLER(_ARG) when none is passed.
    resource = Resource.create(attributes)
    # The OTLP encoder groups every span of a batch by its resource, and `Resource.__hash__` is a
    # JSON dump of the attributes each time (~10 us a span, in the export thread): the resource is
    # immutable, so its hash is computed once.
    resource = _frozen_resource(Resource)(resource.attributes, resource.schema_url)
    provider = TracerProvider(resource=resource, shutdown_on_exit=False)
    provider.add_span_processor(BatchSpanProcessor(_exporter(env)))
    trace.set_tracer_provider(provider)
    _provider = provider
    _tracer = provider.get_tracer("gateway")
    _ctx, _trace, _propagate, _runtime = context, trace, propagate, _RUNTIME_CONTEXT
    _KINDS.update({k.name.lower(): k for k in trace.SpanKind})
    CAPTURE_CONTENT = env.get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "").strip().lower() == "true"
    ON = True
    atexit.register(shutdown)
    return True


def _frozen_resource(base: Any) -> Any:
    """A `Resource` subclass whose hash is computed once (the SDK's recomputes it per call)."""

    class FrozenResource(base):  # type: ignore[misc,valid-type]
        def __init__(self, attributes: Any, schema_url: str | None = None) -> None:
            super().__init__(attributes, schema_url)
            self._hash = super().__hash__()

        def __hash__(self) -> int:
            return self._hash  # type: ignore[no-any-return]

        def __eq__(self, other: object) -> bool:
            return self is other or super().__eq__(other)

    return FrozenResource


def _exporter(env: Mapping[str, str]) -> Any:
    """The OTLP span exporter for the configured protocol (each reads its endpoint, headers,
    timeout and compression from the environment itself)."""
    if protocol_of(env) == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter

        class Exporter(GrpcExporter):  # type: ignore[misc]
            def _translate_data(self, data: Any) -> Any:  # the hook the gRPC exporter encodes through
                return encode_spans(data)

        return Exporter()
    from opentelemetry.exporter.otlp.proto.http import trace_exporter

    # The HTTP exporter calls its module's `encode_spans` (no hook): ours goes there, same signature
    # and same message, falling back to the library's on any surprise.
    trace_exporter.encode_spans = encode_spans  # type: ignore[assignment]
    return trace_exporter.OTLPSpanExporter()


def encode_spans(spans: Any) -> Any:
    """The OTLP export request of a batch (`gateway.otlp_encode`, ~3x cheaper than the library's
    encoder, which was tracing's largest cost per request); the library's should ours ever fail."""
    from gateway import otlp_encode

    try:
        return otlp_encode.encode_spans(spans)
    except Exception:
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as library

        return library(spans)


def shutdown() -> None:
    """Flush what is queued and stop, waiting at most `SHUTDOWN_SECONDS` (a dead collector must not
    hold a stopping process: the flush runs in a daemon thread that is abandoned after that)."""
    global ON
    provider = _provider
    ON = False
    if provider is None:
        return
    worker = threading.Thread(target=provider.shutdown, name="otel-shutdown", daemon=True)
    worker.start()
    worker.join(SHUTDOWN_SECONDS)


# -- spans ------------------------------------------------------------------------------------------
def start_span(
    name: str,
    kind: str = "internal",
    attributes: Mapping[str, Any] | None = None,
    *,
    parent: Context | None = None,
    links: Sequence[Link] | None = None,
    root: bool = False,
) -> Span:
    """A started span (call only when `ON`): a child of the current span, of ``parent``, or a new
    trace's root with ``root``."""
    assert _tracer is not None
    ctx = _ctx.Context() if root else parent
    return _tracer.start_span(name, ctx, _KINDS[kind], attributes, links)


def attach(span: Span) -> object:
    """Make ``span`` current in this context; give the token to `detach`."""
    return _ctx.attach(_trace.set_span_in_context(span))


def detach(token: object) -> None:
    """Undo `attach`. Quietly does nothing when the context changed underneath (an async generator
    closed from another task): the span still ends; only the current-span bookkeeping is moot."""
    with contextlib.suppress(Exception):
        _runtime.detach(token)


@contextlib.contextmanager
def span(name: str, kind: str = "internal", attributes: Mapping[str, Any] | None = None) -> Iterator[Span | None]:
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


@contextlib.contextmanager
def span_current(s: Span) -> Iterator[Span]:
    """``s`` (started elsewhere, ended elsewhere) is current for the block."""
    token = attach(s)
    try:
        yield s
    finally:
        detach(token)


def fail(s: Span, exc: BaseException | str) -> None:
    """Mark ``s`` as failed: `error.type` (the error's code, or its class), status ERROR."""
    status = _trace.Status(_trace.StatusCode.ERROR, str(exc)[:200] if isinstance(exc, BaseException) else None)
    if isinstance(exc, BaseException):
        s.set_attribute("error.type", str(getattr(exc, "code", None) or type(exc).__name__))
    else:
        s.set_attribute("error.type", exc)
    s.set_status(status)


def current_link() -> Link | None:
    """A link to the current span (a background run points back at the request that queued it)."""
    ctx = _trace.get_current_span().get_span_context()
    return _trace.Link(ctx) if ctx.is_valid else None


def current_ids() -> tuple[str, str] | None:
    """The current trace and span ids in hex (for log lines), or None outside a recorded span."""
    if not ON:
        return None
    ctx = _trace.get_current_span().get_span_context()
    if not ctx.is_valid:
        return None
    return format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")


# -- propagation (W3C Trace Context) ----------------------------------------------------------------
def inject(headers: dict[str, str]) -> dict[str, str]:
    """``headers`` plus `traceparent` (and `tracestate`) of the current span: a copy when tracing is
    on, the very dict when off (so a shared header dict is never written into)."""
    if not ON:
        return headers
    out = dict(headers)
    _propagate.inject(out)
    return out


def carrier() -> dict[str, str]:
    """`traceparent`/`tracestate` of the current span alone (e.g. an MCP request's `_meta`)."""
    if not ON:
        return {}
    out: dict[str, str] = {}
    _propagate.inject(out)
    return out


def extract(headers: Mapping[str, str]) -> Context:  # (lower-case keys, or a case-insensitive mapping)
    """The remote parent an incoming request names in its `traceparent`/`tracestate` (an empty
    context when it names none, so the span is a new trace's root). Call only when `ON`."""
    parent = headers.get("traceparent")  # aiohttp's headers are case-insensitive; the ExtProc's lower-case
    if not parent:
        return _ctx.Context()  # type: ignore[no-any-return]
    carrier = {"traceparent": parent}
    if state := headers.get("tracestate"):
        carrier["tracestate"] = state
    return _propagate.extract(carrier, context=_ctx.Context())  # type: ignore[no-any-return]
