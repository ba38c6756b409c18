"""One POST /v1/responses going through Envoy: the message dispatch and the response half.

Envoy sends the exchange's messages one by one (`handle`: one reply each); the request half
(`request_phase.py`) prepares the run and the backend's request. The response half translates the
backend's reply: at its headers, a 200 + SSE for a streaming client switches the body to STREAMED
(else it stays BUFFERED and is rendered whole); at its body, chat chunks become Responses events
(the parser holds a partial SSE event until the next chunk) and the end of the body gives the
response its terminal status. Whatever goes wrong inside a handler ends the run `failed` and
answers Envoy. A key revoked mid-stream ends the exchange here too (`key_revoked`, re-checked as
chunks arrive and by `extproc/keywatch.py` while the backend is silent).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from extproc.fleet import ATTRIBUTES
from extproc.pb.envoy.extensions.filters.http.ext_proc.v3 import processing_mode_pb2 as mode_pb2
from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2 as ep
from extproc.replies import body_reply, envoy_local_error, error_reply, header_of, immediate, set_header
from extproc.request_phase import RequestPhase
from gateway.auth.authenticator import revoked_mid_stream
from gateway.common.errors import APIError, BackendError, ServerError
from gateway.common.jsonutil import JSONDecodeError, dumps, loads
from gateway.engine.events import Event
from gateway.inference.base import map_backend_error
from gateway.inference.chat_translate import STREAM_CUT, STREAM_UNFINISHED, chunk_deltas, completion_deltas
from gateway.inference.sse_reader import SSEParser

if TYPE_CHECKING:
    from extproc.processor import ExternalProcessor

log = logging.getLogger(__name__)

PM = mode_pb2.ProcessingMode


class Exchange(RequestPhase):
    """The state of one POST /v1/responses going through Envoy."""

    __slots__ = (
        "done",
        "failed",
        "key_checked",
        "last_seen",
        "parser",
        "reading",
        "resp_parts",
        "revoked",
        "sse",
        "status",
        "streamed",
    )

    def __init__(self, p: ExternalProcessor) -> None:
        super().__init__(p)
        self.key_checked = time.monotonic()
        self.reading = True  # the exchange's task waits for Envoy's next message (extproc/keywatch.py)
        self.revoked: APIError | None = None  # the key stopped working while the backend was silent
        self.streamed = False  # Envoy streams the response body through us chunk by chunk
        self.sse = False  # the backend answered with SSE
        self.status = 0
        self.parser = SSEParser()
        self.done = False  # [DONE] seen, or the backend's stream carried an error
        self.failed: APIError | None = None  # a mid-stream error from the backend
        self.resp_parts: list[bytes] = []
        self.last_seen = time.monotonic()  # the last message from Envoy (a backend byte, after the request)

    def end_chat(self, error: BaseException | None) -> None:
        """End the backend call's span (once), with what the turn reported."""
        if self.chat is not None:
            chat, self.chat = self.chat, None
            served = self.run.affinity.served if self.run is not None and self.named else None
            chat.end(self.turn, error, served)

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
                return await self.on_request_headers(msg.request_headers)
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
            return body_reply("response", self._take_pending() + drained + self._sse(events)), False
        return error_reply(err), True

    def _take_pending(self) -> bytes:
        out, self.pending = self.pending, b""
        return out

    # -- response ---------------------------------------------------------------------------------
    async def on_response_headers(self, msg: ep.HttpHeaders) -> tuple[ep.ProcessingResponse, bool]:
        if self.run is None:  # not ours (cannot happen with the shipped configuration)
            return ep.ProcessingResponse(response_headers=ep.HeadersResponse()), True
        try:
            self.status = int(header_of(msg, ":status") or 0)
        except ValueError:
            self.status = 0
        self.sse = "text/event-stream" in header_of(msg, "content-type")
        if msg.end_of_stream:  # no body will follow: settle it now
            return await self._settle_buffered(b"", at_headers=True)
        common = ep.CommonResponse()
        mutation = common.header_mutation
        ratelimit = self.admission.headers if self.admission is not None else None
        if ratelimit:
            mutation.set_headers.extend(set_header(k, v) for k, v in ratelimit.items())
        if self.status != 200:  # rendered at the body (error message inside)
            headers = ep.HeadersResponse(response=common) if ratelimit else ep.HeadersResponse()
            return ep.ProcessingResponse(response_headers=headers), False
        mutation.remove_headers.append("content-length")
        if self.stream:
            mutation.set_headers.append(set_header("content-type", "text/event-stream"))
            mutation.set_headers.append(set_header("cache-control", "no-cache"))
        else:
            mutation.set_headers.append(set_header("content-type", "application/json"))
        override = None
        if self.stream and self.sse:
            override = PM(response_body_mode=PM.STREAMED)
            self.streamed = True
        reply = ep.ProcessingResponse(response_headers=ep.HeadersResponse(response=common), mode_override=override)
        return reply, False

    async def on_response_body(self, msg: ep.HttpBody) -> tuple[ep.ProcessingResponse, bool]:
        if self.run is None:
            return body_reply("response", None), True
        if not self.streamed:
            self.resp_parts.append(msg.body)
            if not msg.end_of_stream:
                return body_reply("response", b""), False
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
        return body_reply("response", out), msg.end_of_stream

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
        return body_reply("response", out), True
