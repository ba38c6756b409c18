"""Routes of `/v1/responses`."""

from __future__ import annotations

import asyncio
import contextlib

from aiohttp import web

from gateway.api_models.pages import list_body
from gateway.auth.authenticator import revoked_mid_stream
from gateway.common.errors import APIError, InvalidRequest
from gateway.common.ids import require_id
from gateway.engine.events import EventStream
from gateway.engine.feed import Listener
from gateway.engine.service import ResponsesService
from gateway.engine.sse_writer import sse_frame
from gateway.http.common import error_response, json_response, page_params, read_json
from gateway.http.keywatch import watch_key
from gateway.http.ops import first_event, note_response_id, stream_open
from gateway.http.state import door
from gateway.http.websocket import responses_websocket
from storage.pages import PageRequest
from storage.response_list import ResponseFilter

routes = web.RouteTableDef()


def _service(request: web.Request) -> ResponsesService:
    return door(request).responses


async def stream_events(request: web.Request, events: EventStream, *, owns_run: bool = False) -> web.StreamResponse:
    """Write `events` as SSE. The request's key is re-checked while the stream lasts (#26): once it
    stops working, the stream ends with OpenAI's `error` event and, when this request created the
    run (`owns_run`), the run stops, stored as failed with that reason."""
    resp = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )
    await resp.prepare(request)
    response_id = None
    first = True
    revoked: list[APIError] = []
    handler = asyncio.current_task()

    def on_revoked(err: APIError) -> None:
        revoked.append(revoked_mid_stream())
        if owns_run and response_id is not None:
            _service(request).revoke(response_id, revoked[0])
        if handler is not None:
            handler.cancel()  # the stream stops waiting for events (an unstored run is iterated here)

    # What is ready goes out in one write (see `gateway.engine.feed`); other streams write per event.
    more_ready = events.more_ready if isinstance(events, Listener) else None
    frames: list[bytes] = []
    seq = 0
    with stream_open():
        try:
            async with watch_key(request, on_revoked):
                async for event in events:
                    if first:
                        first = False
                        first_event(request)
                    if response_id is None and isinstance(event.get("response"), dict):
                        response_id = event["response"].get("id")
                    seq = max(seq, int(event.get("sequence_number") or 0))
                    frames.append(sse_frame(event))
                    if more_ready is None or not more_ready():
                        await resp.write(b"".join(frames) if len(frames) > 1 else frames[0])
                        frames.clear()
                if frames:
                    await resp.write(b"".join(frames))
        except asyncio.CancelledError:
            if not revoked or handler is None:
                raise
            handler.uncancel()  # a stored run was stopped by `revoke`; an unstored one just now
            error = revoked[0].body()["error"]
            event = {"type": "error", "code": error["code"], "message": error["message"], "param": error["param"]}
            with contextlib.suppress(ConnectionError):
                await resp.write(sse_frame({**event, "sequence_number": seq + 1}))
        except (ConnectionResetError, ConnectionError):
            if response_id is not None:  # the client left: a foreground run stops, a background one goes on
                _service(request).abandon(response_id)
        finally:
            await events.aclose()
    return resp


MAX_MODEL_CHARS = 256  # a model id (the list's `model` filter)
_STATUSES = frozenset({"queued", "in_progress", "completed", "failed", "cancelled", "incomplete"})


def _seconds(request: web.Request, name: str) -> float | None:
    raw = request.query.get(name)
    if raw is None or raw == "":
        return None
    try:
        return float(raw)
    except ValueError:
        raise InvalidRequest(f"Invalid '{name}': expected unix seconds.", param=name) from None


