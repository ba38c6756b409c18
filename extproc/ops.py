"""The ExtProc door's operational surface: per-request metrics and the access line, and the reply
that refuses new requests while the process drains.

The ExtProc has no HTTP port: its metrics go to the stack's shared prometheus multiprocess
directory and are served by the HTTP server's `/metrics` with `door="extproc"`.
"""

from __future__ import annotations

import logging
import time

from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2 as ep
from gateway.common.jsonutil import dumps
from gateway.telemetry import metrics
from gateway.telemetry.logs import ACCESS_LOGGER, new_request_id, request_context

access_log = logging.getLogger(ACCESS_LOGGER)
ROUTE = "/v1/responses"

SHUTTING_DOWN = dumps(
    {
        "error": {
            "message": "The gateway is shutting down and accepts no new requests; retry shortly.",
            "type": "server_error",
            "param": None,
            "code": "shutting_down",
        }
    }
)


def request_id_of(msg: ep.ProcessingRequest) -> str:
    """Envoy's x-request-id from the request headers (generated when missing)."""
    for h in msg.request_headers.headers.headers:
        if h.key == "x-request-id":
            return new_request_id(h.raw_value.decode("latin-1") if h.raw_value else h.value)
    return new_request_id(None)


class Observation:
    """What one gRPC stream (one HTTP request) did, for the metrics and the access line."""

    __slots__ = ("busy", "ctx", "first", "open_stream", "started", "status")

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.busy = 0.0  # time spent in the processor's handlers: the gateway's own share
        self.status = "0"
        self.first = False
        self.open_stream = False
        self.ctx: dict[str, str | None] = {"request_id": None, "response_id": None}
        request_context.set(self.ctx)  # the RPC runs in its own task: no reset needed

    def saw(self, msg: ep.ProcessingRequest, reply: ep.ProcessingResponse, last: bool, began: float) -> None:
        self.busy += time.perf_counter() - began
        kind = msg.WhichOneof("request")
        if kind == "request_headers":
            self.ctx["request_id"] = request_id_of(msg)
        if reply.HasField("immediate_response"):
            self.status = str(reply.immediate_response.status.code)
        elif kind == "request_body" and last:
            self.status = "rerouted"  # the HTTP door answers it (and counts it as door="http")
        elif kind == "response_body" and not self.first and reply.response_body.response.body_mutation.body:
            self.first = True
            metrics.first_event(time.perf_counter() - self.started)

    def response_status(self, response_id: str, status: int, streamed: bool) -> None:
        self.ctx["response_id"] = response_id
        if self.status == "0" and status:
            self.status = str(status)
        if streamed and not self.open_stream:
            self.open_stream = True
            metrics.stream_open(1)

    def done(self) -> None:
        seconds = time.perf_counter() - self.started
        if self.open_stream:
            metrics.stream_open(-1)
        if self.status == "0":
            self.status = "499"  # Envoy ended the stream before any reply carried a status
        metrics.request_done(ROUTE, "POST", self.status, seconds, seconds - self.busy)
        access_log.info(
            "POST %s %s %.1fms",
            ROUTE,
            self.status,
            seconds * 1000,
            extra={
                "door": "extproc",
                "route": ROUTE,
                "method": "POST",
                "status": self.status,
                "duration_ms": round(seconds * 1000, 2),
            },
        )
