"""API keys and project isolation (#16), through both doors of the session's keys-mode stack.

The matrix: what one project creates, another project cannot see, change, use or list: every
route answers exactly as for an id that never existed (same status, same body but for the id);
within the project the same routes work; without a key, every `/v1` route is a 401.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK ships with
import pytest
from openai import OpenAI

from tests.support.pg import truncate
from tests.support.procs import ADMIN_KEY, KEYS_ENV, Backend, Gateway, create_key, gateways
from tests.support.retrieval_helpers import retrieval_env
from tests.support.waiting import until

pytestmark = pytest.mark.slow


def _admin(base: str, method: str, path: str, key: str | None = ADMIN_KEY, **kw: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.request(method, f"{base}/organization/projects{path}", headers=headers, timeout=30, **kw)


@pytest.fixture(scope="module")
def keys(http_gateway: Gateway) -> dict[str, str]:
    """Two projects' keys, minted through the admin routes."""
    out = {}
    for project in ("alpha", "beta"):
        r = _admin(http_gateway.url, "POST", f"/{project}/api_keys", json={"name": f"{project} key"})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["object"] == "organization.project.api_key" and body["value"].startswith("sk-gw-")
        out[project] = body["value"]
    return out


class Caller:
    """Raw HTTP as one project (or none), so every status and body can be compared."""

    def __init__(self, base: str, key: str | None) -> None:
        self.base = base
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}

    def __call__(self, method: str, path: str, **kw: Any) -> httpx.Response:
        return httpx.request(method, self.base + path, headers=self.headers, timeout=30, **kw)


def _same_as_missing(r: httpx.Response, missing: httpx.Response, real_id: str, fake_id: str) -> None:
    assert r.status_code == missing.status_code, (r.status_code, r.text, missing.text)
    assert r.text.replace(real_id, "ID") == missing.text.replace(fake_id, "ID"), (r.text, missing.text)


def _fake(real_id: str) -> str:
    prefix = real_id.split("_", 1)[0]
    return f"{prefix}_{uuid.uuid4().hex}{uuid.uuid4().hex[:16]}"


@pytest.fixture(scope="module")
def objects(http_gateway: Gateway, keys: dict[str, str], backend: Backend) -> Iterator[dict[str, str]]:
    """One of every object type, created by project alpha (through the HTTP door)."""
    yield make_objects(http_gateway.url, keys["alpha"])


def make_objects(base: str, key: str) -> dict[str, str]:
    a = Caller(base, key)
    made: dict[str, str] = {}
    r = a("POST", "/responses", json={"model": "scripted-model", "input": "alpha secret hello", "store": True})
    assert r.status_code == 200, r.text
    made["response"] = r.json()["id"]
    made["item"] = next(i["id"] for i in r.json()["output"] if i["type"] == "message")
    r = a("POST", "/conversations", json={"items": [{"type": "message", "role": "user", "content": "alpha conv"}]})
    assert r.status_code == 200, r.text
    made["conversation"] = r.json()["id"]
    r = a("GET", f"/conversations/{made['conversation']}/items")
    made["conversation_item"] = r.json()["data"][0]["id"]
    r = a(
        "POST",
        "/files",
        files={"file": ("alpha.txt", b"alpha private notes about zebras")},
        data={"purpose": "assistants"},
    )
    assert r.status_code == 200, r.text
    made["file"] = r.json()["id"]
    r = a("POST", "/vector_stores", json={"name": "alpha store", "file_ids": [made["file"]]})
    assert r.status_code == 200, r.text
    made["vector_store"] = r.json()["id"]
    deadline = time.time() + 30
    while a("GET", f"/vector_stores/{made['vector_store']}").json()["file_counts"]["completed"] < 1:
        assert time.time() < deadline, "ingestion did not finish"
        time.sleep(0.2)
    r = a("POST", "/prompts", json={"name": "alpha", "instructions": "You are alpha assistant."})
    assert r.status_code == 200, r.text
    made["prompt"] = r.json()["id"]
    r = a("POST", "/connectors", json={"name": "alpha mcp", "server_url": "https://mcp.example.com/mcp"})
    assert r.status_code == 200, r.text
    made["connector"] = r.json()["id"]
    return made


