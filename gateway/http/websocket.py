"""WebSocket mode of `/v1/responses`: one connection, `response.create` messages, events back.

Why a door of its own on the HTTP server: an agent loop (Codex, Open Responses clients) makes dozens
of turns; over one socket each turn skips connection setup and sends only its new input. A message
`{"type": "response.create", ...}` carries the fields of `POST /v1/responses` (no `stream`: it is
implicit; no `background`: not supported here, as at OpenAI); the response's events come back on
the socket as JSON messages, and failures as `{"type": "error", "status", "error": {...}}`.

`store: false` responses can be continued on the same connection (`previous_response_id`): their
history is kept in memory for the connection's life, never written anywhere. A continuation that
fails (an error, or a response that ends `failed`) evicts the response it continued, on both doors
(the Open Responses suite's `websocket-failed-continuation-evicts-cache`). Through Envoy the
upgrade takes the route to this server (only `POST /v1/responses` goes through the ExtProc).
Sockets are capped per process and closed after `GATEWAY_WEBSOCKET_IDLE_SECONDS` without a message;
a socket whose key is revoked or expires gets the 401 as an error event and is closed (1008) within
`GATEWAY_AUTH_CACHE_SECONDS`, also in the middle of a turn (the turn stops; stored, it ends failed
with the reason). Each turn passes the usage admission of a `POST /v1/responses` (requests and
tokens per minute, budgets; the upgrade itself counts as one request, as every HTTP request does).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from gateway.auth import limits
from gateway.auth.authenticator import Authenticator, revoked_mid_stream
from gateway.common.errors import APIError, InvalidRequest, RateLimited
from gateway.common.jsonutil import dumps_str, parse_request_body
from gateway.engine.events import EventStream
from gateway.engine.run_lifecycle import TERMINAL_EVENT
from gateway.engine.service import ResponsesService
from gateway.http.common import error_response
from gateway.http.guard import TenantSlots, tenant_of
from gateway.http.keywatch import credentials_problem, watch_key
from gateway.http.state import door, runtime
from gateway.usage.admission import admit_call
from gateway.usage.recorder import caller_key

log = logging.getLogger(__name__)

MAX_LOCAL = 256  # unstored responses a connection remembers for continuation (oldest forgotten first)
CONTINUABLE = ("completed", "incomplete")  # a failed or cancelled turn is never kept for continuation


def _error(err: APIError) -> str:
    return dumps_str({"type": "error", "status": err.status, "error": err.body()["error"]})


class _Connection:
    def __init__(self, service: ResponsesService, ws: web.WebSocketResponse, request: web.Request) -> None:
        self.service = service
        self.ws = ws
        self.request = request
        self.local: dict[str, list[dict[str, Any]]] = {}  # unstored response id -> its whole history
        self.revoked: APIError | None = None  # the key stopped working during a turn: close the socket

    async def create(self, message: Any) -> None:
        if not isinstance(message, dict) or message.get("type") != "response.create":
            kind = message.get("type") if isinstance(message, dict) else None
            raise InvalidRequest(f"Unsupported client event type: {kind!r}.", param="type", code="invalid_value")
        body = {k: v for k, v in message.items() if k != "type"}
        if body.get("background"):
            raise InvalidRequest("background responses are not supported over WebSocket.", param="background")
        body.pop("stream", None)
        body["stream"] = True
        # Each turn is admitted as a `POST /v1/responses` is by the door's middleware: one request
        # against requests_per_minute, its tokens reserved against tokens_per_minute, the budgets;
        # a 429 is the turn's error event. What the turn did not spend goes back when it ends.
        # The body is at hand: one admission counts the turn and reserves its tokens.
        call = await admit_call(limits.LIMITS, self.request.get("project") or "", caller_key.get(), body=body)
        try:
            await self._turn(body)
        finally:
            call.settle()

    async def _turn(self, body: dict[str, Any]) -> None:
        previous = body.get("previous_response_id")
        history = self.local.get(previous) if isinstance(previous, str) else None
        if history is not None:  # a store:false response of this connection: continued from memory
            del body["previous_response_id"]
            given = body.get("input")
            new = [{"role": "user", "content": given}] if isinstance(given, str) else list(given or [])
            body["input"] = history + new
        final: dict[str, Any] | None = None
        try:
            prepared = await self.service.prepare(body)
            if history is not None:
                prepared.response["previous_response_id"] = previous
            events = self.service.stream(prepared)
            try:
                final = await self._relay(events, prepared.response["id"] if prepared.stored else None)
            finally:  # a socket gone mid-stream stops listening at once
                await events.aclose()
        finally:
            if history is not None and (final is None or final.get("status") not in CONTINUABLE):
                # a failed continuation evicts what it continued (as OpenAI does): the client must
                # not build on state the failure may have left half-used; it starts again, or stores
                self.local.pop(previous, None)  # type: ignore[arg-type]
        if final is not None and final.get("status") in CONTINUABLE and not prepared.stored:
            self.local[final["id"]] = [*prepared.history, *prepared.inputs, *final.get("output", [])]
            while len(self.local) > MAX_LOCAL:
                del self.local[next(iter(self.local))]

    async def _relay(self, events: EventStream, stored_id: str | None) -> dict[str, Any] | None:
        """Send the turn's events; the final response, or None when it was cut. The key is re-checked
        every `GATEWAY_AUTH_CACHE_SECONDS` while the turn runs (`watch_key`, as SSE streams do): once
        it stops working the turn stops (a stored run is stored failed with the reason) and
        `self.revoked` says so, for the socket to be closed with OpenAI's error event."""
        final: dict[str, Any] | None = None
        handler = asyncio.current_task()

        def on_revoked(_err: APIError) -> None:
            self.revoked = revoked_mid_stream()
            if stored_id is not None:
                self.service.revoke(stored_id, self.revoked)
            if handler is not None:
                handler.cancel()  # stop waiting for events (an unstored run is iterated here: it stops)

        try:
            async with watch_key(self.request, on_revoked):
                async for event in events:
                    await self.ws.send_str(dumps_str(event))
                    if event.get("type") in TERMINAL_EVENT.values():
                        final = event["response"]
        except asyncio.CancelledError:
            if self.revoked is None or handler is None:
                raise
            handler.uncancel()
            return None
        return final


