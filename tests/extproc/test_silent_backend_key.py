"""A key revoked while the backend is silent ends an Envoy-door exchange within a check period (#26).

Before: the ExtProc re-checked the key only when a backend chunk arrived, so a stream whose backend
went silent (a long prefill, a stuck replica) stayed open with a revoked key until the next chunk,
and a non-streaming request waiting on its backend was answered 200 after the revocation. Now the
processor waits at most `GATEWAY_AUTH_CACHE_SECONDS` (1 s here) for Envoy's next message while a
response runs, and re-checks the key then: revoked, the stored response ends `failed` with the
reason and the exchange ends (before the reply's headers: the 401; mid-stream: Envoy can only cut
the stream, and the stored response says why).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK ships with

from extproc.keywatch import watch_silence
from gateway.auth.authenticator import revoked_mid_stream
from gateway.common.errors import APIError
from tests.support.procs import ADMIN_KEY, Backend, Gateway
from tests.support.stack import EnvoyStack
from tests.support.waiting import until_async

MODEL = "scripted-model"
PROJECT = "silent-backend"
SILENCE = 20.0  # the backend's silence: far longer than the cache and the check period


def _admin(gw: Gateway, method: str, path: str, body: Any = None) -> Any:
    r = httpx.request(
        method,
        f"{gw.base}/v1/organization/projects/{PROJECT}{path}",
        json=body,
        headers={"Authorization": f"Bearer {ADMIN_KEY}"},
    )
    assert r.status_code == 200, r.text
    return r.json()


def _stored(envoy: EnvoyStack, reader: str, response_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while True:
        got = httpx.get(f"{envoy.url}/responses/{response_id}", headers={"Authorization": f"Bearer {reader}"}).json()
        if got.get("status") != "in_progress" or time.monotonic() > deadline:
            return dict(got)
        time.sleep(0.1)


def test_a_stream_whose_backend_is_silent_ends_when_its_key_is_revoked(
    envoy: EnvoyStack, http_gateway: Gateway, backend: Backend, marker: str
) -> None:
    key = _admin(http_gateway, "POST", "/api_keys", {"name": "silent stream"})
    reader = _admin(http_gateway, "POST", "/api_keys", {"name": "reader"})["value"]
    # the first chunk at once, the next after SILENCE seconds
    backend.script(marker, {"content": "one two three", "chunk_size": 4, "chunk_delay": SILENCE})
    body = {"model": MODEL, "input": f"tell me {marker}", "stream": True}
    events: list[dict[str, Any]] = []
    revoked = None
    began = time.monotonic()
    try:
        with httpx.stream(
            "POST", f"{envoy.url}/responses", json=body, headers={"Authorization": f"Bearer {key['value']}"}, timeout=40
        ) as resp:
            assert resp.status_code == 200
            for line in resp.iter_lines():
                if not line.startswith("data: "):
                    continue
                events.append(json.loads(line[6:]))
                if revoked is None and events[-1]["type"] == "response.created":
                    _admin(http_gateway, "DELETE", f"/api_keys/{key['id']}")
                    revoked = time.monotonic()
    except (httpx.RemoteProtocolError, httpx.ReadError):
        pass  # Envoy cuts a stream whose headers went out: the client sees it end unfinished
    ended = time.monotonic()
    assert revoked is not None, events
    assert ended - revoked < 6, (ended - began, [e["type"] for e in events])  # the backend stays silent 20 s
    assert "response.completed" not in [e["type"] for e in events]
    stored = _stored(envoy, reader, events[0]["response"]["id"])
    assert stored["status"] == "failed" and stored["error"]["code"] == "invalid_api_key", stored
    assert "revoked" in stored["error"]["message"]


def test_a_request_waiting_on_a_silent_backend_gets_401_when_its_key_is_revoked(
    envoy: EnvoyStack, http_gateway: Gateway, backend: Backend, marker: str
) -> None:
    key = _admin(http_gateway, "POST", "/api_keys", {"name": "silent request"})
    backend.script(marker, {"content": "late", "delay": SILENCE})  # nothing at all for 20 s
    got: list[httpx.Response] = []
    body = {"model": MODEL, "input": f"tell me {marker}"}
    client = threading.Thread(
        target=lambda: got.append(
            httpx.post(
                f"{envoy.url}/responses", json=body, headers={"Authorization": f"Bearer {key['value']}"}, timeout=40
            )
        )
    )
    client.start()
    deadline = time.monotonic() + 10
    while not backend.requests_matching(marker):  # the backend has the request, and says nothing
        assert time.monotonic() < deadline
        time.sleep(0.05)
    _admin(http_gateway, "DELETE", f"/api_keys/{key['id']}")
    revoked = time.monotonic()
    client.join(15)
    assert got, "still waiting on the silent backend"
    assert time.monotonic() - revoked < 6
    assert got[0].status_code == 401, got[0].text
    error = got[0].json()["error"]
    assert error["code"] == "invalid_api_key" and "revoked" in error["message"], error


class _Racing:
    """An exchange whose key check (the first) finds the key revoked while a chunk arrives: the
    processor is busy with it (`reading` false) when the answer comes back, and the check counts as
    the key's last, so the next one (a period on) finds nothing due, as `key_revoked` does."""

    def __init__(self) -> None:
        self.reading = True
        self.last_seen = time.monotonic() - 10  # silent for a while
        self.revoked: APIError | None = None
        self.checks = 0

    def running(self) -> bool:
        return True

    async def key_revoked(self) -> APIError | None:
        self.checks += 1
        if self.checks > 1:
            return None  # checked a moment ago: not due again within the period
        self.reading = False  # a chunk arrives while the key store answers
        await asyncio.sleep(0.01)
        return revoked_mid_stream()


def _value(read: Callable[[], Any]) -> Callable[[], Awaitable[Any]]:
    async def probe() -> Any:
        return read()

    return probe


async def test_a_revocation_found_while_a_chunk_arrives_is_kept_and_acted_on() -> None:
    """Before: the watcher dropped the revocation it found when the exchange was busy at that
    moment, and the key was only found revoked again a period or two later."""
    ex = _Racing()
    handler = asyncio.get_running_loop().create_task(asyncio.sleep(30))
    watch = asyncio.get_running_loop().create_task(watch_silence(ex, 0.1, handler))
    try:
        # the first check is done, the chunk still being handled (polled: a fixed sleep was a guess
        # about the loaded machine's speed): recorded, the processor ends the exchange at its next message
        await until_async(_value(lambda: ex.revoked), lambda r: r is not None, within=10, what="revocation kept")
        await asyncio.sleep(0.3)  # periods pass with the chunk still being handled
        assert not handler.cancelled()  # never cancelled in the middle of handling a message
        ex.reading = True  # handled: waiting on Envoy again
        await until_async(_value(handler.done), within=10, what="the wait ended")
        assert handler.cancelled()  # the wait ends on the next period: nothing checked again
        assert ex.checks == 1
    finally:
        handler.cancel()
        watch.cancel()
