"""The request half of one exchange: who calls, what it asks, and where the turn goes.

At the request headers: the caller's project from its key, its admission (requests and tokens per
minute) and its slot among the project's open requests, the body's encoding. At the request body:
the body decoded, parsed and prepared by the engine; then either re-routed to the gateway HTTP
server (what one upstream request cannot serve) or the run started and the body rewritten into the
backend's streamed chat completion request (with the fleet's replicas named, and the `chat` span's
traceparent). A base class of `Exchange` (`exchange.py`, the message dispatch and the response
half), so that one object with one set of `__slots__` holds the stream's state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2 as ep
from extproc.replies import body_reply, error_reply, frames, header_of, set_header
from gateway.auth import limits
from gateway.common.errors import APIError, InvalidRequest, RateLimited
from gateway.common.jsonutil import DECODERS, decode_body, dumps, parse_request_body
from gateway.engine.events import Event
from gateway.engine.runner import ResponseRun
from gateway.engine.turn import TurnAssembler
from gateway.inference.chat_translate import build_chat_body
from gateway.inference.replicas import Replica
from gateway.telemetry import tracing
from gateway.usage.admission import CallAdmission, admit_call
from gateway.usage.recorder import caller_key

if TYPE_CHECKING:
    from collections.abc import Iterable

    from extproc.processor import ExternalProcessor


class RequestPhase:
    """The state the request phase sets (read by the response phase too) and its handlers."""

    __slots__ = (
        "admission",
        "authorization",
        "body_parts",
        "chat",
        "encoding",
        "envoy_traces",
        "named",
        "p",
        "pending",
        "project",
        "project_header",
        "replica",
        "run",
        "span",
        "stream",
        "tenant",
        "turn",
    )

    def __init__(self, p: ExternalProcessor) -> None:
        self.p = p
        self.run: ResponseRun | None = None
        self.replica: Replica | None = None  # a fleet's replica Envoy was told to use
        self.named: list[Replica] = []  # it and its fallbacks, in the order Envoy was told them
        self.project: str | None = None  # set from the request headers (gateway.auth)
        # counted at the headers, tokens reserved at the body, settled at the end (x-ratelimit-* for the reply)
        self.admission: CallAdmission | None = None
        self.tenant: str | None = None  # the slot this stream holds in `p.slots` (keys in use)
        self.authorization: str | None = None  # the credentials, re-checked while the stream lasts (#26)
        self.project_header: str | None = None
        self.turn: TurnAssembler | None = None
        self.stream = False  # the client asked for SSE
        self.pending = b""  # frames not yet sent (the begin events)
        self.body_parts: list[bytes] = []
        self.encoding = ""  # the request's Content-Encoding
        self.span: Any = None  # the stream's server span (tracing on)
        self.chat: Any = None  # the backend call's `chat` span (tracing on), ended with the turn
        self.envoy_traces = False  # Envoy's tracer named the parent: it writes the upstream traceparent

    def _sse(self, events: Iterable[Event]) -> bytes:
        """The events as SSE frames for a streaming client; nothing for a non-streaming one, which
        gets the final Response object instead (the events are still drained)."""
        return frames(events) if self.stream else b""

    def take_slot(self) -> None:
        """Count this request against its project's open requests (the HTTP door's cap, #26); the
        tenant is the key's project, so with no keys in use (every client one project) no cap."""
        slots = self.p.slots
        if self.project is None or not self.p.auth.enabled:
            return
        tenant = f"project:{self.project}"
        if not slots.acquire(tenant):
            raise RateLimited(
                f"Too many open requests for this project ({slots.cap} per process): wait for some to finish.",
                retry_after=1,
                code="too_many_concurrent_requests",
            )
        self.tenant = tenant

    # -- request ----------------------------------------------------------------------------------
    async def on_request_headers(self, msg: ep.HttpHeaders) -> tuple[ep.ProcessingResponse, bool]:
        """The caller (its key's project), its admission and open-request slot, the body's encoding."""
        auth = self.p.auth
        try:
            # Envoy is the only peer of the ExtProc: a trusted-mode header arrives through it
            self.authorization = header_of(msg, "authorization") or None
            self.project_header = header_of(msg, auth.header) or None
            self.project = await auth.project(self.authorization, self.project_header, peer_trusted=True)
            self.admission = await admit_call(limits.LIMITS, self.project, caller_key.get())
            self.take_slot()
        except APIError as refused:
            return error_reply(refused), True
        if msg.end_of_stream:
            err = InvalidRequest("The request body is empty; expected a JSON object.", code="invalid_json")
            return error_reply(err), True
        self.encoding = header_of(msg, "content-encoding").strip().lower()
        if self.encoding in ("", "identity"):
            return ep.ProcessingResponse(request_headers=ep.HeadersResponse()), False
        if self.encoding not in DECODERS:
            try:
                decode_body(b"", self.encoding, 0)
            except APIError as unsupported:
                return error_reply(unsupported), True
        # the body is decoded here and replaced by the backend's request: the header goes
        mutation = ep.HeaderMutation(remove_headers=["content-encoding"])
        reply = ep.HeadersResponse(response=ep.CommonResponse(header_mutation=mutation))
        return ep.ProcessingResponse(request_headers=reply), False

    async def on_request_body(self, msg: ep.HttpBody) -> tuple[ep.ProcessingResponse, bool]:
        self.body_parts.append(msg.body)
        if not msg.end_of_stream:  # BUFFERED sends the whole body at once; be tolerant anyway
            return body_reply("request", None), False
        raw = b"".join(self.body_parts)
        self.body_parts = []
        if self.encoding not in ("", "identity"):
            try:
                raw = decode_body(raw, self.encoding, self.p.deps.settings.max_body_bytes)
            except APIError as refused:
                return error_reply(refused), True
        if not raw.strip():
            err = InvalidRequest("The request body is empty; expected a JSON object.", code="invalid_json")
            return error_reply(err), True
        try:
            body = parse_request_body(raw)
        except InvalidRequest as err:
            return error_reply(err), True
        p = self.p
        try:
            prepared = await p.service.prepare(body)
        except APIError as err:
            return error_reply(err), True
        if p.needs_gateway(prepared):
            if self.span is not None:  # the HTTP door's span (under Envoy's span) runs the loop
                self.span.set_attribute("gateway.rerouted", True)
            if self.admission is not None:
                await self.admission.refund()  # the HTTP server admits it
            common = ep.CommonResponse(clear_route_cache=True)
            common.header_mutation.CopyFrom(p.reroute_mutation)
            # Ending the gRPC stream now lets the gateway's SSE pass through Envoy unbuffered.
            return ep.ProcessingResponse(request_body=ep.BodyResponse(response=common)), True
        if (too_many := await self.reserve(body)) is not None:
            return too_many, True
        self.stream = prepared.req.stream
        run = self.run = ResponseRun(p.deps, prepared)
        # A stored stream is written at once, so a client that goes away leaves a findable response.
        begin = await run.begin(persist=self.stream)
        if self.stream:
            self.pending = self._sse(begin)
        self.turn = run.new_turn()
        chat = dumps(build_chat_body(run.turn_request()))
        mutation = p.request_mutation
        if p.endpoints is not None and (pool := p.endpoints.pool(prepared.response["model"])) is not None:
            mutation, self.named = p.endpoints.route(pool, run.affinity)  # a fresh mutation naming the replicas
            self.replica = self.named[0]
        if tracing.ON:  # the backend call's span; its traceparent rides the upstream request
            self.chat = run.chat_span(run.response["model"], under_run=True)  # under the run's `invoke_agent`
            if not self.envoy_traces:  # (Envoy's router writes its own span's traceparent over ours)
                if mutation is p.request_mutation:  # shared by every stream: add to a copy
                    mutation = ep.HeaderMutation()
                    mutation.CopyFrom(p.request_mutation)
                with tracing.span_current(self.chat.span):
                    for key, value in tracing.carrier().items():
                        mutation.set_headers.append(set_header(key, value))
        return body_reply("request", chat, mutation), False

    async def reserve(self, body: Any) -> ep.ProcessingResponse | None:
        """tokens_per_minute: reserve the turn's output cap and prompt estimate before the backend
        call (the request itself was counted at its headers); a 429 when it does not fit."""
        if self.admission is None:
            return None
        try:  # refused: the request counts for nothing (in its own minute); the 429 has its headers
            await self.admission.reserve("/v1/responses", body)
        except APIError as refused:  # 429 rate_limit_exceeded
            return error_reply(refused)
        return None
