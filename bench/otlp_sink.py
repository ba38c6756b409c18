"""A local OTLP/HTTP collector for benchmarks, in a process of its own: it parses each export
(protobuf, in C) to count the spans and answers as a collector does, nothing more.

    .venv/bin/python -m bench.otlp_sink PORT

Why not the tests' receiver (`tests/support/otlp_receiver.py`): that one decodes every span into Python
objects on a thread of the benchmark's own process, so with tracing on it took the GIL from the
load generator, slowed the clients and raised the doors' CPU per request (fewer requests per event
loop wake-up) in the "on" rounds only: a cost of the harness, charged to tracing (#31). A real
collector is a process of its own. `GET /count` gives the spans and exports received so far.
"""

from __future__ import annotations

import sys

from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

REPLY = ExportTraceServiceResponse().SerializeToString()


def app() -> web.Application:
    counts = {"spans": 0, "exports": 0}

    async def traces(request: web.Request) -> web.Response:
        message = ExportTraceServiceRequest.FromString(await request.read())
        counts["spans"] += sum(len(s.spans) for r in message.resource_spans for s in r.scope_spans)
        counts["exports"] += 1
        return web.Response(body=REPLY, content_type="application/x-protobuf")

    async def count(_: web.Request) -> web.Response:
        return web.json_response(counts)

    application = web.Application()
    application.router.add_post("/v1/traces", traces)
    application.router.add_get("/count", count)
    return application


def main() -> int:
    web.run_app(app(), host="127.0.0.1", port=int(sys.argv[1]), access_log=None, print=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
