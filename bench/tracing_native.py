"""fastotel's native span processor fed our spans, and what its export path costs against ours
(#31; measured, not wired into the doors: docs/ARCHITECTURE.md, Tracing, "Fourteenth pass").

fastotel (0.9.1, pre-alpha, a Rust/PyO3 wheel): `Processor.on_end` copies an ended span into Rust
and returns; a native thread batches, encodes, compresses and POSTs OTLP/HTTP protobuf without the
GIL. What it reads (probed with a logging proxy) from the object given to `on_end`, which need not
be an SDK `ReadableSpan`: `name`, `start_time`, `end_time`, `attributes` (a mapping),
`dropped_attributes`/`_events`/`_links`, `kind.value` (the API's numbering, from 0),
`status.status_code.value` and `status.description`, `context.trace_id`/`span_id`/`trace_flags`
(an int; unsampled is not exported)/`trace_state.items()`, `parent` (None, or
`trace_id`/`span_id`/`is_remote`), `events` (each `name`, `timestamp`, `attributes`,
`dropped_attributes`), `links` (the API's `Link`s), `resource` (`attributes`, `schema_url`) and
`instrumentation_scope` (`name`, `version`, `attributes`, `schema_url`). So `queue` hands it a
`_View` of a `LeanSpan` (one slotted object, its own context), no SDK object; a None attribute is
left out, as the library's encoder does (fastotel sends an empty value). The collector gets what
the library's encoder makes for the same spans (`tests/telemetry/test_tracing_native.py`).

`install` puts it in `tracing_setup.install`'s place of `span_queue.from_env` (`bench.tracing_variants
native`, for `bench.tracing_paired --off2-src`). Run as a module, the in-process comparison: the
spans of one non-streamed request (`bench.tracing_micro.make_request`: server, `invoke_agent`,
`chat`) made ``--n`` times, exported to `bench.otlp_sink` (a process of its own), then flushed. Per
request:

    loop     CPU of the thread making the spans (`time.thread_time`): what the event loop pays
    process  CPU of the whole process (`time.process_time`: the export thread too, Python's or
             fastotel's native one), from the first request to the end of the final flush

Each round runs both paths, each in a fresh process, in a random order; medians over ``--rounds``.
The sink's span count checks that every span arrived.

    .venv/bin/python -m bench.tracing_native [--n N] [--rounds R]

Hot loops without a door's own work around the spans: in a door the spans' code runs cold (several
times its hot-loop time), which is why `bench.tracing_paired` decides.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
import urllib.request
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
    attributes: Mapping[str, Any]
    dropped_attributes: int
    end_time: int
    events: Any
    kind: Any
    links: Any
    name: str
    parent: _Parent | None
    span_id: int
    start_time: int
    status: _Status
    trace_id: int
    trace_state: Any
    trace_flags = 1  # (sampled: a `LeanSpan` is one)
    dropped_events = 0
    dropped_links = 0
    resource: Any = None  # the process's, set by `NativeExport`
    instrumentation_scope: Any = None

    @property
    def context(self) -> _View:
        return self


class NativeExport:
    """The `fastotel` processor spans go to (`install`)."""

    def __init__(self, env: Mapping[str, str], door: str, default_service: str, scope: str) -> None:
        from fastotel import OTLPSpanProcessor  # type: ignore[import-not-found,unused-ignore]
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.util.instrumentation import InstrumentationScope

        from gateway.telemetry.span_queue import number

        attributes: dict[str, Any] = {"gateway.door": door}  # (as `span_queue.from_env` makes it)
        named = env.get("OTEL_SERVICE_NAME") or "service.name=" in env.get("OTEL_RESOURCE_ATTRIBUTES", "")
        if not named:
            attributes["service.name"] = default_service
        _View.resource = Resource.create(attributes)
        _View.instrumentation_scope = InstrumentationScope(scope)
        # (fastotel reads the environment itself too; these are the values our `Recorder` reads)
        self.processor = OTLPSpanProcessor(
            max_queue_size=number(env, "OTEL_BSP_MAX_QUEUE_SIZE", 2048),
            schedule_delay_millis=number(env, "OTEL_BSP_SCHEDULE_DELAY", 5000),
            max_export_batch_size=min(
                number(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512), number(env, "OTEL_BSP_MAX_QUEUE_SIZE", 2048)
            ),
        )
        self.on_end: Any = self.processor._native.on_end  # (the native call itself: a Python frame less a span)

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


class _NoExporter:
    def shutdown(self) -> None:
        pass


def install(env: Mapping[str, str], door: str, default_service: str, scope: str) -> tuple[NativeExport, Any]:
    """What `tracing.setup` holds as its recorder and exporter, spans going to fastotel: the
    `native` probe of `bench.tracing_variants` calls this in `setup`'s place of `span_queue.from_env`."""
    from gateway.telemetry.lean_tracer import LeanSpan

    LeanSpan._queue = queue  # type: ignore[assignment]
    return NativeExport(env, door, default_service, scope), _NoExporter()


