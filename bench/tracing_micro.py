"""Where tracing's CPU goes, in-process and single-threaded (`time.thread_time`): the spans one
non-streamed request makes (HTTP server span, `invoke_agent`, `chat`), propagation, the OTLP
encoding of each span (by the export thread, from the record its end queued) and the batch join
(the exporters' own encoder, and `gateway.telemetry.otlp_encode`, which the doors use), and what a
streamed token pays (one test per read).

    .venv/bin/python -m bench.tracing_micro [--n N]
    .venv/bin/python -m bench.tracing_micro --export [--n N] [--rounds R]

`--export` accounts for the export path stage by stage: requests beside a stand-in of a door's own
work (JSON and socket round trips), spans through the production `Recorder`, export thread,
encoder and HTTP exporter to `bench.otlp_sink` in a process of its own; CPU per request and per
span of each stage on the thread that pays it, batch sizes, the garbage collector's share and
context switches of both threads.

Deterministic where `bench.bench_tracing` (whole stacks) drowns in a shared machine's noise.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

ENV = {  # on, exporting nowhere: nothing leaves the process; batches never fire during the run
    "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
    "OTEL_BSP_SCHEDULE_DELAY": "3600000",
    "OTEL_BSP_MAX_QUEUE_SIZE": "1000000",
    "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "1000000",
}


def per_call_us(fn: Callable[[], Any], n: int) -> float:
    for _ in range(min(n, 200)):
        fn()
    t0 = time.thread_time()
    for _ in range(n):
        fn()
    return (time.thread_time() - t0) / n * 1e6


HEADERS = {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}


def make_request(keep: list[Any] | None = None) -> Callable[[], None]:
    """What one non-streamed request does to spans, as the doors do it (call after `tracing.setup`);
    ``keep`` collects the ended spans (the export queue holds their bytes, not them)."""
    from gateway.engine import spans
    from gateway.telemetry import tracing

    response = {"id": "resp_1", "model": "m", "usage": {"input_tokens": 5, "output_tokens": 7}, "status": "completed"}
    count = itertools.count()

    def request() -> None:
        # a fresh response id and token count a request, as the doors' are (the encoder memoises
        # repeated values: a constant id would measure only its memo's hits)
        n = next(count)
        response["id"] = f"resp_{n:048x}"
        response["usage"] = {"input_tokens": 5 + n % 3000, "output_tokens": 7}
        server = tracing.start_span("POST /v1/responses", "server", {"http.request.method": "POST",
                                    "url.path": "/v1/responses", "url.scheme": "http", "server.address": "h",
                                    "server.port": 8082, "client.address": "127.0.0.1",
                                    "http.route": "/v1/responses"}, parent=tracing.extract(HEADERS))  # fmt: skip
        t1 = tracing.attach(server)
        agent = spans.agent_span(response=response, provider="vllm", background=False, conversation_id=None)
        t2 = tracing.attach(agent)
        chat = spans.ChatSpan("m", provider="vllm", server=("127.0.0.1", 8000))
        t3 = tracing.attach(chat.span)
        tracing.inject({"Content-Type": "application/json"})
        chat.chunk()
        tracing.detach(t3)
        chat.end(None)
        tracing.detach(t2)
        spans.end_agent(agent, response)
        tracing.detach(t1)
        server.end_with({"http.response.status_code": 200, "gen_ai.response.id": response["id"]})  # type: ignore[attr-defined]
        if keep is not None:
            keep.extend((chat.span, agent, server))

    return request


# -- the export path, stage by stage ----------------------------------------------------------------
def _switches(tid: int) -> tuple[int, int]:
    """A thread's voluntary and involuntary context switches so far (`/proc/self/task/TID/status`)."""
    with open(f"/proc/self/task/{tid}/status") as fh:
        found = dict(line.split(":", 1) for line in fh if "ctxt_switches" in line)
    return int(found["voluntary_ctxt_switches"]), int(found["nonvoluntary_ctxt_switches"])


def _door_work(sock: Any, peer: Any, doc: dict[str, Any]) -> None:
    """A stand-in for a request's own work on the loop thread (~1 ms): JSON in and out, and a few
    socket round trips, each a system call that releases the GIL as the door's I/O does."""
    for _ in range(6):
        sock.sendall(json.dumps(doc).encode())
        kept = [json.loads(peer.recv(65536)) for _ in range(1)]
        kept += [{"a": [i], "b": {"c": i}} for i in range(60)]  # short-lived containers, as a door makes


