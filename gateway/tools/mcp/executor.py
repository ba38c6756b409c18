"""MCP servers inside one response run: listing, approvals, calls, and the items they stream.

Each `{"type": "mcp"}` entry becomes an `McpServerTool` (the engine's `ServerTool`); the servers of
one run share an `McpRun`, so their listings and approved calls run concurrently in one prelude and
the offered function names are unique across servers.

Lifecycle of one run:
1. prelude: each server's tools come from the newest `mcp_list_tools` item for its label in the
   history or echoed inputs (no new item, no round trip) or are listed now (`mcp_list_tools` item with streamed
   in_progress/completed/failed). Then `mcp_approval_response` inputs answer `mcp_approval_request`
   items of the history: approved calls run (an `mcp_call` with `approval_request_id`), denied ones
   do not; either way the call and its result go into the model's context and the loop resumes.
2. turns: a call the model makes either runs (an `mcp_call`) or, when it needs approval, becomes an
   `mcp_approval_request` item that ends the loop. A failing server yields an `mcp_call` with
   `error`, never a failed response.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from gateway.common.ids import item_id
from gateway.engine.events import EventBuilder
from gateway.tools.mcp import mapping
from gateway.tools.mcp.client import (
    INVALID_PARAMS,
    McpFailure,
    ServerSpec,
    SessionPool,
    execution_error,
    protocol_error,
)
from gateway.tools.registry import ToolResult

APPROVAL_NOTE = "This call needs the user's approval; it has not run. The user has been asked."


@dataclass(eq=False)
class McpServerTool:
    """One MCP server of one run (an engine `ServerTool`)."""

    group: McpRun
    config: dict[str, Any]
    spec: ServerSpec
    tools: list[dict[str, Any]] = field(default_factory=list)  # allowed tools, as listed
    names: dict[str, str] = field(default_factory=dict)  # offered name -> MCP tool name

    @property
    def label(self) -> str:
        return str(self.config["server_label"])

    def definitions(self) -> list[dict[str, Any]]:
        by_name = {t["name"]: t for t in self.tools}
        desc = self.config.get("server_description")
        return [mapping.definition(self.label, name, by_name[tool], desc) for name, tool in self.names.items()]

    def handles(self, name: str) -> bool:
        return name in self.names

    async def prelude(self, run: Any) -> bool:
        return await self.group.prelude()

    async def run(self, call: dict[str, Any], events: EventBuilder) -> ToolResult:
        tool_name = self.names[call["name"]]
        arguments = call.get("arguments") or "{}"
        tool = next((t for t in self.tools if t["name"] == tool_name), {"name": tool_name})
        if mapping.needs_approval(self.config, tool):
            request = {
                "id": item_id("mcp_approval_request"),
                "type": "mcp_approval_request",
                "server_label": self.label,
                "name": tool_name,
                "arguments": arguments,
            }
            events.add_item(request)
            return ToolResult(model_output=APPROVAL_NOTE, stop=True)
        item = await self.group.call(self, tool_name, arguments, events)
        return ToolResult(model_output=mapping.model_output(item))


class McpRun:
    """The MCP servers of one response run."""

    def __init__(self, run: Any, pool: SessionPool) -> None:
        self.run = run
        self.pool = pool
        self.servers: list[McpServerTool] = []
        self._prelude: asyncio.Task[None] | None = None

    async def prelude(self) -> bool:
        """Runs once for all servers (the first server's prelude does the work, the others wait)."""
        if self._prelude is None:
            self._prelude = asyncio.ensure_future(self._prepare())
        await self._prelude
        return False

    async def _prepare(self) -> None:
        # inputs too: a client that keeps its own state (store=false) echoes earlier output items
        known: list[dict[str, Any]] = self.run.p.history + self.run.p.inputs
        events: EventBuilder = self.run.events
        pending = []
        for server in self.servers:
            previous = _last_listing(known, server.label)
            if previous is not None:
                server.tools = [t for t in previous.get("tools") or [] if mapping.allowed(server.config, t)]
            else:
                pending.append(self._list(server, events))
        await asyncio.gather(*pending)
        self._assign_names()
        await self._answer_approvals(events)

    async def _list(self, server: McpServerTool, events: EventBuilder) -> None:
        item: dict[str, Any] = {
            "id": item_id("mcp_list_tools"),
            "type": "mcp_list_tools",
            "server_label": server.label,
            "tools": [],
            "error": None,
        }
        index = events.open_item(item)
        ref = {"item_id": item["id"], "output_index": index}
        events.emit("response.mcp_list_tools.in_progress", ref)
        try:
            listed = await self.pool.list_tools(server.spec)
        except McpFailure as exc:
            item["error"] = exc.message
            events.emit("response.mcp_list_tools.failed", ref)
        else:
            item["tools"] = [t for t in map(mapping.listed_tool, listed) if mapping.allowed(server.config, t)]
            server.tools = item["tools"]
            events.emit("response.mcp_list_tools.completed", ref)
        events.close_item(index)

    def _assign_names(self) -> None:
        taken: set[str] = set()
        for server in self.servers:
            server.names = {}
            for tool in server.tools:
                name = base = mapping.offered_name(server.label, tool["name"])
                n = 1
                while name in taken:  # only when sanitising two labels gives one name
                    n += 1
                    name = f"{base[: mapping.NAME_LIMIT - 4]}_{n}"
                taken.add(name)
                server.names[name] = tool["name"]

    async def _answer_approvals(self, events: EventBuilder) -> None:
        known = self.run.p.history + self.run.p.inputs
        requests = {i["id"]: i for i in known if i.get("type") == "mcp_approval_request"}
        done = {i.get("approval_request_id") for i in known if i.get("type") == "mcp_call"}
        by_label = {s.label: s for s in self.servers}
        work: list[tuple[dict[str, Any], McpServerTool, dict[str, Any]]] = []
        for answer in self.run.p.inputs:
            if answer.get("type") != "mcp_approval_response":
                continue
            request = requests.get(answer.get("approval_request_id"))
            if request is None or request["id"] in done or request.get("server_label") not in by_label:
                continue  # unknown, already answered, or for a server this request does not use
            done.add(request["id"])
            work.append((request, by_label[request["server_label"]], answer))
        if not work:
            return
        results = await asyncio.gather(*(self._answer(req, server, ans, events) for req, server, ans in work))
        context: list[dict[str, Any]] = self.run.context
        calls = [call for call, _ in results]
        outputs = [{"type": "function_call_output", "call_id": c["call_id"], "output": out} for c, out in results]
        context.extend(calls + outputs)  # one assistant turn with every call, then every result

    async def _answer(
        self, request: dict[str, Any], server: McpServerTool, answer: dict[str, Any], events: EventBuilder
    ) -> tuple[dict[str, Any], str]:
        name, arguments = str(request["name"]), str(request.get("arguments") or "{}")
        offered = next((o for o, n in server.names.items() if n == name), mapping.offered_name(server.label, name))
        if not answer.get("approve"):
            reason = f" Reason: {answer['reason']}" if answer.get("reason") else ""
            output = f"The user denied this call to {name}; it did not run.{reason}"
            call_id = str(request["id"])
        elif name not in server.names.values():
            output = f"Error: the tool {name} is not available on {server.label}; it did not run."
            call_id = str(request["id"])
        else:
            item = await self.call(server, name, arguments, events, approval_request_id=str(request["id"]))
            output, call_id = mapping.model_output(item), str(item["id"])
        call = {"type": "function_call", "call_id": call_id, "name": offered, "arguments": arguments}
        return call, output

    async def call(
        self,
        server: McpServerTool,
        name: str,
        arguments: str,
        events: EventBuilder,
        *,
        approval_request_id: str | None = None,
    ) -> dict[str, Any]:
        """Run one tool call as an `mcp_call` item, streaming its events; errors end up in the item."""
        item: dict[str, Any] = {
            "id": item_id("mcp_call"),
            "type": "mcp_call",
            "status": "in_progress",
            "server_label": server.label,
            "name": name,
            "arguments": "",
            "output": None,
            "error": None,
            "approval_request_id": approval_request_id,
        }
        index = events.open_item(item)
        ref = {"item_id": item["id"], "output_index": index}
        events.emit("response.mcp_call.in_progress", ref)
        events.emit("response.mcp_call_arguments.delta", {**ref, "delta": arguments})
        events.emit("response.mcp_call_arguments.done", {**ref, "arguments": arguments})
        item["arguments"] = arguments
        try:
            result = await self.pool.call_tool(server.spec, name, _parse_arguments(arguments))
            if result.is_error:
                raise execution_error(mapping.content_blocks(result))
            item["output"] = mapping.result_text(result)
        except McpFailure as exc:
            item["error"] = exc.error
            events.emit("response.mcp_call.failed", ref)
            events.close_item(index, "failed")
        else:
            events.emit("response.mcp_call.completed", ref)
            events.close_item(index, "completed")
        return item


def _parse_arguments(arguments: str) -> dict[str, Any]:
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        raise protocol_error(INVALID_PARAMS, "The tool arguments are not valid JSON.") from None
    if not isinstance(parsed, dict):
        raise protocol_error(INVALID_PARAMS, "The tool arguments must be a JSON object.")
    return parsed


def _last_listing(items: list[dict[str, Any]], label: str) -> dict[str, Any] | None:
    """The newest `mcp_list_tools` for `label` among earlier items, unless it failed."""
    for item in reversed(items):
        if item.get("type") == "mcp_list_tools" and item.get("server_label") == label:
            return None if item.get("error") else item
    return None


def run_group(run: Any, pool: SessionPool) -> McpRun:
    """The `McpRun` of a response run: the one its MCP tools built so far share, or a new one."""
    for tool in getattr(run, "server_tools", []):
        if isinstance(tool, McpServerTool):
            return tool.group
    return McpRun(run, pool)
