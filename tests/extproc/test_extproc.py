"""The Envoy front door end to end: real Envoy 1.40, the ExtProc and the HTTP server as subprocesses,
the scripted vLLM stand-in behind them, the official `openai` SDK in front."""

from __future__ import annotations

import json
import signal
import socket
import stat
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openai import APIStatusError, BadRequestError, OpenAI

from gateway.process.envoy_runner import admin_ready
from storage.sqlite.conn import sqlite3
from tests.support.procs import (
    ROOT,
    START_TIMEOUT_S,
    VENV_BIN,
    Backend,
    free_port,
    gateway_env,
    scripted_backend,
    stop,
    wait_http,
)
from tests.support.stack import EnvoyStack, envoy_stack

pytestmark = pytest.mark.slow

MODEL = "scripted-model"
TERMINAL = {"completed", "failed", "incomplete", "cancelled"}
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


def mk() -> str:
    return f"mk-{uuid.uuid4().hex[:12]}"


def sdk(url: str) -> OpenAI:
    return OpenAI(base_url=url, api_key="test-key", max_retries=0, timeout=30)


def post_raw(url: str, body: bytes) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(url + "/responses", data=body, method="POST")
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait_terminal(client: OpenAI, response_id: str, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = client.responses.retrieve(response_id)
        if found.status in TERMINAL or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


@pytest.fixture(scope="module")
def vllm() -> Iterator[Backend]:
    with scripted_backend(MODEL) as b:
        yield b


@pytest.fixture(scope="module")
def stack(vllm: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EnvoyStack]:
    with envoy_stack(vllm.url, tmp_path_factory.mktemp("envoy-stack")) as s:
        yield s


@pytest.fixture(scope="module")
def envoy(stack: EnvoyStack) -> OpenAI:
    return sdk(stack.url)


@pytest.fixture(scope="module")
def direct(stack: EnvoyStack) -> OpenAI:
    return sdk(stack.http_url)


# --------------------------------------------------------------------------- the inference path


def test_create_stored_and_retrievable_through_both_doors(envoy: OpenAI, direct: OpenAI, vllm: Backend) -> None:
    m = mk()
    vllm.script(m, {"content": "Hello through Envoy."})
    r = envoy.responses.create(model=MODEL, input=f"hi {m}", metadata={"k": "v"})
    assert r.status == "completed" and r.output_text == "Hello through Envoy."
    assert r.usage is not None and r.usage.output_tokens > 0
    for door in (direct, envoy):
        got = door.responses.retrieve(r.id)
        assert got.status == "completed" and got.output_text == "Hello through Envoy."
        assert got.metadata == {"k": "v"}
    items = envoy.responses.input_items.list(r.id)
    assert [i.type for i in items.data] == ["message"]

    [seen] = vllm.requests_matching(m)
    assert seen["path"] == "/v1/chat/completions"
    assert seen["body"]["stream"] is False and seen["body"]["messages"][-1]["content"] == f"hi {m}"
    headers = {k.lower(): v for k, v in seen["headers"].items()}
    assert "authorization" not in headers  # the client's key for the gateway stays at the gateway
    assert not [k for k in headers if k.startswith("x-gateway")]


def test_previous_response_chain_across_doors(envoy: OpenAI, direct: OpenAI, vllm: Backend) -> None:
    m = mk()
    r1 = envoy.responses.create(model=MODEL, input=f"one {m}", instructions="Be brief.")
    r2 = direct.responses.create(model=MODEL, input=f"two {m}", previous_response_id=r1.id)
    r3 = envoy.responses.create(model=MODEL, input=f"three {m}", previous_response_id=r2.id)
    assert r3.status == "completed" and r3.previous_response_id == r2.id
    messages = vllm.requests_matching(f"three {m}")[-1]["body"]["messages"]
    assert [(x["role"], x["content"]) for x in messages] == [
        ("user", f"one {m}"),
        ("assistant", f"Echo: one {m}"),
        ("user", f"two {m}"),
        ("assistant", f"Echo: two {m}"),
        ("user", f"three {m}"),
    ]  # instructions are not inherited across previous_response_id


def test_streaming_is_incremental(envoy: OpenAI, direct: OpenAI, vllm: Backend) -> None:
    m = mk()
    # 5 content chunks 0.3 s apart: the backend needs ~2.1 s for the whole stream.
    vllm.script(m, {"content": "one two three four five", "chunk_delay": 0.3})
    t0 = time.monotonic()
    seen: list[tuple[float, str]] = []
    with envoy.responses.create(model=MODEL, input=m, stream=True) as events:
        for ev in events:
            seen.append((time.monotonic() - t0, ev.type))
    types = [t for _, t in seen]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] == "response.completed"
    deltas = [t for t, kind in seen if kind == "response.output_text.delta"]
    assert len(deltas) == 5
    assert seen[-1][0] > 1.8
    assert seen[0][0] < 0.5, f"first event after {seen[0][0]:.3f}s"
    assert deltas[0] < 0.9 and deltas[-1] - deltas[0] > 1.0, "deltas were held back and arrived together"
    final = direct.responses.retrieve(ev.response.id)  # type: ignore[union-attr]
    assert final.status == "completed" and final.output_text == "one two three four five"


