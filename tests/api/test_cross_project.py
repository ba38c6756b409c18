"""No route reaches another project's object by its id, through both doors (#26).

Project B (its own API key) makes one object of each kind, each holding a secret marker. Project A
then names each of B's ids everywhere an id of another object is accepted: every path parameter of
the OpenAPI document, item references (`POST /v1/conversations` copied B's item into A's
conversation before #26), `previous_response_id`, `conversation`, `prompt`, `file_search`'s
`vector_store_ids`, an `mcp` tool's `connector_id`, and a vector store's `file_ids`. Every answer is
a 4xx, and no answer, and nothing A can list afterwards, shows B's marker.
"""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

from tests.support.procs import AUTH, Backend, Gateway, create_key

MODEL = "scripted-model"


def call(method: str, url: str, key: str, body: Any = None) -> tuple[int, str]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


@pytest.fixture(scope="module")
def other(backend: Backend, data_dir: Path, http_gateway: Gateway, session_key: str) -> Iterator[dict[str, str]]:
    """Project B's objects (made with B's key), each carrying `secret`."""
    key = str(create_key(backend.url, data_dir, "project-b", "--name", "b")["value"])
    secret = f"b-secret-{uuid.uuid4().hex[:10]}"
    b = OpenAI(base_url=http_gateway.url, api_key=key, max_retries=0, timeout=30)
    response = b.responses.create(model=MODEL, input=secret)
    conv = b.conversations.create(items=[{"type": "message", "role": "user", "content": secret}])
    item = next(iter(b.conversations.items.list(conv.id)))
    file = b.files.create(file=("b.txt", io.BytesIO(secret.encode())), purpose="assistants")
    store = b.vector_stores.create(name=secret, file_ids=[file.id])
    connector = b.post("/connectors", body={"name": secret, "server_url": "https://mcp.example.com/mcp"}, cast_to=dict)
    prompt = b.post("/prompts", body={"name": secret, "instructions": secret}, cast_to=dict)
    yield {
        "secret": secret,
        "response_id": response.id,
        "output_item": response.output[0].id or "",
        "conv_id": conv.id,
        "item_id": item.id or "",
        "file_id": file.id,
        "vector_store_id": store.id,
        "connector_id": connector["id"],
        "prompt_id": prompt["id"],
        "batch_id": "vsfb_none",
        "model_id": MODEL,
    }


def test_every_path_parameter_with_another_projects_id(
    door: str, other: dict[str, str], session_key: str, http_gateway: Gateway
) -> None:
    with urllib.request.urlopen(f"{http_gateway.base}/openapi.json", timeout=10) as resp:
        doc = json.loads(resp.read())
    base = door.removesuffix("/v1")
    tried = 0
    for path, ops in doc["paths"].items():
        if "{" not in path or path.startswith("/v1/organization/") or "{model_id}" in path:
            continue
        for method in ops:
            url = path
            for name in [p["name"] for p in ops[method]["parameters"] if p["in"] == "path"]:
                url = url.replace("{" + name + "}", urllib.parse.quote(other[name], safe=""))
            status, text = call(method.upper(), base + url, session_key, {} if method == "post" else None)
            assert 400 <= status < 500, f"{method.upper()} {path}: {status} {text[:300]}"
            assert other["secret"] not in text, f"{method.upper()} {path} leaked: {text[:300]}"
            tried += 1
    assert tried >= 25


def test_every_reference_in_a_body_with_another_projects_id(door: str, other: dict[str, str], session_key: str) -> None:
    secret = other["secret"]
    ref = {"type": "item_reference", "id": other["item_id"]}
    a = OpenAI(base_url=door, api_key=session_key, max_retries=0, timeout=30)
    own = a.conversations.create()
    cases: list[tuple[str, dict[str, Any]]] = [
        ("/conversations", {"items": [ref]}),
        ("/conversations", {"items": [{"type": "item_reference", "id": other["output_item"]}]}),
        (f"/conversations/{own.id}/items", {"items": [ref]}),
        ("/responses", {"model": MODEL, "input": [ref]}),
        ("/responses", {"model": MODEL, "input": "x", "previous_response_id": other["response_id"]}),
        ("/responses", {"model": MODEL, "input": "x", "conversation": other["conv_id"]}),
        ("/responses", {"model": MODEL, "input": "x", "prompt": {"id": other["prompt_id"]}}),
        (
            "/responses",
            {
                "model": MODEL,
                "input": "x",
                "tools": [{"type": "file_search", "vector_store_ids": [other["vector_store_id"]]}],
            },
        ),
        (
            "/responses",
            {
                "model": MODEL,
                "input": "x",
                "tools": [
                    {
                        "type": "mcp",
                        "server_label": "b",
                        "connector_id": other["connector_id"],
                        "require_approval": "never",
                    }
                ],
            },
        ),
        ("/vector_stores", {"name": "a", "file_ids": [other["file_id"]]}),
        (f"/vector_stores/{other['vector_store_id']}/files", {"file_id": other["file_id"]}),
    ]
    own_store = a.vector_stores.create(name="a-own")
    cases += [
        (f"/vector_stores/{own_store.id}/files", {"file_id": other["file_id"]}),
        (f"/vector_stores/{own_store.id}/file_batches", {"file_ids": [other["file_id"]]}),
        (f"/vector_stores/{own_store.id}/search", {"query": secret}),
    ]
    for path, body in cases:
        status, text = call("POST", door + path, session_key, body)
        if path.endswith("/search"):  # A's own (empty) store: a 200 (echoing the query) with no hit
            assert status == 200 and json.loads(text)["data"] == [], text
            continue
        assert 400 <= status < 500, f"{path} {body}: {status} {text[:300]}"
        assert secret not in text, f"{path} leaked: {text[:300]}"
    for conv in a.conversations.create(), own:  # nothing of B's reached A's conversations
        assert secret not in json.dumps([i.model_dump() for i in a.conversations.items.list(conv.id)])


def test_an_unknown_reference_is_404_not_a_bare_reference(door: str, session_key: str) -> None:
    missing = {"type": "item_reference", "id": "msg_" + "0" * 48}
    status, text = call("POST", door + "/conversations", session_key, {"items": [missing]})
    assert status == 404, text
    body = json.loads(text)["error"]
    assert body["param"] == "items[0].id" and body["type"] == "invalid_request_error"
    a = OpenAI(base_url=door, api_key=session_key, max_retries=0, timeout=30)
    mine = a.responses.create(model=MODEL, input="own item")  # an own item is resolved and copied in
    conv = a.post("/conversations", body={"items": [{"type": "item_reference", "id": mine.output[0].id}]}, cast_to=dict)
    items = list(a.conversations.items.list(conv["id"]))
    assert [i.type for i in items] == ["message"] and "own item" in json.dumps(items[0].model_dump())


_ = AUTH  # the session key's header (set by the session_key fixture) is not used here: each call names its key
