"""Per-project limits and the trusted-proxy mode (#16), through both doors of one stack.

The stack runs with GATEWAY_AUTH=trusted: the project comes from the `x-gateway-project` header,
accepted from loopback (the test's own address and Envoy's), as a mesh or Envoy's ext_authz would
set it. Limits come from GATEWAY_PROJECT_LIMITS.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK ships with
import pytest

from gateway.auth.authenticator import Authenticator
from gateway.config import load_settings
from tests.support.minutes import within_one_minute
from tests.support.procs import Backend
from tests.support.stack import EnvoyStack, envoy_stack

pytestmark = pytest.mark.slow
MODEL = "scripted-model"
# one project per door and limit: each process keeps its own buckets (gateway/auth/limits.py)
LIMITS = {
    **{f"slow-{door}": {"requests_per_minute": 2} for door in ("http", "envoy")},
    **{f"thrifty-{door}": {"tokens_per_minute": 60} for door in ("http", "envoy")},
    "nochat": {"chat_completions": False},
}


@pytest.fixture(scope="module")
def stack(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EnvoyStack]:
    env = {"GATEWAY_AUTH": "trusted", "GATEWAY_PROJECT_LIMITS": json.dumps(LIMITS)}
    with envoy_stack(backend.url, tmp_path_factory.mktemp("limits"), **env) as s:
        yield s


def _post(base: str, project: str | None, path: str, body: dict[str, Any]) -> httpx.Response:
    headers = {"x-gateway-project": project} if project else {}
    return httpx.post(base + path, json=body, headers=headers, timeout=30)


@pytest.mark.parametrize("door", ["http", "envoy"])
def test_requests_per_minute_answer_429_with_retry_after(stack: EnvoyStack, door: str) -> None:
    base = stack.url if door == "envoy" else stack.http_url
    project = f"slow-{door}"
    for attempt in within_one_minute():
        with attempt:
            for _ in range(2):
                assert _post(base, project, "/responses", {"model": MODEL, "input": "hi"}).status_code == 200
            r = _post(base, project, "/responses", {"model": MODEL, "input": "hi"})
            assert r.status_code == 429, r.text
            error = r.json()["error"]
            assert error["type"] == "requests" and error["code"] == "rate_limit_exceeded"
            assert 1 <= int(r.headers["retry-after"]) <= 60  # the shared window turns each minute
            assert _post(base, "other", "/responses", {"model": MODEL, "input": "hi"}).status_code == 200


@pytest.mark.parametrize("door", ["http", "envoy"])
def test_tokens_per_minute_refuse_the_next_request(stack: EnvoyStack, backend: Backend, door: str, marker: str) -> None:
    base = stack.url if door == "envoy" else stack.http_url
    for attempt in within_one_minute():
        with attempt:
            mk = f"{marker}.{attempt.n}"  # each try's own requests
            backend.script(mk, {"text": "ok", "usage": {"prompt_tokens": 30, "completion_tokens": 10}})
            # reserves 16 + ~10 for its prompt of the 60; the backend reports 40
            body = {"model": MODEL, "input": f"one two three {mk}", "max_output_tokens": 16}
            first = _post(base, f"thrifty-{door}", "/responses", body)
            assert first.status_code == 200, first.text
            # 25 + 2 would fit an empty window, not the 20 tokens the first request's usage left
            r = _post(
                base, f"thrifty-{door}", "/responses", {"model": MODEL, "input": "again", "max_output_tokens": 25}
            )
            assert r.status_code == 429 and r.json()["error"]["type"] == "tokens", r.text
            assert int(r.headers["retry-after"]) >= 1


def test_chat_completions_passthrough_is_per_project(stack: EnvoyStack) -> None:
    body = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}
    for base in (stack.url, stack.http_url):
        denied = _post(base, "nochat", "/chat/completions", body)
        assert denied.status_code == 403 and denied.json()["error"]["code"] == "permission_denied"
        assert _post(base, "chatty", "/chat/completions", body).status_code == 200


def test_trusted_mode_needs_the_header(stack: EnvoyStack) -> None:
    for base in (stack.url, stack.http_url):
        r = _post(base, None, "/responses", {"model": MODEL, "input": "hi"})
        assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key"
    # objects stay in the project the header named
    made = _post(stack.http_url, "teal", "/responses", {"model": MODEL, "input": "hi"}).json()["id"]
    assert httpx.get(f"{stack.http_url}/responses/{made}", headers={"x-gateway-project": "teal"}).status_code == 200
    assert httpx.get(f"{stack.http_url}/responses/{made}", headers={"x-gateway-project": "navy"}).status_code == 404


def test_the_project_header_counts_only_from_trusted_proxies(tmp_path: Path) -> None:
    settings = load_settings({"GATEWAY_AUTH": "trusted", "GATEWAY_AUTH_TRUSTED_PROXIES": "10.0.0.0/8,::1/128"})
    auth = Authenticator(settings, None)
    assert auth.trusted_peer("10.1.2.3") and auth.trusted_peer("::1")
    assert not auth.trusted_peer("127.0.0.1") and not auth.trusted_peer("192.168.1.1") and not auth.trusted_peer(None)
