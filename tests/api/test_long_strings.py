"""Attacker-sized strings get a quick 4xx with OpenAI's error body, on every route, through both doors (#26).

The fuzz walks the OpenAPI document the HTTP server builds (`/openapi.json`): every path parameter,
every string query parameter and every top-level string field of a documented request body gets a
value of 100,000 characters (and one of 4,000, short enough to pass the URL limits and reach the
route). Before #26, an id of that size took the redaction of its error message 43 s of one event
loop (quadratic backtracking), a URL over 8 KB got aiohttp's `text/plain` 400, and ids were not
checked at all before they reached the store.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import pytest

from gateway.common.redact import redact
from tests.support.procs import ADMIN_KEY, AUTH

MODEL = "scripted-model"
HUGE = 100_000
ROUTABLE = 4_000  # under aiohttp's and Envoy's URL limits: the route itself must refuse it
QUICK = 1.0  # seconds: a refusal is milliseconds of work; this leaves room for a shared 2-core machine

# Routes whose body the document does not describe: the fields they take that name other objects.
_ID_FIELDS = ("file_id", "file_ids", "vector_store_id", "connector_id", "previous_response_id", "id")
_TEXT_FIELDS = ("name", "description", "instructions", "server_url", "query", "version", "project", "purpose")


def call(method: str, url: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any, float]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    for k, v in {**AUTH, **(headers or {})}.items():
        req.add_header(k, v)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            raw, status, ctype = resp.read(), resp.status, resp.headers.get("content-type", "")
    except urllib.error.HTTPError as err:
        raw, status, ctype = err.read(), err.code, err.headers.get("content-type", "")
    elapsed = time.monotonic() - started
    if "json" not in ctype:
        return status, raw[:300], elapsed
    return status, json.loads(raw) if raw else None, elapsed


def assert_openai_4xx(status: int, body: Any, elapsed: float, what: str) -> None:
    assert 400 <= status < 500, f"{what}: {status} {str(body)[:300]}"
    assert isinstance(body, dict) and set(body.get("error", {})) == {"message", "type", "param", "code"}, (
        f"{what}: not OpenAI's error body: {str(body)[:300]}"
    )
    assert len(body["error"]["message"]) < 2_000, f"{what}: the message echoes the value"
    assert elapsed < QUICK, f"{what}: {elapsed:.2f}s"


@pytest.fixture(scope="module")
def document(http_gateway: Any) -> dict[str, Any]:
    with urllib.request.urlopen(f"{http_gateway.base}/openapi.json", timeout=10) as resp:
        return dict(json.loads(resp.read()))


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _takes_string(doc: dict[str, Any], schema: dict[str, Any]) -> bool:
    schema = _resolve(doc, schema)
    if schema.get("type") == "string" and "enum" not in schema:
        return True
    return any(_takes_string(doc, s) for s in schema.get("anyOf", []) + schema.get("oneOf", []))


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m.upper(), path, op) for path, ops in doc["paths"].items() for m, op in ops.items()]


def _fill(path: str, op: dict[str, Any], long_param: str | None, value: str) -> str:
    for p in op.get("parameters", []):
        if p["in"] == "path":
            shown = value if p["name"] == long_param else "x"
            path = path.replace("{" + p["name"] + "}", urllib.parse.quote(shown, safe=""))
    return path


def _headers(path: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {ADMIN_KEY}"} if path.startswith("/v1/organization/") else {}


def test_every_route_refuses_huge_strings_quickly(door: str, document: dict[str, Any]) -> None:
    base = door.removesuffix("/v1")
    ops = operations(document)
    assert len(ops) > 40, "the document lists every route"
    tried = 0
    for method, path, op in ops:
        params = op.get("parameters", [])
        for p in params:
            if p["in"] == "path":
                for size in (HUGE, ROUTABLE):
                    url = base + _fill(path, op, p["name"], "a" * size)
                    status, body, elapsed = call(method, url, {} if method == "POST" else None, _headers(path))
                    assert_openai_4xx(status, body, elapsed, f"{method} {path} {p['name']}={size}")
                    tried += 1
            elif p["in"] == "query" and _takes_string(document, p.get("schema", {})):
                for size in (HUGE, ROUTABLE):
                    url = base + _fill(path, op, None, "") + f"?{p['name']}={'a' * size}"
                    status, body, elapsed = call(method, url, None, _headers(path))
                    assert_openai_4xx(status, body, elapsed, f"{method} {path} ?{p['name']}={size}")
                    tried += 1
        if method != "POST" or any(p["in"] == "path" for p in params):
            continue
        url = base + path
        schema = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        if schema is not None:
            props = _resolve(document, schema).get("properties", {})
            fields = [name for name, s in props.items() if _takes_string(document, s)]
        else:
            fields = list(_ID_FIELDS + _TEXT_FIELDS)
        for field in fields:
            body = {field: "a" * HUGE}
            if path == "/v1/responses" and field not in ("model", "input"):
                body = {"model": MODEL, "input": "x", **body}
            if field.endswith("_ids"):
                body = {field: ["a" * HUGE]}
            status, reply, elapsed = call("POST", url, body, _headers(path))
            what = f"POST {path} {field}"
            if status < 300:  # a free text field may be long; an id never
                assert not field.endswith(("_id", "_ids")) and field != "id", f"{what}: accepted"
                assert elapsed < 5, f"{what}: {elapsed:.2f}s"
                continue
            assert_openai_4xx(status, reply, elapsed, what)
            tried += 1
    assert tried > 100


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"previous_response_id": "resp_" + "a" * HUGE}, "previous_response_id"),
        ({"conversation": "conv_" + "a" * HUGE}, "conversation"),
        ({"conversation": {"id": "conv_a\nb"}}, "conversation.id"),
        ({"prompt": {"id": "pmpt_" + "a" * HUGE}}, "prompt.id"),
        ({"input": [{"type": "item_reference", "id": "msg_" + "a" * HUGE}]}, "input[0].id"),
        ({"input": [{"type": "message", "role": "user", "content": "x", "id": "msg_ü"}]}, "input[0].id"),
        (
            {"tools": [{"type": "file_search", "vector_store_ids": ["vs_" + "a" * HUGE]}]},
            "tools[0].vector_store_ids[0]",
        ),
        (
            {"tools": [{"type": "mcp", "server_label": "s", "connector_id": "c" * HUGE, "require_approval": "never"}]},
            "tools[0].connector_id",
        ),
    ],
)
def test_ids_in_a_response_request_are_checked_first(door: str, body: dict[str, Any], param: str) -> None:
    status, reply, elapsed = call("POST", door + "/responses", {"model": MODEL, "input": "x", **body})
    assert_openai_4xx(status, reply, elapsed, param)
    assert reply["error"]["param"] in (param, param.removesuffix(".id")), reply  # a union: either branch


def test_redaction_is_linear_on_long_words() -> None:
    for text in ("resp_" + "a" * HUGE, "kb://" + "a" * HUGE, "a." * HUGE, "token" * 20_000, "x://" + "a:" * HUGE):
        started = time.thread_time()  # CPU time: a loaded machine does not stretch it
        redact(text)
        assert time.thread_time() - started < 0.5, text[:20]
    assert redact("see https://user:pw@host/x") == "see https://[redacted]@host/x"


def test_the_missing_key_message_is_not_garbled(door: str) -> None:
    req = urllib.request.Request(door + "/responses", data=b"{}", method="POST")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(req, timeout=10)
    assert info.value.code == 401
    message = json.loads(info.value.read())["error"]["message"]
    assert "[redacted]" not in message
    assert message.endswith("Bearer auth (i.e. Authorization: Bearer YOUR_KEY).")


def test_a_project_id_with_a_trailing_newline_is_refused(http_gateway: Any) -> None:
    url = f"{http_gateway.base}/v1/organization/projects/{urllib.parse.quote('team-a' + chr(10))}/api_keys"
    status, body, _elapsed = call("POST", url, {"name": "x"}, {"Authorization": f"Bearer {ADMIN_KEY}"})
    assert status == 400 and body["error"]["param"] == "project_id", body


def rpc(door: str, method: str, params: dict[str, Any]) -> tuple[dict[str, Any], float]:
    """One JSON-RPC request to `/mcp` as a hostile client sends it: the body only (the SDK's client
    also copies a resource's URI into a header, which the 8 KB header limit refuses first)."""
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
    status, reply, elapsed = call("POST", door.removesuffix("/v1") + "/mcp", body, headers)
    assert status == 200 and isinstance(reply, dict), (status, str(reply)[:300])
    return reply, elapsed


def test_mcp_resources_refuse_long_uris_and_bad_cursors(door: str) -> None:
    """`resources/read` with a 100,000-character `kb://` URI is a quick INVALID_PARAMS (its message
    went through the backtracking redaction: 43 s); a bad `resources/list` cursor is INVALID_PARAMS,
    not code 0 (the SDK's code for an unexpected exception, not a JSON-RPC code)."""
    rpc(door, "resources/read", {"uri": "kb://vs_x/file-x"})  # the SDK is imported on first use: warm it
    for uri in ("kb://" + "a" * HUGE, f"kb://vs_{'a' * HUGE}/file-x", f"kb://vs_x/file-{'b' * HUGE}"):
        reply, elapsed = rpc(door, "resources/read", {"uri": uri})
        assert reply["error"]["code"] == -32602 and len(reply["error"]["message"]) < 2_000, str(reply)[:300]
        assert elapsed < QUICK, f"{uri[:20]}: {elapsed:.2f}s"
    for cursor in ("not base64 ~~", "WzEsMl0=", "a" * HUGE):
        reply, _elapsed = rpc(door, "resources/list", {"cursor": cursor})
        assert reply["error"]["code"] == -32602, str(reply)[:300]


def _create(door: str, path: str, body: dict[str, Any]) -> str:
    status, reply, _elapsed = call("POST", door + path, body)
    assert status == 200, (path, reply)
    return str(reply["id"])


def test_the_document_lists_the_routes_added_since_round_one(document: dict[str, Any]) -> None:
    """The walk above covers what the document lists: the routes added since #26's first round are in it
    (the stored-responses list, compaction, the models a fleet serves); the console's pages are not API."""
    paths = document["paths"]
    assert "get" in paths["/v1/responses"] and "post" in paths["/v1/responses/compact"]
    assert "get" in paths["/v1/models"] and "get" in paths["/v1/models/{model_id}"]
    assert not any(p.startswith("/console") for p in paths)
    listing = {p["name"] for p in paths["/v1/responses"]["get"]["parameters"] if p["in"] == "query"}
    assert {"model", "search", "previous_response_id", "after"} <= listing


def test_bodies_of_routes_on_an_existing_object_refuse_huge_strings_quickly(
    door: str, document: dict[str, Any]
) -> None:
    """The walk above sends bodies only to routes without a path parameter (an `x` id is refused
    before the body is read); here each POST on an existing object (a conversation, a vector store, a
    prompt, a connector, a response) gets its string fields at 100,000 characters."""
    made = {
        "conv_id": _create(door, "/conversations", {}),
        "vector_store_id": _create(door, "/vector_stores", {"name": "fuzz"}),
        "prompt_id": _create(door, "/prompts", {"name": "fuzz", "instructions": "x"}),
        "connector_id": _create(door, "/connectors", {"name": "fuzz", "server_url": "https://mcp.example.com/mcp"}),
        "response_id": _create(door, "/responses", {"model": MODEL, "input": "x"}),
    }
    base = door.removesuffix("/v1")
    tried = 0
    for method, path, op in operations(document):
        names = [p["name"] for p in op.get("parameters", []) if p["in"] == "path"]
        if method != "POST" or not names or not set(names) <= set(made):
            continue
        url = base + path.format(**{n: made[n] for n in names})
        schema = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        if schema is not None:
            props = _resolve(document, schema).get("properties", {})
            fields = [name for name, s in props.items() if _takes_string(document, s)] or list(_TEXT_FIELDS)
        else:
            fields = list(_ID_FIELDS + _TEXT_FIELDS + ("query", "default_version"))
        for field in fields:
            status, reply, elapsed = call("POST", url, {field: "a" * HUGE})
            what = f"POST {path} {field}"
            if status < 300:  # a free text field may be long; an id never
                assert not field.endswith(("_id", "_ids")) and field != "id", f"{what}: accepted"
                assert elapsed < 5, f"{what}: {elapsed:.2f}s"
                continue
            assert_openai_4xx(status, reply, elapsed, what)
            tried += 1
    assert tried > 20


def test_repeatable_query_strings_are_bounded(door: str) -> None:
    """Array-valued query parameters (`include`, a repeated `model`) take 4,000-character values
    quickly: a 4xx, or an answer that does not echo them."""
    response_id = _create(door, "/responses", {"model": MODEL, "input": "x"})
    for url in (
        f"{door}/responses/{response_id}?include={'a' * ROUTABLE}",
        f"{door}/responses?model={'a' * ROUTABLE}&model={'b' * ROUTABLE}",
        f"{door}/responses?status={'a' * ROUTABLE}",
    ):
        status, body, elapsed = call("GET", url)
        if status < 300:
            assert elapsed < QUICK and "a" * 100 not in json.dumps(body), url[:80]
        else:
            assert_openai_4xx(status, body, elapsed, url[:80])
