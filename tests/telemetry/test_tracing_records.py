"""Tracing's cheaper paths (#31): the current span in our own context variable, bridged to the
OpenTelemetry API, and an ended span queued as a record the export thread encodes.

In-process (no stacks): the byte equality with the library's encoder, the collector's view of what
waits in the export queue, and the API's view of the current span (in a subprocess: `setup` is
process-wide).
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from typing import Any

from tests.support.procs import ROOT
from tests.telemetry.test_tracing import lean_spans


def _queued(build: Any) -> list[Any]:
    """What ``build()``'s spans leave in an export queue as they end."""
    from gateway.telemetry.lean_tracer import LeanSpan, Recorder

    recorder = Recorder(lambda batch: None, delay_s=3600, max_queue=100, max_batch=100)
    previous = LeanSpan.recorder
    LeanSpan.recorder = recorder
    try:
        build()
        return list(recorder.queue)
    finally:
        LeanSpan.recorder = previous
        recorder.queue.clear()
        recorder.stop()


def test_queued_records_encode_to_the_library_s_bytes() -> None:
    """The queue holds records (tuples) for the usual spans and bytes for a span with links or an
    event list; the export thread's `encode_batch` of them is the library's encoding of the same
    spans (`test_lean_encoding_matches_the_sdk_encoder`'s spans, ended into a queue)."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope

    from gateway.telemetry import otlp_encode
    from gateway.telemetry.readable import to_readable

    made: list[Any] = []
    queued = _queued(lambda: made.extend(lean_spans()))
    kinds = [type(q).__name__ for q in queued]
    assert kinds[0] == "bytes" and kinds.count("tuple") >= 5  # (links, an event list: encoded at the end)
    resource = Resource.create({"service.name": "svc"})
    parts = otlp_encode.resource_part(resource.attributes, resource.schema_url), otlp_encode.scope_part("gateway")
    library = encode_spans([to_readable(s, resource, InstrumentationScope("gateway")) for s in made])
    assert otlp_encode.encode_batch(queued, *parts) == library.SerializeToString()
    # a record that cannot be encoded is dropped alone, not the batch
    bad = (queued[1][0], "not an int", *queued[1][2:])
    assert otlp_encode.encode_batch([bad, *queued], *parts) == library.SerializeToString()


def test_a_queued_record_is_untracked_after_one_young_collection() -> None:
    """A record holds atoms, an atom-valued attribute dict (never tracked) and a tuple event: the collector
    untracks its tuples at the first young collection and the record at the next collection of
    generation 1, so it never reaches the oldest generation while it waits for its batch; the span
    itself is freed at once. A finish reasons
    tuple the `chat` spans share (`spans._REASONS`) keeps its dict untracked too."""
    from gateway.engine import spans
    from gateway.telemetry.lean_tracer import KINDS, LeanTracer, Sampler
    from gateway.telemetry.presets import Preset

    reasons = spans._REASONS.get("stop") or spans._reasons("stop")
    gc.collect()  # (the kept tuple is untracked by the first collection it survives)
    tracer = LeanTracer(Sampler("always_on"))
    refs: list[Any] = []

    def build() -> None:
        server = tracer.start("server", KINDS["server"], {"url.path": "/v1/responses"}, None)
        chat = tracer.start("chat m", KINDS["client"], {"own": 1}, server, preset=Preset("chat m", {"p": "x"}))
        chat.end_with({"gen_ai.response.finish_reasons": reasons, "n": 3}, ("gen_ai.first_chunk", 1))
        server.end_with({"http.response.status_code": 200})
        refs.extend((weakref.ref(chat), weakref.ref(server)))

    queued = _queued(build)
    assert [ref() for ref in refs] == [None, None]
    assert [type(q) for q in queued] == [tuple, tuple]
    gc.collect(0)  # the keys' and values' tuples untracked, the record moved to generation 1 ...
    gc.collect(1)  # ... and untracked there, before it could reach generation 2
    assert not any(gc.is_tracked(q) for q in queued)


def test_the_api_sees_our_current_span_and_a_foreign_one_wins_inside_it() -> None:
    """`tracing.attach` sets our own context variable, not the API's context; through the bridge the
    API still sees it (`get_current_span`, its propagators), a span or baggage attached through the
    API inside ours is the current one until detached (our spans' children, `inject`, log ids),
    a task inherits our current span, and an unsampled span propagates with the sampled flag off."""
    code = """
import asyncio
from opentelemetry import baggage, context, propagate, trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags
import gateway.telemetry.tracing as t
assert t.setup("http", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
span = t.start_span("s")
token = t.attach(span)
assert trace.get_current_span() is span and t.start_span("c").parent_id == span.span_id
api = {}
propagate.inject(api)
assert t.carrier() == api and api["traceparent"] == f"00-{span.trace_id:032x}-{span.span_id:016x}-01"
foreign = NonRecordingSpan(SpanContext(0xABC, 0xDEF, True, TraceFlags(1)))
theirs = context.attach(trace.set_span_in_context(foreign))
assert trace.get_current_span() is foreign
child = t.start_span("d")
assert (child.trace_id, child.parent_id) == (0xABC, 0xDEF)
assert t.current_ids() == (f"{0xABC:032x}", f"{0xDEF:016x}")
assert t.carrier()["traceparent"] == f"00-{0xABC:032x}-{0xDEF:016x}-01"
context.detach(theirs)
assert trace.get_current_span() is span
with_baggage = context.attach(baggage.set_baggage("k", "v"))
assert trace.get_current_span() is span and t.carrier() == {**api, "baggage": "k=v"}
context.detach(with_baggage)
async def inherited():
    return t.start_span("e").parent_id
assert asyncio.run(inherited()) == span.span_id
t.detach(token)
assert trace.get_current_span() is trace.INVALID_SPAN and t.current_ids() is None and t.carrier() == {}
from gateway.telemetry import lean_tracer
t._tracer.sampler, t._follows_parent = lean_tracer.Sampler("always_off"), False
off = t.start_span("u", root=True)
token = t.attach(off)
ctx = off.get_span_context()
assert not off.is_recording() and trace.get_current_span() is off
assert t.carrier() == {"traceparent": f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-00"}
assert t.start_span("v").get_span_context().trace_id == ctx.trace_id
t.detach(token)
t.shutdown()
assert t.setup("http", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})  # (again: one bridge, not two)
assert type(context._RUNTIME_CONTEXT.inner).__name__ == "ContextVarsRuntimeContext"
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
