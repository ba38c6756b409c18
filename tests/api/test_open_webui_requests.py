"""Open WebUI 0.12's requests, pinned as fixtures (tests/clients/open_webui_0.12_requests.json) and
replayed through both doors with raw HTTP, as Open WebUI sends them: its chat-completions mode
(passed through to the backend untouched) and its Responses mode (translated by the gateway), each
plain and with a native function-calling round trip. Open WebUI itself (PyPI `open-webui`, with
torch) is too heavy for `make test`; these keep what it sends working."""

from __future__ import annotations

import json
from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK ships with

from tests.support.procs import ROOT, Backend

FIXTURES = json.loads((ROOT / "tests" / "clients" / "open_webui_0.12_requests.json").read_text())


def fill(body: dict[str, Any], **values: str) -> dict[str, Any]:
    text = json.dumps(body)
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return dict(json.loads(text))


def post_sse(door: str, key: str, path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """POST as Open WebUI does (aiohttp, a JSON body, SSE back) and read the `data:` events."""
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    with httpx.stream("POST", f"{door}{path}", content=json.dumps(body), headers=headers, timeout=30) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        lines = [line[6:] for line in r.iter_lines() if line.startswith("data: ")]
    return [json.loads(line) for line in lines if line != "[DONE]"]


def sent_to_backend(backend: Backend, marker: str) -> dict[str, Any]:
    return dict(backend.requests_matching(marker)[-1]["body"])


def test_chat_mode_plain_and_tool_round_trip(door: str, session_key: str, backend: Backend, marker: str) -> None:
    chat = FIXTURES["chat"]
    backend.script(marker, {"content": "Hi!"})
    body = fill(chat["plain"], marker=marker)
    chunks = post_sse(door, session_key, "/chat/completions", body)
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == "Hi!"
    assert sent_to_backend(backend, marker)["messages"] == body["messages"]  # passed through untouched

    call = {"name": "get_weather", "arguments": json.dumps({"city": "Oslo"})}
    backend.script(marker, {"tool_calls": [call]}, {"content": "Sunny in Oslo."})
    first = fill(chat["tools"][0], marker=marker)
    chunks = post_sse(door, session_key, "/chat/completions", first)
    calls = [tc for c in chunks if c["choices"] for tc in c["choices"][0]["delta"].get("tool_calls") or []]
    call_id = next(tc["id"] for tc in calls if tc.get("id"))
    assert any((tc.get("function") or {}).get("name") == "get_weather" for tc in calls)
    second = fill(chat["tools"][1], marker=marker, call_id=call_id)
    chunks = post_sse(door, session_key, "/chat/completions", second)
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == "Sunny in Oslo."
    assert sent_to_backend(backend, marker)["messages"] == second["messages"]


def completed(events: list[dict[str, Any]]) -> dict[str, Any]:
    assert events[0]["type"] == "response.created" and events[-1]["type"] == "response.completed"
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    return dict(events[-1]["response"])


def test_responses_mode_plain_and_tool_round_trip(door: str, session_key: str, backend: Backend, marker: str) -> None:
    responses = FIXTURES["responses"]
    backend.script(marker, {"content": "Hi!"})
    done = completed(post_sse(door, session_key, "/responses", fill(responses["plain"], marker=marker)))
    assert done["output"][-1]["content"][0]["text"] == "Hi!"
    messages = sent_to_backend(backend, marker)["messages"]
    assert messages[0] == {"role": "system", "content": responses["plain"]["instructions"]}

    call = {"name": "get_weather", "arguments": json.dumps({"city": "Oslo"})}
    backend.script(marker, {"tool_calls": [call]}, {"content": "Sunny in Oslo."})
    done = completed(post_sse(door, session_key, "/responses", fill(responses["tools"][0], marker=marker)))
    (fc,) = [o for o in done["output"] if o["type"] == "function_call"]
    assert fc["name"] == "get_weather" and json.loads(fc["arguments"]) == {"city": "Oslo"}
    second = fill(responses["tools"][1], marker=marker, call_id=fc["call_id"])
    done = completed(post_sse(door, session_key, "/responses", second))
    assert done["output"][-1]["content"][0]["text"] == "Sunny in Oslo."
    messages = sent_to_backend(backend, marker)["messages"]
    assert messages[-1] == {"role": "tool", "tool_call_id": fc["call_id"], "content": "sunny, 21 C"}
    assert messages[-2]["tool_calls"][0]["function"]["name"] == "get_weather"
