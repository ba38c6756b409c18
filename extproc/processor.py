"""The Envoy external processor: POST /v1/responses translated inside Envoy's filter chain.

One gRPC stream per HTTP request; everything the request needs (the prepared request, the run, the
SSE parser) lives in an `_Exchange` owned by that stream, so nothing travels in headers.

    request_headers   continue (an empty body is a 400 at once)
    request_body      validate and prepare with the engine; either
                      - re-route to the gateway HTTP cluster (tool loop, background, a Responses
                        backend: several backend calls or a detached run cannot ride one upstream
                        request) and end the gRPC stream, so the gateway's SSE passes unbuffered, or
                      - start the run and rewrite the body into a streamed chat completion request
    response_headers  200 + SSE for a streaming client: switch the body to STREAMED; otherwise keep
                      it BUFFERED (errors and non-streaming replies are rendered from the whole body)
    response_body     chat chunks -> Responses events (one reply per message; the parser holds a
                      partial SSE event until the next chunk); the terminal events ride the reply to
                      the final, empty end-of-stream chunk

Whatever happens (client gone, Envoy reset, a bug) the run ends with a terminal status in storage.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any
from urllib.parse import urlsplit

from extproc import tracing as extproc_tracing
from extproc.fleet import ATTRIBUTES, EndpointPicker
from extproc.keywatch import watch_silence
from extproc.ops import SHUTTING_DOWN, Observation
from extproc.pb.envoy.config.core.v3 import base_pb2 as core_pb2
from extproc.pb.envoy.extensions.filters.http.ext_proc.v3 import processing_mode_pb2 as mode_pb2
from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2 as ep
from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as ep_grpc
from extproc.pb.envoy.type.v3 import http_status_pb2
from gateway.auth import limits
from gateway.auth.authenticator import Authenticator, revoked_mid_stream
from gateway.auth.slots import TenantSlots
from gateway.common.errors import APIError, BackendError, BackendTimeout, InvalidRequest, RateLimited, ServerError
from gateway.common.jsonutil import (
    DECODERS,
    JSONDecodeError,
    decode_body,
    dumps,
    loads,
    parse_request_body,
)
from gateway.common.redact import hide_internal
from gateway.engine.context import EngineDeps, Prepared
from gateway.engine.events import Event
from gateway.engine.runner import ResponseRun, interrupted
from gateway.engine.service import ResponsesService
from gateway.engine.sse_writer import sse_frame
from gateway.engine.turn import TurnAssembler
from gateway.inference.base import map_backend_error
from gateway.inference.chat_translate import (
    STREAM_CUT,
    STREAM_UNFINISHED,
    build_chat_body,
    chunk_deltas,
    completion_deltas,
)
from gateway.inference.client import BackendClient
from gateway.inference.replicas import Replica
from gateway.inference.sse_reader import SSEParser
from gateway.research.models import is_research
from gateway.telemetry import tracing
from gateway.tools.tool_search import is_server_search
from gateway.usage.admission import CallAdmission, admit_call
from gateway.usage.recorder import caller_key
from storage.scope import act_for, project_scope

log = logging.getLogger(__name__)

PM = mode_pb2.ProcessingMode
_OVERWRITE = core_pb2.HeaderValueOption.OVERWRITE_IF_EXISTS_OR_ADD
ROUTE_HEADER = "x-gateway-route"  # matched by route (1) of envoy/envoy.yaml.tmpl
# Client credentials for the gateway must not reach the inference backend.
_CLIENT_HEADERS = ("authorization", "openai-organization", "openai-project")


def _set(key: str, value: str) -> core_pb2.HeaderValueOption:
    return core_pb2.HeaderValueOption(
        header=core_pb2.HeaderValue(key=key, raw_value=value.encode()), append_action=_OVERWRITE
    )


def _header(headers: ep.HttpHeaders, name: str) -> str:
    for h in headers.headers.headers:
        if h.key == name:
            return h.raw_value.decode("latin-1") if h.raw_value else h.value
    return ""


def _frames(events: Iterable[Event]) -> bytes:
    return b"".join(sse_frame(e) for e in events)


def immediate(status: int, body: bytes, content_type: str = "application/json") -> ep.ProcessingResponse:
    mutation = ep.HeaderMutation(set_headers=[_set("content-type", content_type)])
    if content_type == "text/event-stream":
        mutation.set_headers.append(_set("cache-control", "no-cache"))
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
        reply.immediate_response.headers.set_headers.append(_set("retry-after", wait))
        reply.immediate_response.headers.set_headers.extend(_set(k, v) for k, v in err.headers.items())
    return reply


def _body_reply(kind: str, body: bytes | None, mutation: ep.HeaderMutation | None = None) -> ep.ProcessingResponse:
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


class ExternalProcessor(ep_grpc.ExternalProcessorServicer):
    def __init__(
        self,
        deps: EngineDeps,
        service: ResponsesService,
        auth: Authenticator,
        client: BackendClient | None = None,
    ) -> None:
        self.deps = deps
        self.service = service
        settings = deps.settings
        self.auth = auth
        self.backend = settings.backend_base
        self.chat_path = (urlsplit(settings.backend_base).path.rstrip("/") or "") + "/chat/completions"
        self.translate = settings.backend_api == "chat_completions" or bool(settings.backends)
        self.fleet = bool(settings.backends)
        # The request mutation is the same for every request: build it once, copy it per request.
        m = ep.HeaderMutation(
            set_headers=[_set(":path", self.chat_path), _set("content-type", "application/json")],
            remove_headers=["content-length"],
        )
        if settings.backend_api_key:
            m.set_headers.append(_set("authorization", f"Bearer {settings.backend_api_key}"))
            m.remove_headers.extend(h for h in _CLIENT_HEADERS if h != "authorization")
        else:
            m.remove_headers.extend(_CLIENT_HEADERS)
        m.remove_headers.append(settings.auth_project_header.lower())  # the caller's, not the backend's business
        self.request_mutation = m
        # A fleet (#27): this process picks the replica with the gateway's policy and names it to Envoy
        # (extproc/fleet.py); without the client (a bare processor) a fleet's turns go to the HTTP server.
        self.endpoints = EndpointPicker(client, m) if client is not None and self.fleet else None
        self.reroute_mutation = ep.HeaderMutation(set_headers=[_set(ROUTE_HEADER, "gateway")])
        self._finishing: set[asyncio.Task[Any]] = set()
        self.draining = False  # SIGTERM: new requests get 503, streams in flight go on
        # open requests per tenant (#26): the streams this process serves itself never reach the HTTP
        # server's count; a request it sends there is released here when its stream ends (at once)
        self.slots = TenantSlots(settings.max_concurrent_per_tenant)
        self.active = 0

    def needs_gateway(self, prepared: Prepared) -> bool:
        """Requests one upstream request cannot serve go to the gateway HTTP server instead."""
        req = prepared.req
        # truncation "auto" may need a second backend call with a shorter context: the HTTP
        # server's run can make it, a request already forwarded by Envoy cannot.
        if req.background or not self.translate or req.truncation == "auto" or is_research(req.model):
            return True
        if prepared.compact_now or req.compact_threshold is not None:  # a summary call before (or instead of) the turn
            return True
        if self.fleet and (self.endpoints is None or self.endpoints.pool(prepared.response["model"]) is None):
            return True  # a Responses-API pool, an unknown model, replicas named by host: the HTTP server
        tools = self.deps.tools
        return any(tools.is_server_side(t) or is_server_search(t) for t in req.tools or [])

    async def Process(
        self, request_iterator: AsyncIterator[ep.ProcessingRequest], context: Any
    ) -> AsyncIterator[ep.ProcessingResponse]:
        ex = _Exchange(self)
        obs = Observation()
        self.active += 1
        act_for(None)  # this stream's task acts for the caller's project once its headers were read
        span = token = None
        handler = asyncio.current_task()
        watch: asyncio.Task[None] | None = None
        try:
            try:
                async for msg in request_iterator:
                    ex.reading = False
                    began = time.perf_counter()
                    if tracing.ON and span is None:  # the stream's span, current while it lasts
                        span, ex.envoy_traces = extproc_tracing.server_span(context, msg)
                        ex.span = span
                        token = tracing.attach(span)
                    if self.draining and ex.run is None:
                        reply, last = immediate(503, SHUTTING_DOWN), True
                    else:
                        project = ex.project
                        reply, last = await ex.handle(msg)
                        if ex.project != project:
                            act_for(ex.project)
                    obs.saw(msg, reply, last, began)
                    if ex.run is not None:
                        obs.response_status(ex.run.id, ex.status, ex.streamed)
                        if watch is None and handler is not None and self.auth.enabled and not last:
                            # the key is re-checked while the backend is silent too (extproc/keywatch.py)
                            period = max(0.1, self.auth.ttl)
                            watch = asyncio.get_running_loop().create_task(watch_silence(ex, period, handler))
                    yield reply
                    if last:
                        return
                    ex.reading = True
            except asyncio.CancelledError:
                if ex.revoked is None or handler is None:
                    raise
                handler.uncancel()  # cancelled by the watcher: the key was revoked while Envoy sent nothing
                yield await ex.end_revoked(ex.revoked)
        finally:
            if watch is not None:
                watch.cancel()
            self.active -= 1
            if ex.admission is not None:  # whatever ended the stream: the unspent tokens go back
                ex.admission.settle()
            if ex.tenant is not None:
                self.slots.release(ex.tenant)
            if ex.replica is not None:
                EndpointPicker.done(ex.replica)
            obs.done()
            if ex.run is not None and not ex.run.finished:
                self._finish_abandoned(ex)
            if span is not None:
                ex.end_chat(None)
                tracing.detach(token)
                span.end()

    def _finish_abandoned(self, ex: _Exchange) -> None:
        """The stream ended before the response did (client gone, Envoy reset, shutdown).

        Runs in its own task: this may be a cancelled handler, which must not await any more.
        """
        run, turn = ex.run, ex.turn
        assert run is not None
        if turn is not None and not turn.closed:
            turn.abort()
        # Envoy ends a stream whose backend stayed silent for the read timeout (the route's
        # idle_timeout) without saying why; the silence tells it apart from a client that left.
        silent = time.monotonic() - ex.last_seen
        timeout = self.deps.settings.backend_read_timeout
        err = interrupted() if silent < timeout * 0.9 else backend_timed_out(timeout)
        ex.end_chat(err)
        with project_scope(ex.project):
            task = asyncio.get_running_loop().create_task(run.finish("failed", error=err), name=f"finish-{run.id}")
        self._finishing.add(task)
        task.add_done_callback(self._finishing.discard)

    async def drain(self) -> None:
        """Wait for abandoned runs to be stored (at shutdown)."""
        while self._finishing:
            await asyncio.gather(*list(self._finishing), return_exceptions=True)


class _Exchange:
    """The state of one POST /v1/responses going through Envoy."""

    __slots__ = (
        "admission",
        "authorization",
        "body_parts",
        "chat",
        "done",
        "encoding",
        "envoy_traces",
        "failed",
        "key_checked",
        "last_seen",
        "named",
        "p",
        "parser",
        "pending",
        "project",
        "project_header",
        "reading",
        "replica",
        "resp_parts",
        "revoked",
        "run",
        "span",
        "sse",
        "status",
        "stream",
        "streamed",
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
        self.key_checked = time.monotonic()
        self.reading = True  # the exchange's task waits for Envoy's next message (extproc/keywatch.py)
        self.revoked: APIError | None = None  # the key stopped working while the backend was silent
        self.turn: TurnAssembler | None = None
        self.stream = False  # the client asked for SSE
        self.streamed = False  # Envoy streams the response body through us chunk by chunk
        self.sse = False  # the backend answered with SSE
        self.status = 0
        self.parser = SSEParser()
        self.pending = b""  # frames not yet sent (the begin events)
        self.done = False  # [DONE] seen, or the backend's stream carried an error
        self.failed: APIError | None = None  # a mid-stream error from the backend
        self.body_parts: list[bytes] = []
        self.resp_parts: list[bytes] = []
        self.encoding = ""  # the request's Content-Encoding
        self.last_seen = time.monotonic()  # the last message from Envoy (a backend byte, after the request)
        self.span: Any = None  # the stream's server span (tracing on)
        self.chat: Any = None  # the backend call's `chat` span (tracing on), ended with the turn
        self.envoy_traces = False  # Envoy's tracer named the parent: it writes the upstream traceparent

    def end_chat(self, error: BaseException | None) -> None:
        """End the backend call's span (once), with what the turn reported."""
        if self.chat is not None:
            chat, self.chat = self.chat, None
            served = self.run.affinity.served if self.run is not None and self.named else None
            chat.end(self.turn, error, served)

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

    async def handle(self, msg: ep.ProcessingRequest) -> tuple[ep.ProcessingResponse, bool]:
        """One reply per message; True when it is the last this stream will send."""
        self.last_seen = time.monotonic()
        kind = msg.WhichOneof("request")
        if self.revoked is not None and self.running():  # found by the key watcher while this was busy
            return await self.end_revoked(self.revoked), True
        try:
            if kind == "response_body":
                return await self.on_response_body(msg.response_body)
            if kind == "request_body":
                return await self.on_request_body(msg.request_body)
            if kind == "response_headers":
                if self.named and self.p.endpoints is not None:  # a fleet: which replicas refused
                    told = msg.attributes[ATTRIBUTES] if ATTRIBUTES in msg.attributes else None
                    self.p.endpoints.observe(self.named, told, self.run.affinity if self.run else None)
                return await self.on_response_headers(msg.response_headers)
            if kind == "request_headers":
                auth = self.p.auth
                try:
                    # Envoy is the only peer of the ExtProc: a trusted-mode header arrives through it
                    self.authorization = _header(msg.request_headers, "authorization") or None
                    self.project_header = _header(msg.request_headers, auth.header) or None
                    self.project = await auth.project(self.authorization, self.project_header, peer_trusted=True)
                    self.admission = await admit_call(limits.LIMITS, self.project, caller_key.get())
                    self.take_slot()
                except APIError as refused:
                    return error_reply(refused), True
                if msg.request_headers.end_of_stream:
                    err = InvalidRequest("The request body is empty; expected a JSON object.", code="invalid_json")
                    return error_reply(err), True
                self.encoding = _header(msg.request_headers, "content-encoding").strip().lower()
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
            # trailers are SKIP in the configuration; answer anything else without changes
            if kind == "request_trailers":
                return ep.ProcessingResponse(request_trailers=ep.TrailersResponse()), False
            return ep.ProcessingResponse(response_trailers=ep.TrailersResponse()), False
        except Exception as exc:
            if isinstance(exc, APIError) and exc.status < 500:  # the client's mistake, answered: no alert
                log.info("request refused at %s: %s %s", kind, exc.status, exc.code or exc.type)
            else:
                log.exception("ext_proc failed at %s", kind)
            return await self._internal_error(kind, exc)

    async def _internal_error(self, kind: str | None, exc: Exception) -> tuple[ep.ProcessingResponse, bool]:
        err = exc if isinstance(exc, APIError) else ServerError(f"internal error: {type(exc).__name__}")
        events: list[Event] = []
        if self.run is not None and not self.run.finished:
            if self.turn is not None and not self.turn.closed:
                self.turn.abort()
            events = await self.run.finish("failed", error=err)
        if kind == "response_body" and self.streamed:  # headers are gone already: end the SSE stream
            drained = self._sse(self.run.events.drain()) if self.run is not None else b""
            return _body_reply("response", self._take_pending() + drained + self._sse(events)), False
        return error_reply(err), True

    def _sse(self, events: Iterable[Event]) -> bytes:
        """The events as SSE frames for a streaming client; nothing for a non-streaming one, which
        gets the final Response object instead (the events are still drained)."""
        return _frames(events) if self.stream else b""

    def _take_pending(self) -> bytes:
        out, self.pending = self.pending, b""
        return out

    # -- request ----------------------------------------------------------------------------------
    async def on_request_body(self, msg: ep.HttpBody) -> tuple[ep.ProcessingResponse, bool]:
        self.body_parts.append(msg.body)
        if not msg.end_of_stream:  # BUFFERED sends the whole body at once; be tolerant anyway
            return _body_reply("request", None), False
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
                        mutation.set_headers.append(_set(key, value))
        return _body_reply("request", chat, mutation), False

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

    # -- response ---------------------------------------------------------------------------------
    async def on_response_headers(self, msg: ep.HttpHeaders) -> tuple[ep.ProcessingResponse, bool]:
        if self.run is None:  # not ours (cannot happen with the shipped configuration)
            return ep.ProcessingResponse(response_headers=ep.HeadersResponse()), True
        try:
            self.status = int(_header(msg, ":status") or 0)
        except ValueError:
            self.status = 0
        self.sse = "text/event-stream" in _header(msg, "content-type")
        if msg.end_of_stream:  # no body will follow: settle it now
            return await self._settle_buffered(b"", at_headers=True)
        common = ep.CommonResponse()
        mutation = common.header_mutation
        ratelimit = self.admission.headers if self.admission is not None else None
        if ratelimit:
            mutation.set_headers.extend(_set(k, v) for k, v in ratelimit.items())
        if self.status != 200:  # rendered at the body (error message inside)
            headers = ep.HeadersResponse(response=common) if ratelimit else ep.HeadersResponse()
            return ep.ProcessingResponse(response_headers=headers), False
        mutation.remove_headers.append("content-length")
        if self.stream:
            mutation.set_headers.append(_set("content-type", "text/event-stream"))
            mutation.set_headers.append(_set("cache-control", "no-cache"))
        else:
            mutation.set_headers.append(_set("content-type", "application/json"))
        override = None
        if self.stream and self.sse:
            override = PM(response_body_mode=PM.STREAMED)
            self.streamed = True
        reply = ep.ProcessingResponse(response_headers=ep.HeadersResponse(response=common), mode_override=override)
        return reply, False

    async def on_response_body(self, msg: ep.HttpBody) -> tuple[ep.ProcessingResponse, bool]:
        if self.run is None:
            return _body_reply("response", None), True
        if not self.streamed:
            self.resp_parts.append(msg.body)
            if not msg.end_of_stream:
                return _body_reply("response", b""), False
            raw = b"".join(self.resp_parts)
            self.resp_parts = []
            return await self._settle_buffered(raw)
        out = self._take_pending()
        if self.chat is not None:
            self.chat.chunk()
        if not self.run.finished and (revoked := await self.key_revoked()) is not None:
            self.done = True  # the rest of the backend's stream is dropped
            out += await self._fail(revoked)
        if not self.run.finished:
            out += self._feed(msg.body)
            if msg.end_of_stream:
                out += await self._complete()
            elif self.failed is not None:
                out += await self._fail(self.failed)
        return _body_reply("response", out), msg.end_of_stream

    def running(self) -> bool:
        return self.run is not None and not self.run.finished

    async def end_revoked(self, revoked: APIError) -> ep.ProcessingResponse:
        """The key stopped working while the backend was silent (`extproc/keywatch.py`): the run ends
        `failed` with the reason and this immediate response ends the exchange. Before the response
        headers went out the client gets it whole (the SSE `error` and `response.failed`, or the
        401); once Envoy streams the body it can only reset the stream: the client sees the reply
        cut, and the stored response says why."""
        self.done = True
        out = self._take_pending() + await self._fail(revoked)
        if self.stream:
            return immediate(200, out, "text/event-stream")
        return error_reply(revoked)

    async def key_revoked(self) -> APIError | None:
        """The reason to end this stream if its key stopped working (#26): checked again once
        `GATEWAY_AUTH_CACHE_SECONDS` have passed since the last check, as backend chunks arrive."""
        auth = self.p.auth
        if not auth.enabled or time.monotonic() - self.key_checked < max(0.1, auth.ttl):
            return None
        self.key_checked = time.monotonic()
        try:
            project = await auth.project(self.authorization, self.project_header, peer_trusted=True)
        except APIError:
            return revoked_mid_stream()
        return None if project == self.project else revoked_mid_stream()

    def _feed(self, data: bytes) -> bytes:
        """Translate the chat chunks ``data`` completes; return the Responses events as SSE."""
        return self._apply(self.parser.feed(data))

    def _apply(self, events: list[tuple[str | None, bytes]]) -> bytes:
        turn, run = self.turn, self.run
        assert turn is not None and run is not None
        for _event, payload in events:
            if self.done:
                continue
            if payload == b"[DONE]":
                self.done = True
                continue
            try:
                chunk = loads(payload)
            except JSONDecodeError:
                self.failed, self.done = BackendError("the inference backend sent an invalid stream chunk"), True
                continue
            if isinstance(chunk, dict) and "error" in chunk and not chunk.get("choices"):
                err = chunk["error"]
                code = err.get("code") if isinstance(err, dict) else None
                status = code if isinstance(code, int) and 400 <= code < 600 else 500
                self.failed, self.done = map_backend_error(status, payload), True
                continue
            turn.apply(chunk_deltas(chunk))
        return self._sse(run.events.drain())

    async def _complete(self) -> bytes:
        """The backend's body has ended: close the turn and give the response its terminal status."""
        run, turn = self.run, self.turn
        assert run is not None and turn is not None
        out = self._apply(self.parser.close())
        if self.failed is not None:
            return out + await self._fail(self.failed)
        if turn.finish_reason is None:  # no [DONE], or a [DONE] after no choice ever finished
            return out + await self._fail(BackendError(STREAM_UNFINISHED if self.done else STREAM_CUT))
        self.end_chat(None)
        run.end_turn(turn)
        out += self._sse(run.events.drain())
        if turn.finish_reason == "length":
            return out + self._sse(await run.finish("incomplete", incomplete_reason="max_output_tokens"))
        return out + self._sse(await run.finish("completed"))

    async def _fail(self, err: APIError) -> bytes:
        run, turn = self.run, self.turn
        assert run is not None
        if turn is not None and not turn.closed:
            turn.abort()
        self.end_chat(err)
        return self._sse(run.events.drain()) + self._sse(await run.finish("failed", error=err))

    async def _settle_buffered(self, raw: bytes, *, at_headers: bool = False) -> tuple[ep.ProcessingResponse, bool]:
        """The whole backend body is here (non-streaming client, or an error status).

        At response headers (a reply without a body) only an immediate response can carry a body.
        """
        run, turn = self.run, self.turn
        assert run is not None and turn is not None
        if self.chat is not None:
            self.chat.chunk()
        if self.status != 200:
            err = envoy_local_error(self.status, raw, self.p.backend)
            out = self._take_pending() + await self._fail(err)
            if self.stream:  # the failure as the SSE stream the client asked for
                return immediate(200, out, "text/event-stream"), True
            return error_reply(err), True
        if self.sse:
            out = self._take_pending() + self._feed(raw) + await self._complete()
        else:  # one chat.completion: a non-streaming client's turn (or a backend that ignored `stream`)
            try:
                turn.apply(completion_deltas(loads(raw)))
                self.done = True
            except BackendError as exc:
                self.failed = exc
            except (JSONDecodeError, AttributeError, TypeError, IndexError):
                self.failed = BackendError("the inference backend sent an invalid reply")
            out = self._take_pending() + self._sse(run.events.drain()) + await self._complete()
        if not self.stream:
            if run.response["status"] == "failed" and run.error is not None:
                return error_reply(run.error), True
            out = dumps(run.response)
        if at_headers:
            return immediate(200, out, "text/event-stream" if self.stream else "application/json"), True
        return _body_reply("response", out), True
