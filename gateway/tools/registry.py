"""The registry of server-side tool types.

A request's `tools` entry of a registered type (file_search, mcp, web_search, …) becomes a
`ServerTool` for that request: it offers function definitions to the model, and when the model calls
one of them the engine runs it server-side (concurrently with the other calls of the same turn)
instead of returning the call to the client. `function` tools are the client's and never run here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from gateway.common.errors import InvalidRequest
from gateway.engine.events import EventBuilder
from gateway.tools.client_tools import CLIENT_TYPES, check_client_tool


@dataclass(slots=True)
class ToolResult:
    """What one server-side call produced for the model.

    Its visible items (e.g. a `file_search_call`) are already out as events by the time it returns;
    `model_output` is the text the model sees as the call's result on the next turn.
    """

    model_output: str
    # End the loop after this turn (e.g. an MCP call waits for the client's approval).
    stop: bool = False


class ServerTool(Protocol):
    def definitions(self) -> list[dict[str, Any]]:
        """Responses-style function tools offered to the model for this tool."""
        ...

    def handles(self, name: str) -> bool: ...

    async def run(self, call: dict[str, Any], events: EventBuilder) -> ToolResult: ...


@runtime_checkable
class ServerToolPrelude(Protocol):
    """Optional: work a tool does before the first model turn (e.g. list MCP tools, run calls the
    client approved). It may emit items and extend `run.context`; returning True ends the loop."""

    async def prelude(self, run: Any) -> bool: ...


ToolFactory = Callable[[dict[str, Any], Any], Awaitable[ServerTool]]
# Converts a stored server-side item back into (function_call, function_call_output) items for the
# model's context on later turns.
ItemConverter = Callable[[dict[str, Any]], list[dict[str, Any]]]
# Checks one `tools[index]` entry of a registered type before any output (it may read storage, e.g. an
# MCP connector) and returns the entry as the Response object shows it (credentials redacted). The
# last argument is a dict shared by the checks of one request, so a check that compares entries (a
# duplicate label) or repeats work (resolving the same host) stays linear in the number of tools.
ToolChecker = Callable[[dict[str, Any], int, list[dict[str, Any]], dict[str, Any]], Awaitable[dict[str, Any]]]


class ToolRegistry:
    def __init__(self) -> None:
        self._factories: dict[str, ToolFactory] = {}
        self.converters: dict[str, ItemConverter] = {}
        self._checkers: dict[str, ToolChecker] = {}

    def register(
        self,
        tool_type: str,
        factory: ToolFactory,
        converter: ItemConverter | None = None,
        item_type: str | None = None,
        checker: ToolChecker | None = None,
    ) -> None:
        self._factories[tool_type] = factory
        if converter is not None and item_type is not None:
            self.converters[item_type] = converter
        if checker is not None:
            self._checkers[tool_type] = checker

    async def check(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Run the async checks of registered types; returns the tools as the Response shows them."""
        out = []
        shared: dict[str, Any] = {}
        for i, tool in enumerate(tools):
            checker = self._checkers.get(tool.get("type", ""))
            out.append(await checker(tool, i, tools, shared) if checker is not None else tool)
        return out

    def validate(self, tools: list[dict[str, Any]]) -> None:
        for i, tool in enumerate(tools):
            if not isinstance(tool, dict):
                raise InvalidRequest(f"Invalid type for 'tools[{i}]': expected an object.", param=f"tools[{i}]")
            ttype = tool.get("type")
            if ttype == "function":
                if not isinstance(tool.get("name"), str) or not tool["name"]:
                    raise InvalidRequest(
                        f"Missing required parameter: 'tools[{i}].name'.",
                        param=f"tools[{i}].name",
                        code="missing_required_parameter",
                    )
                params = tool.get("parameters")
                if params is not None and not isinstance(params, dict):
                    raise InvalidRequest(
                        f"Invalid type for 'tools[{i}].parameters': expected an object.",
                        param=f"tools[{i}].parameters",
                        code="invalid_type",
                    )
            elif ttype in CLIENT_TYPES:
                check_client_tool(tool, i)
            elif ttype not in self._factories:
                raise InvalidRequest(
                    f"Tool type '{ttype}' is not supported by this gateway.",
                    param=f"tools[{i}].type",
                    code="unsupported_tool_type",
                )

    def is_server_side(self, tool: dict[str, Any]) -> bool:
        return tool.get("type") in self._factories

    async def build(self, tool: dict[str, Any], context: Any) -> ServerTool:
        return await self._factories[tool["type"]](tool, context)

    def expand(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Replace stored server-side items by what the model should see of them."""
        if not self.converters:
            return items
        out: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        for item in items:
            convert = self.converters.get(item.get("type", ""))
            if convert is None:
                out.extend(calls + results)
                calls, results = [], []
                out.append(item)
                continue
            # consecutive server-side items were one parallel turn: all calls first, then all results
            for converted in convert(item):
                (calls if converted.get("type") == "function_call" else results).append(converted)
        out.extend(calls + results)
        return out
