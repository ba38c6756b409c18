"""The HTTP door admits by requests per minute before it reads a token-limited request's body.

A key with a `tokens_per_minute` limit has its body parsed to reserve its tokens; that used to happen
before the request was counted, so a tenant over its `requests_per_minute` still cost the server a
parse of every body it sent (of any size up to the body limit). Now the request unit is taken first:
over the rate, the reply is the 429, whatever the body (a malformed one used to get its 400 first).
A malformed body counts as a request (else a tenant could send any number of them, each parsed); a
request refused for its tokens gives its request unit back.
"""

from __future__ import annotations

from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK ships with

from tests.support.minutes import within_one_minute
from tests.support.procs import ADMIN_KEY, Gateway

MODEL = "scripted-model"


def _key(gw: Gateway, **limits: int) -> dict[str, str]:
    r = httpx.post(
        f"{gw.base}/v1/organization/projects/admission/api_keys",
        json={"name": "limited", **limits},
        headers={"Authorization": f"Bearer {ADMIN_KEY}"},
    )
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['value']}"}


def _post(gw: Gateway, auth: dict[str, str], body: Any) -> httpx.Response:
    content = body if isinstance(body, bytes) else None
    return httpx.post(
        f"{gw.url}/responses",
        json=None if content is not None else body,
        content=content,
        headers={**auth, "Content-Type": "application/json"},
        timeout=30,
    )


def test_a_tenant_over_its_rate_is_refused_before_its_body_is_parsed(http_gateway: Gateway) -> None:
    auth = _key(http_gateway, requests_per_minute=2, tokens_per_minute=100_000)
    for attempt in within_one_minute():
        with attempt:
            broken = b'{"model": "scripted-model", "input": '  # not JSON
            first = _post(http_gateway, auth, broken)  # within the rate: the body's 400
            assert first.status_code == 400 and first.json()["error"]["code"] == "invalid_json", first.text
            ok = _post(http_gateway, auth, {"model": MODEL, "input": "hi"})
            assert ok.status_code == 200, ok.text
            assert ok.headers["x-ratelimit-limit-requests"] == "2"
            assert ok.headers["x-ratelimit-limit-tokens"] == "100000"
            over = _post(http_gateway, auth, broken)  # over the rate: the 429, not the body's 400
            assert over.status_code == 429, over.text
            assert over.json()["error"]["code"] == "rate_limit_exceeded" and over.json()["error"]["type"] == "requests"


def test_a_request_refused_for_its_tokens_gives_its_request_back(http_gateway: Gateway) -> None:
    auth = _key(http_gateway, requests_per_minute=2, tokens_per_minute=1000)
    for attempt in within_one_minute():
        with attempt:
            too_big = _post(http_gateway, auth, {"model": MODEL, "input": "hi", "max_output_tokens": 5000})
            assert too_big.status_code == 429 and too_big.json()["error"]["type"] == "tokens", too_big.text
            assert too_big.headers["x-ratelimit-limit-requests"] == "2"  # both rates' headers on the refusal
            for _ in range(2):  # the refused request did not use one of the two
                r = _post(http_gateway, auth, {"model": MODEL, "input": "hi", "max_output_tokens": 100})
                assert r.status_code == 200, r.text
