"""One tenant cannot exhaust what every tenant shares, through both doors (#26).

Before #26 the only per-client cap was keyed on the peer address, and behind Envoy every client's
address is Envoy's: one key's idle WebSockets through :8081 took the address's whole allowance,
and every other tenant's requests (direct ones from the same host too) were refused. Now the caps
are keyed on the tenant (the key's project): open requests, WebSockets, background responses.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import websockets

from tests.support.procs import KEYS_ENV, Backend, create_key
from tests.support.stack import EnvoyStack, envoy_stack

MODEL = "scripted-model"
PER_TENANT_WS = 3
PER_TENANT_BACKGROUND = 2
PER_ADDRESS = 8  # fewer than tenant A's sockets: keyed on the address, A alone would take it all


@pytest.fixture(scope="module")
def stack(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EnvoyStack, str, str]]:
    data = tmp_path_factory.mktemp("fairness")
    keys = [str(create_key(backend.url, data, p, "--name", p)["value"]) for p in ("tenant-a", "tenant-b")]
    env = {
        **KEYS_ENV,
        "GATEWAY_MAX_CONNECTIONS_PER_CLIENT": str(PER_ADDRESS),
        "GATEWAY_MAX_WEBSOCKETS_PER_TENANT": str(PER_TENANT_WS),
        "GATEWAY_MAX_BACKGROUND_PER_TENANT": str(PER_TENANT_BACKGROUND),
    }
    with envoy_stack(backend.url, data, **env) as s:
        yield s, keys[0], keys[1]


def post(url: str, key: str, body: dict[str, Any]) -> tuple[int, Any]:
    req = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


async def test_one_tenants_websockets_leave_room_for_the_others(stack: tuple[EnvoyStack, str, str]) -> None:
    s, key_a, key_b = stack
    through_envoy = s.url.replace("http://", "ws://", 1) + "/responses"
    held = []
    try:
        for _ in range(PER_TENANT_WS):
            held.append(
                await websockets.connect(through_envoy, additional_headers={"Authorization": f"Bearer {key_a}"})
            )
        with pytest.raises(websockets.InvalidStatus) as info:
            held.append(
                await websockets.connect(through_envoy, additional_headers={"Authorization": f"Bearer {key_a}"})
            )
        assert info.value.response.status_code == 429
        assert json.loads(info.value.response.body)["error"]["code"] == "too_many_websockets"
        # tenant B: a WebSocket, and plain requests through both doors
        async with websockets.connect(through_envoy, additional_headers={"Authorization": f"Bearer {key_b}"}) as ws:
            await ws.send(json.dumps({"type": "response.create", "model": MODEL, "input": "b"}))
            while (event := json.loads(await asyncio.wait_for(ws.recv(), 30)))["type"] != "response.completed":
                assert event["type"] != "error", event
        for base in (s.url, s.http_url):
            status, body = await asyncio.to_thread(post, base + "/responses", key_b, {"model": MODEL, "input": "b"})
            assert status == 200, body
    finally:
        for ws in held:
            await ws.close()


def test_a_tenants_idle_sockets_beyond_the_address_cap_do_not_lock_others_out(
    stack: tuple[EnvoyStack, str, str],
) -> None:
    """More connections through Envoy than the per-address cap (each idle WebSocket holds one
    Envoy→gateway connection): B's requests still pass, through Envoy and directly."""
    s, key_a, key_b = stack

    async def scenario() -> None:
        through_envoy = s.url.replace("http://", "ws://", 1) + "/responses"
        keys = [key_a] * PER_TENANT_WS + [key_b] * PER_TENANT_WS
        held = [
            await websockets.connect(through_envoy, additional_headers={"Authorization": f"Bearer {k}"}) for k in keys
        ]
        streams = []
        try:
            for _ in range(PER_ADDRESS - len(held) + 2):  # and more open requests: past the address's allowance
                streams.append(
                    await websockets.connect(
                        s.http_url.replace("http://", "ws://", 1) + "/responses",
                        additional_headers={"Authorization": f"Bearer {key_b}"},
                    )
                )
        except websockets.InvalidStatus:
            pass  # B's own cap: B's business
        try:
            for base in (s.url, s.http_url):
                status, body = await asyncio.to_thread(post, base + "/responses", key_a, {"model": MODEL, "input": "a"})
                assert status == 200, body
        finally:
            for ws in held + streams:
                await ws.close()

    asyncio.run(scenario())


def test_background_responses_are_capped_per_tenant(stack: tuple[EnvoyStack, str, str], backend: Backend) -> None:
    s, key_a, key_b = stack
    backend.script("slow-bg", *[{"content": "late", "delay": 3}] * (PER_TENANT_BACKGROUND + 2))
    body = {"model": MODEL, "input": "slow-bg", "background": True}
    for door in (s.url, s.http_url):
        started = [post(door + "/responses", key_a, body) for _ in range(PER_TENANT_BACKGROUND)]
        assert all(status == 200 for status, _ in started), started
        status, refused = post(door + "/responses", key_a, body)
        assert status == 429 and refused["error"]["code"] == "too_many_background_responses", refused
        status, other = post(door + "/responses", key_b, {"model": MODEL, "input": "b", "background": True})
        assert status == 200, other  # another tenant's run still starts
        for _status, response in started:
            post(door + f"/responses/{response['id']}/cancel", key_a, {})