def test_function_tool_round_trip(envoy: OpenAI, vllm: Backend) -> None:
    m = mk()
    vllm.script(m, {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]})
    r1 = envoy.responses.create(model=MODEL, input=f"weather? {m}", tools=[WEATHER])  # type: ignore[list-item]
    [call] = r1.output
    assert call.type == "function_call" and call.name == "get_weather"
    assert json.loads(call.arguments) == {"city": "Paris"}
    assert vllm.requests_matching(m)[0]["body"]["tools"][0]["function"]["name"] == "get_weather"

    vllm.script(m, {"content": "It is sunny in Paris."})
    r2 = envoy.responses.create(
        model=MODEL,
        previous_response_id=r1.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": '{"sky": "sunny"}'}],
        tools=[WEATHER],  # type: ignore[list-item]
    )
    assert r2.output_text == "It is sunny in Paris."
    messages = vllm.requests_matching(m)[-1]["body"]["messages"]
    assert messages[-2]["tool_calls"][0]["id"] == call.call_id
    assert messages[-1] == {"role": "tool", "tool_call_id": call.call_id, "content": '{"sky": "sunny"}'}


def test_max_output_tokens_gives_incomplete(envoy: OpenAI, direct: OpenAI, vllm: Backend) -> None:
    m = mk()
    vllm.script(m, {"content": "a b c d e f g h"}, {"content": "a b c d e f g h"})
    r = envoy.responses.create(model=MODEL, input=m, max_output_tokens=3)
    assert r.status == "incomplete" and r.incomplete_details is not None
    assert r.incomplete_details.reason == "max_output_tokens"
    assert r.output_text == "a b c"
    with envoy.responses.create(model=MODEL, input=m, max_output_tokens=3, stream=True) as events:
        last = [ev for ev in events][-1]
    assert last.type == "response.incomplete"
    assert direct.responses.retrieve(last.response.id).status == "incomplete"


def test_client_errors_are_openai_shaped(stack: EnvoyStack, envoy: OpenAI) -> None:
    status, body = post_raw(stack.url, b"{not json")
    assert status == 400 and body["error"]["code"] == "invalid_json"
    status, body = post_raw(stack.url, json.dumps({"model": MODEL}).encode())
    assert status == 400 and body["error"]["param"] == "input"
    with pytest.raises(BadRequestError) as exc:
        envoy.responses.create(model=MODEL, input="x", previous_response_id="resp_nope")
    assert exc.value.code == "previous_response_not_found"


def test_backend_context_length_error(envoy: OpenAI, direct: OpenAI, vllm: Backend) -> None:
    m = mk()
    vllm.script(m, {"error_kind": "context_length"}, {"error_kind": "context_length"})
    with pytest.raises(BadRequestError) as exc:
        envoy.responses.create(model=MODEL, input=m)
    assert exc.value.status_code == 400
    body: Any = exc.value.body
    assert body["code"] == "context_length_exceeded" and "maximum context length" in body["message"]
    assert body["type"] == "invalid_request_error"

    with envoy.responses.create(model=MODEL, input=m, stream=True) as events:
        types = [ev.type for ev in events]
    assert types == ["response.created", "response.in_progress", "error", "response.failed"]


