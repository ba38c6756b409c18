"""`tool_search`: tools the model loads when it needs them, as OpenAI's Responses API does.

A request may carry more tools than a model should read at once (an agent wired to several MCP
servers, a shared catalogue). Tools marked `defer_loading: true` are then kept out of the model's
context, and a `tool_search` tool lets the model ask for them by what they do:

- `execution: "server"` (the default, OpenAI's hosted search): the gateway searches the deferred
  tools (names, descriptions and parameter names against the query's words), records a
  `tool_search_call` and a `tool_search_output` item with the loaded definitions, and offers those
  tools from the next model turn on; the model calls them like any other tool.
- `execution: "client"` (bring your own search): the model's search comes back to the client as a
  `tool_search_call`, like a function call; the client answers with a `tool_search_output` input
  item carrying the tools it chose, which are offered from then on.

Loaded tools stay loaded for the rest of the conversation: every `tool_search_output` in the
context (history included) offers its tools. What the model sees of the two items on later turns is
a `tool_search` function call and its result (the names loaded), so any backend can follow.
Without a `tool_search` tool, `defer_loading` changes nothing: every tool is offered up front.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from gateway.common.ids import new_id
from gateway.engine.call_items import WholeArgumentsCallItem
from gateway.engine.events import EventBuilder
from gateway.tools.registry import ToolResult

NAME = "tool_search"
TOP_K = 5
DESCRIPTION = (
    "Find tools that are not loaded yet by describing what you need them to do. "
    "The matching tools are loaded and can be called from your next step."
)
QUERY_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "What the tool you need does, in a few words."}},
    "required": ["query"],
}
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


def _tool_text(tool: dict[str, Any]) -> str:
    """What a search matches a tool on: its name, description and parameter names (namespaces: theirs
    and their functions')."""
    parts = [str(tool.get("name") or ""), str(tool.get("description") or "")]
    properties = (tool.get("parameters") or {}).get("properties") or {}
    parts.extend(str(p) for p in properties)
    for inner in tool.get("tools") or []:
        parts.append(_tool_text(inner))
    return " ".join(parts)


def is_server_search(tool: dict[str, Any]) -> bool:
    """A `tool_search` the gateway runs (hosted), so the request needs the tool loop."""
    return tool.get("type") == NAME and tool.get("execution") != "client"


def loaded_in(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools earlier searches loaded: those of every `tool_search_output` in the context."""
    return [tool for item in items if item.get("type") == "tool_search_output" for tool in item.get("tools") or []]


@dataclass
class ToolSearch:
    """A request's `tool_search`: the tools it keeps back, those loaded so far, how searches run."""

    execution: str
    description: str
    parameters: dict[str, Any]
    deferred: list[dict[str, Any]]
    loaded: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_request(cls, tools: list[dict[str, Any]], context: list[dict[str, Any]]) -> ToolSearch | None:
        spec = next((t for t in tools if t.get("type") == NAME), None)
        if spec is None:
            return None
        return cls(
            execution="client" if spec.get("execution") == "client" else "server",
            description=str(spec.get("description") or DESCRIPTION),
            parameters=spec["parameters"] if isinstance(spec.get("parameters"), dict) else dict(QUERY_SCHEMA),
            deferred=[t for t in tools if t.get("defer_loading")],
            loaded=loaded_in(context),
        )

    def visible(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The request's tools the model may call now: those not deferred, then the loaded ones."""
        shown = [t for t in tools if not t.get("defer_loading") and t.get("type") != NAME]
        names = {t.get("name") for t in shown}
        for tool in self.loaded:
            if tool.get("name") not in names:
                names.add(tool.get("name"))
                shown.append({k: v for k, v in tool.items() if k != "defer_loading"})
        return shown

    def definition(self) -> dict[str, Any]:
        return {"type": "function", "name": NAME, "description": self.description, "parameters": self.parameters}

    def search(self, query: str) -> list[dict[str, Any]]:
        """The deferred tools not loaded yet that share the most words with the query (at most TOP_K)."""
        wanted = _words(query)
        loaded = {t.get("name") for t in self.loaded}
        scored = [
            (len(wanted & _words(_tool_text(tool))), i, tool)
            for i, tool in enumerate(self.deferred)
            if tool.get("name") not in loaded
        ]
        return [tool for score, _i, tool in sorted(scored, key=lambda s: (-s[0], s[1])) if score > 0][:TOP_K]


def _query(arguments: Any) -> str:
    if isinstance(arguments, dict):
        found = arguments.get("query")
        return found if isinstance(found, str) else " ".join(str(v) for v in arguments.values())
    return str(arguments or "")


def _arguments(raw: str) -> Any:
    try:
        return orjson.loads(raw or "{}")
    except orjson.JSONDecodeError:
        return {"query": raw}


class ServerToolSearch:
    """The hosted search as a server-side tool of the run: it answers the model's `tool_search` calls."""

    def __init__(self, search: ToolSearch, on_load: Callable[[], None]) -> None:
        self.search_state = search
        self.on_load = on_load  # the run re-reads its tools when a search loads some

    def definitions(self) -> list[dict[str, Any]]:
        return [self.search_state.definition()]

    def handles(self, name: str) -> bool:
        return name == NAME

    async def run(self, call: dict[str, Any], events: EventBuilder) -> ToolResult:
        arguments = _arguments(call.get("arguments", ""))
        found = self.search_state.search(_query(arguments))
        call_id = call.get("call_id")
        common = {"call_id": call_id, "execution": "server", "status": "completed"}
        for item in (
            {"id": new_id("tsc"), "type": "tool_search_call", "arguments": arguments, **common},
            {"id": new_id("tso"), "type": "tool_search_output", "tools": found, **common},
        ):
            events.close_item(events.open_item(item))
        self.search_state.loaded.extend(found)
        self.on_load()
        return ToolResult(model_output=loaded_text(found))


class ToolSearchCallItem(WholeArgumentsCallItem):
    """A client-executed search: the model's arguments go back to the client as a `tool_search_call`."""

    def __init__(self, events: EventBuilder, call_id: str) -> None:
        item = {"id": new_id("tsc"), "type": "tool_search_call", "status": "in_progress", "call_id": call_id}
        super().__init__(events, {**item, "execution": "client", "arguments": {}})

    def complete(self, raw: str) -> None:
        self.item["arguments"] = _arguments(raw)


def loaded_text(tools: list[dict[str, Any]]) -> str:
    names = [str(t.get("name")) for t in tools]
    return ("Loaded tools: " + ", ".join(names) + ".") if names else "No tool matched; nothing was loaded."


# -- history: what the model sees of these items on later turns ---------------------------------------
def replay_call(item: dict[str, Any]) -> list[dict[str, Any]]:
    arguments = item.get("arguments")
    text = arguments if isinstance(arguments, str) else orjson.dumps(arguments or {}).decode()
    return [{"type": "function_call", "call_id": item.get("call_id") or item["id"], "name": NAME, "arguments": text}]


def replay_output(item: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function_call_output",
            "call_id": item.get("call_id") or item["id"],
            "output": loaded_text(item.get("tools") or []),
        }
    ]


CONVERTERS = {"tool_search_call": replay_call, "tool_search_output": replay_output}
