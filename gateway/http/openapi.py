"""The OpenAPI document of what this server actually serves, built from its route table.

Request schemas come from the same pydantic models that validate the bodies, so the document cannot
drift from the validation.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from pydantic import BaseModel

from gateway import __version__
from gateway.api_models.requests import (
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


_FILE_STATUSES = ("in_progress", "completed", "failed", "cancelled")
_PAGE = [
    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
    {"name": "order", "in": "query", "schema": {"type": "string", "enum": ["asc", "desc"]}},
    {"name": "after", "in": "query", "schema": {"type": "string"}},
    {"name": "before", "in": "query", "schema": {"type": "string"}},
]


def _usage_params(widths: list[str], groups: list[str], most: int) -> list[dict[str, Any]]:
    """The Usage and Costs APIs' query (OpenAI's): arrays as repeated `name` or `name[]`."""
    strings = {"type": "array", "items": {"type": "string"}}
    return [
        {"name": "start_time", "in": "query", "required": True, "schema": {"type": "integer", "minimum": 0}},
        {"name": "end_time", "in": "query", "schema": {"type": "integer", "minimum": 0}},
        {"name": "bucket_width", "in": "query", "schema": {"type": "string", "enum": widths}},
        {"name": "group_by", "in": "query", "schema": {"type": "array", "items": {"type": "string", "enum": groups}}},
        {"name": "project_ids", "in": "query", "schema": strings},
        {"name": "models", "in": "query", "schema": strings},
        {"name": "api_key_ids", "in": "query", "schema": strings},
        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": most}},
        {"name": "page", "in": "query", "schema": {"type": "string"}},
    ]


_USAGE = _usage_params(["1m", "1h", "1d"], ["project_id", "model", "api_key_id", "door"], 1440)
_COSTS = _usage_params(["1d"], ["project_id", "api_key_id", "line_item"], 180)
# Query parameters of the routes that take some (the rest take none).
_QUERY: dict[tuple[str, str], list[dict[str, Any]]] = {
    ("GET", "/v1/organization/usage/completions"): _USAGE,
    ("GET", "/v1/organization/usage/embeddings"): _USAGE,
    ("GET", "/v1/organization/costs"): _COSTS,
    ("GET", "/v1/usage"): _USAGE,
    ("GET", "/v1/usage/embeddings"): _USAGE,
    ("GET", "/v1/usage/costs"): _COSTS,
    ("GET", "/v1/responses/{response_id}"): [
        {"name": "stream", "in": "query", "schema": {"type": "boolean"}},
        {"name": "starting_after", "in": "query", "schema": {"type": "integer", "minimum": 0}},
        {"name": "include", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
    ],
    ("GET", "/v1/responses/{response_id}/input_items"): _PAGE,
    # the stored responses (the console's logs, #32); `model` and `status` may repeat (any of them)
    ("GET", "/v1/responses"): [
        *_PAGE,
        {"name": "model", "in": "query", "schema": {"type": "string"}},
        {
            "name": "status",
            "in": "query",
            "schema": {
                "type": "string",
                "enum": ["queued", "in_progress", "completed", "failed", "cancelled", "incomplete"],
            },
        },
        {"name": "search", "in": "query", "schema": {"type": "string", "maxLength": 200}},
        {"name": "created_after", "in": "query", "schema": {"type": "number"}},
        {"name": "created_before", "in": "query", "schema": {"type": "number"}},
        {"name": "previous_response_id", "in": "query", "schema": {"type": "string"}},
    ],
    ("GET", "/v1/conversations/{conv_id}/items"): _PAGE,
    ("GET", "/v1/connectors"): _PAGE,
    ("GET", "/v1/prompts"): _PAGE[:3],
    ("GET", "/v1/prompts/{prompt_id}/versions"): _PAGE[:3],
    ("GET", "/v1/vector_stores"): _PAGE,
    ("GET", "/v1/vector_stores/{vector_store_id}/files"): [
        *_PAGE,
        {
            "name": "filter",
            "in": "query",
            "schema": {"type": "string", "enum": ["in_progress", "completed", "failed", "cancelled"]},
        },
    ],
    # the knowledge graph's entities (#12): names containing `query` (none: the most mentioned, #32),
    # their types, mentions, neighbours; with `file_id` (#28) those extracted from one file of the store
    ("GET", "/v1/vector_stores/{vector_store_id}/entities"): [
        {"name": "query", "in": "query", "schema": {"type": "string", "maxLength": 256}},
        {"name": "file_id", "in": "query", "schema": {"type": "string", "minLength": 1}},
        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
    ],
    ("GET", "/v1/files"): [
        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 10000}},
        {"name": "order", "in": "query", "schema": {"type": "string", "enum": ["asc", "desc"]}},
        {"name": "after", "in": "query", "schema": {"type": "string"}},
        {"name": "purpose", "in": "query", "schema": {"type": "string"}},
    ],
}
# Where a created object's id is used next: OpenAPI links, so a stateful client (schemathesis)
# can chain create -> retrieve/list/update/delete.
_CREATES = {
    ("POST", "/v1/responses"): "response_id",
    ("POST", "/v1/conversations"): "conv_id",
    ("POST", "/v1/connectors"): "connector_id",
    ("POST", "/v1/vector_stores"): "vector_store_id",
    ("POST", "/v1/files"): "file_id",
    ("POST", "/v1/prompts"): "prompt_id",
}


def openapi_document(router: web.UrlDispatcher) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    components: dict[str, Any] = {"Error": _ERROR}
    for route in router.routes():
        method = route.method.upper()
        if method in ("HEAD", "*"):  # "*": a protocol endpoint of its own (/mcp, JSON-RPC), not a REST operation
            continue
        info = route.resource.get_info() if route.resource else {}
        path = info.get("path") or info.get("formatter")
        if not path:
            continue
        if path.startswith("/console"):  # the console's pages and files (#32), not API operations
            continue
        path = path.replace("{model_id:.+}", "{model_id}")
        handler = getattr(route.handler, "__doc__", None) or ""
        op: dict[str, Any] = {
            "operationId": _operation_id(method, path),
            "summary": handler.strip().splitlines()[0] if handler.strip() else f"{method} {path}",
            "parameters": [
                {"name": p, "in": "path", "required": True, "schema": {"type": "string"}} for p in _path_params(path)
            ]
            + _QUERY.get((method, path), []),
            "responses": {
                "200": {"description": "OK"},
                "4XX": {
                    "description": "Client error",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                },
            },
        }
        model = _BODIES.get((method, path))
        if model is not None:
            schema = model.model_json_schema(by_alias=True, ref_template="#/components/schemas/{model}")
            components.update(schema.pop("$defs", {}))
            components[model.__name__] = schema
            op["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}},
            }
        paths.setdefault(path, {})[method.lower()] = op
    _add_links(paths)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Responses Gateway",
            "version": __version__,
            "description": "The stateful OpenAI Responses API in front of OpenAI-compatible servers.",
        },
        "paths": dict(sorted(paths.items())),
        "components": {"schemas": dict(sorted(components.items()))},
    }


def _operation_id(method: str, path: str) -> str:
    return f"{method.lower()}_{path.strip('/').replace('/', '_').replace('{', '').replace('}', '')}"


def _add_links(paths: dict[str, dict[str, Any]]) -> None:
    """Link each create operation's `id` to every operation that takes that id in its path."""
    for (method, path), param in _CREATES.items():
        op = paths.get(path, {}).get(method.lower())
        if op is None:
            continue
        links = {}
        for target, ops in paths.items():
            if "{" + param + "}" not in target:
                continue
            for target_op in ops.values():
                others = [p for p in _path_params(target) if p != param]
                if others:  # needs ids this create does not give
                    continue
                links[target_op["operationId"]] = {
                    "operationId": target_op["operationId"],
                    "parameters": {param: "$response.body#/id"},
                }
        if links:
            op["responses"]["200"]["links"] = links


def _path_params(path: str) -> list[str]:
    out, rest = [], path
    while "{" in rest:
        start = rest.index("{")
        end = rest.index("}", start)
        out.append(rest[start + 1 : end])
        rest = rest[end + 1 :]
    return out
