"""Client-executed tools beyond plain functions: `custom`, `local_shell` and `namespace` (Codex CLI).

Why one module: the backend (vLLM's chat API) only knows function tools, so each kind is offered
to the model as a function and its call comes back to the client as the item type OpenAI uses.
- `custom` (free-form input, e.g. Codex's `apply_patch` with a grammar): a function taking one
  string `input`; the grammar or description is passed as guidance. Its call is a
  `custom_tool_call` with `input`, streamed as `response.custom_tool_call_input.delta/.done`.
- `local_shell`: a function `local_shell` taking the exec action (`command` as an argv array,
  `working_directory`, `timeout_ms`, `env`, `user`); its call is a `local_shell_call` with `action`.
- `namespace`: its function (and custom) tools flattened as `<namespace>__<name>` (stable, the same
  on every turn); a call comes back under its own name with `namespace` set.
History items of these kinds are replayed to the model as function calls and outputs (registry
converters), so a conversation continues on any backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from gateway.common.errors import InvalidRequest
from gateway.common.ids import new_id
from gateway.engine.call_items import WholeArgumentsCallItem, json_args
from gateway.engine.events import EventBuilder
from gateway.tools.shell_tools import FUNCTIONS

SEP = "__"
SHELL = "local_shell"
SHELL_DESCRIPTION = "Run a command on the user's machine; `command` is its argv."
_INPUT_SCHEMA = {
    "type": "object",
    "properties": {"input": {"type": "string", "description": "The tool's whole input, as free-form text."}},
    "required": ["input"],
}
_SHELL_SCHEMA = {
    "type": "object",
    "properties": {
        "command": {"type": "array", "items": {"type": "string"}, "description": "argv of the command to run"},
        "working_directory": {"type": "string"},
        "timeout_ms": {"type": "integer"},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
        "user": {"type": "string"},
    },
    "required": ["command"],
}
# `tool_search` lets a model load tools marked `defer_loading` when it needs them
# (`gateway/tools/tool_search.py`).
# `shell` and `apply_patch` (OpenAI's current client tools) live in `gateway/tools/shell_tools.py`.
CLIENT_TYPES = frozenset({"custom", "local_shell", "namespace", "tool_search", "shell", "apply_patch"})


def check_client_tool(tool: dict[str, Any], index: int) -> None:
    """Static checks of a `custom`, `local_shell` or `namespace` entry of `tools` (400s)."""

    p = f"tools[{index}]"

    def named(entry: dict[str, Any], param: str) -> None:
        if not isinstance(entry.get("name"), str) or not entry["name"]:
            raise InvalidRequest(
                f"Missing required parameter: '{param}.name'.", param=f"{param}.name", code="missing_required_parameter"
            )

    kind = tool.get("type")
    if kind == "tool_search" and tool.get("execution") not in (None, "server", "client"):
        raise InvalidRequest(
            f"Invalid value for '{p}.execution': expected 'server' or 'client'.", param=f"{p}.execution"
        )
    if kind == "custom":
        named(tool, p)
    elif kind == "shell" and (tool.get("environment") or {}).get("type") not in (None, "local"):
        raise InvalidRequest(
            f"Invalid value for '{p}.environment': only a 'local' shell (run by the client) is supported.",
            param=f"{p}.environment.type",
            code="unsupported_tool_type",
        )
    elif kind == "namespace":
        named(tool, p)
        inner = tool.get("tools")
        if not isinstance(inner, list) or not inner:
            raise InvalidRequest(f"'{p}.tools' must be a non-empty array of tools.", param=f"{p}.tools")
        for j, entry in enumerate(inner):
            if not isinstance(entry, dict) or entry.get("type") not in ("function", "custom"):
                raise InvalidRequest(
                    f"'{p}.tools[{j}]' must be a function or custom tool.", param=f"{p}.tools[{j}].type"
                )
            named(entry, f"{p}.tools[{j}]")


@dataclass(frozen=True)
class Offered:
    kind: str  # "function" | "custom" | "local_shell" | "shell" | "apply_patch" | "tool_search" (client-executed)
    name: str  # the name the client knows
    namespace: str | None = None


@dataclass
class ClientTools:
    """The request's client tools as the model sees them, and how to read its calls back."""

    definitions: list[dict[str, Any]] = field(default_factory=list)
    by_function: dict[str, Offered] = field(default_factory=dict)

    @classmethod
    def from_request(cls, tools: list[dict[str, Any]]) -> ClientTools:
        out = cls()
        for tool in tools:
            kind = tool.get("type")
            if kind == "custom":
                out._add_custom(tool, None)
            elif kind == "local_shell":
                out._offer(SHELL, Offered("local_shell", SHELL), SHELL_DESCRIPTION, _SHELL_SCHEMA)
            elif kind in ("shell", "apply_patch"):
                fn = FUNCTIONS[kind]
                out._offer(fn["name"], Offered(kind, fn["name"]), fn["description"], fn["parameters"])
            elif kind == "namespace":
                ns = str(tool.get("name") or "")
                for inner in tool.get("tools") or []:
                    if inner.get("type") == "custom":
                        out._add_custom(inner, ns)
                    elif inner.get("type") == "function":
                        described = inner.get("description") or tool.get("description") or ""
                        params = inner.get("parameters") or {"type": "object", "properties": {}}
                        out._offer(
                            f"{ns}{SEP}{inner['name']}", Offered("function", inner["name"], ns), described, params
                        )
        return out

    def _add_custom(self, tool: dict[str, Any], ns: str | None) -> None:
        name = str(tool["name"])
        guide = tool.get("description") or ""
        fmt = tool.get("format") or {}
        if fmt.get("type") == "grammar":
            guide += f"\nThe input must follow this {fmt.get('syntax', '')} grammar:\n{fmt.get('definition', '')}"
        function = f"{ns}{SEP}{name}" if ns else name
        self._offer(function, Offered("custom", name, ns), guide.strip(), _INPUT_SCHEMA)

    def _offer(self, function: str, offered: Offered, description: str, parameters: dict[str, Any]) -> None:
        self.by_function[function] = offered
        self.definitions.append(
            {"type": "function", "name": function, "description": description, "parameters": parameters}
        )

    def offer_search(self, definition: dict[str, Any]) -> None:
        """A client-executed `tool_search`: the model's calls go back to the client as searches."""
        name = str(definition["name"])
        self._offer(name, Offered("tool_search", name), definition["description"], definition["parameters"])

    def lookup(self, function: str | None) -> Offered | None:
        return self.by_function.get(function or "")


