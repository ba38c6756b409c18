"""The server-side tool loop, driven through the engine's public service with a real backend process.

A server-side tool type is registered the way file_search and MCP plug in: its calls run in the
gateway, concurrently, and never reach the client as `function_call` items.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from gateway.bootstrap import build_deps
from gateway.common.ids import new_id
from gateway.config import load_settings
from gateway.engine.events import EventBuilder
from gateway.engine.service import ResponsesService
from gateway.tools.registry import ToolResult
from tests.support.scripted_backend import ScriptedBackend


class SlowClock:
    """A server-side tool whose single function takes 200 ms, like a remote call."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config

    def definitions(self) -> list[dict[str, Any]]:
        return [{"type": "function", "name": "clock", "parameters": {"type": "object", "properties": {}}}]

    def handles(self, name: str) -> bool:
        return name == "clock"

    async def run(self, call: dict[str, Any], events: EventBuilder) -> ToolResult:
        await asyncio.sleep(0.2)
        item = {"id": new_id("clk"), "type": "clock_call", "status": "completed", "arguments": call["arguments"]}
        events.add_item(item)
        return ToolResult(model_output=f"tick {call['arguments']}")


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[tuple[ResponsesService, ScriptedBackend]]:
    backend = ScriptedBackend()
    await backend.start()
    deps, _http = build_deps(load_settings(env={}, backend_url=backend.url, data_dir=str(tmp_path)))

    async def factory(tool: dict[str, Any], run: Any) -> SlowClock:
        return SlowClock(tool)

    deps.tools.register(
        "clock",
        factory,
        converter=lambda item: [
            {"type": "function_call", "call_id": item["id"], "name": "clock", "arguments": item["arguments"]},
            {"type": "function_call_output", "call_id": item["id"], "output": "tick"},
        ],
        item_type="clock_call",
    )
    await deps.stores.open()
    yield ResponsesService(deps), backend
    await deps.backend.close()
    await deps.stores.close()
    await backend.stop()


async def test_concurrent_server_calls_then_answer(engine: tuple[ResponsesService, ScriptedBackend]) -> None:
    service, backend = engine
    backend.script(
        "loop-1",
        [
            {
                "tool_calls": [
                    {"name": "clock", "arguments": '{"n": 1}'},
                    {"name": "clock", "arguments": '{"n": 2}'},
                    {"name": "clock", "arguments": '{"n": 3}'},
                ]
            },
            {"content": "three ticks"},
        ],
    )
    prepared = await service.prepare({"model": "scripted-model", "input": "loop-1", "tools": [{"type": "clock"}]})
    started = time.monotonic()
    response, error = await service.create(prepared)
    elapsed = time.monotonic() - started
    assert error is None and response["status"] == "completed"
    assert [o["type"] for o in response["output"]] == ["clock_call"] * 3 + ["message"]
    assert response["output"][-1]["content"][0]["text"] == "three ticks"
    assert elapsed < 0.5, f"three 200 ms calls took {elapsed:.2f}s: not concurrent"
    second = [r for r in backend.requests if "loop-1" in str(r["body"])][-1]["body"]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "tool", "tool", "tool"]
    assert [m["content"] for m in second if m["role"] == "tool"] == ['tick {"n": 1}', 'tick {"n": 2}', 'tick {"n": 3}']
    # a later turn replays the stored clock_call items through the registered converter
    follow = await service.prepare(
        {"model": "scripted-model", "input": "loop-1 again", "previous_response_id": response["id"]}
    )
    final, _ = await service.create(follow)
    replay = [r for r in backend.requests if "loop-1 again" in str(r["body"])][-1]["body"]["messages"]
    assert [m["role"] for m in replay] == ["user", "assistant", "tool", "tool", "tool", "assistant", "user"]
    assert final["status"] == "completed"


async def test_max_tool_calls_budget(engine: tuple[ResponsesService, ScriptedBackend]) -> None:
    service, backend = engine
    backend.script(
        "loop-2",
        [
            {"tool_calls": [{"name": "clock", "arguments": "{}"}, {"name": "clock", "arguments": "{}"}]},
            {"content": "done"},
        ],
    )
    prepared = await service.prepare(
        {"model": "scripted-model", "input": "loop-2", "tools": [{"type": "clock"}], "max_tool_calls": 1}
    )
    response, _ = await service.create(prepared)
    assert [o["type"] for o in response["output"]] == ["clock_call", "message"]
    last = [r for r in backend.requests if "loop-2" in str(r["body"])][-1]["body"]
    assert "tools" not in last  # budget spent: the final turn is offered no tools
    assert "maximum number of tool calls" in last["messages"][-1]["content"]


class Library:
    """A tool that shows the model a cited source and streams progress events while it works."""

    def __init__(self, run: Any) -> None:
        self.owner = run

    def definitions(self) -> list[dict[str, Any]]:
        return [{"type": "function", "name": "library", "parameters": {"type": "object", "properties": {}}}]

    def handles(self, name: str) -> bool:
        return name == "library"

    async def run(self, call: dict[str, Any], events: EventBuilder) -> ToolResult:
        item = {"id": new_id("lib"), "type": "library_call", "status": "in_progress"}
        index = events.open_item(item)
        events.emit("response.library_call.searching", {"item_id": item["id"], "output_index": index})
        await asyncio.sleep(0.3)
        marker = self.owner.citations.add({"type": "file_citation", "file_id": "file_9", "filename": "cats.txt"})
        events.close_item(index)
        return ToolResult(model_output=f"[{marker}] Cats sleep 16 hours a day.")


async def test_tool_progress_streams_and_citations_annotate(tmp_path: Path) -> None:
    backend = ScriptedBackend()
    await backend.start()
    deps, _http = build_deps(load_settings(env={}, backend_url=backend.url, data_dir=str(tmp_path)))

    async def factory(tool: dict[str, Any], run: Any) -> Library:
        return Library(run)

    deps.tools.register("library", factory)
    await deps.stores.open()
    try:
        service = ResponsesService(deps)
        backend.script(
            "cite-1",
            [
                {"tool_calls": [{"name": "library", "arguments": "{}"}]},
                {"content": "Cats sleep a lot [1].", "chunk_size": 3},
            ],
        )
        prepared = await service.prepare(
            {"model": "scripted-model", "input": "cite-1", "stream": True, "tools": [{"type": "library"}]}
        )
        seen: list[tuple[str, float]] = []
        started = time.monotonic()
        events = []
        async for event in service.stream(prepared):
            seen.append((event["type"], time.monotonic() - started))
            events.append(event)
        searching = next(t for name, t in seen if name == "response.library_call.searching")
        done = next(t for name, t in seen if name == "response.output_item.done")
        assert done - searching > 0.25  # progress left before the tool finished
        deltas = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
        assert deltas == "Cats sleep a lot."
        added = [e for e in events if e["type"] == "response.output_text.annotation.added"]
        assert added and added[0]["annotation"] == {
            "type": "file_citation",
            "file_id": "file_9",
            "filename": "cats.txt",
            "index": 16,
        }
        final = events[-1]["response"]
        assert final["output"][-1]["content"][0]["annotations"] == [added[0]["annotation"]]
    finally:
        await deps.backend.close()
        await deps.stores.close()
        await backend.stop()
