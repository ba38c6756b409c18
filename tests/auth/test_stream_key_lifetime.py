"""A stream already running is cut when its key is revoked, through both doors (#26, round two).

Round one made a WebSocket re-check its key; an SSE stream of `POST /v1/responses` (the HTTP door's,
and the one the ExtProc serves itself through Envoy) was checked once, at its start, and went on to
the end with a revoked key. Now it re-checks the key at least every `GATEWAY_AUTH_CACHE_SECONDS`
(1 s here): the stream ends with OpenAI's error, and the stored response ends failed with the reason.
"""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK ships with

from tests.support.procs import ADMIN_KEY, Backend, Gateway

MODEL = "scripted-model"
PROJECT = "stream-lifetime"


def admin(gw: Gateway, method: str, path: str, body: Any = None) -> Any:
    req = urllib.request.Request(
        f"{gw.base}/v1/organization/projects/{PROJECT}{path}",
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={"Authorization": f"Bearer {ADMIN_KEY}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def test_a_revoked_key_ends_a_running_stream_and_fails_its_response(
    door: str, http_gateway: Gateway, backend: Backend, marker: str
) -> None:
    key = admin(http_gateway, "POST", "/api_keys", {"name": "stream"})
    reader = admin(http_gateway, "POST", "/api_keys", {"name": "reader"})["value"]
    # a long answer: 60 chunks, 0.2 s apart (12 s), far longer than the cache and the check period
    backend.script(marker, {"content": "word " * 60, "chunk_size": 5, "chunk_delay": 0.2})
    body = {"model": MODEL, "input": f"tell me {marker}", "stream": True}
    events: list[dict[str, Any]] = []
    with httpx.stream(
        "POST", f"{door}/responses", json=body, headers={"Authorization": f"Bearer {key['value']}"}, timeout=30
    ) as resp:
        assert resp.status_code == 200
        revoked = ended = None
        for line in resp.iter_lines():
            if not line.startswith("data: "):
                continue
            events.append(json.loads(line[6:]))
            if revoked is None and events[-1]["type"] == "response.output_text.delta":
                admin(http_gateway, "DELETE", f"/api_keys/{key['id']}")
                revoked = time.monotonic()
            if events[-1]["type"] in ("error", "response.failed", "response.completed"):
                ended = time.monotonic()
                if events[-1]["type"] != "error":
                    break  # a terminal status: the SDK stops reading (Envoy drops the rest of the backend's)
        assert revoked is not None and ended is not None
        assert ended - revoked < 6  # the cache (1 s) and a check period (1 s), with slack; the answer takes 12 s
    kinds = [e["type"] for e in events]
    assert "response.completed" not in kinds, kinds
    last = events[-1]
    error = last["response"]["error"] if last["type"] == "response.failed" else last
    assert last["type"] in ("error", "response.failed") and error["code"] == "invalid_api_key", last
    assert "revoked" in error["message"]
    response_id = events[0]["response"]["id"]
    deadline = time.monotonic() + 10
    while True:
        stored = httpx.get(f"{door}/responses/{response_id}", headers={"Authorization": f"Bearer {reader}"}).json()
        if stored["status"] != "in_progress" or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert stored["status"] == "failed" and stored["error"]["code"] == "invalid_api_key", stored
    assert "revoked" in stored["error"]["message"]


def test_a_revoked_key_ends_an_open_mcp_stream(door: str, http_gateway: Gateway) -> None:
    """`/mcp`'s standalone GET stream (server-to-client messages) stays open while its key works,
    and ends within a check period of the key's revocation."""
    key = admin(http_gateway, "POST", "/api_keys", {"name": "mcp"})
    headers = {
        "Authorization": f"Bearer {key['value']}",
        "Accept": "text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }
    url = door.removesuffix("/v1") + "/mcp"
    with httpx.stream("GET", url, headers=headers, timeout=httpx.Timeout(10, read=8)) as resp:
        assert resp.status_code == 200, resp.read()
        assert resp.headers["content-type"].startswith("text/event-stream")
        time.sleep(1.5)  # past a check period: a working key keeps the stream
        admin(http_gateway, "DELETE", f"/api_keys/{key['id']}")
        revoked = time.monotonic()
        for _chunk in resp.iter_bytes():  # a read timeout (8 s) here: the stream outlived its key
            pass
        assert time.monotonic() - revoked < 6
