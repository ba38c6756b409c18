"""Open requests are capped per tenant through the ExtProc door too (#26, round two).

The HTTP server counted a tenant's open requests (`GATEWAY_MAX_CONCURRENT_PER_TENANT`), but a
`POST /v1/responses` the ExtProc serves itself goes from Envoy straight to the backend and never
reaches that count: one key could hold any number of streams through :8081. Now the ExtProc counts
them per project (the key's) and answers past the cap with OpenAI's 429 body; another tenant's
requests still pass, and a finished request gives its slot back.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.support.procs import KEYS_ENV, Backend, create_key
from tests.support.stack import EnvoyStack, envoy_stack

MODEL = "scripted-model"
CAP = 2


@pytest.fixture(scope="module")
def stack(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EnvoyStack, str, str]]:
    data = tmp_path_factory.mktemp("tenant-streams")
    keys = [str(create_key(backend.url, data, p, "--name", p)["value"]) for p in ("tenant-a", "tenant-b")]
    with envoy_stack(backend.url, data, **KEYS_ENV, GATEWAY_MAX_CONCURRENT_PER_TENANT=str(CAP)) as s:
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
            raw = resp.read()
            return resp.status, raw if body.get("stream") else json.loads(raw)
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


@pytest.mark.parametrize("door", ["envoy", "http"])
@pytest.mark.parametrize("stream", [True, False])
def test_a_tenants_open_responses_are_capped_on_both_doors(
    stack: tuple[EnvoyStack, str, str], backend: Backend, door: str, stream: bool
) -> None:
    s, key_a, key_b = stack
    base = s.url if door == "envoy" else s.http_url
    slow = f"slow-{door}-{stream}"
    backend.script(slow, *[{"content": "late", "delay": 3}] * CAP)
    with ThreadPoolExecutor(CAP) as pool:
        held = [pool.submit(post, base + "/responses", key_a, {"model": MODEL, "input": slow, "stream": stream})]
        held += [pool.submit(post, base + "/responses", key_a, {"model": MODEL, "input": slow, "stream": stream})]
        deadline = time.monotonic() + 10
        while len(backend.requests_matching(slow)) < CAP and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(backend.requests_matching(slow)) == CAP  # both in flight, each holding a slot
        status, refused = post(base + "/responses", key_a, {"model": MODEL, "input": "one more", "stream": stream})
        assert status == 429, refused
        assert refused["error"]["code"] == "too_many_concurrent_requests", refused
        assert refused["error"]["type"] and refused["error"]["message"], refused
        status, other = post(base + "/responses", key_b, {"model": MODEL, "input": "tenant b"})
        assert status == 200, other  # another tenant is not held up
        assert all(f.result()[0] == 200 for f in held)
    status, again = post(base + "/responses", key_a, {"model": MODEL, "input": "after"})
    assert status == 200, again  # finished requests gave their slots back
