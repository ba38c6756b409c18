"""Tracing's cheaper paths (#31): the current span in our own context variable, bridged to the
OpenTelemetry API, and an ended span queued as a record the export thread encodes.

In-process (no stacks): the byte equality with the library's encoder, the collector's view of what
waits in the export queue, and the API's view of the current span (in a subprocess: `setup` is
process-wide).
"""

from __future__ import annotations

import gc
import logging
import os
import subprocess
import sys
import weakref
from typing import Any

import pytest

from tests.support.procs import ROOT
from tests.telemetry.test_tracing import KEPT_REASONS, lean_spans


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


def test_queued_records_encode_to_the_library_s_bytes(caplog: pytest.LogCaptureFixture) -> None:
    """The queue holds records (tuples) for the usual spans, an error status and a kept finish reasons
    tuple among them, and bytes for a span with links or an event list; each record encodes to its
    span's `span_bytes`, and the export thread's `encode_batch` of them is the library's encoding of
    the same spans (`test_lean_encoding_matches_the_sdk_encoder`'s spans, ended into a queue). A
    record that cannot be encoded is dropped alone, logged and counted as dropped by the recorder."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope

    from gateway.telemetry import otlp_encode
    from gateway.telemetry.lean_tracer import Recorder
    from gateway.telemetry.readable import to_readable

    gc.collect()  # (`KEPT_REASONS` untracked, as a kept tuple is once a collection met it)
    made: list[Any] = []
    queued = _queued(lambda: made.extend(lean_spans()))
    kinds = [type(q).__name__ for q in queued]
    assert kinds[0] == "bytes" and kinds[-1] == "tuple" and kinds.count("tuple") >= 6  # (links, an event list)
    assert made[-1].status_code == 2 and queued[-1][-2:] == (2, "x") and KEPT_REASONS in queued[-1][11]
    for record, span in zip(queued, made, strict=True):
        if type(record) is tuple:
            assert otlp_encode.record_bytes(record) == otlp_encode.span_bytes(span), span.name
    resource = Resource.create({"service.name": "svc"})
    parts = otlp_encode.resource_part(resource.attributes, resource.schema_url), otlp_encode.scope_part("gateway")
    library = encode_spans([to_readable(s, resource, InstrumentationScope("gateway")) for s in made])
    assert otlp_encode.encode_batch(queued, *parts) == library.SerializeToString()
    # a record that cannot be encoded is dropped alone, not the batch: the export as `tracing.setup` wires it
    sent: list[bytes] = []
    recorder = Recorder(
        lambda batch: sent.append(otlp_encode.encode_batch(batch, *parts, recorder.lost)),
        delay_s=3600,
        max_queue=100,
        max_batch=100,
    )
    try:
        for item in [(queued[1][0], "not an int", *queued[1][2:]), *queued]:
            recorder.put(item)
        with caplog.at_level(logging.ERROR, logger="gateway.telemetry.otlp_encode"):
            recorder.drain()
    finally:
        recorder.stop()
    assert sent == [library.SerializeToString()] and recorder.dropped == 1
    assert [r.getMessage() for r in caplog.records] == [f"encoding span {queued[1][5]!r} failed"]


def test_a_mutable_value_is_encoded_as_it_was_at_the_end() -> None:
    """A record holds attribute values by reference and is encoded later, so a span holding a value
    that could still change (a `bytearray`, which the collector does not track, alone or in a tuple)
    is queued as its bytes made at its end: a write to the value after the end changes nothing sent.
    Atoms and tuples of atoms stay records."""
    from gateway.telemetry import otlp_encode
    from gateway.telemetry.lean_tracer import KINDS, LeanTracer, Sampler

    tracer = LeanTracer(Sampler("always_on"))
    payload, inner = bytearray(b"before"), bytearray(b"in")
    at_end: list[bytes] = []
    spans: list[Any] = []

    def build() -> None:
        for attributes in ({"payload": payload}, {"t": (1, inner)}, {"s": "x", "t": (1, 2.5, "y"), "b": b"z"}):
            span = tracer.start("s", KINDS["client"], dict(attributes), None)
            span.end()
            at_end.append(otlp_encode.span_bytes(span))
            spans.append(span)
        payload[:] = b"AFTER!"  # the caller reuses its buffers once the spans ended
        inner[:] = b"out"

    queued = _queued(build)
    assert [type(q) for q in queued] == [bytes, bytes, tuple]
    assert queued[:2] == at_end[:2] and otlp_encode.record_bytes(queued[2]) == at_end[2]
    assert [otlp_encode.span_bytes(s) != b for s, b in zip(spans, at_end, strict=True)] == [True, True, False]


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
    a task inherits our current span, an unsampled span propagates with the sampled flag off, and
    a token the API made before `setup` installed the bridge still detaches its context."""
    code = """
import asyncio
from opentelemetry import baggage, context, propagate, trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags
import gateway.telemetry.tracing as t
early = context.attach(baggage.set_baggage("early", "1"))  # (the API's own token, made before the bridge)
assert t.setup("http", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
context.detach(early)
assert baggage.get_baggage("early") is None
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
    assert "Failed to detach" not in done.stderr


def test_the_not_recording_path_propagates_as_the_api_does_and_queues_nothing() -> None:
    """A span the sampler leaves out is made from ints (no `SpanContext` until asked, #31): its
    `SpanContext`, its children and its `traceparent`/`tracestate` are those of the API's
    `NonRecordingSpan` (the API's propagator writes the same header); `left_out` makes the HTTP
    server span when the sampler drops it (`test_sampling_parity` checks its every decision
    against the SDK's); the engine's span ends queue nothing for it."""
    code = """
from opentelemetry import propagate
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, TraceState
import gateway.telemetry.tracing as t
from gateway.engine import spans
from gateway.telemetry import lean_tracer
assert t.setup("http", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_TRACES_SAMPLER": "always_off"})
queue = lean_tracer.LeanSpan.recorder.queue
def api_carrier():
    out = {}
    propagate.inject(out)
    return out
root = t.left_out(None)
assert isinstance(root, NonRecordingSpan) and not root.is_recording() and root.trace_id and root.span_id
ctx = root.get_span_context()
assert (ctx.trace_id, ctx.span_id, ctx.trace_flags, ctx.is_remote, ctx.trace_state) == (
    root.trace_id, root.span_id, TraceFlags(0), False, TraceState())
token = t.attach(root)
assert t.carrier() == api_carrier() == {"traceparent": f"00-{root.trace_id:032x}-{root.span_id:016x}-00"}
assert t.current_ids() == (f"{root.trace_id:032x}", f"{root.span_id:016x}")
response = {"id": "resp_1", "model": "m", "usage": {"input_tokens": 5}, "status": "completed"}
agent = spans.agent_span(response=response, provider="vllm", background=False, conversation_id=None)
assert type(agent) is lean_tracer.UnsampledSpan and agent.trace_id == root.trace_id != 0
assert agent.span_id != root.span_id
t2 = t.attach(agent)
chat = spans.ChatSpan("m", provider="vllm", server=("h", 1))
assert chat.span.trace_id == root.trace_id and not chat.span.is_recording()
under = spans.ChatSpan("m", provider="vllm", server=("h", 1), parent=agent)  # (the ExtProc's: a named parent)
assert type(under.span) is lean_tracer.UnsampledSpan and under.span.trace_id == root.trace_id
t3 = t.attach(chat.span)
assert t.inject({"a": "b"}) == {"a": "b", **api_carrier()} and api_carrier()["traceparent"].endswith("-00")
chat.chunk()
t.detach(t3)
chat.end(None, RuntimeError("x"))
t.detach(t2)
spans.end_agent(agent, response, RuntimeError("y"))
t.detach(token)
root.end_with({"a": 1})
assert not queue
# a remote parent's trace state is carried; the sampler decides as `start_span` does
state = TraceState([("k", "v")])
for sampler, flags, dropped in (("always_off", 1, True), ("parentbased_always_on", 0, True),
                                ("parentbased_always_on", 1, False), ("traceidratio", 0, False),
                                ("parentbased_always_off", 0, True), ("parentbased_traceidratio", 1, False)):
    t._tracer.sampler = lean_tracer.Sampler(sampler, "0.5")
    parent = SpanContext(0xABC, 0xDEF, True, TraceFlags(flags), state)
    made = t.left_out(parent)
    assert (made is not None) == dropped, sampler
    if made is None:
        continue
    theirs = t.start_span("s", parent=parent)
    assert type(theirs) is type(made) and theirs.trace_id == made.trace_id == 0xABC
    token = t.attach(made)
    header = f"00-{0xABC:032x}-{made.span_id:016x}-00"
    assert t.carrier() == api_carrier() == {"traceparent": header, "tracestate": "k=v"}
    child = t.start_span("c")
    assert (type(child), child.trace_id, child.trace_state_header) == (type(made), 0xABC, "k=v")
    t.detach(token)
t._tracer.sampler = lean_tracer.Sampler("parentbased_always_on")
assert t.left_out(None) is None and t.left_out(SpanContext(1, 2, True, TraceFlags(1))) is None
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
