"""`tokens_per_minute` reserved before the call (#30), through both doors, on both stores.

A request reserves its output cap (`max_output_tokens`) and its prompt's estimate in the project's
token window before the backend is called, and settles with the usage the backend reports when it
ends: a request whose reservation does not fit is refused with 429 `rate_limit_exceeded` (type
`tokens`) while another holds the window; once that one ends, what it did not spend is back. A
client that leaves mid-stream leaves no reservation behind. The Envoy door runs two ExtProc workers,
so a settled reservation must reach the shared window (not only its worker's lease).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK ships with
import pytest

from tests.support.minutes import within_one_minute
from tests.support.pg import truncate
from tests.support.procs import Backend
from tests.support.stack import EnvoyStack, envoy_stack
from tests.usage.test_usage_limits import MODEL

pytestmark = pytest.mark.slow
TPM = 1000
SLOW = {"text": " ".join(f"w{i}" for i in range(12)), "chunk_delay": 0.25}
SPENT = {"prompt_tokens": 10, "completion_tokens": 10}


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def stack(
    request: pytest.FixtureRequest, backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[EnvoyStack]:
    env = {
        "GATEWAY_AUTH": "trusted",
        "GATEWAY_WORKERS": "2",
        "GATEWAY_PROJECT_LIMITS": json.dumps({"*": {"tokens_per_minute": TPM}}),
        "GATEWAY_RESERVE_OUTPUT_TOKENS": "700",
    }
    if request.param == "postgres":
        url = request.getfixturevalue("postgres_url")
        asyncio.run(truncate(url))
        env["GATEWAY_DATABASE_URL"] = url
    with envoy_stack(backend.url, tmp_path_factory.mktemp(f"reserve-{request.param}"), **env) as s:
        yield s


def _base(stack: EnvoyStack, door: str) -> str:
    return stack.url if door == "envoy" else stack.http_url


def _post(base: str, project: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{base}/responses", json=body, headers={"x-gateway-project": project}, timeout=30)


def _until_admitted(base: str, project: str, body: dict[str, Any], seconds: float = 5.0) -> httpx.Response:
    """The settled reservation reaches the shared window within a sync round (another worker's)."""
    deadline = time.monotonic() + seconds
    while True:
        r = _post(base, project, body)
        if r.status_code != 429 or time.monotonic() > deadline:
            return r
        time.sleep(0.2)


@pytest.mark.parametrize("door", ["http", "envoy"])
def test_a_reservation_that_does_not_fit_is_refused(
    stack: EnvoyStack, backend: Backend, door: str, marker: str
) -> None:
    for attempt in within_one_minute():  # the windows are wall-clock minutes
        with attempt:
            _a_reservation_that_does_not_fit_is_refused(stack, backend, door, f"{marker}.{attempt.n}")


def _a_reservation_that_does_not_fit_is_refused(stack: EnvoyStack, backend: Backend, door: str, marker: str) -> None:
    base, project = _base(stack, door), f"tpm-{door}-{marker}"
    too_big = _post(base, project, {"model": MODEL, "input": f"big {marker}", "max_output_tokens": 2 * TPM})
    assert too_big.status_code == 429, too_big.text
    error = too_big.json()["error"]
    assert error["code"] == "rate_limit_exceeded" and error["type"] == "tokens", error
    assert too_big.headers["x-ratelimit-limit-tokens"] == str(TPM) and 1 <= int(too_big.headers["retry-after"]) <= 60
    chat = httpx.post(  # a passthrough reserves its max_tokens too (through Envoy: its route to the HTTP server)
        f"{base}/chat/completions",
        json={"model": MODEL, "messages": [{"role": "user", "content": f"big {marker}"}], "max_tokens": 2 * TPM},
        headers={"x-gateway-project": project},
        timeout=30,
    )
    assert chat.status_code == 429 and chat.json()["error"]["type"] == "tokens", chat.text
    assert not backend.requests_matching(f"big {marker}")  # refused before any backend call

    # A holds 600 + its prompt while the backend streams slowly; B's 600 does not fit meanwhile
    backend.script(f"first {marker}", {**SLOW, "usage": SPENT})
    backend.script(f"third {marker}", {"text": "ok", "usage": SPENT})
    first: list[httpx.Response] = []
    slow = threading.Thread(
        target=lambda: first.append(
            _post(base, project, {"model": MODEL, "input": f"first {marker}", "max_output_tokens": 600, "stream": True})
        )
    )
    slow.start()
    deadline = time.monotonic() + 10
    while not backend.requests_matching(f"first {marker}"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    second = _post(base, project, {"model": MODEL, "input": f"second {marker}", "max_output_tokens": 600})
    assert second.status_code == 429, second.text
    assert second.json()["error"]["type"] == "tokens"
    assert int(second.headers["x-ratelimit-remaining-tokens"]) < 600
    assert not backend.requests_matching(f"second {marker}")
    slow.join(30)
    assert first and first[0].status_code == 200, first
    assert int(first[0].headers["x-ratelimit-remaining-tokens"]) <= TPM - 600

    # A ended having spent 20 tokens: the rest of its reservation is back in the shared window
    third = _until_admitted(base, project, {"model": MODEL, "input": f"third {marker}", "max_output_tokens": 600})
    assert third.status_code == 200, third.text
    assert TPM - 600 - 20 - 80 <= int(third.headers["x-ratelimit-remaining-tokens"]) <= TPM - 600 - 20


@pytest.mark.parametrize("door", ["http", "envoy"])
def test_a_client_gone_mid_stream_leaves_no_reservation(
    stack: EnvoyStack, backend: Backend, door: str, marker: str
) -> None:
    for attempt in within_one_minute():  # the windows are wall-clock minutes
        with attempt:
            _a_client_gone_mid_stream_leaves_no_reservation(stack, backend, door, f"{marker}.{attempt.n}")


def _a_client_gone_mid_stream_leaves_no_reservation(
    stack: EnvoyStack, backend: Backend, door: str, marker: str
) -> None:
    base, project = _base(stack, door), f"gone-{door}-{marker}"
    backend.script(f"leaves {marker}", {**SLOW, "chunk_delay": 0.5, "usage": SPENT})
    body = {"model": MODEL, "input": f"leaves {marker}", "stream": True}  # reserves the default cap (700)
    with httpx.stream(
        "POST", f"{base}/responses", json=body, headers={"x-gateway-project": project}, timeout=30
    ) as events:
        assert events.status_code == 200
        assert int(events.headers["x-ratelimit-remaining-tokens"]) <= TPM - 700
        next(events.iter_bytes())  # the stream has begun; the client leaves with the backend mid-way
    backend.script(f"after {marker}", {"text": "ok", "usage": SPENT})
    after = _until_admitted(base, project, {"model": MODEL, "input": f"after {marker}", "max_output_tokens": 600})
    assert after.status_code == 200, after.text