async def _close_revoked(ws: web.WebSocketResponse, err: APIError) -> None:
    """OpenAI's error event, then a policy-violation close (1008)."""
    log.info("closed a WebSocket: its key no longer authenticates")
    with contextlib.suppress(ConnectionResetError):
        await ws.send_str(_error(err))
    await ws.close(code=WSCloseCode.POLICY_VIOLATION, message=b"credentials revoked")


async def responses_websocket(request: web.Request) -> web.WebSocketResponse:
    settings = runtime(request).settings
    open_sockets: set[web.WebSocketResponse] = door(request).websockets
    if len(open_sockets) >= settings.max_websockets:
        body = {"message": "Too many open WebSocket connections.", "type": "server_error", "param": None}
        return web.json_response({"error": {**body, "code": "too_many_websockets"}}, status=503)  # type: ignore[return-value]
    slots: TenantSlots = door(request).websocket_slots
    tenant = tenant_of(request)
    if tenant is not None and not slots.acquire(tenant):
        err = RateLimited(
            f"Too many open WebSocket connections for this project ({slots.cap} per process).",
            retry_after=1,
            code="too_many_websockets",
        )
        return error_response(err)  # type: ignore[return-value]
    try:
        return await _serve(request, open_sockets)
    finally:
        if tenant is not None:
            slots.release(tenant)


async def _serve(request: web.Request, open_sockets: set[web.WebSocketResponse]) -> web.WebSocketResponse:
    settings = runtime(request).settings
    ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=settings.max_body_bytes)
    await ws.prepare(request)
    open_sockets.add(ws)
    conn = _Connection(door(request).responses, ws, request)
    # The key is checked again at least every GATEWAY_AUTH_CACHE_SECONDS and before each message
    # (#26): checked once at the upgrade, a revoked key kept creating responses on an open socket.
    auth: Authenticator = runtime(request).authenticator
    idle = settings.websocket_idle_seconds
    recheck = max(0.1, auth.ttl) if auth.enabled else idle
    loop = asyncio.get_running_loop()
    last = loop.time()
    try:
        while not ws.closed:
            wait = min(recheck, last + idle - loop.time())
            if wait <= 0:
                await ws.close(message=b"idle")
                break
            try:
                msg = await ws.receive(timeout=wait)
            except TimeoutError:
                if (revoked := await credentials_problem(request)) is not None:
                    await _close_revoked(ws, revoked)
                continue
            if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                break
            last = loop.time()
            if (revoked := await credentials_problem(request)) is not None:
                await _close_revoked(ws, revoked)
                break
            if msg.type != WSMsgType.TEXT:
                await ws.send_str(_error(InvalidRequest("Send JSON text messages.", code="invalid_value")))
                continue
            try:
                await conn.create(parse_request_body(msg.data))
            except APIError as err:
                await ws.send_str(_error(err))
            if conn.revoked is not None:  # the key was revoked during the turn
                await _close_revoked(ws, conn.revoked)
                break
            last = loop.time()  # the idle time counts from the end of the last response
    except ConnectionResetError:
        pass
    finally:
        open_sockets.discard(ws)
    return ws
