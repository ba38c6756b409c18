"""The `mcp` tool through the SDK and both front doors, against real MCP servers (tests/support/mcp_servers.py).

Listing (and its reuse from history), calls with their streamed events, approvals (previous
response and conversation), failures that stay items, bearer auth, the SSE fallback, filters, and
three concurrent 200 ms calls in one turn.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai import OpenAI

from gateway.tools.mcp.client import REQUEST_TIMEOUT, McpFailure, ServerSpec, SessionPool
from tests.support.mcp_servers import BEARER_TOKEN, McpServers, mcp_servers
from tests.support.procs import Backend
from tests.support.waiting import until_async

MODEL = "scripted-model"
POINTS = json.dumps({"a": {"x": 1, "y": 2}, "b": {"x": 3, "y": 4}})


@pytest.fixture(scope="module")
def servers() -> Iterator[McpServers]:
    with mcp_servers() as s:
        yield s


def mcp(servers: McpServers, name: str, label: str | None = None, **extra: Any) -> dict[str, Any]:
    url = servers.down if name == "down" else servers.url(name)
    return {"type": "mcp", "server_label": label or name, "server_url": url, "require_approval": "never", **extra}


def types(response: Any) -> list[str]:
    return [o.type for o in response.output]


def offered(backend: Backend, marker: str, request: int = 0) -> dict[str, Any]:
    """Function tools the backend was offered in the `request`-th call for this test."""
    body = backend.requests_matching(marker)[request]["body"]
    return {t["function"]["name"]: t["function"] for t in body.get("tools", [])}


def test_list_call_and_reuse_listing(client: OpenAI, backend: Backend, marker: str, servers: McpServers) -> None:
    backend.script(
        marker,
        {"tool_calls": [{"name": "plain__add_points", "arguments": POINTS}]},
        {"content": "the sum is 4,6"},
        {"content": "still 4,6"},
    )
    tools = [mcp(servers, "plain")]
    first = client.responses.create(model=MODEL, input=marker, tools=tools)
    assert first.status == "completed"
    assert types(first) == ["mcp_list_tools", "mcp_call", "message"]
    listing, call = first.output[0], first.output[1]
    assert listing.server_label == "plain" and listing.error is None
    schema = next(t for t in listing.tools if t.name == "add_points").input_schema
    assert schema["properties"]["a"] == {"$ref": "#/$defs/Point"} and "Point" in schema["$defs"]
    echo = next(t for t in listing.tools if t.name == "echo")
    assert echo.annotations == {"readOnlyHint": True}
    assert (call.name, call.server_label, call.output, call.error, call.status) == (
        "add_points",
        "plain",
        "4,6",
        None,
        "completed",
    )
    assert json.loads(call.arguments) == json.loads(POINTS)
    assert offered(backend, marker)["plain__add_points"]["parameters"] == schema  # $defs/$ref intact
    tool_msg = backend.requests_matching(marker)[1]["body"]["messages"][-1]
    assert tool_msg == {"role": "tool", "tool_call_id": tool_msg["tool_call_id"], "content": "4,6"}

    second = client.responses.create(model=MODEL, input="and again?", previous_response_id=first.id, tools=tools)
    assert types(second) == ["message"]  # the listing is reused from the history, not repeated
    replay = backend.requests_matching(marker)[-1]["body"]
    assert [m["role"] for m in replay["messages"]] == ["user", "assistant", "tool", "assistant", "user"]
    assert "plain__add_points" in {t["function"]["name"] for t in replay["tools"]}


def test_streamed_events_in_order(client: OpenAI, backend: Backend, marker: str, servers: McpServers) -> None:
    backend.script(marker, {"tool_calls": [{"name": "plain__echo", "arguments": '{"text": "hi"}'}]}, {"content": "ok"})
    stream = client.responses.create(
        model=MODEL, input=marker, tools=[mcp(servers, "plain"), mcp(servers, "down")], stream=True
    )
    events = list(stream)
    names = [e.type for e in events]
    expected = [
        "response.created",
        "response.mcp_list_tools.in_progress",
        "response.mcp_list_tools.completed",
        "response.mcp_call.in_progress",
        "response.mcp_call_arguments.delta",
        "response.mcp_call_arguments.done",
        "response.mcp_call.completed",
        "response.output_text.delta",
        "response.completed",
    ]
    positions = [names.index(n) for n in expected]
    assert positions == sorted(positions), names
    assert "response.mcp_list_tools.failed" in names  # the down server
    call = next(e for e in events if e.type == "response.mcp_call.in_progress")
    done = next(e for e in events if e.type == "response.output_item.done" and e.item.type == "mcp_call")
    assert done.item.id == call.item_id and done.item.output == "echo: hi" and done.output_index == call.output_index
    assert [e.sequence_number for e in events] == list(range(len(events)))
    final = events[-1].response
    assert types(final) == ["mcp_list_tools", "mcp_list_tools", "mcp_call", "message"]
    assert client.responses.retrieve(final.id).output[2].output == "echo: hi"


def test_approve_via_previous_response(client: OpenAI, backend: Backend, marker: str, servers: McpServers) -> None:
    backend.script(
        marker, {"tool_calls": [{"name": "plain__add_points", "arguments": POINTS}]}, {"content": "approved: 4,6"}
    )
    tools = [mcp(servers, "plain", require_approval="always")]
    first = client.responses.create(model=MODEL, input=marker, tools=tools)
    assert first.status == "completed"
    assert types(first) == ["mcp_list_tools", "mcp_approval_request"]
    request = first.output[1]
    assert (request.name, request.server_label) == ("add_points", "plain")
    assert json.loads(request.arguments) == json.loads(POINTS)
    assert len(backend.requests_matching(marker)) == 1  # the approval request ended the turn

    answer = {"type": "mcp_approval_response", "approval_request_id": request.id, "approve": True}
    second = client.responses.create(model=MODEL, input=[answer], previous_response_id=first.id, tools=tools)
    assert types(second) == ["mcp_call", "message"]
    call = second.output[0]
    assert (call.approval_request_id, call.output, call.name) == (request.id, "4,6", "add_points")
    messages = backend.requests_matching(marker)[-1]["body"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool"]
    assert messages[1]["tool_calls"][0]["function"]["name"] == "plain__add_points" and messages[2]["content"] == "4,6"
    assert second.output[1].content[0].text == "approved: 4,6"


def test_deny_via_conversation(client: OpenAI, backend: Backend, marker: str, servers: McpServers) -> None:
    backend.script(
        marker,
        {
            "tool_calls": [
                {"name": "plain__echo", "arguments": '{"text": "free"}'},
                {"name": "plain__add_points", "arguments": POINTS},
            ]
        },
        {"content": "understood, not adding"},
    )
    tools = [mcp(servers, "plain", require_approval={"always": {"tool_names": ["add_points"]}})]
    conv = client.conversations.create()
    first = client.responses.create(model=MODEL, input=marker, tools=tools, conversation=conv.id)
    assert types(first) == ["mcp_list_tools", "mcp_call", "mcp_approval_request"]  # echo ran, add_points asks
    request = first.output[2]
    answer = {"type": "mcp_approval_response", "approval_request_id": request.id, "approve": False, "reason": "no"}
    second = client.responses.create(model=MODEL, input=[answer], tools=tools, conversation=conv.id)
    assert types(second) == ["message"]  # denied: not executed
    messages = backend.requests_matching(marker)[-1]["body"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "tool"]
    assert messages[2]["content"] == "echo: free"
    assert "denied" in messages[4]["content"] and "Reason: no" in messages[4]["content"]
    kinds = [i.type for i in client.conversations.items.list(conv.id, order="asc").data]
    first_turn = ["message", "mcp_list_tools", "mcp_call", "mcp_approval_request"]
    assert kinds == [*first_turn, "mcp_approval_response", "message"]


def test_failures_are_items_not_failed_responses(
    client: OpenAI, backend: Backend, marker: str, servers: McpServers
) -> None:
    backend.script(marker, {"tool_calls": [{"name": "error__explode", "arguments": "{}"}]}, {"content": "it broke"})
    tools = [mcp(servers, "error"), mcp(servers, "down"), mcp(servers, "bearer")]  # bearer without its token
    response = client.responses.create(model=MODEL, input=marker, tools=tools)
    assert response.status == "completed" and response.error is None
    assert types(response) == ["mcp_list_tools"] * 3 + ["mcp_call", "message"]
    listings = {o.server_label: o for o in response.output[:3]}
    assert listings["error"].error is None
    assert "connect" in (listings["down"].error or "").lower() and listings["down"].tools == []
    assert "401" in (listings["bearer"].error or "")
    call = response.output[3]
    assert call.status == "failed" and call.output is None
    assert call.error.type == "mcp_tool_execution_error" and "reactor is on fire" in json.dumps(call.error.content)
    assert set(offered(backend, marker)) == {"error__explode"}
    tool_msg = backend.requests_matching(marker)[-1]["body"]["messages"][-1]
    assert tool_msg["role"] == "tool" and tool_msg["content"].startswith("Error:")


def test_bearer_token_and_headers(client: OpenAI, backend: Backend, marker: str, servers: McpServers) -> None:
    for auth in ({"authorization": BEARER_TOKEN}, {"headers": {"Authorization": f"Bearer {BEARER_TOKEN}"}}):
        backend.script(marker, {"tool_calls": [{"name": "bearer__whoami", "arguments": "{}"}]}, {"content": "ok"})
        response = client.responses.create(model=MODEL, input=marker, tools=[mcp(servers, "bearer", **auth)])
        assert types(response) == ["mcp_list_tools", "mcp_call", "message"]
        assert response.output[1].output == "authenticated caller"
        assert BEARER_TOKEN not in response.model_dump_json(warnings=False)  # credentials are redacted in `tools`
        assert BEARER_TOKEN not in client.responses.retrieve(response.id).model_dump_json(warnings=False)


def test_concurrent_calls_take_one_call_latency(
    client: OpenAI, backend: Backend, marker: str, servers: McpServers
) -> None:
    calls = [{"name": "slow__nap", "arguments": json.dumps({"n": n})} for n in range(3)]
    backend.script(marker, {"tool_calls": calls}, {"content": "rested"})
    seen: list[tuple[str, float]] = []
    for event in client.responses.create(model=MODEL, input=marker, tools=[mcp(servers, "slow")], stream=True):
        seen.append((event.type, time.monotonic()))
        if event.type == "response.completed":
            final = event.response
    start = min(t for name, t in seen if name == "response.mcp_call.in_progress")
    end = max(t for name, t in seen if name == "response.mcp_call.completed")
    print(f"\nthree concurrent 200 ms MCP calls in one turn: {(end - start) * 1000:.0f} ms")
    assert [o.output for o in final.output if o.type == "mcp_call"] == ["rested 0", "rested 1", "rested 2"]
    assert end - start < 0.55, f"three 200 ms calls took {end - start:.2f}s: not concurrent"


def test_allowed_tools_and_sse_fallback(client: OpenAI, backend: Backend, marker: str, servers: McpServers) -> None:
    backend.script(marker, {"tool_calls": [{"name": "sse__echo", "arguments": '{"text": "via sse"}'}]}, {})
    tools = [mcp(servers, "sse", allowed_tools=["echo"]), mcp(servers, "plain", allowed_tools={"read_only": True})]
    response = client.responses.create(model=MODEL, input=marker, tools=tools)
    assert [[t.name for t in o.tools] for o in response.output[:2]] == [["echo"], ["echo"]]
    assert set(offered(backend, marker)) == {"sse__echo", "plain__echo"}
    assert response.output[2].output == "echo: via sse"


@pytest.mark.parametrize(
    ("tool", "param"),
    [
        ({"type": "mcp", "server_url": "http://127.0.0.1:1/mcp"}, "tools[0].server_label"),
        ({"type": "mcp", "server_label": "x"}, "tools[0].server_url"),
        ({"type": "mcp", "server_label": "x", "server_url": "ftp://x"}, "tools[0].server_url"),
        ({"type": "mcp", "server_label": "x", "connector_id": "conn_missing"}, "tools[0].connector_id"),
        (
            {"type": "mcp", "server_label": "x", "server_url": "http://127.0.0.1:1/mcp", "require_approval": "maybe"},
            "tools[0].require_approval",
        ),
    ],
)
def test_invalid_mcp_tool_is_400(client: OpenAI, tool: dict[str, Any], param: str) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(model=MODEL, input="x", tools=[tool])
    assert info.value.status_code == 400
    assert info.value.body["param"] == param


async def test_session_cache_reuse_ttl_and_timeout(servers: McpServers) -> None:
    """In-process: sessions are shared per (url, credentials), dropped when idle, and calls time out."""
    pool = SessionPool(timeout=5.0, idle_ttl=1.0)  # longer than opening a session takes under load
    impatient = SessionPool(timeout=0.05)
    anonymous = ServerSpec.make(servers.url("plain"), None, None)
    with_token = ServerSpec.make(servers.url("plain"), None, "token-b")
    try:
        await pool.list_tools(anonymous)
        first = pool._conns[anonymous.key]
        result = await pool.call_tool(anonymous, "echo", {"text": "x"})
        assert result.content[0].text == "echo: x"
        assert pool._conns[anonymous.key] is first  # one session for the listing and the call
        assert with_token.key != anonymous.key and "token-b" not in repr(with_token.key)
        await pool.list_tools(with_token)
        assert len(pool) == 2

        async def open_sessions() -> int:
            return len(pool)

        await until_async(open_sessions, lambda n: n == 0, what="both idle past the TTL: closed")
        with pytest.raises(McpFailure) as info:
            await impatient.call_tool(ServerSpec.make(servers.url("slow"), None, None), "nap", {"n": 1})
        assert info.value.error == {
            "type": "mcp_protocol_error",
            "code": REQUEST_TIMEOUT,
            "message": info.value.message,
        }
    finally:
        await pool.close()
        await impatient.close()