# (method, path template, json body or None): every operation on an object by id
BY_ID: list[tuple[str, str, str, dict[str, Any] | None]] = [
    ("response", "GET", "/responses/{id}", None),
    ("response", "GET", "/responses/{id}/input_items", None),
    ("response", "GET", "/responses/{id}?stream=true", None),
    ("response", "POST", "/responses/{id}/cancel", None),
    ("response", "DELETE", "/responses/{id}", None),
    ("conversation", "GET", "/conversations/{id}", None),
    ("conversation", "POST", "/conversations/{id}", {"metadata": {"k": "v"}}),
    ("conversation", "GET", "/conversations/{id}/items", None),
    (
        "conversation",
        "POST",
        "/conversations/{id}/items",
        {"items": [{"type": "message", "role": "user", "content": "x"}]},
    ),
    ("conversation", "DELETE", "/conversations/{id}", None),
    ("file", "GET", "/files/{id}", None),
    ("file", "GET", "/files/{id}/content", None),
    ("file", "DELETE", "/files/{id}", None),
    ("vector_store", "GET", "/vector_stores/{id}", None),
    ("vector_store", "POST", "/vector_stores/{id}", {"name": "stolen"}),
    ("vector_store", "POST", "/vector_stores/{id}/search", {"query": "zebras"}),
    ("vector_store", "GET", "/vector_stores/{id}/files", None),
    ("vector_store", "GET", "/vector_stores/{id}/files/{file}", None),
    ("vector_store", "GET", "/vector_stores/{id}/files/{file}/content", None),
    ("vector_store", "POST", "/vector_stores/{id}/files/{file}", {"attributes": {"k": "v"}}),
    ("vector_store", "POST", "/vector_stores/{id}/files", {"file_id": "{file}"}),
    ("vector_store", "POST", "/vector_stores/{id}/file_batches", {"file_ids": ["{file}"]}),
    ("vector_store", "DELETE", "/vector_stores/{id}/files/{file}", None),
    ("conversation", "GET", "/conversations/{id}/items/{conversation_item}", None),
    ("conversation", "DELETE", "/conversations/{id}/items/{conversation_item}", None),
    ("vector_store", "DELETE", "/vector_stores/{id}", None),
    ("prompt", "GET", "/prompts/{id}", None),
    ("prompt", "GET", "/prompts/{id}/versions", None),
    ("prompt", "POST", "/prompts/{id}", {"instructions": "stolen"}),
    ("prompt", "DELETE", "/prompts/{id}", None),
    ("connector", "GET", "/connectors/{id}", None),
    ("connector", "DELETE", "/connectors/{id}", None),
]

# an id used inside a request body (a reference to another object). An input_file's file_id is not
# among them: the gateway never reads a file for it (it goes to the backend as given).
REFERENCES: list[tuple[str, dict[str, Any]]] = [
    ("response", {"model": "scripted-model", "input": "hi", "previous_response_id": "{id}"}),
    ("conversation", {"model": "scripted-model", "input": "hi", "conversation": "{id}"}),
    ("item", {"model": "scripted-model", "input": [{"type": "item_reference", "id": "{id}"}]}),
    (
        "vector_store",
        {"model": "scripted-model", "input": "hi", "tools": [{"type": "file_search", "vector_store_ids": ["{id}"]}]},
    ),
    ("prompt", {"model": "scripted-model", "input": "hi", "prompt": {"id": "{id}"}}),
    (
        "connector",
        {
            "model": "scripted-model",
            "input": "hi",
            "tools": [{"type": "mcp", "server_label": "x", "connector_id": "{id}"}],
        },
    ),
]


def _fill(body: Any, value: str) -> Any:
    if isinstance(body, str):
        return body.replace("{id}", value).replace("{file}", value)
    if isinstance(body, list):
        return [_fill(v, value) for v in body]
    if isinstance(body, dict):
        return {k: _fill(v, value) for k, v in body.items()}
    return body


def test_other_projects_objects_do_not_exist(door: str, keys: dict[str, str], objects: dict[str, str]) -> None:
    check_isolation(door, keys["beta"], objects)


