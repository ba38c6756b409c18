"""Where tracing's CPU goes, in-process and single-threaded (`time.thread_time`): the spans one
non-streamed request makes (HTTP server span, `invoke_agent`, `chat`), propagation, the OTLP
encoding the batch thread does per span (the exporters' own encoder, and `gateway.telemetry.otlp_encode`,
which the doors use), and what a streamed token pays (one test per read).

    .venv/bin/python -m bench.tracing_micro [--n N]

Deterministic where `bench.bench_tracing` (whole stacks) drowns in a shared machine's noise.
"""

from __future__ import annotations

import argparse
import os
import sys
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=3000, help="repetitions per figure")
    args = ap.parse_args(argv)
    os.environ.update(ENV)
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope

    from gateway.engine import spans
    from gateway.telemetry import lean_tracer, otlp_encode, tracing

    tracing.setup("bench")
    headers = {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
    response = {"id": "resp_1", "model": "m", "usage": {"input_tokens": 5, "output_tokens": 7}, "status": "completed"}

    def request() -> None:  # what one non-streamed request does, as the doors do it
        server = tracing.start_span("POST /v1/responses", "server", {"http.request.method": "POST",
                                    "url.path": "/v1/responses", "url.scheme": "http", "server.address": "h",
                                    "server.port": 8082, "client.address": "127.0.0.1",
                                    "http.route": "/v1/responses"}, parent=tracing.extract(headers))  # fmt: skip
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
        server.set_attributes({"http.response.status_code": 200, "gen_ai.response.id": "resp_1"})
        tracing.detach(t1)
        server.end()

    chat: Any = None

    def token_off() -> None:
        if chat is not None:
            chat.chunk()

    rows = [
        ("one request's spans (server, invoke_agent, chat) + propagation", per_call_us(request, args.n)),
        ("a bare span (start + end)", per_call_us(lambda: tracing.start_span("x").end(), args.n)),
        ("inject traceparent", per_call_us(lambda: tracing.inject({"a": "b"}), args.n)),
        ("extract traceparent", per_call_us(lambda: tracing.extract(headers), args.n)),
        ("a streamed read, tracing off (the call site's test)", per_call_us(token_off, args.n * 100)),
    ]
    chat = spans.ChatSpan("m", provider="vllm", server=("127.0.0.1", 8000))
    rows.append(("a streamed read, tracing on (chat.chunk())", per_call_us(token_off, args.n * 100)))
    recorder = tracing._recorder
    assert recorder is not None
    recorder.queue.clear()
    for _ in range(100):
        request()
    finished = list(recorder.queue)
    resource = Resource.create({"gateway.door": "bench", "service.name": tracing.DEFAULT_SERVICE_NAME})
    parts = otlp_encode.resource_part(resource.attributes), otlp_encode.scope_part(tracing.SCOPE)
    readable = [lean_tracer.to_readable(s, resource, InstrumentationScope(tracing.SCOPE)) for s in finished]
    reps = max(5, args.n // 300)
    library = per_call_us(lambda: encode_spans(readable).SerializeToString(), reps) / len(finished)
    encode = per_call_us(lambda: otlp_encode.encode_batch(finished, *parts), reps) / len(finished)
    rows.append(("OTLP protobuf encoding per span, the exporters' own encoder", library))
    rows.append(
        ("OTLP protobuf encoding per span, gateway.telemetry.otlp_encode (what the export thread runs)", encode)
    )
    for label, us in rows:
        print(f"{us:9.2f} us  {label}")
    per_request = rows[0][1] + 3 * encode
    print(f"{per_request:9.2f} us  per non-streamed request in all (3 spans made and encoded)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