def test_client_disconnect_mid_stream_leaves_a_terminal_response(envoy: OpenAI, direct: OpenAI, vllm: Backend) -> None:
    m = mk()
    vllm.script(m, {"content": "a b c d e f g h i j", "chunk_delay": 0.3})
    events = envoy.responses.create(model=MODEL, input=m, stream=True)
    response_id = None
    for ev in events:
        if ev.type == "response.created":
            response_id = ev.response.id
        if ev.type == "response.output_text.delta":
            break
    events.close()  # the client goes away mid-stream
    assert response_id is not None
    found = wait_terminal(direct, response_id)
    assert found.status == "failed"
    assert found.error is not None and found.error.code == "stream_interrupted"  # type: ignore[comparison-overlap]


def test_background_is_rerouted_to_the_gateway(envoy: OpenAI, vllm: Backend) -> None:
    m = mk()
    vllm.script(m, {"content": "done in the background", "delay": 0.2})
    r = envoy.responses.create(model=MODEL, input=m, background=True)
    assert r.status in ("queued", "in_progress") and r.background
    found = wait_terminal(envoy, r.id)
    assert found.status == "completed" and found.output_text == "done in the background"

    vllm.script(m, {"content": "x y z", "chunk_delay": 0.2})
    with envoy.responses.create(model=MODEL, input=m, background=True, stream=True) as events:
        types = [ev.type for ev in events]
    assert types[:3] == ["response.created", "response.queued", "response.in_progress"]
    assert types[-1] == "response.completed"


def test_extproc_down_fails_cleanly(stack: EnvoyStack, envoy: OpenAI, vllm: Backend) -> None:
    m = mk()
    stack.stop_extproc()
    try:
        with pytest.raises(APIStatusError) as exc:
            envoy.responses.create(model=MODEL, input=m)
        assert exc.value.status_code == 503
        body: Any = exc.value.body
        assert body["code"] == "processor_unavailable" and body["type"] == "server_error"
        assert envoy.models.list().data[0].id == MODEL  # everything else still reaches the gateway
    finally:
        stack.start_extproc()
    assert vllm.requests_matching(m) == []
    assert envoy.responses.create(model=MODEL, input=m).status == "completed"


# --------------------------------------------------------------------------- backend down


def test_backend_down(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    with envoy_stack(dead, tmp_path / "data") as down:
        client = sdk(down.url)
        with pytest.raises(APIStatusError) as exc:
            client.responses.create(model=MODEL, input="anyone there?")
        assert exc.value.status_code == 502
        body: Any = exc.value.body
        assert body["code"] == "backend_error" and "could not connect" in body["message"]

        with client.responses.create(model=MODEL, input="anyone there?", stream=True) as events:
            seen = list(events)
        assert [e.type for e in seen][-2:] == ["error", "response.failed"]
        streamed_id = seen[0].response.id  # type: ignore[union-attr]
        assert sdk(down.http_url).responses.retrieve(streamed_id).status == "failed"

        with sqlite3.connect(down.data_dir / "gateway.db") as db:
            rows = db.execute("SELECT id, status FROM responses").fetchall()
        assert len(rows) == 2 and {s for _, s in rows} == {"failed"}


# --------------------------------------------------------------------------- responses-gateway up


def test_up_serves_through_envoy_and_stops_on_sigterm(vllm: Backend, tmp_path: Path) -> None:
    ports = {name: free_port() for name in ("ENVOY_PORT", "EXTPROC_PORT", "HTTP_PORT")}
    env = gateway_env(vllm.url, tmp_path, **{f"GATEWAY_{k}": str(v) for k, v in ports.items()})
    admin = tmp_path / "envoy-admin.sock"  # the default: Envoy's admin is not on the network at all
    log = tmp_path / "up.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(VENV_BIN / "responses-gateway"), "up"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S  # start-up under load; `up`'s exit fails at once
        while "ready on" not in log.read_text():
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        url = f"http://127.0.0.1:{ports['ENVOY_PORT']}/v1"
        wait_http(url.removesuffix("/v1") + "/health", timeout=5)
        r = sdk(url).responses.create(model=MODEL, input="up?")
        assert r.status == "completed" and r.output_text == "Echo: up?"
        assert stat.S_ISSOCK(admin.stat().st_mode) and stat.S_IMODE(admin.stat().st_mode) == 0o600
        assert admin_ready(admin) and "port_value: 9901" not in (tmp_path / "envoy.yaml").read_text()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
    finally:
        stop(proc, timeout=5)
    for port in ports.values():  # every child is gone: nothing listens any more
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is fine
            sock.bind(("127.0.0.1", port))
