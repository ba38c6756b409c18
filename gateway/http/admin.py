"""Admin routes for API keys, guarded by `GATEWAY_ADMIN_KEY` (see `gateway.http.auth`).

Shaped after OpenAI's project API keys (`/v1/organization/projects/{project_id}/api_keys`); unlike
OpenAI's, keys are minted here too (OpenAI mints them in its dashboard), and the plaintext is in
the creation reply only.

    POST   /v1/organization/projects/{project_id}/api_keys            {name?, expires_in?: "30d" | seconds,
                                                                       requests_per_minute?, tokens_per_minute?}
    GET    /v1/organization/projects/{project_id}/api_keys            ?limit&after
    GET    /v1/organization/projects/{project_id}/api_keys/{key_id}
    DELETE /v1/organization/projects/{project_id}/api_keys/{key_id}   revokes at once (every process within a second)
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from gateway.api_models.pages import list_body
from gateway.auth.keys import KeyStore, check_project, create_key, key_limits, parse_duration, revoke_key
from gateway.auth.limits import RATE_FIELDS
from gateway.common.errors import InvalidRequest, NotFound
from gateway.http.common import json_response, page_params, read_json
from gateway.http.state import RUNTIME

routes = web.RouteTableDef()
BASE = "/v1/organization/projects/{project_id}/api_keys"
MAX_EXPIRES_IN = 100 * 365 * 86_400
MAX_NAME = 256


def _keys(request: web.Request) -> KeyStore:
    return request.app[RUNTIME].keys


def _expires_in(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidRequest("expires_in is a duration such as '30d' or a number of seconds.", param="expires_in")
    seconds = value if isinstance(value, int) else parse_duration(value)
    if seconds <= 0:
        raise InvalidRequest("expires_in must be positive.", param="expires_in")
    if seconds > MAX_EXPIRES_IN:  # past 64 bits the store's integer overflowed: a 500 (#26)
        raise InvalidRequest(f"expires_in is at most {MAX_EXPIRES_IN} seconds (100 years).", param="expires_in")
    return seconds


@routes.post(BASE)
async def create(request: web.Request) -> web.Response:
    project = check_project(request.match_info["project_id"])
    body = await read_json(request, optional=True) or {}
    if not isinstance(body, dict):
        raise InvalidRequest("Expected a JSON object.", param=None)
    unknown = set(body) - {"name", "expires_in", *RATE_FIELDS}
    if unknown:
        raise InvalidRequest(f"Unknown parameter: '{sorted(unknown)[0]}'.", param=sorted(unknown)[0])
    name = body.get("name") or ""
    if not isinstance(name, str) or len(name) > MAX_NAME:
        raise InvalidRequest(f"name is a string of at most {MAX_NAME} characters.", param="name")
    created = await create_key(
        _keys(request),
        project,
        name=name,
        expires_in=_expires_in(body.get("expires_in")),
        limits=key_limits({k: body.get(k) for k in RATE_FIELDS}),
    )
    return json_response(created)


@routes.get(BASE)
async def list_keys(request: web.Request) -> web.Response:
    project = check_project(request.match_info["project_id"])
    page = page_params(request, default_order="asc")
    found = await _keys(request).list(project, limit=page["limit"], after=page["after"])
    return json_response(list_body(found.data, found.has_more))


@routes.get(BASE + "/{key_id}")
async def get_key(request: web.Request) -> web.Response:
    project = check_project(request.match_info["project_id"])
    key_id = request.match_info["key_id"]
    found = await _keys(request).get(key_id)
    if found is None or found["project_id"] != project:
        raise NotFound(f"API key '{key_id}' not found.", param="key_id")
    return json_response(found)


@routes.delete(BASE + "/{key_id}")
async def revoke(request: web.Request) -> web.Response:
    project = check_project(request.match_info["project_id"])
    key_id = request.match_info["key_id"]
    await revoke_key(_keys(request), key_id, project)
    return json_response({"object": "organization.project.api_key.deleted", "id": key_id, "deleted": True})
