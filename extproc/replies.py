"""What the processor answers Envoy with, and what Envoy's own replies mean.

Why a module of its own: every phase of an exchange (`request_phase.py`, `exchange.py`) and the
servicer (`processor.py`) build the same few protobuf replies (a header value, an immediate
response, a body response, an API error as a reply) and read headers the same way; the body
response is built in place because one is sent per streamed token. Envoy's local replies
(connection refused, no endpoint, timeouts) are told apart from the backend's own errors here too.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable

from extproc.pb.envoy.config.core.v3 import base_pb2 as core_pb2
from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2 as ep
from extproc.pb.envoy.type.v3 import http_status_pb2
from gateway.common.errors import APIError, BackendError, BackendTimeout, RateLimited
from gateway.common.jsonutil import dumps
from gateway.common.redact import hide_internal
from gateway.engine.events import Event
from gateway.engine.sse_writer import sse_frame
from gateway.inference.base import map_backend_error

log = logging.getLogger(__name__)

_OVERWRITE = core_pb2.HeaderValueOption.OVERWRITE_IF_EXISTS_OR_ADD


def set_header(key: str, value: str) -> core_pb2.HeaderValueOption:
    return core_pb2.HeaderValueOption(
        header=core_pb2.HeaderValue(key=key, raw_value=value.encode()), append_action=_OVERWRITE
    )


def header_of(headers: ep.HttpHeaders, name: str) -> str:
    for h in headers.headers.headers:
        if h.key == name:
            return h.raw_value.decode("latin-1") if h.raw_value else h.value
    return ""


def frames(events: Iterable[Event]) -> bytes:
    return b"".join(sse_frame(e) for e in events)


def immediate(status: int, body: bytes, content_type: str = "application/json") -> ep.ProcessingResponse:
    mutation = ep.HeaderMutation(set_headers=[set_header("content-type", content_type)])
    if content_type == "text/event-stream":
        mutation.set_headers.append(set_header("cache-control", "no-cache"))
    return ep.ProcessingResponse(
        immediate_response=ep.ImmediateResponse(
            status=http_status_pb2.HttpStatus(code=status),  # type: ignore[arg-type]
            headers=mutation,
            body=body,
            details="responses_gateway",
        )
    )


def backend_timed_out(timeout: float) -> BackendTimeout:
    return BackendTimeout(f"the inference backend sent nothing for {timeout:g}s (GATEWAY_BACKEND_READ_TIMEOUT)")


def error_reply(err: APIError) -> ep.ProcessingResponse:
    reply = immediate(err.status, dumps(err.body()))
    if isinstance(err, RateLimited):
        wait = str(max(1, math.ceil(err.retry_after)))
        reply.immediate_response.headers.set_headers.append(set_header("retry-after", wait))
        reply.immediate_response.headers.set_headers.extend(set_header(k, v) for k, v in err.headers.items())
    return reply


def body_reply(kind: str, body: bytes | None, mutation: ep.HeaderMutation | None = None) -> ep.ProcessingResponse:
    """A BodyResponse; ``body`` None leaves the bytes alone, b"" replaces them with nothing.

    Built in place: one per streamed token at a GPU's pace, and nesting messages made apart
    (`ProcessingResponse(response_body=BodyResponse(response=common))`) copies each into its parent.
    """
    reply = ep.ProcessingResponse()
    common = (reply.request_body if kind == "request" else reply.response_body).response
    common.SetInParent()
    if mutation is not None:
        common.header_mutation.CopyFrom(mutation)
    if body is not None:
        common.body_mutation.body = body  # sets the oneof even when empty
    return reply


def envoy_local_error(status: int, body: bytes, backend: str) -> APIError:
    """Map the backend's error reply, or Envoy's own (connection refused, no endpoint, timeout)."""
    if status in (502, 503, 504) and body.startswith(
        (b"upstream connect error", b"no healthy upstream", b"upstream request timeout", b"stream timeout")
    ):
        detail = body.decode("utf-8", "replace").strip()[:2000]
        log.warning("the inference backend at %s: Envoy answered %d %s", backend, status, detail)
        detail = hide_internal(detail)  # the client learns what failed, not where the backend lives
        if status == 504 or body.startswith(b"upstream request timeout"):
            return BackendTimeout(f"the inference backend timed out ({detail})")
        return BackendError(f"could not connect to the inference backend: {detail}")
    return map_backend_error(status, body)