# -- the benchmark --------------------------------------------------------------------------------
RUN = """
import json, sys, time
from gateway.telemetry import tracing
from bench.tracing_micro import make_request
n, native = int(sys.argv[1]), sys.argv[2] == "native"
assert tracing.setup("http")
if native:  # (what `bench.tracing_variants native` does in `setup`)
    import os
    from bench.tracing_native import install
    from gateway.telemetry.lean_tracer import LeanSpan
    tracing._recorder.stop()
    tracing._recorder, tracing._exporter_obj = install(os.environ, "http", tracing.DEFAULT_SERVICE_NAME, tracing.SCOPE)
    LeanSpan.recorder = tracing._recorder
request = make_request()
for _ in range(200):  # warm-up (its spans are exported with the rest: 600 spans more)
    request()
p0, t0 = time.process_time(), time.thread_time()
for _ in range(n):
    request()
loop = time.thread_time() - t0
recorder = tracing._recorder
if hasattr(recorder, "processor"):
    recorder.processor.force_flush(60_000)
else:
    recorder.drain()
process = time.process_time() - p0
print(json.dumps({"path": type(recorder).__name__, "loop_us": loop / n * 1e6, "process_us": process / n * 1e6}))
"""


def _count(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/count", timeout=10) as reply:
        return int(json.load(reply)["spans"])


def one(path: str, n: int, port: int) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env["OTEL_EXPORTER_OTLP_ENDPOINT"] = f"http://127.0.0.1:{port}"
    env["OTEL_BSP_MAX_QUEUE_SIZE"] = str(4 * (n + 200))  # (room for every span: a tight loop outruns a door's pace)
    before = _count(port)
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(n), path], env=env, capture_output=True, text=True, timeout=600
    )
    if done.returncode:
        raise SystemExit(done.stderr)
    got: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    deadline = time.monotonic() + 10
    while _count(port) - before < 3 * (n + 200) and time.monotonic() < deadline:
        time.sleep(0.05)
    got["arrived"] = (_count(port) - before) / (3 * (n + 200))
    return got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20000, help="requests per process")
    ap.add_argument("--rounds", type=int, default=5, help="processes per path")
    ap.add_argument("--port", type=int, default=24318)
    args = ap.parse_args(argv)
    sink = subprocess.Popen([sys.executable, "-m", "bench.otlp_sink", str(args.port)], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                _count(args.port)
                break
            except OSError:
                time.sleep(0.1)
        results: dict[str, list[dict[str, float]]] = {"native": [], "ours": []}
        rng = random.Random(7)
        for _ in range(args.rounds):
            for path in rng.sample(["native", "ours"], 2):
                results[path].append(one(path, args.n, args.port))
        for path, runs in results.items():
            loop = [r["loop_us"] for r in runs]
            process = [r["process_us"] for r in runs]
            print(
                f"{path:7} loop {statistics.median(loop):6.1f} us/request ({min(loop):.1f}..{max(loop):.1f})  "
                f"process {statistics.median(process):6.1f} us/request ({min(process):.1f}..{max(process):.1f})  "
                f"arrived {min(r['arrived'] for r in runs):.3f}"
            )
    finally:
        sink.terminate()
        sink.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
