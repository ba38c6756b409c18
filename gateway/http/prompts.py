"""Routes of `/v1/prompts` (shapes in docs/ARCHITECTURE.md, "Prompts")."""

from __future__ import annotations

from aiohttp import web

from gateway.engine.prompts import PromptsService
from gateway.http.common import json_response, page_params, read_json
from gateway.http.state import RUNTIME

routes = web.RouteTableDef()


def _svc(request: web.Request) -> PromptsService:
    # Stateless over the bundle's shared connections: nothing to set up at start-up.
    return PromptsService(request.app[RUNTIME].stores.prompts)


@routes.post("/v1/prompts")
async def create(request: web.Request) -> web.Response:
    return json_response(await _svc(request).create(await read_json(request)))


@routes.get("/v1/prompts")
async def list_prompts(request: web.Request) -> web.Response:
    return json_response(await _svc(request).list(**page_params(request)))


@routes.get("/v1/prompts/{prompt_id}")
async def retrieve(request: web.Request) -> web.Response:
    version = request.query.get("version") or None
    return json_response(await _svc(request).retrieve(request.match_info["prompt_id"], version))


@routes.post("/v1/prompts/{prompt_id}")
async def update(request: web.Request) -> web.Response:
    return json_response(await _svc(request).update(request.match_info["prompt_id"], await read_json(request)))


@routes.delete("/v1/prompts/{prompt_id}")
async def delete(request: web.Request) -> web.Response:
    return json_response(await _svc(request).delete(request.match_info["prompt_id"]))


@routes.get("/v1/prompts/{prompt_id}/versions")
async def list_versions(request: web.Request) -> web.Response:
    return json_response(await _svc(request).versions(request.match_info["prompt_id"], **page_params(request)))


@routes.post("/v1/prompts/{prompt_id}/default_version")
async def set_default_version(request: web.Request) -> web.Response:
    body = await read_json(request)
    return json_response(await _svc(request).set_default(request.match_info["prompt_id"], body))
