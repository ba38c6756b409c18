"""Healthy traffic logs no ERROR (#25, 8): an operator alerting on ERROR lines must not be paged by
an MCP client closing its standalone `GET /mcp` stream, or by a client's 400 through the Envoy door."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.support.procs import Backend, scripted_backend
from tests.support.stack import EnvoyStack, envoy_stack

MODEL = "scripted-model"
SSE_PING_S = 15  # sse_starlette's default ping interval, which the MCP SDK keeps


@pytest.fixture(scope="module")
def vllm() -> Iterator[Backend]:
    with scripted_backend(MODEL) as b:
        yield b


@pytest.fixture(scope="module")
def logged(vllm: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EnvoyStack, Path]]:
    data = tmp_path_factory.mktemp("quiet")
    log = data / "doors.log"
    with (
        log.open("wb") as out,
        envoy_stack(vllm.url, data / "data", output=out, GATEWAY_LOG_FORMAT="json", GATEWAY_LOG_LEVEL="INFO") as s,
    ):
        yield s, log


def _errors(log: Path) -> list[str]:
    lines = []
    for line in log.read_text(errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            if "ERROR" in line or "Traceback" in line:
                lines.append(line)
            continue
        if str(record.get("level", "")).upper() in ("ERROR", "CRITICAL"):
            lines.append(line)
    return lines


def test_client_400_through_envoy_is_not_an_error(vllm: Backend, logged: tuple[EnvoyStack, Path], marker: str) -> None:
    stack, log = logged
    before = len(_errors(log))
    refusal = {"status": 400, "error": "This model's maximum context length is 4096 tokens."}
    vllm.script(marker, *[refusal] * 6)
    bad: list[tuple[bytes, dict[str, str]]] = [
        (json.dumps({"model": MODEL, "input": 5}).encode(), {}),
        (json.dumps({"model": MODEL, "input": "x", "temperature": "hot"}).encode(), {}),
        (json.dumps({"model": MODEL, "input": "x", "previous_response_id": "resp_nope"}).encode(), {}),
        (json.dumps({"model": MODEL, "input": marker}).encode(), {}),  # the backend's 400
        (json.dumps({"model": MODEL, "input": marker, "stream": True}).encode(), {}),
        (b"{not json", {}),
        (b"", {}),
        (b"[1, 2]", {}),
        (b"xx", {"content-encoding": "br2"}),
        (b"\x1f\x8b garbage", {"content-encoding": "gzip"}),
    ]
    for _ in range(3):
        for body, headers in bad:
            r = requests.post(
                stack.url + "/responses", data=body, headers={"content-type": "application/json", **headers}, timeout=30
            )
            assert 400 <= r.status_code < 500 or (r.status_code == 200 and b'"stream": true' in body), r.text
    time.sleep(0.5)
    assert _errors(log)[before:] == []


def test_mcp_client_closing_its_standalone_stream_is_not_an_error(logged: tuple[EnvoyStack, Path]) -> None:
    stack, log = logged
    before = len(_errors(log))
    for _ in range(2):
        with socket.create_connection(("127.0.0.1", stack.http_port), timeout=10) as sock:
            sock.sendall(
                b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                b"MCP-Protocol-Version: 2025-06-18\r\n\r\n"
            )
            head = sock.recv(4096)
            assert head.startswith(b"HTTP/1.1 200"), head[:200]
            assert b"text/event-stream" in head.lower()
        # the client is gone: the gateway must end the stream as an ordinary end; the SDK's keep-alive
        # ping (every 15 s) is the first write that would find the socket closed
    time.sleep(SSE_PING_S + 1.5)
    again = requests.get(f"http://127.0.0.1:{stack.http_port}/health", timeout=10)
    assert again.status_code == 200
    assert _errors(log)[before:] == []
