"""Hostile and malformed input gets a 4xx with OpenAI's error body through both doors, never a 500.

Each case here answered a plain-text or JSON 500 (or was silently accepted) before: type-confused
items, JSON nested past what can be stored, gzip bodies (decoded by both doors alike) and broken
ones, multipart uploads with broken file names, and a `tool_choice` that names no tool.
"""

from __future__ import annotations

import gzip
import json
import time
import urllib.error
import urllib.request
import zlib
from typing import Any

import brotli
import pytest

from tests.support.procs import AUTH

MODEL = "scripted-model"


def post(base: str, path: str, body: bytes, ctype: str = "application/json", **headers: str) -> tuple[int, Any]:
    req = urllib.request.Request(
        base + path, data=body, headers={"Content-Type": ctype, **AUTH, **headers}, method="POST"
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        raw = err.read()
        assert err.headers.get("content-type", "").startswith("application/json"), raw
        return err.code, json.loads(raw)


def create(door: str, body: dict[str, Any]) -> tuple[int, Any]:
    return post(door, "/responses", json.dumps({"model": MODEL, "input": "x", **body}).encode())


def assert_error(status: int, body: Any, want: int, param: str | None = None) -> None:
    assert status == want, body
    assert (
        set(body["error"]) == {"message", "type", "param", "code"} and body["error"]["type"] == "invalid_request_error"
    )
    if param is not None:
        assert body["error"]["param"] == param, body


@pytest.mark.parametrize(
    ("item", "param"),
    [
        ({"type": ["x"]}, "input[0].type"),
        ({"type": {"a": 1}, "role": "user", "content": "x"}, "input[0].type"),
        ({"role": ["user"], "content": "x"}, "input[0].role"),
        ({"role": "user", "content": [{"type": ["input_text"], "text": "x"}]}, "input[0].content[0].type"),
        ({"id": ["x"], "type": "item_reference"}, "input[0].id"),
    ],
)
def test_type_confused_items_are_400(door: str, item: dict[str, Any], param: str) -> None:
    status, body = create(door, {"input": [item]})
    assert_error(status, body, 400, param)


def test_deeply_nested_json_is_400_and_nothing_is_stored(door: str) -> None:
    deep = "[" * 300 + "]" * 300
    for raw in (
        f'{{"model": "{MODEL}", "input": "x", "metadata": {{"a": {deep}}}}}',
        f'{{"model": "{MODEL}", "input": "x", "tools": [{{"type": "function", "name": "f", "parameters": {deep}}}]}}',
    ):
        status, body = post(door, "/responses", raw.encode())
        assert_error(status, body, 400)
        assert body["error"]["code"] == "invalid_json"
    ok = '{"a":' * 60 + "1" + "}" * 60  # deep, but within the limit: a JSON Schema may nest this far
    status, body = create(door, {"tools": [{"type": "function", "name": "f", "parameters": json.loads(ok)}]})
    assert status == 200 and body["status"] == "completed"


def test_gzip_bodies_work_on_both_doors_and_broken_ones_are_400(door: str) -> None:
    payload = json.dumps({"model": MODEL, "input": "zipped"}).encode()
    status, body = post(door, "/responses", gzip.compress(payload), **{"Content-Encoding": "gzip"})
    assert status == 200 and body["output"][0]["content"][0]["text"] == "Echo: zipped"
    status, body = post(door, "/responses", zlib.compress(payload), **{"Content-Encoding": "deflate"})
    assert status == 200 and body["status"] == "completed"
    status, body = post(door, "/responses", brotli.compress(payload), **{"Content-Encoding": "br"})
    assert status == 200 and body["status"] == "completed"
    for encoding in ("gzip", "br"):
        status, body = post(door, "/responses", b"not compressed at all", **{"Content-Encoding": encoding})
        assert_error(status, body, 400)


BOUNDARY = "b0undary"


def multipart(disposition: bytes) -> bytes:
    return (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants\r\n--{BOUNDARY}\r\n'.encode()
        + disposition
        + f"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--{BOUNDARY}--\r\n".encode()
    )


def test_malformed_upload_file_names(door: str) -> None:
    ctype = f"multipart/form-data; boundary={BOUNDARY}"
    status, body = post(
        door, "/files", multipart(b'Content-Disposition: form-data; name="file"; filename="a\x00b"'), ctype
    )
    assert_error(status, body, 400)
    status, body = post(
        door, "/files", multipart(b'Content-Disposition: form-data; name="file"; filename="\xe9\xff.txt"'), ctype
    )
    assert status == 200 and body["filename"].endswith(".txt") and "\x00" not in body["filename"]
    zipped = gzip.compress(multipart(b'Content-Disposition: form-data; name="file"; filename="a.txt"'))
    status, body = post(door, "/files", zipped, ctype, **{"Content-Encoding": "gzip"})
    assert status == 200 and body["filename"] == "a.txt" and body["bytes"] == 5


FUNCTION = {"type": "function", "name": "lookup", "parameters": {"type": "object", "properties": {}}}


@pytest.mark.parametrize(
    ("choice", "tools", "param"),
    [
        ({"type": "nope"}, [FUNCTION], "tool_choice.type"),
        ({"type": "function", "name": "missing"}, [FUNCTION], "tool_choice.name"),
        ({"type": "function"}, [FUNCTION], "tool_choice.name"),
        ({"type": "function", "name": "lookup"}, [], "tool_choice.name"),
        ({"type": "mcp", "server_label": "none"}, [FUNCTION], "tool_choice.server_label"),
        ({"type": "file_search"}, [FUNCTION], "tool_choice.type"),
        ({"type": ["function"]}, [FUNCTION], "tool_choice.type"),
        ({"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "x"}]}, [FUNCTION], None),
        ({"type": "allowed_tools", "mode": "sometimes", "tools": [FUNCTION]}, [FUNCTION], "tool_choice.mode"),
    ],
)
def test_invalid_tool_choice_is_400(door: str, choice: Any, tools: list[Any], param: str | None) -> None:
    status, body = create(door, {"tool_choice": choice, "tools": tools})
    assert_error(status, body, 400, param)


def test_valid_tool_choices_still_run(door: str) -> None:
    for choice in (
        {"type": "function", "name": "lookup"},
        {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "lookup"}]},
        "none",
    ):
        status, body = create(door, {"tool_choice": choice, "tools": [FUNCTION]})
        assert status == 200, body


def test_many_mcp_tools_are_checked_in_linear_time(door: str) -> None:
    """16,000 MCP tool entries (the last one a duplicate): the 400 names it at once. The duplicate
    check compared every entry with all earlier ones: 8,000 tools blocked the loop for 3.5 s. Timed
    against 4,000 entries on the same machine (linear: ~4x; quadratic: ~16x), so load cannot fail it."""

    mcp_url = "http://127.0.0.2:9/mcp"

    def refused(n: int) -> float:
        tools = [
            {"type": "mcp", "server_label": f"s{i}", "server_url": mcp_url, "require_approval": "never"}
            for i in range(n)
        ]
        tools[-1]["server_label"] = "s7"
        started = time.monotonic()
        status, body = create(door, {"tools": tools})
        elapsed = time.monotonic() - started
        assert_error(status, body, 400, f"tools[{n - 1}].server_label")
        assert "tools[7]" in body["error"]["message"]
        return elapsed

    small, big = refused(4_000), refused(16_000)
    assert big < max(5.0, 8 * small), f"{big:.1f}s vs {small:.1f}s for a quarter: the checks are not linear"