def check_isolation(door: str, key: str, objects: dict[str, str]) -> None:
    """Every route, with another project's key, answers as for an id that never existed."""
    b = Caller(door, key)
    for kind, method, template, body in BY_ID:
        real, fake = objects[kind], _fake(objects[kind])
        others = {k: v for k, v in objects.items() if k != "id"}
        body = _fill(body, objects["file"]) if body else body
        got = b(method, template.format(id=real, **others), json=body)
        missing = b(method, template.format(id=fake, **others), json=body)
        assert got.status_code in (400, 404), (kind, method, template, got.status_code, got.text)
        _same_as_missing(got, missing, real, fake)
    own = b("POST", "/vector_stores", json={"name": "beta store"}).json()["id"]  # another project's file into mine
    real, fake = objects["file"], _fake(objects["file"])
    for path, field in ((f"/vector_stores/{own}/files", "file_id"), (f"/vector_stores/{own}/file_batches", "file_ids")):
        value: Any = real if field == "file_id" else [real]
        got = b("POST", path, json={field: value})
        missing = b("POST", path, json={field: fake if field == "file_id" else [fake]})
        assert got.status_code in (400, 404), got.text
        _same_as_missing(got, missing, real, fake)
    for kind, body in REFERENCES:
        real, fake = objects[kind], _fake(objects[kind])
        got = b("POST", "/responses", json=_fill(body, real))
        missing = b("POST", "/responses", json=_fill(body, fake))
        assert got.status_code in (400, 404), (kind, got.status_code, got.text)
        _same_as_missing(got, missing, real, fake)


def test_lists_and_search_stay_in_the_project(door: str, keys: dict[str, str], objects: dict[str, str]) -> None:
    b = Caller(door, keys["beta"])
    seen = " ".join(b("GET", path).text for path in ("/files", "/vector_stores", "/prompts", "/connectors"))
    for kind in ("file", "vector_store", "prompt", "connector"):
        assert objects[kind] not in seen, kind
    a = Caller(door, keys["alpha"])
    mine = " ".join(a("GET", path).text for path in ("/files", "/vector_stores", "/prompts", "/connectors"))
    for kind in ("file", "vector_store", "prompt", "connector"):
        assert objects[kind] in mine, kind


def test_the_owning_project_keeps_working(door: str, keys: dict[str, str], objects: dict[str, str]) -> None:
    a = Caller(door, keys["alpha"])
    for kind, method, template, _body in BY_ID:
        if method != "GET" or "stream=true" in template:
            continue
        r = a(method, template.format(id=objects[kind], **{k: v for k, v in objects.items() if k != "id"}))
        assert r.status_code == 200, (template, r.text)
    r = a("POST", f"/vector_stores/{objects['vector_store']}/search", json={"query": "zebras"})
    assert r.status_code == 200 and "zebras" in r.text
    r = a(
        "POST",
        "/responses",
        json={"model": "scripted-model", "input": "more", "previous_response_id": objects["response"]},
    )
    assert r.status_code == 200, r.text


def test_a_background_run_is_cancelled_and_resumed_only_by_its_project(
    door: str, keys: dict[str, str], backend: Backend
) -> None:
    a, b = Caller(door, keys["alpha"]), Caller(door, keys["beta"])
    marker = f"mk-{uuid.uuid4().hex[:10]}"
    backend.script(marker, {"content": "slow answer", "delay": 1.5})
    r = a("POST", "/responses", json={"model": "scripted-model", "input": marker, "background": True})
    assert r.status_code == 200, r.text
    rid = r.json()["id"]
    fake = _fake(rid)
    for method, path in (
        ("POST", "/responses/{}/cancel"),
        ("GET", "/responses/{}?stream=true"),
        ("DELETE", "/responses/{}"),
    ):
        _same_as_missing(b(method, path.format(rid)), b(method, path.format(fake)), rid, fake)
    deadline = time.time() + 30
    while (status := a("GET", f"/responses/{rid}").json()["status"]) in ("queued", "in_progress"):
        assert time.time() < deadline
        time.sleep(0.2)
    assert status == "completed"  # beta's cancel did not reach it


def test_every_v1_route_needs_a_key(door: str, http_gateway: Gateway) -> None:
    spec = httpx.get(http_gateway.url.rsplit("/v1", 1)[0] + "/openapi.json", timeout=30).json()
    anonymous, wrong = Caller(door, None), Caller(door, "sk-gw-not-a-real-key-000000000000")
    checked = 0
    for path, ops in spec["paths"].items():
        if not path.startswith("/v1/") or path.startswith("/v1/organization/"):
            continue
        concrete = re.sub(r"\{[^}]+\}", "x_1", path).removeprefix("/v1")
        for method in ops:
            if method not in ("get", "post", "delete"):
                continue
            for caller, needle in ((anonymous, "You didn't provide an API key"), (wrong, "Incorrect API key")):
                r = caller(method.upper(), concrete, json={} if method == "post" else None)
                assert r.status_code == 401, (method, path, r.status_code, r.text)
                error = r.json()["error"]
                assert error["code"] == "invalid_api_key" and needle in error["message"], error
                assert set(error) == {"message", "type", "param", "code"}
            checked += 1
    assert checked > 40
    base = http_gateway.url.rsplit("/v1", 1)[0]
    for open_path in ("/health", "/ready", "/metrics"):
        assert httpx.get(base + open_path, timeout=30).status_code == 200, open_path