class CustomToolCallItem:
    """A call of a custom tool: its input arrives as the function's JSON arguments and leaves as text."""

    def __init__(self, events: EventBuilder, call_id: str, offered: Offered) -> None:
        self.events = events
        self.id = new_id("ctc")
        self.item: dict[str, Any] = {
            "id": self.id,
            "type": "custom_tool_call",
            "status": "in_progress",
            "call_id": call_id,
            "name": offered.name,
            "input": "",
        }
        if offered.namespace:
            self.item["namespace"] = offered.namespace
        self.index = events.open_item(self.item)
        self.chunks: list[str] = []

    def delta(self, text: str) -> None:
        self.chunks.append(text)  # JSON of {"input": ...}: the text is known once it is whole

    def close(self, status: str = "completed") -> None:
        raw = "".join(self.chunks)
        found = json_args(raw).get("input")
        text = found if isinstance(found, str) else raw
        self.item["input"] = text
        common = {"item_id": self.id, "output_index": self.index}
        if text:
            self.events.emit("response.custom_tool_call_input.delta", {**common, "delta": text})
        self.events.emit("response.custom_tool_call_input.done", {**common, "input": text})
        self.events.close_item(self.index, status)


class LocalShellCallItem(WholeArgumentsCallItem):
    """A `local_shell` call: the exec action the client runs."""

    def __init__(self, events: EventBuilder, call_id: str) -> None:
        super().__init__(
            events,
            {
                "id": new_id("lsh"),
                "type": "local_shell_call",
                "status": "in_progress",
                "call_id": call_id,
                "action": {"type": "exec", "command": [], "env": {}},
            },
        )

    def complete(self, raw: str) -> None:
        args = json_args(raw)
        command = args.get("command")
        if isinstance(command, str):
            command = ["bash", "-lc", command]
        action: dict[str, Any] = {
            "type": "exec",
            "command": [str(c) for c in command] if isinstance(command, list) else [],
            "env": {str(k): str(v) for k, v in (args.get("env") or {}).items()},
        }
        for key in ("working_directory", "timeout_ms", "user"):
            if args.get(key) is not None:
                action[key] = args[key]
        self.item["action"] = action


# -- history: what the model sees of these items on later turns ---------------------------------------
def _function_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": orjson.dumps(arguments).decode()}


def _output(call_id: str, output: Any) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def as_offered(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """History as the model was offered it: a namespaced function call under its flattened name
    (`<namespace>__<name>`), so the model never sees a tool name it was not given."""
    out = []
    for item in items:
        if item.get("type") == "function_call" and item.get("namespace"):
            flat = {k: v for k, v in item.items() if k != "namespace"}
            flat["name"] = f"{item['namespace']}{SEP}{item['name']}"
            item = flat
        out.append(item)
    return out


def replay_custom_call(item: dict[str, Any]) -> list[dict[str, Any]]:
    name = f"{item['namespace']}{SEP}{item['name']}" if item.get("namespace") else item["name"]
    return [_function_call(item["call_id"], name, {"input": item.get("input", "")})]


def replay_custom_output(item: dict[str, Any]) -> list[dict[str, Any]]:
    return [_output(item["call_id"], item.get("output", ""))]


def replay_shell_call(item: dict[str, Any]) -> list[dict[str, Any]]:
    action = {k: v for k, v in (item.get("action") or {}).items() if k != "type"}
    return [_function_call(item.get("call_id") or item["id"], SHELL, action)]


def replay_shell_output(item: dict[str, Any]) -> list[dict[str, Any]]:
    # OpenAI's local_shell_call_output names its call by `id` (the model's call id)
    return [_output(item.get("call_id") or item["id"], item.get("output", ""))]


CONVERTERS = {
    "custom_tool_call": replay_custom_call,
    "custom_tool_call_output": replay_custom_output,
    "local_shell_call": replay_shell_call,
    "local_shell_call_output": replay_shell_output,
}
