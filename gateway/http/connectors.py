"""Routes of `/v1/connectors`: a registry of MCP servers, used as `{"type": "mcp", "connector_id": ...}`.

Why: clients should not have to carry an MCP server's URL and credentials in every request (nor
see them in every stored response). A connector holds them once; credentials are write-only: every
reply shows header names and whether a token is set, never the values.

    POST   /v1/connectors        {name, server_url, headers?, authorization?, description?, metadata?}
    GET    /v1/connectors        ?limit&order&after&before
    GET    /v1/connectors/{id}
    DELETE /v1/connectors/{id}
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from aiohttp import web

from gateway.api_models.pages import list_body
from gateway.common.errors import InvalidRequest, NotFound
from gateway.common.ids import new_id
from gateway.common.redact import redact_url
from gateway.http.common import json_response, page_params, read_json
from gateway.http.state import runtime
from gateway.retrieval import params
from gateway.tools.mcp.mapping import REDACTED
from gateway.tools.mcp.tool import mcp_policy

if TYPE_CHECKING:
    from storage.bundle import ConnectorStores

routes = web.RouteTableDef()
MAX_HEADERS = 64
FIELDS = frozenset({"name", "server_url", "headers", "authorization", "description", "metadata"})


def _store(request: web.Request) -> ConnectorStores:
    return runtime(request).stores.connectors  # stateless over the shared connections


def _bad(message: str, param: str, code: str = "invalid_value") -> InvalidRequest:
    return InvalidRequest(message, param=param, code=code)


def _string(body: dict[str, Any], key: str, *, required: bool = False, limit: int = 2048) -> str | None:
    value = body.get(key)
    if value is None:
        if required:
            raise _bad(f"Missing required parameter: '{key}'.", key, "missing_required_parameter")
        return None
    if not isinstance(value, str) or not value.strip():
        raise _bad(f"Invalid type for '{key}': expected a non-empty string.", key, "invalid_type")
    if len(value) > limit:
        raise _bad(f"Invalid '{key}': longer than {limit} characters.", key)
    return value


def _parse(body: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The public connector object and its secrets, from a create body."""
    if not isinstance(body, dict):
        raise InvalidRequest("The request body must be a JSON object.", code="invalid_type")
    for key in body:
        if key not in FIELDS:
            raise _bad(f"Unknown parameter: '{key}'.", key, "unknown_parameter")
    name = _string(body, "name", required=True, limit=256)
    url = _string(body, "server_url", required=True)
    if not re.match(r"^https?://[^/\s]+", url or ""):
        raise _bad("Invalid 'server_url': expected an http(s) URL.", "server_url")
    headers = body.get("headers") or {}
    if not isinstance(headers, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise _bad("Invalid type for 'headers': expected an object of strings.", "headers", "invalid_type")
    token = _string(body, "authorization", limit=16384)
    if len(headers) > MAX_HEADERS or any(len(k) > 256 or len(v) > 8192 for k, v in headers.items()):
        raise _bad(f"Invalid 'headers': at most {MAX_HEADERS}, names <= 256 and values <= 8192 characters.", "headers")
    metadata = params.metadata(body.get("metadata")) or {}  # OpenAI's limits: 16 pairs, 64/512 characters
    connector = {
        "id": new_id("conn"),
        "object": "connector",
        "created_at": int(time.time()),
        "name": name,
        "server_url": redact_url(url or ""),  # the URL as given lives with the other secrets
        "description": _string(body, "description"),
        "metadata": metadata,
        "headers": dict.fromkeys(headers, REDACTED),
        "authorization": REDACTED if token else None,
    }
    return connector, {"headers": headers, "authorization": token, "server_url": url}


@routes.post("/v1/connectors")
async def create(request: web.Request) -> web.Response:
    connector, secrets = _parse(await read_json(request))
    await mcp_policy(runtime(request).settings).vet(secrets["server_url"], "server_url")
    await _store(request).create(connector, secrets)
    return json_response(connector)


@routes.get("/v1/connectors")
async def list_connectors(request: web.Request) -> web.Response:
    page = await _store(request).list(**page_params(request))
    return json_response(list_body(page.data, page.has_more))


async def _get(request: web.Request) -> dict[str, Any]:
    connector_id = request.match_info["connector_id"]
    found = await _store(request).get(connector_id)
    if found is None:
        raise NotFound(f"Connector with id '{connector_id}' not found.", param="connector_id")
    return found


@routes.get("/v1/connectors/{connector_id}")
async def retrieve(request: web.Request) -> web.Response:
    return json_response(await _get(request))


@routes.delete("/v1/connectors/{connector_id}")
async def delete(request: web.Request) -> web.Response:
    connector_id = request.match_info["connector_id"]
    if not await _store(request).delete(connector_id):
        raise NotFound(f"Connector with id '{connector_id}' not found.", param="connector_id")
    return json_response({"id": connector_id, "object": "connector.deleted", "deleted": True})