def list_filter(request: web.Request) -> ResponseFilter:
    """The filters of `GET /v1/responses` (each of `model` and `status` may repeat: any of them)."""
    q = request.query
    statuses = tuple(s for s in q.getall("status", []) if s)
    for status in statuses:
        if status not in _STATUSES:
            shown = status if len(status) <= 64 else status[:64] + "…"  # a value of any length is never echoed whole
            raise InvalidRequest(f"Invalid 'status': '{shown}' is not one of {sorted(_STATUSES)}.", param="status")
    models = tuple(m for m in q.getall("model", []) if m)
    if any(len(m) > MAX_MODEL_CHARS for m in models):
        raise InvalidRequest(f"Invalid 'model': at most {MAX_MODEL_CHARS} characters.", param="model")
    previous = q.get("previous_response_id") or None
    if previous is not None:
        require_id(previous, "previous_response_id")
    search = q.get("search") or None
    if search is not None and len(search) > 200:
        raise InvalidRequest("Invalid 'search': at most 200 characters.", param="search")
    return ResponseFilter(
        models=models,
        statuses=statuses,
        search=search,
        created_after=_seconds(request, "created_after"),
        created_before=_seconds(request, "created_before"),
        previous_response_id=previous,
    )


@routes.get("/v1/responses")
async def list_responses(request: web.Request) -> web.StreamResponse:
    """List stored responses, newest first (filters: model, status, search, created_after/before, previous_response_id).

    With `Upgrade: websocket` this is WebSocket mode instead: one connection, `response.create`
    messages, events back.
    """
    if request.headers.get("Upgrade", "").lower() == "websocket":
        return await responses_websocket(request)
    flt = list_filter(request)
    page = page_params(request)
    req = PageRequest.of(page["limit"], page["order"], page["after"], page["before"])
    found = await _service(request).store.list_responses(flt, req)
    return json_response(list_body(found.data, found.has_more))


@routes.post("/v1/responses/compact")
async def compact(request: web.Request) -> web.Response:
    """Compact a conversation into its user messages and one compaction item."""
    return json_response(await _service(request).compact(await read_json(request)))


@routes.post("/v1/responses/input_tokens")
async def input_tokens(request: web.Request) -> web.Response:
    """Count a request's input tokens without running it."""
    return json_response(await _service(request).input_tokens(await read_json(request)))


@routes.post("/v1/responses")
async def create(request: web.Request) -> web.StreamResponse:
    service = _service(request)
    prepared = await service.prepare(await read_json(request))
    req = prepared.req
    note_response_id(request, prepared.response["id"])
    if req.background:
        result = await service.background(prepared, stream=req.stream)
        if isinstance(result, dict):
            return json_response(result)
        return await stream_events(request, result, owns_run=True)
    if req.stream:
        return await stream_events(request, service.stream(prepared), owns_run=True)
    response, error = await service.create(prepared)
    if error is not None and response["status"] == "failed":
        return error_response(error)
    return json_response(response)


@routes.get("/v1/responses/{response_id}")
async def retrieve(request: web.Request) -> web.StreamResponse:
    """The response; with `stream=true`, a background response's events after `starting_after`."""
    response_id = request.match_info["response_id"]
    q = request.query
    stream = q.get("stream", "false").lower()
    if stream not in ("true", "false"):
        raise InvalidRequest("Invalid 'stream': expected true or false.", param="stream")
    if stream == "false":
        return json_response(await _service(request).retrieve(response_id))
    try:
        after = int(q.get("starting_after", "-1"))
    except ValueError:
        raise InvalidRequest("Invalid 'starting_after': expected an integer.", param="starting_after") from None
    if not -1 <= after < 2**62:  # past 64 bits the store's integer overflows: a 500 (#26)
        raise InvalidRequest("Invalid 'starting_after': out of range.", param="starting_after")
    return await stream_events(request, await _service(request).resume(response_id, after))


@routes.delete("/v1/responses/{response_id}")
async def delete(request: web.Request) -> web.Response:
    return json_response(await _service(request).delete(request.match_info["response_id"]))


@routes.post("/v1/responses/{response_id}/cancel")
async def cancel(request: web.Request) -> web.Response:
    return json_response(await _service(request).cancel(request.match_info["response_id"]))


@routes.get("/v1/responses/{response_id}/input_items")
async def input_items(request: web.Request) -> web.Response:
    page = await _service(request).input_items(request.match_info["response_id"], **page_params(request))
    return json_response(list_body(page.data, page.has_more))
