"""A turn over the Responses WebSocket is admitted like a `POST /v1/responses`, and a key revoked
during a running turn ends that turn — through both doors (Envoy routes the upgrade to the HTTP door).

Before: only the upgrade passed the usage admission, so a key with a `requests_per_minute` or a
`tokens_per_minute` limit ran any number of turns, of any size, over one socket; and the key was
re-checked between turns only, so a turn that had begun ran to its end with a revoked key.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK ships with
import pytest
import websockets

from tests.support.minutes import within_one_minute_async
from tests.support.procs import ADMIN_KEY, Backend, Gateway

MODEL = "scripted-model"
PROJECT = "ws-limits"
TERMINAL = ("response.completed", "response.failed", "response.incomplete", "error")


def _key(gw: Gateway, **limits: int) -> dict[str, Any]:
    r = httpx.post(
        f"{gw.base}/v1/organization/projects/{PROJECT}/api_keys",
        json={"name": "socket", **limits},
        headers={"Authorization": f"Bearer {ADMIN_KEY}"},
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def _connect(door: str, key: str) -> Any:
    url = door.replace("http://", "ws://", 1) + "/responses"
    return websockets.connect(url, additional_headers={"Authorization": f"Bearer {key}"})


async def _turn(ws: Any, **body: Any) -> list[dict[str, Any]]:
    await ws.send(json.dumps({"type": "response.create", "model": MODEL, **body}))
    events = []
    while True:
        events.append(json.loads(await asyncio.wait_for(ws.recv(), 30)))
        if events[-1]["type"] in TERMINAL:
            return events


async def test_websocket_turns_count_against_the_keys_requests_per_minute(
    door: str, http_gateway: Gateway, backend: Backend, marker: str
) -> None:
    key = _key(http_gateway, requests_per_minute=3)
    async for attempt in within_one_minute_async():
        with attempt:
            mk = f"{marker}.{attempt.n}"  # each try's own requests
            async with _connect(door, key["value"]) as ws:  # the upgrade is a request: one of the three
                for n in (1, 2):
                    assert (await _turn(ws, input=f"turn {n} {mk}"))[-1]["type"] == "response.completed"
                refused = (await _turn(ws, input=f"turn 3 {mk}"))[-1]
                assert refused["type"] == "error" and refused["status"] == 429, refused
                assert refused["error"]["code"] == "rate_limit_exceeded" and refused["error"]["type"] == "requests"
                assert set(refused["error"]) == {"message", "type", "param", "code"}
            assert not backend.requests_matching(f"turn 3 {mk}")  # refused before any backend call


async def test_websocket_turns_reserve_the_keys_tokens_per_minute(
    door: str, http_gateway: Gateway, backend: Backend, marker: str
) -> None:
    key = _key(http_gateway, tokens_per_minute=1000)
    async for attempt in within_one_minute_async():
        with attempt:
            mk = f"{marker}.{attempt.n}"  # each try's own requests
            spent = {"prompt_tokens": 10, "completion_tokens": 10}
            backend.script(f"fits {mk}", *[{"text": "ok", "usage": spent}] * 2)
            async with _connect(door, key["value"]) as ws:
                too_big = (await _turn(ws, input=f"big {mk}", max_output_tokens=2000))[-1]
                assert too_big["type"] == "error" and too_big["status"] == 429, too_big
                assert too_big["error"]["code"] == "rate_limit_exceeded" and too_big["error"]["type"] == "tokens"
                # 600 reserved twice would not fit in 1000: the second fits only because the first settled
                for _ in range(2):
                    done = (await _turn(ws, input=f"fits {mk}", max_output_tokens=600))[-1]
                    assert done["type"] == "response.completed", done
                third = (await _turn(ws, input=f"fits {mk}", max_output_tokens=990))[-1]
                assert third["type"] == "error" and third["error"]["type"] == "tokens", third  # 40 were spent
            assert not backend.requests_matching(f"big {mk}")
            assert len(backend.requests_matching(f"fits {mk}")) == 2


@pytest.mark.parametrize("store", [True, False])
async def test_a_key_revoked_during_a_websocket_turn_ends_it(
    door: str, http_gateway: Gateway, backend: Backend, marker: str, store: bool
) -> None:
    """Stored, the turn runs detached and is stopped (`ResponsesService.revoke`), stored failed;
    unstored, it runs in the socket's task and stops with it."""
    key = _key(http_gateway)
    reader = _key(http_gateway)["value"]
    # a long answer: 60 chunks, 0.2 s apart (12 s), far longer than the cache and the check period (1 s)
    backend.script(marker, {"content": "word " * 60, "chunk_size": 5, "chunk_delay": 0.2})
    async with _connect(door, key["value"]) as ws:
        create = {"type": "response.create", "model": MODEL, "input": f"tell me {marker}", "store": store}
        await ws.send(json.dumps(create))
        events: list[dict[str, Any]] = []
        revoked = None
        while True:
            events.append(json.loads(await asyncio.wait_for(ws.recv(), 30)))
            if revoked is None and events[-1]["type"] == "response.output_text.delta":
                r = httpx.delete(
                    f"{http_gateway.base}/v1/organization/projects/{PROJECT}/api_keys/{key['id']}",
                    headers={"Authorization": f"Bearer {ADMIN_KEY}"},
                )
                assert r.status_code == 200, r.text
                revoked = time.monotonic()
            if events[-1]["type"] in TERMINAL:
                break
        assert revoked is not None and time.monotonic() - revoked < 6  # the answer takes 12 s
        last = events[-1]
        assert last["type"] == "error" and last["status"] == 401, last
        assert last["error"]["code"] == "invalid_api_key" and "revoked" in last["error"]["message"]
        await asyncio.wait_for(ws.wait_closed(), 5)
        assert ws.close_code == 1008
    if not store:
        return
    response_id = events[0]["response"]["id"]
    deadline = time.monotonic() + 10
    while True:
        stored = httpx.get(f"{door}/responses/{response_id}", headers={"Authorization": f"Bearer {reader}"}).json()
        if stored["status"] != "in_progress" or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.1)
    assert stored["status"] == "failed" and stored["error"]["code"] == "invalid_api_key", stored
    assert "revoked" in stored["error"]["message"]
