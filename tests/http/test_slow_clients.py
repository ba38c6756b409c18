"""Slow and greedy clients cannot hold the HTTP server: header and body deadlines, a per-address cap."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import openai
import pytest
from openai import OpenAI

from tests.support.procs import Backend, Gateway, gateway
from tests.support.waiting import until

HEADER_TIMEOUT = 2.0
BODY_TIMEOUT = 1.0
CAP = 4


@pytest.fixture(scope="module")
def gw(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    with gateway(
        backend.url,
        tmp_path_factory.mktemp("slow"),
        GATEWAY_HEADER_TIMEOUT_SECONDS=str(HEADER_TIMEOUT),
        GATEWAY_BODY_TIMEOUT_SECONDS=str(BODY_TIMEOUT),
        GATEWAY_MAX_CONNECTIONS_PER_CLIENT=str(CAP),
    ) as g:
        yield g


def connect(gw: Gateway) -> socket.socket:
    return socket.create_connection(("127.0.0.1", gw.port), timeout=10)


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """True when the server closes the connection within `within` seconds (reads return nothing)."""
    sock.settimeout(within)
    try:
        while True:
            if sock.recv(65536) == b"":
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_headers_trickled_slowly_are_cut_off(gw: Gateway) -> None:
    with connect(gw) as sock:
        sock.sendall(b"POST /v1/responses HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        try:
            for _ in range(int(HEADER_TIMEOUT * 4)):  # one header byte every 0.5 s: never finishes
                sock.sendall(b"X")
                time.sleep(0.5)
                if time.monotonic() - started > HEADER_TIMEOUT + 1:
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert closed_by_server(sock, within=HEADER_TIMEOUT + 2)
        assert time.monotonic() - started < HEADER_TIMEOUT + 3


def test_a_body_sent_too_slowly_gets_408(gw: Gateway) -> None:
    with connect(gw) as sock:
        sock.sendall(
            b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n" + b'{"model": '
        )
        sock.settimeout(BODY_TIMEOUT + 5)
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), reply
    error = json.loads(body)["error"]
    assert error["code"] == "request_timeout" and error["type"] == "invalid_request_error"


def test_connections_per_client_address_are_capped(gw: Gateway) -> None:
    held = [connect(gw) for _ in range(CAP)]
    try:
        time.sleep(0.2)  # the server has accepted them all
        with connect(gw) as extra:
            assert closed_by_server(extra, within=1.0)  # one too many: closed at once
    finally:
        for sock in held:
            sock.close()
    # slots freed: a connection is accepted and served again once the server saw the others close
    client = OpenAI(base_url=gw.url, api_key="x", max_retries=0, timeout=5)

    def create() -> str:
        try:
            return str(client.responses.create(model="scripted-model", input="after").status)
        except openai.APIConnectionError:
            return "refused"

    assert until(create, lambda s: s != "refused", what="a freed slot") == "completed"


def test_a_request_line_too_long_to_read_gets_its_400_not_a_reset(gw: Gateway) -> None:
    """aiohttp refuses a request line over 8 KB before any route; the server used to close at once
    with the rest of the line unread, and the kernel's reset could reach the client, still sending,
    before it read the 400 (a flaky test and a confused client). The refusal now lingers: it sends
    the 400, half-closes, and reads and discards until the client is done."""
    line = b"GET /v1/files/" + b"a" * 1_000_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    for _ in range(3):
        with connect(gw) as sock:
            sock.sendall(line[:100_000])
            time.sleep(0.3)  # the server has refused the line by now; the client is still sending
            sock.sendall(line[100_000:])
            sock.shutdown(socket.SHUT_WR)
            reply = b""
            while chunk := sock.recv(65536):
                reply += chunk
        head, _, body = reply.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.") and b" 400 " in head.split(b"\r\n")[0], head[:200]
        error = json.loads(body)["error"]
        assert error["type"] == "invalid_request_error" and error["code"] == "invalid_request"
