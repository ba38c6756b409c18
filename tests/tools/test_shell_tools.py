"""OpenAI's `shell` and `apply_patch` client tools through both doors: offered to the backend as
functions, the model's calls returned as `shell_call` / `apply_patch_call` items (the SDK's types)
and streamed with their own events, the client's outputs accepted, stored and replayed on later
turns; and namespaced function calls sent back as input keep their namespace and reach the model
under the name it was offered."""

from __future__ import annotations

import json
from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK ships with
import openai
import pytest
from openai import OpenAI
from openai.types.responses import ResponseApplyPatchToolCall, ResponseFunctionShellToolCall

from tests.support.procs import Backend

MODEL = "scripted-model"
DIFF = "@@\n-hello\n+hello, world\n"


def offered(backend: Backend, marker: str) -> dict[str, Any]:
    body = backend.requests_matching(marker)[0]["body"]
    return {t["function"]["name"]: t["function"] for t in body.get("tools", [])}


def last_messages(backend: Backend, marker: str) -> list[dict[str, Any]]:
    return list(backend.requests_matching(marker)[-1]["body"]["messages"])


def test_shell_round_trip(client: OpenAI, backend: Backend, marker: str) -> None:
    args = {"commands": ["ls -la", "cat README.md"], "timeout_ms": 5000, "max_output_length": 4096}
    call = {"tool_calls": [{"name": "shell", "arguments": json.dumps(args)}]}
    backend.script(marker, call, call, {"content": "two files"})
    events = list(client.responses.create(model=MODEL, input=f"list {marker}", tools=[{"type": "shell"}], stream=True))
    kinds = [e.type for e in events]
    assert kinds.count("response.shell_call_command.added") == kinds.count("response.shell_call_command.done") == 2
    dones = [e for e in events if e.type == "response.shell_call_command.done"]
    assert [(d.command_index, d.command) for d in dones] == [(0, "ls -la"), (1, "cat README.md")]  # type: ignore[union-attr]
    fn = offered(backend, marker)["shell"]
    assert fn["parameters"]["required"] == ["commands"]

    first = client.responses.create(model=MODEL, input=f"again {marker}", tools=[{"type": "shell"}])
    item = first.output[0]
    assert isinstance(item, ResponseFunctionShellToolCall)
    assert item.action.commands == ["ls -la", "cat README.md"] and item.action.timeout_ms == 5000
    assert item.action.max_output_length == 4096 and item.status == "completed"

    results = [
        {"stdout": "a\nb\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
        {"stdout": "", "stderr": "no such file", "outcome": {"type": "exit", "exit_code": 1}},
    ]
    output = {"type": "shell_call_output", "call_id": item.call_id, "output": results}
    answer = client.responses.create(
        model=MODEL,
        previous_response_id=first.id,
        input=[output],  # type: ignore[list-item]
        tools=[{"type": "shell"}],
    )
    assert answer.output_text == "two files"
    stored = client.responses.input_items.list(answer.id).data[0].model_dump(exclude_none=True)
    assert stored["type"] == "shell_call_output" and stored["output"] == results
    sent = last_messages(backend, marker)
    replayed = sent[-2]["tool_calls"][0]["function"]
    assert replayed["name"] == "shell" and json.loads(replayed["arguments"])["commands"] == ["ls -la", "cat README.md"]
    assert sent[-1]["tool_call_id"] == sent[-2]["tool_calls"][0]["id"]
    assert "exit code 1" in sent[-1]["content"] and "no such file" in sent[-1]["content"]


def test_apply_patch_round_trip_raw_http(door: str, session_key: str, backend: Backend, marker: str) -> None:
    """Items sent back by the client (store false, as Codex does), with raw HTTP."""
    auth = {"Authorization": f"Bearer {session_key}"}
    args = {"type": "update_file", "path": "hello.txt", "diff": DIFF}
    backend.script(marker, {"tool_calls": [{"name": "apply_patch", "arguments": json.dumps(args)}]}, {"content": "ok"})
    user = {"role": "user", "content": f"fix {marker}"}
    body = {"model": MODEL, "store": False, "stream": True, "input": [user], "tools": [{"type": "apply_patch"}]}
    with httpx.stream("POST", f"{door}/responses", json=body, headers=auth, timeout=30) as r:
        assert r.status_code == 200
        events = [json.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: ")]
    kinds = [e["type"] for e in events]
    assert "response.apply_patch_call_operation_diff.done" in kinds and kinds[-1] == "response.completed"
    call = events[-1]["response"]["output"][0]
    parsed = ResponseApplyPatchToolCall.model_validate(call)
    assert parsed.operation.model_dump() == args and parsed.status == "completed"

    result = {"type": "apply_patch_call_output", "call_id": call["call_id"], "status": "completed", "output": "Done"}
    body = {"model": MODEL, "store": False, "input": [user, call, result], "tools": [{"type": "apply_patch"}]}
    r2 = httpx.post(f"{door}/responses", json=body, headers=auth, timeout=30)
    assert r2.status_code == 200, r2.text
    assert r2.json()["output"][0]["content"][0]["text"] == "ok"
    sent = last_messages(backend, marker)
    fn = sent[-2]["tool_calls"][0]["function"]
    assert fn["name"] == "apply_patch" and json.loads(fn["arguments"]) == args
    assert sent[-1]["content"] == "completed: Done"


def test_shell_items_are_validated(client: OpenAI) -> None:
    bad: list[tuple[dict[str, Any], str]] = [
        ({"type": "shell_call_output", "call_id": "c", "output": "text"}, "input[0].output"),
        ({"type": "shell_call_output", "call_id": "c", "output": [{"stdout": "", "stderr": "", "outcome": {}}]},
         "input[0].output[0].outcome"),
        ({"type": "shell_call", "call_id": "c", "action": {"commands": "ls"}}, "input[0].action.commands"),
        ({"type": "apply_patch_call", "call_id": "c", "status": "completed", "operation": {"type": "move_file"}},
         "input[0].operation.type"),
        ({"type": "apply_patch_call_output", "call_id": "c", "status": "maybe"}, "input[0].status"),
    ]  # fmt: skip
    for item, param in bad:
        with pytest.raises(openai.BadRequestError) as info:
            client.responses.create(model=MODEL, input=[item])  # type: ignore[list-item]
        assert info.value.body["param"] == param  # type: ignore[index]
    with pytest.raises(openai.BadRequestError) as info:
        hosted = {"type": "shell", "environment": {"type": "container_auto"}}
        client.responses.create(model=MODEL, input="x", tools=[hosted])  # type: ignore[list-item]
    assert info.value.body["param"] == "tools[0].environment.type"  # type: ignore[index]


NAMESPACE = {
    "type": "namespace",
    "name": "mcp__knowledge",
    "description": "Knowledge base",
    "tools": [{"type": "function", "name": "search_knowledge", "parameters": {"type": "object", "properties": {}}}],
}


def test_namespaced_calls_sent_back_keep_their_namespace(client: OpenAI, backend: Backend, marker: str) -> None:
    backend.script(marker, {"content": "found it"}, {"content": "and again"})
    call = {
        "type": "function_call",
        "call_id": "call_ns1",
        "name": "search_knowledge",
        "namespace": "mcp__knowledge",
        "arguments": "{}",
    }
    result = {"type": "function_call_output", "call_id": "call_ns1", "output": "doc"}
    first = client.responses.create(
        model=MODEL,
        input=[{"role": "user", "content": f"search {marker}"}, call, result],  # type: ignore[list-item]
        tools=[NAMESPACE],  # type: ignore[list-item]
    )
    assert first.output_text == "found it"
    stored = [i.model_dump() for i in client.responses.input_items.list(first.id, order="asc").data]
    assert stored[1]["namespace"] == "mcp__knowledge" and stored[1]["name"] == "search_knowledge"
    sent = last_messages(backend, marker)
    assert sent[-2]["tool_calls"][0]["function"]["name"] == "mcp__knowledge__search_knowledge"
    assert "mcp__knowledge__search_knowledge" in offered(backend, marker)
    # replayed from storage on the next turn: the same name
    client.responses.create(model=MODEL, previous_response_id=first.id, input=f"more {marker}", tools=[NAMESPACE])  # type: ignore[list-item]
    sent = last_messages(backend, marker)
    names = [c["function"]["name"] for m in sent for c in m.get("tool_calls") or []]
    assert names == ["mcp__knowledge__search_knowledge"]


def test_tool_choice_names_the_shell_or_patch_tool(client: OpenAI, backend: Backend, marker: str) -> None:
    args = {"type": "delete_file", "path": "old.txt"}
    backend.script(marker, {"tool_calls": [{"name": "apply_patch", "arguments": json.dumps(args)}]})
    r = client.responses.create(
        model=MODEL,
        input=f"remove it {marker}",
        tools=[{"type": "shell"}, {"type": "apply_patch"}],
        tool_choice={"type": "apply_patch"},
    )
    assert r.output[0].type == "apply_patch_call" and r.output[0].operation.model_dump() == args  # type: ignore[union-attr]
    sent = backend.requests_matching(marker)[-1]["body"]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "apply_patch"}}
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(model=MODEL, input="x", tools=[{"type": "apply_patch"}], tool_choice={"type": "shell"})
    assert info.value.body["param"] == "tool_choice.type"  # type: ignore[index]
