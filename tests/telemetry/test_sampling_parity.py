"""The not-recording path's fast paths decide as the OpenTelemetry SDK's samplers do (#31).

`tracing.left_out` (the HTTP server span's decision before anything is built for it), the one-step
children of an unsampled span and the `traceparent` they write are shortcuts past the tracer; a
shortcut that drops a span the SDK records (or records one it drops) would lose traces silently.
So the HTTP door's sequence (extract, `left_out(parent) or start_span(parent=...)`, a child of the
current span, `carrier()`, `current_ids()`, a grandchild under an explicit parent) is run beside
the SDK's `TracerProvider` with the same sampler, under every sampler setting, over many trace ids
and parents (none, sampled, unsampled, flags with other bits, with a `tracestate`), the random
generator seeded alike for both: every span's recording, ids, sampled flag and trace state, and
the header written, must be the SDK's. (The flags' other bits are masked: the SDK carries them
on, the W3C `traceparent` we write keeps bit 0 alone.)
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support.procs import ROOT

CODE = """
import random
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider, sampling as sdk
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
import gateway.telemetry.tracing as t
from gateway.telemetry import lean_tracer
assert t.setup("http", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
lean_tracer.LeanSpan.recorder = None  # (nothing queued: the spans are compared, not exported)
prop = TraceContextTextMapPropagator()
SETTINGS = [
    ("always_on", None, sdk.ALWAYS_ON), ("always_off", None, sdk.ALWAYS_OFF),
    ("traceidratio", "0", sdk.TraceIdRatioBased(0.0)), ("traceidratio", "0.25", sdk.TraceIdRatioBased(0.25)),
    ("traceidratio", "1", sdk.TraceIdRatioBased(1.0)),
    ("parentbased_always_on", None, sdk.ParentBased(sdk.ALWAYS_ON)),
    ("parentbased_always_off", None, sdk.ParentBased(sdk.ALWAYS_OFF)),
    ("parentbased_traceidratio", "0", sdk.ParentBased(sdk.TraceIdRatioBased(0.0))),
    ("parentbased_traceidratio", "0.5", sdk.ParentBased(sdk.TraceIdRatioBased(0.5))),
    ("parentbased_traceidratio", "1", sdk.ParentBased(sdk.TraceIdRatioBased(1.0))),
]

def desc(s):
    c = s.get_span_context()
    return (s.is_recording(), c.trace_id, c.span_id, int(c.trace_flags) & 1, c.trace_state.to_header())

def masked(carrier):  # the flags' bit 0 alone (see the test's doc)
    out = dict(carrier)
    if "traceparent" in out:
        head, flags = out["traceparent"][:-2], int(out["traceparent"][-2:], 16)
        out["traceparent"] = head + ("01" if flags & 1 else "00")
    return out

def ours(headers):
    parent = t.extract(headers)
    server = t.left_out(parent) or t.start_span("s", "server", {"url.path": "/"}, parent=parent, own=True)
    token = t.attach(server)
    child = t.start_span("c")  # (under the current span)
    token2 = t.attach(child)
    out, ids = t.carrier(), t.current_ids()
    grand = t.start_span("g", parent=child)  # (under an explicit parent)
    t.detach(token2)
    t.detach(token)
    return [desc(server), desc(child), desc(grand)], masked(out), ids

def theirs(tracer, headers):
    server = tracer.start_span("s", context=prop.extract(headers), kind=trace.SpanKind.SERVER)
    child = tracer.start_span("c", context=trace.set_span_in_context(server))
    out = {}
    prop.inject(out, context=trace.set_span_in_context(child))
    grand = tracer.start_span("g", context=trace.set_span_in_context(child))
    c = child.get_span_context()
    return [desc(server), desc(child), desc(grand)], masked(out), (f"{c.trace_id:032x}", f"{c.span_id:016x}")

rng = random.Random(31)
for name, arg, sdk_sampler in SETTINGS:
    t._tracer = lean_tracer.LeanTracer(lean_tracer.Sampler(name, arg))
    t._follows_parent = t._tracer.follows_parent
    tracer = TracerProvider(sampler=sdk_sampler).get_tracer("parity")
    recorded = left = 0
    for _ in range(150):
        trace_id = rng.getrandbits(128) or 1
        cases = [{}] + [
            {"traceparent": f"00-{trace_id:032x}-00f067aa0ba902b7-{flags}", **({"tracestate": state} if state else {})}
            for flags in ("00", "01", "03") for state in ("", "k=v,a=b")
        ]
        for headers in cases:
            seed = rng.getrandbits(32)
            random.seed(seed)
            got = ours(headers)
            random.seed(seed)
            want = theirs(tracer, headers)
            assert got == want, (name, arg, headers, got, want)
            recorded += got[0][0][0]
            left += not got[0][0][0]
    # (each setting's cases hold both decisions where the sampler can make both)
    assert recorded or name.endswith("always_off") or arg == "0", (name, arg)
    assert left or name.endswith("always_on") or (name == "traceidratio" and arg == "1"), (name, arg)
print("ok")
"""


def test_the_not_recording_paths_decide_as_the_sdks_samplers_under_every_setting() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run([sys.executable, "-c", CODE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.strip() == "ok"
