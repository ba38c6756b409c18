"""Issue #25, defect 3: with the inference backend down, no route answers with its address.

Every call to an inference server goes through one backend client (gateway/inference/client.py): one
error mapping, one redaction, one dropped-connection mapping. Before, the passthroughs and research
called the session themselves and answered "Cannot connect to host 127.0.0.1:<port>", and the
Responses routes hid the host but kept the port. Checked through both doors, for a closed port and
for a host name that does not resolve, on every route that reaches the backend.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest

from tests.support.procs import free_port
from tests.support.stack import EnvoyStack, envoy_stack

MODEL = "scripted-model"
USER = [{"role": "user", "content": "hello"}]

# (path, body): every route that calls the inference server
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("/v1/responses", {"model": MODEL, "input": "hello"}),
    ("/v1/responses", {"model": MODEL, "input": "hello", "stream": True}),
    ("/v1/responses", {"model": MODEL, "input": "hello", "tools": [{"type": "function", "name": "f"}]}),
    ("/v1/responses/input_tokens", {"model": MODEL, "input": "hello"}),
    ("/v1/responses/compact", {"model": MODEL, "input": [{"role": "user", "content": "hello " * 50}]}),
    ("/v1/chat/completions", {"model": MODEL, "messages": USER}),
    ("/v1/chat/completions", {"model": MODEL, "messages": USER, "stream": True}),
    ("/v1/completions", {"model": MODEL, "prompt": "hello"}),
    ("/v1/embeddings", {"model": MODEL, "input": ["hello"]}),
    ("/v1/chat/completions", {"model": MODEL, "messages": [{"role": "user", "content": "research lighthouses"}]}),
    ("/v1/responses", {"model": "research", "input": "lighthouses of Norway", "tools": [{"type": "web_search"}]}),
]


@pytest.fixture(scope="module", params=["closed-port", "unresolvable"])
def down(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EnvoyStack, str]]:
    port = free_port()  # nothing listens there
    host = "127.0.0.1" if request.param == "closed-port" else "vllm-gone.invalid"
    search = {"GATEWAY_WEB_SEARCH_PROVIDER": "searxng", "GATEWAY_WEB_SEARCH_URL": f"http://127.0.0.2:{free_port()}"}
    with envoy_stack(f"http://{host}:{port}/v1", tmp_path_factory.mktemp(request.param), **search) as stack:
        yield stack, str(port)


def _answer(base: str, path: str, body: dict[str, Any]) -> tuple[int, str]:
    with httpx.Client(timeout=60) as client:
        resp = client.post(base + path, json=body, headers={"Authorization": "Bearer k"})
        return resp.status_code, resp.text


@pytest.mark.parametrize("door", ["http", "envoy"])
def test_backend_down_answers_without_its_address(down: tuple[EnvoyStack, str], door: str) -> None:
    stack, port = down
    base = stack.base if door == "envoy" else stack.http.base
    for path, body in CALLS:
        status, text = _answer(base, path, body)
        where = f"{door} {path} {body}: {status} {text[:600]}"
        for leak in ("127.0.0.1", "vllm-gone", port, "Cannot connect", "Connect call failed"):
            assert leak not in text, where
        assert "could not connect to the inference backend" in text, where  # the failure is the backend's
        if body.get("stream") and path == "/v1/responses":  # a response stream fails inside its body
            assert status == 200 and "response.failed" in text, where
        else:
            assert status in (502, 503, 504), where
            assert text.startswith('{"error":'), where
