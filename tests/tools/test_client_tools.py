"""Codex CLI's client tools through both doors: `custom` (free-form input, e.g. `apply_patch`),
`local_shell` and `namespace`, offered to the backend as functions, returned as OpenAI's item
types (streamed with their events), and replayed from history on the next turn; `tool_search` over
deferred tools, run by the gateway or by the client."""

from __future__ import annotations

import json
from typing import Any

from openai import OpenAI

from tests.support.procs import Backend

MODEL = "scripted-model"
PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch"
TOOL_FN = {"type": "function", "name": "lookup", "parameters": {"type": "object", "properties": {}}}
APPLY_PATCH = {
    "type": "custom",
    "name": "apply_patch",
    "description": "Edit files with a patch.",
    "format": {"type": "grammar", "syntax": "lark", "definition": "start: begin_patch hunk+ end_patch"},
}


def offered(backend: Backend, marker: str) -> dict[str, Any]:
    body = backend.requests_matching(marker)[0]["body"]
    return {t["function"]["name"]: t["function"] for t in body.get("tools", [])}


def last_messages(backend: Backend, marker: str) -> list[dict[str, Any]]:
    return list(backend.requests_matching(marker)[-1]["body"]["messages"])


def test_custom_tool_round_trip(client: OpenAI, backend: Backend, marker: str) -> None:
    call = {"name": "apply_patch", "arguments": json.dumps({"input": PATCH})}
    backend.script(marker, {"tool_calls": [call]}, {"tool_calls": [call]}, {"content": "patched"})
    first = client.responses.create(model=MODEL, input=f"patch {marker}", tools=[APPLY_PATCH])  # type: ignore[list-item]
    item = first.output[0]
    assert item.type == "custom_tool_call" and item.name == "apply_patch" and item.input == PATCH
    fn = offered(backend, marker)["apply_patch"]
    assert fn["parameters"]["required"] == ["input"] and "begin_patch hunk+" in fn["description"]
    streamed = list(client.responses.create(model=MODEL, input=f"again {marker}", tools=[APPLY_PATCH], stream=True))  # type: ignore[list-item]
    kinds = [e.type for e in streamed]
    assert "response.custom_tool_call_input.delta" in kinds and "response.custom_tool_call_input.done" in kinds
    done = next(e for e in streamed if e.type == "response.custom_tool_call_input.done")
    assert done.input == PATCH  # type: ignore[union-attr]
    answer = client.responses.create(
        model=MODEL,
        previous_response_id=first.id,
        input=[{"type": "custom_tool_call_output", "call_id": item.call_id, "output": "Done!"}],  # type: ignore[list-item]
        tools=[APPLY_PATCH],  # type: ignore[list-item]
    )
    assert answer.output_text == "patched"
    sent = last_messages(backend, marker)
    replayed = sent[-2]["tool_calls"][0]["function"]
    assert replayed["name"] == "apply_patch" and json.loads(replayed["arguments"]) == {"input": PATCH}
    assert sent[-1] == {"role": "tool", "tool_call_id": item.call_id, "content": "Done!"}


def test_local_shell_round_trip(client: OpenAI, backend: Backend, marker: str) -> None:
    args = {"command": ["ls", "-la"], "working_directory": "/tmp", "timeout_ms": 5000}
    backend.script(
        marker, {"tool_calls": [{"name": "local_shell", "arguments": json.dumps(args)}]}, {"content": "2 files"}
    )
    first = client.responses.create(model=MODEL, input=f"list {marker}", tools=[{"type": "local_shell"}])  # type: ignore[list-item]
    call = first.output[0]
    assert call.type == "local_shell_call"
    assert call.action.model_dump(exclude_none=True) == {  # type: ignore[union-attr]
        "type": "exec",
        "command": ["ls", "-la"],
        "env": {},
        "working_directory": "/tmp",
        "timeout_ms": 5000,
    }
    answer = client.responses.create(
        model=MODEL,
        previous_response_id=first.id,
        input=[{"type": "local_shell_call_output", "id": call.call_id, "output": "a\nb"}],  # type: ignore[list-item, union-attr]
        tools=[{"type": "local_shell"}],  # type: ignore[list-item]
    )
    assert answer.output_text == "2 files"
    sent = last_messages(backend, marker)
    assert json.loads(sent[-2]["tool_calls"][0]["function"]["arguments"])["command"] == ["ls", "-la"]
    assert sent[-1]["content"] == "a\nb" and sent[-1]["tool_call_id"] == sent[-2]["tool_calls"][0]["id"]


def test_namespace_tools_are_flattened_and_named_back(client: OpenAI, backend: Backend, marker: str) -> None:
    ns = {
        "type": "namespace",
        "name": "github",
        "description": "GitHub",
        "tools": [{"type": "function", "name": "search", "parameters": {"type": "object", "properties": {}}}],
    }
    backend.script(marker, {"tool_calls": [{"name": "github__search", "arguments": "{}"}]})
    r = client.responses.create(model=MODEL, input=f"find {marker}", tools=[ns])  # type: ignore[list-item]
    assert set(offered(backend, marker)) == {"github__search"}
    call = r.output[0].model_dump()
    assert (call["type"], call["name"], call["namespace"]) == ("function_call", "search", "github")


