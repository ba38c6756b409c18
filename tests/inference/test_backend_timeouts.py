"""A backend that goes silent past GATEWAY_BACKEND_READ_TIMEOUT ends the response the same way on both
doors: 504 `backend_timeout` before any output, `failed` with `backend_timeout` stored once streaming.

Through Envoy the read timeout is the inference route's `idle_timeout` (generated from the setting);
a stream Envoy cuts mid-way reaches its client as a dropped connection (Envoy resets it and cannot
append an event), but the stored response is the same as through the HTTP door.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai import OpenAI

from tests.support.procs import Backend
from tests.support.stack import EnvoyStack, envoy_stack

MODEL = "scripted-model"


@pytest.fixture(scope="module")
def stack(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EnvoyStack]:
    with envoy_stack(backend.url, tmp_path_factory.mktemp("timeouts"), GATEWAY_BACKEND_READ_TIMEOUT="1") as s:
        yield s


@pytest.mark.slow
@pytest.mark.parametrize("door", ["http", "envoy"])
def test_silent_backend_times_out_alike(stack: EnvoyStack, backend: Backend, door: str, marker: str) -> None:
    url = stack.http_url if door == "http" else stack.url
    c = OpenAI(base_url=url, api_key="x", max_retries=0, timeout=20)
    retrieve = OpenAI(base_url=stack.http_url, api_key="x", max_retries=0).responses.retrieve
    backend.script(
        marker,
        {"content": "late", "delay": 4},  # silent before the first byte: non-streamed
        {"content": "late", "delay": 4},  # ... and streamed
        {"content": "a b c d", "chunk_delay": 2},  # silent mid-stream
    )
    started = time.monotonic()
    with pytest.raises(openai.APIStatusError) as info:
        c.responses.create(model=MODEL, input=f"{marker} 1")
    assert info.value.status_code == 504 and info.value.body["code"] == "backend_timeout"  # type: ignore[index]
    assert time.monotonic() - started < 3.5  # cut at the 1 s read timeout, not when the backend answered (4 s)

    events = list(c.responses.create(model=MODEL, input=f"{marker} 2", stream=True))
    assert [e.type for e in events][-2:] == ["error", "response.failed"]
    failed: Any = events[-1]
    assert failed.response.error.code == "backend_timeout"
    assert retrieve(failed.response.id).error.code == "backend_timeout"  # type: ignore[union-attr]

    seen: list[Any] = []
    try:
        seen.extend(c.responses.create(model=MODEL, input=f"{marker} 3", stream=True))
    except openai.APIConnectionError:
        assert door == "envoy"  # Envoy resets the stream it cut
    rid = seen[0].response.id
    deadline = time.monotonic() + 5
    while (stored := retrieve(rid)).status == "in_progress":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert stored.status == "failed" and stored.error is not None and stored.error.code == "backend_timeout"
    if door == "http":
        assert [e.type for e in seen][-2:] == ["error", "response.failed"]
