"""Request parsing and reply rendering shared by every route."""

from __future__ import annotations

import asyncio
import logging
import math
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestPayloadError

from gateway.common.errors import APIError, InvalidRequest, PayloadTooLarge, RateLimited, RequestTimeout, ServerError
from gateway.common.ids import require_id
from gateway.common.jsonutil import dumps, parse_request_body
from gateway.engine.sse_writer import sse_frame
from gateway.http.state import RUNTIME

log = logging.getLogger(__name__)

__all__ = [
    "error_middleware",
    "error_response",
    "ids_middleware",
    "json_response",
    "page_params",
    "read_json",
    "sse_frame",
]
MAX_MODEL_ID = 256  # a model id may hold '/', ':' and '.' (`org/name:tag`), so only its length is bound


def json_response(body: Any, status: int = 200) -> web.Response:
    return web.Response(body=dumps(body), status=status, content_type="application/json")


def error_response(err: APIError) -> web.Response:
    resp = json_response(err.body(), status=err.status)
    if isinstance(err, RateLimited):
        resp.headers["retry-after"] = str(max(1, math.ceil(err.retry_after)))
        resp.headers.update(err.headers)
    return resp


async def read_json(request: web.Request, *, optional: bool = False) -> Any:
    limit = request.app[RUNTIME].settings.body_timeout_seconds
    try:
        async with asyncio.timeout(limit):  # a client trickling its body must not hold the request forever
            raw = await request.read()
    except TimeoutError:
        raise RequestTimeout(f"The request body did not arrive within {limit:g}s.", code="request_timeout") from None
    except web.HTTPRequestEntityTooLarge as exc:
        raise PayloadTooLarge(
            f"Request body too large: the limit is {request.app[RUNTIME].settings.max_body_bytes} bytes.",
            code="request_too_large",
        ) from exc
    if not raw.strip():
        if optional:
            return None
        raise InvalidRequest("The request body is empty; expected a JSON object.", code="invalid_json")
    return parse_request_body(raw)


def page_params(request: web.Request, default_order: str = "desc") -> dict[str, Any]:
    q = request.query
    try:
        limit = int(q.get("limit", "20"))
    except ValueError:
        raise InvalidRequest("Invalid 'limit': expected an integer.", param="limit") from None
    if not 1 <= limit <= 100:
        raise InvalidRequest("Invalid 'limit': must be between 1 and 100.", param="limit")
    order = q.get("order", default_order)
    if order not in ("asc", "desc"):
        raise InvalidRequest("Invalid 'order': expected 'asc' or 'desc'.", param="order")
    cursors = {name: q.get(name) or None for name in ("after", "before")}
    for name, value in cursors.items():
        if value is not None:
            require_id(value, name)
    return {"limit": limit, "order": order, **cursors}


@web.middleware
async def ids_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Every id in a route's path is checked (length, alphabet) before any other work (#26): a
    100,000-character id reached the store, the error message and its redaction."""
    for name, value in request.match_info.items():
        if name == "model_id":
            if len(value) > MAX_MODEL_ID:
                raise InvalidRequest(
                    f"Invalid 'model': at most {MAX_MODEL_ID} characters, got {len(value)}.", param="model"
                )
        elif name.endswith("_id") and name != "project_id":  # project ids have their own check (admin)
            require_id(value, name)
    return await handler(request)


@web.middleware
async def error_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Every failure leaves as an OpenAI error body; unexpected ones are logged, never leaked."""
    try:
        return await handler(request)
    except APIError as err:
        return error_response(err)
    except (HttpProcessingError, RequestPayloadError) as exc:  # the body itself is broken (encoding, multipart)
        return error_response(InvalidRequest(f"The request body could not be read: {exc}", code="invalid_body"))
    except web.HTTPRequestEntityTooLarge:
        return error_response(PayloadTooLarge("Request body too large.", code="request_too_large"))
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        kind = "invalid_request_error" if exc.status < 500 else "server_error"
        message = {
            404: f"Unknown route: {request.method} {request.path}",
            405: f"Method {request.method} not allowed for {request.path}",
        }.get(exc.status, exc.reason)
        return json_response(
            {
                "error": {
                    "message": message,
                    "type": kind,
                    "param": None,
                    "code": "not_found" if exc.status == 404 else None,
                }
            },
            status=exc.status,
        )
    except Exception as exc:  # a bug: logged with its traceback, answered as OpenAI's 500 body
        log.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(ServerError(f"internal error: {type(exc).__name__}"))
