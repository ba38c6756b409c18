"""An in-process OTLP trace receiver for tests, speaking both protocols the gateway exports with:
`grpc` (a TraceService server) and `http/protobuf` (an aiohttp `POST /v1/traces` handler decoding
the protobuf). Both run on threads of the test process, so the doors (subprocesses) and Envoy
export to them as to a real collector; `spans()` gives what arrived, flattened.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc
from aiohttp import web
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.support.procs import free_port

KINDS = {0: "unspecified", 1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer"}


@dataclass
class Span:
    name: str
    service: str
    trace_id: str
    span_id: str
    parent_id: str
    kind: str
    attributes: dict[str, Any]
    links: list[str]  # the linked spans' trace ids
    events: list[str]
    status: int  # 0 unset, 1 ok, 2 error


def _value(v: AnyValue) -> Any:
    which = v.WhichOneof("value")
    if which == "array_value":
        return [_value(x) for x in v.array_value.values]
    return getattr(v, which) if which else None


def decode(request: trace_service_pb2.ExportTraceServiceRequest) -> list[Span]:
    out = []
    for rs in request.resource_spans:
        resource = {a.key: _value(a.value) for a in rs.resource.attributes}
        for ss in rs.scope_spans:
            for s in ss.spans:
                out.append(
                    Span(
                        name=s.name,
                        service=str(resource.get("service.name", "")),
                        trace_id=s.trace_id.hex(),
                        span_id=s.span_id.hex(),
                        parent_id=s.parent_span_id.hex(),
                        kind=KINDS.get(s.kind, str(s.kind)),
                        attributes={a.key: _value(a.value) for a in s.attributes},
                        links=[link.trace_id.hex() for link in s.links],
                        events=[e.name for e in s.events],
                        status=s.status.code,
                    )
                )
    return out


@dataclass
class Receiver:
    protocol: str
    port: int
    received: list[Span] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self, **extra: str) -> dict[str, str]:
        """The variables that point a door (and Envoy) at this receiver, flushing every 50 ms."""
        return {
            "OTEL_EXPORTER_OTLP_ENDPOINT": self.endpoint,
            "OTEL_EXPORTER_OTLP_PROTOCOL": self.protocol,
            "OTEL_BSP_SCHEDULE_DELAY": "50",
            **extra,
        }

    def add(self, spans: list[Span]) -> None:
        with self.lock:
            self.received.extend(spans)

    def spans(self) -> list[Span]:
        with self.lock:
            return list(self.received)

    def wait(self, found: Callable[[list[Span]], Any], timeout: float = 15.0) -> list[Span]:
        """Until ``found(spans)`` is true; the spans then (AssertionError with them on timeout)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            spans = self.spans()
            if found(spans):
                return spans
            time.sleep(0.05)
        spans = self.spans()
        raise AssertionError(f"spans never matched: {[(s.service, s.name) for s in spans]}")


class _TraceService(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, receiver: Receiver) -> None:
        self.receiver = receiver

    def Export(self, request: Any, context: Any) -> Any:
        self.receiver.add(decode(request))
        return trace_service_pb2.ExportTraceServiceResponse()


@contextmanager
def grpc_receiver() -> Iterator[Receiver]:
    receiver = Receiver("grpc", free_port())
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(_TraceService(receiver), server)  # type: ignore[no-untyped-call]
    server.add_insecure_port(f"127.0.0.1:{receiver.port}")
    server.start()
    try:
        yield receiver
    finally:
        server.stop(0)


@contextmanager
def http_receiver() -> Iterator[Receiver]:
    receiver = Receiver("http/protobuf", free_port())
    loop = asyncio.new_event_loop()
    started = threading.Event()
    runner_box: list[web.AppRunner] = []

    async def traces(request: web.Request) -> web.Response:
        message = trace_service_pb2.ExportTraceServiceRequest()
        message.ParseFromString(await request.read())
        receiver.add(decode(message))
        body = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        return web.Response(body=body, content_type="application/x-protobuf")

    async def start() -> None:
        app = web.Application()
        app.router.add_post("/v1/traces", traces)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", receiver.port).start()
        runner_box.append(runner)
        started.set()

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    started.wait(10)
    try:
        yield receiver
    finally:
        asyncio.run_coroutine_threadsafe(runner_box[0].cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()


@contextmanager
def receiver(protocol: str) -> Iterator[Receiver]:
    with grpc_receiver() if protocol == "grpc" else http_receiver() as r:
        yield r


def tree(spans: list[Span], trace_id: str) -> dict[str, list[Span]]:
    """The spans of one trace by parent id."""
    out: dict[str, list[Span]] = {}
    for s in spans:
        if s.trace_id == trace_id:
            out.setdefault(s.parent_id, []).append(s)
    return out