def export_accounting(n: int, rounds: int, args_heap: int = 300_000) -> int:
    """Spans through the production pipeline (`Recorder` queue, export thread, `otlp_encode`, the
    HTTP exporter's POST) to a collector process (`bench.otlp_sink`), each request beside a
    stand-in of the door's own work, in rounds of three phases: ``work`` (no spans), ``spans``
    (spans made, never queued), ``export`` (queued and exported, as a door runs). Per stage: CPU
    of the thread that pays it (`time.thread_time` inside the export thread's stages, the
    thread's CPU clock for its whole)."""
    from tests.support.procs import free_port, stop, wait_http

    port = free_port()
    sink = subprocess.Popen([sys.executable, "-m", "bench.otlp_sink", str(port)])
    try:
        wait_http(f"http://127.0.0.1:{port}/count", proc=sink)
        os.environ.update({"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}"})
        from gateway.telemetry import lean_tracer, otlp_encode, tracing

        tracing.setup("bench")
        recorder = tracing._recorder
        assert recorder is not None
        stages = {"encode": 0.0, "export": 0.0}
        batches: list[int] = []
        posts: list[float] = []  # each export's CPU less its encoding
        encode_batch, export = otlp_encode.encode_batch, recorder.export

        def timed_encode(*a: Any) -> bytes:
            t0 = time.thread_time()
            try:
                return encode_batch(*a)
            finally:
                stages["encode"] += time.thread_time() - t0

        def timed_export(batch: list[Any]) -> Any:
            batches.append(len(batch))
            t0, encoded = time.thread_time(), stages["encode"]
            try:
                return export(batch)
            finally:
                spent = time.thread_time() - t0
                stages["export"] += spent
                posts.append(spent - (stages["encode"] - encoded))

        otlp_encode.encode_batch, recorder.export = timed_encode, timed_export  # type: ignore[assignment,method-assign]
        worker = recorder.thread
        assert worker.ident is not None and worker.native_id is not None
        worker_clock = time.pthread_getcpuclockid(worker.ident)
        request = make_request()
        sock, peer = socket.socketpair()
        doc = {"id": "resp_1", "output": [{"type": "message", "content": [{"text": "hi " * 200}]}], "n": 1}
        loop = {"work": 0.0, "spans": 0.0, "export": 0.0}
        in_gc = {k: 0.0 for k in loop}
        collections = {k: [0, 0, 0] for k in loop}
        gc_start: list[Any] = [0.0, "work"]

        def gc_timer(event: str, info: dict[str, int]) -> None:  # the collector's CPU, by phase
            if threading.get_ident() != threading.main_thread().ident:
                return
            if event == "start":
                gc_start[0] = time.thread_time()
            else:
                in_gc[str(gc_start[1])] += time.thread_time() - float(gc_start[0])
                collections[str(gc_start[1])][info["generation"]] += 1

        heap = [{"n": [i]} for i in range(args_heap)]  # a door's long-lived objects (gc generation 2),
        gc.collect()
        gc.freeze()  # frozen: a full collection of them would land in one phase and swamp its figure
        gc.callbacks.append(gc_timer)
        loop_sw = {k: [0, 0] for k in loop}
        worker_cpu, worker_sw = 0.0, [0, 0]
        for _ in range(rounds):
            for phase in loop:
                gc_start[1] = phase
                lean_tracer.LeanSpan.recorder = recorder if phase == "export" else None
                before, w_before = _switches(os.getpid()), _switches(worker.native_id)
                w0 = time.clock_gettime(worker_clock)
                t0 = time.thread_time()
                for _ in range(n):
                    _door_work(sock, peer, doc)
                    if phase != "work":
                        request()
                loop[phase] += time.thread_time() - t0
                after = _switches(os.getpid())
                loop_sw[phase] = [loop_sw[phase][i] + after[i] - before[i] for i in (0, 1)]
                if phase == "export":
                    time.sleep(0.05)  # a batch in flight finishes on its thread (its CPU is counted)
                    worker_cpu += time.clock_gettime(worker_clock) - w0
                    w_after = _switches(worker.native_id)
                    worker_sw = [worker_sw[i] + w_after[i] - w_before[i] for i in (0, 1)]
        gc.callbacks.remove(gc_timer)
        del heap
        lean_tracer.LeanSpan.recorder = recorder
        recorder.stop()
        total = rounds * n
        spans_per_request = sum(batches) / total if batches else 3.0
        per = 1e6 / total
        rows = [
            ("loop: the work stand-in alone", loop["work"] * per),
            ("loop: + spans made, never queued", (loop["spans"] - loop["work"]) * per),
            ("loop: + a record queued, a live export thread", (loop["export"] - loop["spans"]) * per),
            ("export thread: joining a batch (otlp_encode.encode_batch)", stages["encode"] * per),
            ("export thread: the exporter's POST (export - encode)", (stages["export"] - stages["encode"]) * per),
            ("export thread: all its CPU (thread clock)", worker_cpu * per),
        ]
        print(f"{total} requests a phase, {spans_per_request:.2f} spans a request, {len(batches)} batches "
              f"(sizes {min(batches, default=0)}..{max(batches, default=0)})")  # fmt: skip
        print(f"a batch's POST: median {statistics.median(posts or [0]) * 1e6:.0f} us of CPU")
        print(f"{'us/request':>11} {'us/span':>9}  stage")
        for label, us in rows:
            print(f"{us:11.2f} {us / spans_per_request:9.2f}  {label}")
        print(f"{(loop['export'] - loop['work']) * per + worker_cpu * per:11.2f} {'':9}  on - off in all")
        for phase, spent in in_gc.items():
            print(f"loop thread, {phase:7}: {spent * per:.2f} us a request in the garbage collector, "
                  f"collections by generation {collections[phase]}")  # fmt: skip
        for phase, (vol, invol) in loop_sw.items():
            print(f"loop thread, {phase:7}: {vol / total:.3f} voluntary, {invol / total:.3f} involuntary switches"
                  " a request")  # fmt: skip
        print(f"export thread: {worker_sw[0]} voluntary, {worker_sw[1]} involuntary switches in all "
              f"({worker_sw[0] / max(1, len(batches)):.1f} voluntary a batch)")  # fmt: skip
        return 0
    finally:
        stop(sink)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=3000, help="repetitions per figure")
    ap.add_argument("--export", action="store_true", help="account for the export path, stage by stage")
    ap.add_argument("--rounds", type=int, default=5, help="--export: rounds of the three phases")
    args = ap.parse_args(argv)
    if args.export:
        return export_accounting(args.n, args.rounds)
    os.environ.update(ENV)
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope

    from gateway.engine import spans
    from gateway.telemetry import lean_tracer, otlp_encode, tracing
    from gateway.telemetry.readable import to_readable

    tracing.setup("bench")
    request = make_request()

    chat: Any = None

    def token_off() -> None:
        if chat is not None:
            chat.chunk()

    rows = [
        ("one request's spans (server, invoke_agent, chat) + propagation", per_call_us(request, args.n)),
        ("a bare span (start + end)", per_call_us(lambda: tracing.start_span("x").end(), args.n)),
        ("inject traceparent", per_call_us(lambda: tracing.inject({"a": "b"}), args.n)),
        ("extract traceparent", per_call_us(lambda: tracing.extract(HEADERS), args.n)),
        ("a streamed read, tracing off (the call site's test)", per_call_us(token_off, args.n * 100)),
    ]
    chat = spans.ChatSpan("m", provider="vllm", server=("127.0.0.1", 8000))
    rows.append(("a streamed read, tracing on (chat.chunk())", per_call_us(token_off, args.n * 100)))
    # what the spans' ends queue (records, or a span's bytes), caught by a recorder that never exports
    capture = lean_tracer.Recorder(lambda batch: None, delay_s=3600, max_queue=10**6, max_batch=10**6)
    recorder, lean_tracer.LeanSpan.recorder = lean_tracer.LeanSpan.recorder, capture
    finished: list[Any] = []
    keep = make_request(finished)
    reps = max(5, args.n // 300)
    batches: list[list[Any]] = []
    for _ in range(reps + 1):  # fresh records a batch: their unique ids miss the encoder's memos, as a door's do
        for _ in range(100):
            keep()
        batches.append(list(capture.queue))
        capture.queue.clear()
    lean_tracer.LeanSpan.recorder = recorder
    capture.stop()
    queued = batches[0]
    resource = Resource.create({"gateway.door": "bench", "service.name": tracing.DEFAULT_SERVICE_NAME})
    parts = otlp_encode.resource_part(resource.attributes), otlp_encode.scope_part(tracing.SCOPE)
    readable = [to_readable(s, resource, InstrumentationScope(tracing.SCOPE)) for s in finished[: len(queued)]]
    library = per_call_us(lambda: encode_spans(readable).SerializeToString(), reps) / len(readable)
    otlp_encode.encode_batch(queued, *parts)  # (the first: keys and names met for the first time)
    t0 = time.thread_time()
    for batch in batches[1:]:  # each batch encoded once, as the export thread does
        otlp_encode.encode_batch(batch, *parts)
    encode = (time.thread_time() - t0) / sum(map(len, batches[1:])) * 1e6
    again = per_call_us(lambda: otlp_encode.encode_batch(queued, *parts), reps) / len(queued)
    records = sum(type(q) is tuple for q in queued)
    rows.append(("OTLP protobuf encoding per span, the exporters' own encoder", library))
    rows.append(
        (
            f"OTLP encoding per span, otlp_encode.encode_batch of the queue ({records} records, "
            f"{len(queued) - records} bytes a batch of 300; {reps} batches, each once): the export "
            "thread's work, with the batch join",
            encode,
        )
    )
    rows.append(("the same, one batch encoded again and again (its unique values memoised: hits)", again))
    for label, us in rows:
        print(f"{us:9.2f} us  {label}")
    per_request = rows[0][1] + 3 * encode
    print(f"{per_request:9.2f} us  per non-streamed request in all (3 spans made and encoded)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
