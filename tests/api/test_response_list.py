"""`GET /v1/responses` (#32, the console's logs): the store's list on SQLite and PostgreSQL, and the
route through both doors (filters, paging, bad input, another project's responses).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import httpx2 as httpx
from openai import OpenAI

from storage.base import StateStore
from storage.pages import PageRequest
from storage.response_list import ResponseFilter
from storage.scope import project_scope
from tests.support.procs import ADMIN_KEY, AUTH, Backend, Gateway, create_key


def _resp(i: str, at: float, *, model: str = "m", status: str = "completed", prev: str | None = None) -> dict[str, Any]:
    return {
        "id": i,
        "object": "response",
        "created_at": at,
        "status": status,
        "model": model,
        "previous_response_id": prev,
        "instructions": f"be brief {i}",
        "output": [],
    }


def _msg(i: str, text: str, role: str = "user") -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"id": i, "type": "message", "role": role, "content": [{"type": kind, "text": text}], "status": "completed"}


async def _ids(store: StateStore, flt: ResponseFilter = ResponseFilter(), **page: Any) -> tuple[list[str], bool]:
    got = await store.list_responses(flt, PageRequest.of(page.pop("limit", 20), page.pop("order", "desc"), **page))
    return [r["id"] for r in got.data], got.has_more


async def test_list_filters_and_pages(state: StateStore) -> None:
    with project_scope("p1"):
        for n in range(6):
            await state.write_response(
                _resp(f"r{n}", 100 + n, model="big" if n % 2 else "small", status="failed" if n == 4 else "completed"),
                inputs=[_msg(f"in{n}", f"question {n} about 50%_off")],
                outputs=[_msg(f"out{n}", f"Answer number {n}", "assistant")],
            )
        await state.write_response(_resp("r6", 106, prev="r5"), inputs=[_msg("in6", "more")])
    with project_scope("p2"):
        await state.write_response(_resp("x0", 200), inputs=[_msg("x-in", "question 0")])
    with project_scope("p1"):
        assert await _ids(state) == (["r6", "r5", "r4", "r3", "r2", "r1", "r0"], False)
        page = await state.list_responses(ResponseFilter(), PageRequest.of(1, "desc"))
        assert page.data[0]["output"] == [] and page.has_more
        first = (await state.list_responses(ResponseFilter(), PageRequest.of(2, "desc", after="r6"))).data[0]
        assert first["id"] == "r5" and first["output"][0]["content"][0]["text"] == "Answer number 5"
        assert await _ids(state, limit=2, after="r5") == (["r4", "r3"], True)
        assert await _ids(state, limit=2, before="r3") == (["r5", "r4"], True)
        assert await _ids(state, limit=3, order="asc") == (["r0", "r1", "r2"], True)
        assert await _ids(state, ResponseFilter(models=("big",))) == (["r5", "r3", "r1"], False)
        assert await _ids(state, ResponseFilter(models=("big", "m"))) == (["r6", "r5", "r3", "r1"], False)
        assert await _ids(state, ResponseFilter(statuses=("failed",))) == (["r4"], False)
        assert await _ids(state, ResponseFilter(created_after=102, created_before=104)) == (["r3", "r2"], False)
        assert await _ids(state, ResponseFilter(previous_response_id="r5")) == (["r6"], False)
        # search: the response's own JSON (instructions) and its items, either case; % and _ are literal
        assert await _ids(state, ResponseFilter(search="ANSWER NUMBER 2")) == (["r2"], False)
        assert await _ids(state, ResponseFilter(search="brief r3")) == (["r3"], False)
        assert await _ids(state, ResponseFilter(search="question 0")) == (["r0"], False)
        assert (await _ids(state, ResponseFilter(search="50%_off")))[0] == ["r5", "r4", "r3", "r2", "r1", "r0"]
        assert await _ids(state, ResponseFilter(search="50%%off")) == ([], False)
        assert await _ids(state, after="x0") == ([], False)  # another project's id as a cursor: nothing
    with project_scope("p2"):
        assert await _ids(state) == (["x0"], False)


def test_list_route(client: OpenAI, door: str, backend: Backend, http_gateway: Gateway, marker: str) -> None:
    made = [client.responses.create(model="scripted-model", input=f"list me {marker} {n}") for n in range(3)]
    get = lambda **q: httpx.get(door + "/responses", params=q, headers=AUTH, timeout=30)  # noqa: E731
    body = get(search=marker, limit=2).json()
    assert [r["id"] for r in body["data"]] == [made[2].id, made[1].id] and body["has_more"]
    assert body["object"] == "list" and body["last_id"] == made[1].id
    assert body["data"][0]["output"][0]["content"][0]["text"].startswith("Echo:")
    rest = get(search=marker, after=body["last_id"]).json()
    assert [r["id"] for r in rest["data"]] == [made[0].id] and not rest["has_more"]
    assert [r["id"] for r in get(search=marker, model="scripted-model", status="completed").json()["data"]] == [
        m.id for m in reversed(made)
    ]
    assert get(search=marker, status="failed").json()["data"] == []
    for bad in ({"status": "done"}, {"limit": "0"}, {"created_after": "yesterday"}, {"order": "up"}):
        r = get(**bad)
        assert r.status_code == 400, (bad, r.text)
        assert set(r.json()["error"]) == {"message", "type", "param", "code"}
    other = str(create_key(backend.url, http_gateway.data_dir, f"list-{uuid.uuid4().hex[:6]}")["value"])
    r = httpx.get(door + "/responses", params={"search": marker}, headers={"Authorization": f"Bearer {other}"})
    assert r.status_code == 200 and r.json()["data"] == []
    assert httpx.get(door + "/responses", timeout=30).status_code == 401
    # the admin key acts in any one project, named by OpenAI-Project (the console's admin)
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    mine = httpx.get(door + "/responses", params={"search": marker}, headers=admin, timeout=30).json()["data"]
    assert [r["id"] for r in mine] == [m.id for m in reversed(made)]  # the session key's project: default
    beta = httpx.get(door + "/responses", params={"search": marker}, headers={**admin, "OpenAI-Project": "beta"})
    assert beta.status_code == 200 and beta.json()["data"] == []
    r = httpx.get(door + f"/responses/{made[0].id}", headers={**admin, "OpenAI-Project": "beta"}, timeout=30)
    assert r.status_code == 404
    r = httpx.get(door + "/responses", headers={**admin, "OpenAI-Project": "no such/project"}, timeout=30)
    assert r.status_code == 400 and r.json()["error"]["param"] == "OpenAI-Project"


def test_console_is_served_with_a_strict_policy_and_versioned_assets(door: str) -> None:
    base = door.removesuffix("/v1")
    page = httpx.get(base + "/console/responses/resp_x", timeout=30)  # any page: the one HTML document
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["cache-control"] == "no-cache"
    again = httpx.get(base + "/console/", headers={"If-None-Match": page.headers["etag"]}, timeout=30)
    assert again.status_code == 304
    main = re.search(r'src="(/console/assets/[0-9a-f]{16}/main\.js)"', page.text)
    assert main, page.text
    js = httpx.get(base + main.group(1), timeout=30)
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert "immutable" in js.headers["cache-control"] and "default-src 'self'" in js.headers["content-security-policy"]
    old = main.group(1).replace(main.group(1).split("/")[3], "0" * 16)  # another version's URL
    assert httpx.get(base + old, timeout=30).status_code == 404


def test_console_refuses_paths_outside_its_files(door: str) -> None:
    base = door.removesuffix("/v1")
    version = re.search(r"/console/assets/([0-9a-f]{16})/", httpx.get(base + "/console/", timeout=30).text)
    assert version
    for path in (
        f"/console/assets/{version.group(1)}/../../config.py",
        f"/console/assets/{version.group(1)}/%2e%2e/__init__.py",
        f"/console/assets/{version.group(1)}/nope.js",
        "/console/assets/main.js",
    ):
        r = httpx.get(base + path, timeout=30)
        # a 404, or (where a proxy normalised the path to a page's) the console's page: never the file
        assert r.status_code == 404 or r.text.startswith("<!doctype html>"), (path, r.status_code)
        assert "import" not in r.text.split("<script")[0], path
