"""The OpenAPI document of what this server actually serves, built from its route table.

Request schemas come from the same pydantic models that validate the bodies, so the document cannot
drift from the validation.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from pydantic import BaseModel

from gateway import __version__
from gateway.schema.requests import (
    CreateConversationItemsRequest,
    CreateConversationRequest,
    CreateResponseRequest,
    UpdateConversationRequest,
)

_BODIES: dict[tuple[str, str], type[BaseModel]] = {
    ("POST", "/v1/responses"): CreateResponseRequest,
    ("POST", "/v1/conversations"): CreateConversationRequest,
    ("POST", "/v1/conversations/{conv_id}"): UpdateConversationRequest,
    ("POST", "/v1/conversations/{conv_id}/items"): CreateConversationItemsRequest,
}
_ERROR = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "message": {"type": "string"},
                "type": {"type": "string"},
                "param": {"type": ["string", "null"]},
                "code": {"type": ["string", "null"]},
            },
        }
    },
}


def openapi_document(router: web.UrlDispatcher) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for route in router.routes():
        method = route.method.upper()
        if method == "HEAD":
            continue
        info = route.resource.get_info() if route.resource else {}
        path = info.get("path") or info.get("formatter")
        if not path:
            continue
        path = path.replace("{model_id:.+}", "{model_id}")
        handler = getattr(route.handler, "__doc__", None) or ""
        op: dict[str, Any] = {
            "operationId": f"{method.lower()}_{path.strip('/').replace('/', '_').replace('{', '').replace('}', '')}",
            "summary": handler.strip().splitlines()[0] if handler.strip() else f"{method} {path}",
            "parameters": [
                {"name": p, "in": "path", "required": True, "schema": {"type": "string"}} for p in _path_params(path)
            ],
            "responses": {
                "200": {"description": "OK"},
                "4XX": {"description": "Client error", "content": {"application/json": {"schema": _ERROR}}},
            },
        }
        model = _BODIES.get((method, path))
        if model is not None:
            op["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": model.model_json_schema(by_alias=True)}},
            }
        paths.setdefault(path, {})[method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Responses Gateway",
            "version": __version__,
            "description": "The stateful OpenAI Responses API in front of OpenAI-compatible servers.",
        },
        "paths": dict(sorted(paths.items())),
    }


def _path_params(path: str) -> list[str]:
    out, rest = [], path
    while "{" in rest:
        start = rest.index("{")
        end = rest.index("}", start)
        out.append(rest[start + 1 : end])
        rest = rest[end + 1 :]
    return out