def test_revoked_and_expired_keys_stop_working(door: str, http_gateway: Gateway, backend: Backend) -> None:
    r = _admin(http_gateway.url, "POST", "/gamma/api_keys", json={"name": "short", "expires_in": 2})
    short = r.json()["value"]
    r = _admin(http_gateway.url, "POST", "/gamma/api_keys", json={"name": "to revoke"})
    doomed, doomed_id = r.json()["value"], r.json()["id"]
    assert Caller(door, short)("GET", "/models").status_code == 200
    assert Caller(door, doomed)("GET", "/models").status_code == 200
    r = _admin(http_gateway.url, "DELETE", f"/gamma/api_keys/{doomed_id}")
    assert r.json() == {"object": "organization.project.api_key.deleted", "id": doomed_id, "deleted": True}
    # the cache keeps an answer for at most GATEWAY_AUTH_CACHE_SECONDS (1 s); the short key lives 2 s
    until(lambda: Caller(door, doomed)("GET", "/models").status_code == 401, timeout=5, what="revoked key refused")
    until(lambda: Caller(door, short)("GET", "/models").status_code == 401, timeout=6, what="expired key refused")
    listed = _admin(http_gateway.url, "GET", "/gamma/api_keys").json()["data"]
    assert {k["id"] for k in listed} >= {doomed_id}
    assert all("value" not in k and "hash" not in k and k["redacted_value"].endswith("...") for k in listed)
    assert next(k for k in listed if k["id"] == doomed_id)["revoked_at"] is not None


def test_admin_routes_need_the_admin_key(http_gateway: Gateway, keys: dict[str, str]) -> None:
    for key in (None, keys["alpha"], "wrong"):
        r = _admin(http_gateway.url, "GET", "/alpha/api_keys", key=key)
        assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key"
    r = _admin(http_gateway.url, "POST", "/bad project/api_keys", json={})
    assert r.status_code == 400 and r.json()["error"]["param"] == "project_id"


def test_the_cli_mints_keys_that_work_at_once(door: str, http_gateway: Gateway, backend: Backend) -> None:
    created = create_key(backend.url, Path(http_gateway.data_dir), "delta", "--name", "cli")
    client = OpenAI(base_url=door, api_key=created["value"], max_retries=0, timeout=30)
    out = client.responses.create(model="scripted-model", input="hello from delta")
    assert out.status == "completed"
    assert created["value"] not in Path(http_gateway.data_dir, "gateway.db").read_bytes().decode("latin-1")


def test_isolation_on_postgresql_across_replicas(backend: Backend, tmp_path: Path, postgres_url: str) -> None:
    """Keys and projects in PostgreSQL: a key minted on one replica works on the other at once, and
    what one project stored through one replica is invisible to another project on the other."""
    asyncio.run(truncate(postgres_url))
    env = {"GATEWAY_DATABASE_URL": postgres_url, **retrieval_env(backend.url), **KEYS_ENV}
    with gateways(backend.url, [tmp_path / "a", tmp_path / "b"], **env) as (a, b):  # started together
        keys = {}
        for project in ("alpha", "beta"):
            r = _admin(a.url, "POST", f"/{project}/api_keys", json={})
            keys[project] = r.json()["value"]
        made = make_objects(a.url, keys["alpha"])
        check_isolation(b.url, keys["beta"], {k: v for k, v in made.items()})
        alpha_on_b = Caller(b.url, keys["alpha"])
        assert alpha_on_b("GET", f"/responses/{made['response']}").status_code == 200
        assert alpha_on_b("GET", f"/conversations/{made['conversation']}").status_code == 200
        key_id = _admin(a.url, "GET", "/beta/api_keys").json()["data"][0]["id"]
        _admin(a.url, "DELETE", f"/beta/api_keys/{key_id}")
        beta_on_b = Caller(b.url, keys["beta"])
        until(lambda: beta_on_b("GET", "/models").status_code == 401, timeout=5, what="revoked on a, refused by b")
