"""Bounded work per request, and no 500 on hostile numbers, through both doors (#26).

Each case here amplified itself or answered a 500 before: a stored prompt whose `{{x}}` repeated
with a long `x` rendered 40 KB into 200 MB; a DOCX whose XML compresses a thousandfold was parsed
whole; a deeply nested `.json` file failed as `server_error`; 1,000 sub-filters or a 2,000-value
`in` reached SQLite ("Expression tree is too large"); integers past 64 bits overflowed the store.
"""

from __future__ import annotations

import io
import json
import time
import urllib.error
import urllib.request
import zipfile
from typing import Any

import docx
from openai import OpenAI

from tests.support.procs import ADMIN_KEY, AUTH, Gateway
from tests.support.retrieval_helpers import wait_ingested

MODEL = "scripted-model"


def call(method: str, url: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    for k, v in {**AUTH, **(headers or {})}.items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        raw = err.read()
        assert err.headers.get("content-type", "").startswith("application/json"), raw[:300]
        return err.code, json.loads(raw)


def assert_400(status: int, body: Any, param: str | None = None) -> None:
    assert status == 400, body
    assert set(body["error"]) == {"message", "type", "param", "code"}, body
    if param is not None:
        assert body["error"]["param"] == param, body


def test_a_prompt_cannot_render_past_the_cap(client: OpenAI, door: str) -> None:
    """100 placeholders and a 400,000-character variable would render 40 MB (the session's cap is
    GATEWAY_MAX_BODY_BYTES, 32 MiB): a quick 400, nothing sent to the backend."""
    prompt = client.post("/prompts", body={"name": "amp", "instructions": "{{x}} " * 100}, cast_to=dict)
    started = time.monotonic()
    status, body = call(
        "POST",
        door + "/responses",
        {"model": MODEL, "input": "hi", "prompt": {"id": prompt["id"], "variables": {"x": "y" * 400_000}}},
    )
    assert_400(status, body, "prompt.variables")
    assert body["error"]["code"] == "prompt_too_large"
    assert time.monotonic() - started < 5
    status, body = call(
        "POST",
        door + "/responses",
        {"model": MODEL, "input": "hi", "prompt": {"id": prompt["id"], "variables": {"x": "y"}}},
    )
    assert status == 200, body


def _filter(n: int) -> dict[str, Any]:
    return {"type": "or", "filters": [{"type": "eq", "key": "k", "value": f"v{i}"} for i in range(n)]}


def test_filter_trees_are_bounded(client: OpenAI, door: str) -> None:
    store = client.vector_stores.create(name="filters")
    search = door + f"/vector_stores/{store.id}/search"
    for bad in (_filter(1_000), {"type": "in", "key": "k", "value": [f"v{i}" for i in range(2_000)]}):
        status, body = call("POST", search, {"query": "x", "filters": bad})
        assert_400(status, body, "filters")
        tool = {"type": "file_search", "vector_store_ids": [store.id], "filters": bad}
        status, body = call("POST", door + "/responses", {"model": MODEL, "input": "x", "tools": [tool]})
        assert_400(status, body, "tools[0].filters")
    nested = {"type": "and", "filters": [_filter(50), {"type": "nin", "key": "k", "value": list(range(100))}]}
    status, body = call("POST", search, {"query": "x", "filters": nested})  # 150 terms: within the cap
    assert status == 200 and body["data"] == [], body


def _failed_file(client: OpenAI, name: str, data: bytes) -> Any:
    file = client.files.create(file=(name, io.BytesIO(data)), purpose="assistants")
    store = client.vector_stores.create(name=name, file_ids=[file.id])
    started = time.monotonic()
    wait_ingested(client, store.id, timeout=30)
    elapsed = time.monotonic() - started
    got = client.vector_stores.files.retrieve(file.id, vector_store_id=store.id)
    return got, elapsed


def test_a_deeply_nested_json_file_is_invalid_file(client: OpenAI) -> None:
    got, _elapsed = _failed_file(client, "deep.json", b'{"a":' * 20_000 + b"1" + b"}" * 20_000)
    assert got.status == "failed" and got.last_error is not None and got.last_error.code == "invalid_file", got
    got, _elapsed = _failed_file(client, "deep.jsonl", b'{"ok": 1}\n' + b"[" * 5_000 + b"]" * 5_000 + b"\n")
    assert got.status == "failed" and got.last_error is not None and got.last_error.code == "invalid_file", got


def _docx_bomb(xml_bytes: int) -> bytes:
    """A valid DOCX whose document.xml is `xml_bytes` of one repeated paragraph (compresses ~500x)."""
    plain = io.BytesIO()
    docx.Document().save(plain)
    paragraph = b"<w:p><w:r><w:t>quokka quokka quokka quokka</w:t></w:r></w:p>"
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(plain.getvalue())) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "word/document.xml":
                head, _, tail = data.partition(b"<w:body>")
                data = head + b"<w:body>" + paragraph * (xml_bytes // len(paragraph)) + tail.split(b"</w:body>", 1)[-1]
                data = data.replace(b"</w:document>", b"</w:body></w:document>") if b"</w:body>" not in data else data
            dst.writestr(info.filename, data)
    return out.getvalue()


def test_a_docx_that_inflates_past_the_caps_is_invalid_file(client: OpenAI) -> None:
    bomb = _docx_bomb(8 * 1024 * 1024)
    assert len(bomb) < 200_000  # under the session's 1 MiB upload limit: only the expansion is large
    got, elapsed = _failed_file(client, "bomb.docx", bomb)
    assert got.status == "failed" and got.last_error is not None and got.last_error.code == "invalid_file", got
    assert "expands past" in got.last_error.message
    assert elapsed < 10
    small = io.BytesIO()
    document = docx.Document()
    document.add_paragraph("The quokkadocx smiles.")
    document.save(small)
    got, _elapsed = _failed_file(client, "fine.docx", small.getvalue())
    assert got.status == "completed", got


def test_integers_past_64_bits_are_400(client: OpenAI, door: str, http_gateway: Gateway) -> None:
    prompt = client.post("/prompts", body={"name": "big", "instructions": "hi"}, cast_to=dict)
    huge = "9" * 25
    status, body = call("GET", door + f"/prompts/{prompt['id']}?version={huge}")
    assert_400(status, body, "version")
    status, body = call("GET", door + f"/prompts/{prompt['id']}/versions?after={huge}")
    assert status == 400, body
    status, body = call("POST", door + f"/prompts/{prompt['id']}/default_version", {"version": huge})
    assert_400(status, body, "version")
    status, body = call("POST", door + f"/prompts/{prompt['id']}/default_version", {"version": int(huge)})
    assert_400(status, body, "version")
    status, body = call(
        "POST", door + "/responses", {"model": MODEL, "input": "x", "prompt": {"id": prompt["id"], "version": huge}}
    )
    assert_400(status, body)
    response = client.responses.create(model=MODEL, input="x", background=True)
    status, body = call("GET", door + f"/responses/{response.id}?stream=true&starting_after={huge}")
    assert_400(status, body, "starting_after")
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    keys = f"{http_gateway.base}/v1/organization/projects/big-ints/api_keys"
    for expires in (f"{huge}d", int(huge), "9" * 5_000 + "s"):
        status, body = call("POST", keys, {"expires_in": expires}, admin)
        assert_400(status, body, "expires_in")
