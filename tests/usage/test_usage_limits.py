"""Limits shared by every process and replica, budgets, and the usage metrics (#30).

Two gateway processes on one database (two processes on one SQLite file; two replicas with their own
data dirs on PostgreSQL) admit a project's requests per minute within one of the limit together;
the Envoy door's two ExtProc workers likewise. Every reply carries OpenAI's x-ratelimit-* headers.
Budgets stop spending with 429 `insufficient_quota` across doors; /metrics shows tokens, cost and
the budget warning per project.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2 as httpx  # the HTTP client the openai SDK ships with
import pytest

from tests.support.minutes import within_one_minute
from tests.support.pg import truncate
from tests.support.procs import ADMIN_KEY, KEYS_ENV, Backend, gateways
from tests.support.stack import envoy_stack

pytestmark = pytest.mark.slow
MODEL = "scripted-model"
LIMIT = 30
LIMITS = {
    "shared": {"requests_per_minute": LIMIT},
    "budget": {"monthly_token_budget": 50},
    "dollars": {"monthly_cost_budget_usd": 0.0001},
    "rerouted": {"requests_per_minute": 3},
}
PRICES = {MODEL: {"input": 1.0, "output": 2.0}}  # USD per million tokens


def _burst(bases: list[str], headers: dict[str, str], n: int) -> list[httpx.Response]:
    body = {"model": MODEL, "input": "hi"}
    with ThreadPoolExecutor(8) as pool:
        return list(
            pool.map(
                lambda i: httpx.post(bases[i % len(bases)] + "/responses", json=body, headers=headers, timeout=30),
                range(n),
            )
        )


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def two_processes(
    request: pytest.FixtureRequest, backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[str]]:
    """Two gateway processes sharing one database: one SQLite file, or one PostgreSQL (own data dirs).
    Per module (the tests use projects of their own: `shared`, `other`, `budget`), started together."""
    env = {**KEYS_ENV, "GATEWAY_PROJECT_LIMITS": json.dumps(LIMITS), "GATEWAY_MODEL_PRICES": json.dumps(PRICES)}
    tmp_path = tmp_path_factory.mktemp(f"limits-{request.param}")
    dirs = [tmp_path, tmp_path]
    if request.param == "postgres":
        url = request.getfixturevalue("postgres_url")
        asyncio.run(truncate(url))
        env["GATEWAY_DATABASE_URL"] = url
        dirs = [tmp_path / "a", tmp_path / "b"]
    with gateways(backend.url, dirs, **env) as started:
        yield [gw.url for gw in started]


def _key(base: str, project: str, **body: int) -> str:
    r = httpx.post(
        f"{base}/organization/projects/{project}/api_keys", json=body, headers={"Authorization": f"Bearer {ADMIN_KEY}"}
    )
    assert r.status_code == 200, r.text
    return str(r.json()["value"])


def test_two_processes_admit_the_limit(two_processes: list[str]) -> None:
    auth = {"Authorization": f"Bearer {_key(two_processes[0], 'shared')}"}
    for attempt in within_one_minute():
        with attempt:
            replies = _burst(two_processes, auth, LIMIT + 14)
            ok = [r for r in replies if r.status_code == 200]
            refused = [r for r in replies if r.status_code == 429]
            assert LIMIT - 1 <= len(ok) <= LIMIT + 1 and len(ok) + len(refused) == len(replies), [
                r.status_code for r in replies
            ]
    assert all(r.headers["x-ratelimit-limit-requests"] == str(LIMIT) for r in ok)
    assert min(int(r.headers["x-ratelimit-remaining-requests"]) for r in ok) <= 1
    assert all(r.headers["x-ratelimit-reset-requests"].endswith("s") for r in ok)
    error = refused[0].json()["error"]
    assert error["code"] == "rate_limit_exceeded" and error["type"] == "requests"
    assert 1 <= int(refused[0].headers["retry-after"]) <= 60
    assert refused[0].headers["x-ratelimit-remaining-requests"] == "0"


def test_a_keys_own_limit_and_a_budget(two_processes: list[str], backend: Backend, marker: str) -> None:
    a, b = two_processes
    bad = httpx.post(
        f"{a}/organization/projects/other/api_keys",
        json={"requests_per_minute": 0},
        headers={"Authorization": f"Bearer {ADMIN_KEY}"},
    )
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "requests_per_minute"
    for attempt in within_one_minute():
        with attempt:
            capped = {"Authorization": f"Bearer {_key(a, 'other', requests_per_minute=3)}"}
            codes = [r.status_code for r in _burst([a, b], capped, 5)]
            assert sorted(codes) == [200, 200, 200, 429, 429]
    # budgets: 30 tokens a call against 50 a month; the second call spends past it, the third is refused
    spender = {"Authorization": f"Bearer {_key(a, 'budget')}"}
    backend.script(marker, *[{"text": "ok", "usage": {"prompt_tokens": 20, "completion_tokens": 10}}] * 3)
    body = {"model": MODEL, "input": f"spend {marker}"}
    assert httpx.post(f"{a}/responses", json=body, headers=spender, timeout=30).status_code == 200
    assert httpx.post(f"{a}/responses", json=body, headers=spender, timeout=30).status_code == 200
    deadline = time.monotonic() + 10
    while True:  # the other process sees the spend once it is written and re-read (a few seconds)
        r = httpx.post(f"{b}/responses", json=body, headers=spender, timeout=30)
        if r.status_code != 200 or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert r.status_code == 429 and r.json()["error"]["code"] == "insufficient_quota", r.text
    assert r.json()["error"]["type"] == "insufficient_quota"
    spent = httpx.get(a.removesuffix("/v1") + "/metrics").text  # the process that recorded the calls
    assert 'gateway_usage_tokens_total{model="scripted-model",project="budget",type="input"}' in spent
    warned = httpx.get(b.removesuffix("/v1") + "/metrics").text  # the process that refused
    assert 'gateway_budget_warning{project="budget"} 1.0' in warned


def test_a_cost_budget_and_the_envoy_door(backend: Backend, tmp_path: Path, marker: str) -> None:
    """Two ExtProc workers behind Envoy share the limit; a cost budget refuses at either door."""
    env = {
        "GATEWAY_AUTH": "trusted",
        "GATEWAY_WORKERS": "2",
        "GATEWAY_PROJECT_LIMITS": json.dumps(LIMITS),
        "GATEWAY_MODEL_PRICES": json.dumps(PRICES),
    }
    with envoy_stack(backend.url, tmp_path, **env) as stack:
        for attempt in within_one_minute():
            with attempt:
                replies = _burst([stack.url], {"x-gateway-project": "shared"}, LIMIT + 10)
                ok = [r for r in replies if r.status_code == 200]
                assert LIMIT - 1 <= len(ok) <= LIMIT + 1, [r.status_code for r in replies]
        assert ok[0].headers["x-ratelimit-limit-requests"] == str(LIMIT)
        refused = next(r for r in replies if r.status_code == 429)
        assert refused.headers["x-ratelimit-remaining-requests"] == "0" and refused.headers["retry-after"]
        # a request the ExtProc hands to the HTTP server (truncation "auto") counts once, not at both
        rerouted = {"model": MODEL, "input": "hi", "truncation": "auto"}
        for attempt in within_one_minute():
            with attempt:
                codes = [
                    httpx.post(
                        f"{stack.url}/responses", json=rerouted, headers={"x-gateway-project": "rerouted"}, timeout=30
                    )
                    for _ in range(4)
                ]
                assert [r.status_code for r in codes] == [200, 200, 200, 429], [r.text for r in codes]
        # 80 tokens at $1/$2 per million: $0.00010 (input 60, output 20) spends the $0.0001 budget
        backend.script(marker, *[{"text": "ok", "usage": {"prompt_tokens": 60, "completion_tokens": 20}}] * 3)
        body = {"model": MODEL, "input": f"cost {marker}"}
        assert (
            httpx.post(
                f"{stack.url}/responses", json=body, headers={"x-gateway-project": "dollars"}, timeout=30
            ).status_code
            == 200
        )
        deadline = time.monotonic() + 10
        while True:
            r = httpx.post(
                f"{stack.http_url}/responses", json=body, headers={"x-gateway-project": "dollars"}, timeout=30
            )
            if r.status_code != 200 or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        assert r.status_code == 429 and r.json()["error"]["code"] == "insufficient_quota", r.text
        # the ledger's writer counts the cost when it writes (each process on its own flush)
        wanted = 'gateway_usage_cost_usd_total{model="scripted-model",project="dollars"}'
        deadline = time.monotonic() + 10
        while wanted not in (metrics := httpx.get(stack.http.base + "/metrics").text):
            assert time.monotonic() < deadline, metrics[-2000:]
            time.sleep(0.2)
