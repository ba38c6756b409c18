"""Malformed backend answers map the same way through both doors (#19): a non-JSON body and a
200 without `choices` are a backend error with the same status, error body and stored state on the
HTTP door and the Envoy door, never a `completed` empty response, and nothing internal leaks."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.procs import AUTH, Backend, scripted_backend
from tests.support.stack import EnvoyStack, envoy_stack

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def doors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Backend, EnvoyStack]]:
    with scripted_backend() as backend, envoy_stack(backend.url, Path(tmp_path_factory.mktemp("doors"))) as stack:
        yield backend, stack


def _create(base: str, marker: str) -> tuple[int, Any]:
    data = json.dumps({"model": "scripted-model", "input": marker, "store": True}).encode()
    req = urllib.request.Request(f"{base}/responses", data, {"Content-Type": "application/json", **AUTH})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.parametrize(
    "reply",
    [
        {"raw_body": "upstream exploded <html>", "content_type": "text/html"},
        {"raw_body": '{"id": "chatcmpl-1", "object": "chat.completion", "model": "scripted-model"}'},
        {"raw_body": '{"id": "chatcmpl-1", "object": "chat.completion", "choices": []}'},
    ],
    ids=["not-json", "no-choices", "empty-choices"],
)
def test_malformed_answer_same_on_both_doors(doors: tuple[Backend, EnvoyStack], reply: dict[str, Any]) -> None:
    backend, stack = doors
    seen = []
    for name, base in (("http", stack.http_url), ("envoy", stack.url)):
        marker = f"malformed-{name}-{len(reply['raw_body'])}"
        backend.script(marker, reply)
        status, body = _create(base, marker)
        text = str(body)
        assert status >= 500, (name, status, body)
        assert "error" in body and body["error"]["message"], (name, body)
        assert "completed" not in text and "127.0.0.1" not in text, (name, body)
        seen.append((status, body["error"]["type"], body["error"]["code"], body["error"]["message"]))
    assert seen[0] == seen[1], seen


CHUNK = '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":%s}'


def _stream(base: str, marker: str) -> list[dict[str, Any]]:
    data = json.dumps({"model": "scripted-model", "input": marker, "stream": True}).encode()
    req = urllib.request.Request(f"{base}/responses", data, {"Content-Type": "application/json", **AUTH})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return [json.loads(line[5:]) for line in resp.read().decode().splitlines() if line.startswith("data:")]


@pytest.mark.parametrize(
    "raw",
    [
        "data: {not json}\n\n",
        'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m"}\n\ndata: [DONE]\n\n',
        "data: " + CHUNK % "[]" + "\n\ndata: [DONE]\n\n",
        "data: " + CHUNK % '[{"index":0,"delta":{"content":"hi"}}]' + "\n\n",
        'data: {"error": {"message": "boom", "type": "server_error"}}\n\n',
    ],
    ids=["not-json", "no-choices", "empty-choices", "no-finish", "error-event"],
)
def test_malformed_stream_same_on_both_doors(doors: tuple[Backend, EnvoyStack], raw: str) -> None:
    """Streamed, the same answers end `failed` with `backend_error` on both doors: never a completed
    empty response, and the stored response says the same."""
    backend, stack = doors
    seen = []
    for name, base in (("http", stack.http_url), ("envoy", stack.url)):
        marker = f"malstream-{name}-{abs(hash(raw))}"
        backend.script(marker, {"raw_body": raw, "content_type": "text/event-stream"})
        events = _stream(base, marker)
        assert [e["type"] for e in events][-2:] == ["error", "response.failed"], (name, events)
        final = events[-1]["response"]
        with urllib.request.urlopen(f"{stack.http_url}/responses/{final['id']}", timeout=10) as resp:
            stored = json.loads(resp.read())
        assert stored["status"] == "failed" and stored["error"]["code"] == "backend_error"
        seen.append((final["error"]["code"], final["error"]["message"]))
    assert seen[0] == seen[1], seen


INTERNAL_WORDS = "upstream connect error to http://vllm-0.vllm.svc.cluster.local:8000/v1 (pod 10.2.3.4:8000)"


def test_a_backend_5xx_naming_internal_hosts_reaches_no_client(doors: tuple[Backend, EnvoyStack]) -> None:
    """A backend's (or its proxy's) 5xx body that names the hosts behind the gateway: both doors
    answer the same OpenAI error body, streamed and stored alike, with those hosts hidden, the
    backend's own address included; what failed is still said."""
    backend, stack = doors
    own = backend.url.split("//", 1)[1].split("/", 1)[0]  # 127.0.0.1:<port>
    words = f"{INTERNAL_WORDS}; backend {own} overloaded"
    seen = []
    for name, base in (("http", stack.http_url), ("envoy", stack.url)):
        marker = f"internal-{name}"
        backend.script(marker, *[{"status": 503, "error": words}] * 2)
        status, body = _create(base, marker)
        events = _stream(base, marker)
        with urllib.request.urlopen(f"{stack.http_url}/responses/{events[-1]['response']['id']}", timeout=10) as r:
            stored = json.loads(r.read())
        shown = [body["error"]["message"], events[-1]["response"]["error"]["message"], stored["error"]["message"]]
        for text in shown:
            for hidden in ("svc.cluster.local", "vllm-0", "10.2.3.4", own, "127.0.0.1"):
                assert hidden not in text, (name, text)
            assert "[internal address]" in text and "overloaded" in text, (name, text)
        assert stored["status"] == "failed" and events[-1]["type"] == "response.failed"
        seen.append((status, body["error"]["code"], body["error"]["message"]))
    assert seen[0] == seen[1], seen