def test_web_search_without_a_provider_is_not_an_error(client: OpenAI, backend: Backend, marker: str) -> None:
    """Codex always sends web_search: with no provider configured the request runs without it."""
    backend.script(marker, {"content": "answered anyway"})
    r = client.responses.create(model=MODEL, input=f"search {marker}", tools=[{"type": "web_search"}])  # type: ignore[list-item]
    assert r.status == "completed" and r.output_text == "answered anyway"
    note = r.output[0]
    assert note.type == "reasoning" and "web_search was not used" in note.summary[0].text  # type: ignore[union-attr]
    assert "tools" not in backend.requests_matching(marker)[0]["body"]  # no search offered to the model


WEATHER = {
    "type": "function",
    "name": "weather",
    "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    "defer_loading": True,
}
MAILER = {
    "type": "namespace",
    "name": "mail",
    "description": "Email.",
    "tools": [{"type": "function", "name": "send", "description": "Send an email message."}],
    "defer_loading": True,
}


def names(body: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools", [])}


def test_tool_search_loads_deferred_tools_on_the_server(client: OpenAI, backend: Backend, marker: str) -> None:
    search = {"name": "tool_search", "arguments": json.dumps({"query": "weather in a city"})}
    call = {"name": "weather", "arguments": json.dumps({"city": "Oslo"})}
    backend.script(marker, {"tool_calls": [search]}, {"tool_calls": [call]}, {"content": "Sunny in Oslo."})
    tools = [{"type": "tool_search"}, WEATHER, MAILER, TOOL_FN]
    r = client.responses.create(model=MODEL, input=f"ts {marker}", tools=tools)  # type: ignore[arg-type]
    assert [o.type for o in r.output] == ["tool_search_call", "tool_search_output", "function_call"]
    searched, loaded, weather = r.output
    assert searched.execution == "server" and searched.arguments == {"query": "weather in a city"}  # type: ignore[union-attr]
    assert loaded.call_id == searched.call_id and [t.name for t in loaded.tools] == ["weather"]  # type: ignore[union-attr]
    assert weather.name == "weather" and json.loads(weather.arguments) == {"city": "Oslo"}  # type: ignore[union-attr]
    first, second = (x["body"] for x in backend.requests_matching(marker))
    assert names(first) == {"lookup", "tool_search"}  # deferred tools wait until a search loads them
    assert names(second) == {"lookup", "tool_search", "weather"}
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": second["messages"][-2]["tool_calls"][0]["id"],
                                      "content": "Loaded tools: weather."}  # fmt: skip
    # the next turn: the loaded tool stays offered, the search replays as a function call
    done = client.responses.create(
        model=MODEL,
        previous_response_id=r.id,
        input=[{"type": "function_call_output", "call_id": weather.call_id, "output": "sunny"}],  # type: ignore[union-attr]
        tools=tools,  # type: ignore[arg-type]
    )
    assert done.output_text == "Sunny in Oslo."
    third = backend.requests_matching(marker)[-1]["body"]
    assert "weather" in names(third) and "send" not in str(names(third))
    assert any(c["function"]["name"] == "tool_search" for m in third["messages"] for c in m.get("tool_calls") or [])


def test_tool_search_run_by_the_client(client: OpenAI, backend: Backend, marker: str) -> None:
    search = {"name": "tool_search", "arguments": json.dumps({"query": "send an email"})}
    call = {"name": "mail__send", "arguments": "{}"}
    backend.script(marker, {"tool_calls": [search]}, {"tool_calls": [call]})
    tools = [{"type": "tool_search", "execution": "client"}, WEATHER, MAILER]
    r = client.responses.create(model=MODEL, input=f"tc {marker}", tools=tools)  # type: ignore[arg-type]
    (searched,) = r.output
    assert searched.type == "tool_search_call" and searched.execution == "client"  # type: ignore[union-attr]
    assert searched.arguments == {"query": "send an email"}  # type: ignore[union-attr]
    assert names(backend.requests_matching(marker)[0]["body"]) == {"tool_search"}
    answer = {"type": "tool_search_output", "call_id": searched.call_id, "execution": "client",  # type: ignore[union-attr]
              "tools": [{k: v for k, v in MAILER.items() if k != "defer_loading"}]}  # fmt: skip
    r2 = client.responses.create(model=MODEL, previous_response_id=r.id, input=[answer], tools=tools)  # type: ignore[arg-type, list-item]
    (sent,) = r2.output
    assert sent.type == "function_call" and sent.name == "send" and sent.namespace == "mail"  # type: ignore[union-attr]
    assert names(backend.requests_matching(marker)[-1]["body"]) == {"tool_search", "mail__send"}
    stored = client.responses.input_items.list(r2.id).data
    assert stored[0].type == "tool_search_output"


def test_tool_search_execution_must_be_server_or_client(client: OpenAI) -> None:
    import openai

    try:
        client.responses.create(model=MODEL, input="x", tools=[{"type": "tool_search", "execution": "cloud"}])  # type: ignore[list-item]
    except openai.BadRequestError as err:
        assert err.body["param"] == "tools[0].execution"  # type: ignore[index]
    else:
        raise AssertionError("expected a 400")
