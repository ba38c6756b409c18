"""Routes of `/v1/conversations`."""

from __future__ import annotations

from aiohttp import web

from gateway.engine.conversations import ConversationsService
from gateway.http.common import json_response, page_params, read_json
from gateway.http.state import RUNTIME

routes = web.RouteTableDef()


def _svc(request: web.Request) -> ConversationsService:
    return request.app[RUNTIME].conversations


@routes.post("/v1/conversations")
async def create(request: web.Request) -> web.Response:
    return json_response(await _svc(request).create(await read_json(request, optional=True)))


@routes.get("/v1/conversations/{conv_id}")
async def retrieve(request: web.Request) -> web.Response:
    return json_response(await _svc(request).retrieve(request.match_info["conv_id"]))


@routes.post("/v1/conversations/{conv_id}")
async def update(request: web.Request) -> web.Response:
    return json_response(await _svc(request).update(request.match_info["conv_id"], await read_json(request)))


@routes.delete("/v1/conversations/{conv_id}")
async def delete(request: web.Request) -> web.Response:
    return json_response(await _svc(request).delete(request.match_info["conv_id"]))


@routes.post("/v1/conversations/{conv_id}/items")
async def add_items(request: web.Request) -> web.Response:
    return json_response(await _svc(request).add_items(request.match_info["conv_id"], await read_json(request)))


@routes.get("/v1/conversations/{conv_id}/items")
async def list_items(request: web.Request) -> web.Response:
    return json_response(await _svc(request).list_items(request.match_info["conv_id"], **page_params(request)))


@routes.get("/v1/conversations/{conv_id}/items/{item_id}")
async def get_item(request: web.Request) -> web.Response:
    return json_response(await _svc(request).get_item(request.match_info["conv_id"], request.match_info["item_id"]))


@routes.delete("/v1/conversations/{conv_id}/items/{item_id}")
async def delete_item(request: web.Request) -> web.Response:
    return json_response(await _svc(request).delete_item(request.match_info["conv_id"], request.match_info["item_id"]))
