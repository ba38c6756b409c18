"""OpenAI's current client tool types `shell` and `apply_patch`, on backends that only know functions.

Why: GPT-5.x clients (Codex among them) offer `tools: [{"type": "shell"}]` and
`[{"type": "apply_patch"}]` and expect the model's calls back as `shell_call` (an `action` with
`commands`, `timeout_ms`, `max_output_length`) and `apply_patch_call` (an `operation`:
`create_file` / `update_file` with a V4A `diff`, or `delete_file`) items, which they execute and
answer with `shell_call_output` / `apply_patch_call_output`. The backend (vLLM's chat API) only
knows function tools, so each is offered as a function of the same name; its arguments become the
item once they are whole, streamed with the item's own events (`response.shell_call_command.added`
/ `.delta` / `.done` per command; `response.apply_patch_call_operation_diff.delta` / `.done`). On
later turns these items replay to the model as the function calls and outputs it made and saw
(registry converters), so a conversation continues on any backend and through either door.
"""

from __future__ import annotations

from typing import Any

import orjson

from gateway.common.ids import new_id
from gateway.engine.call_items import WholeArgumentsCallItem
from gateway.engine.events import EventBuilder

SHELL = "shell"
APPLY_PATCH = "apply_patch"
TYPES = frozenset({SHELL, APPLY_PATCH})
OPERATIONS = ("create_file", "update_file", "delete_file")

SHELL_FUNCTION: dict[str, Any] = {
    "type": "function",
    "name": SHELL,
    "description": "Run shell commands on the user's machine. Each entry of `commands` is one command line; "
    "they run in order and their output comes back.",
    "parameters": {
        "type": "object",
        "properties": {
            "commands": {"type": "array", "items": {"type": "string"}, "description": "command lines to run"},
            "timeout_ms": {"type": "integer", "description": "time limit for the commands, in milliseconds"},
            "max_output_length": {"type": "integer", "description": "most characters of output to return"},
        },
        "required": ["commands"],
    },
}
APPLY_PATCH_FUNCTION: dict[str, Any] = {
    "type": "function",
    "name": APPLY_PATCH,
    "description": "Create, update or delete one file on the user's machine. For create_file and update_file, "
    "`diff` is a V4A diff: hunks starting with '@@', lines prefixed with ' ' (context), '-' (removed) or "
    "'+' (added); a new file's diff is its lines, each prefixed with '+'.",
    "parameters": {
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": list(OPERATIONS)},
            "path": {"type": "string", "description": "the file's path"},
            "diff": {"type": "string", "description": "the V4A diff (not for delete_file)"},
        },
        "required": ["type", "path"],
    },
}
FUNCTIONS: dict[str, dict[str, Any]] = {SHELL: SHELL_FUNCTION, APPLY_PATCH: APPLY_PATCH_FUNCTION}


def function_choice(choice: Any) -> Any:
    """`tool_choice: {"type": "shell"}` (or `apply_patch`) as the backend sees it: that function."""
    if isinstance(choice, dict) and choice.get("type") in TYPES:
        return {"type": "function", "name": choice["type"]}
    return choice


def _args(raw: str) -> dict[str, Any]:
    try:
        value = orjson.loads(raw or "{}")
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def shell_action(args: dict[str, Any]) -> dict[str, Any]:
    commands = args.get("commands", args.get("command"))
    if isinstance(commands, str):
        commands = [commands]
    return {
        "commands": [str(c) for c in commands] if isinstance(commands, list) else [],
        "timeout_ms": _int(args.get("timeout_ms")),
        "max_output_length": _int(args.get("max_output_length")),
    }


def patch_operation(args: dict[str, Any]) -> dict[str, Any]:
    kind = args.get("type") if args.get("type") in OPERATIONS else "update_file"
    operation: dict[str, Any] = {"type": kind, "path": str(args.get("path") or "")}
    if kind != "delete_file":
        operation["diff"] = str(args.get("diff") or "")
    return operation


class ShellCallItem(WholeArgumentsCallItem):
    """A `shell_call`: the commands the client runs, each announced with its own events."""

    def __init__(self, events: EventBuilder, call_id: str) -> None:
        super().__init__(
            events,
            {
                "id": new_id("sh"),
                "type": "shell_call",
                "status": "in_progress",
                "call_id": call_id,
                "action": {"commands": [], "timeout_ms": None, "max_output_length": None},
            },
        )

    def complete(self, raw: str) -> None:
        action = self.item["action"] = shell_action(_args(raw))
        for i, command in enumerate(action["commands"]):
            where = {"output_index": self.index, "command_index": i}
            self.events.emit("response.shell_call_command.added", {**where, "command": ""})
            if command:
                self.events.emit("response.shell_call_command.delta", {**where, "delta": command})
            self.events.emit("response.shell_call_command.done", {**where, "command": command})


class ApplyPatchCallItem(WholeArgumentsCallItem):
    """An `apply_patch_call`: one file operation, its diff streamed as the item's own events."""

    def __init__(self, events: EventBuilder, call_id: str) -> None:
        super().__init__(
            events,
            {
                "id": new_id("apc"),
                "type": "apply_patch_call",
                "status": "in_progress",
                "call_id": call_id,
                "operation": {"type": "update_file", "path": "", "diff": ""},
            },
        )

    def complete(self, raw: str) -> None:
        operation = self.item["operation"] = patch_operation(_args(raw))
        if "diff" in operation:
            where = {"item_id": self.id, "output_index": self.index}
            kind = "response.apply_patch_call_operation_diff"
            if operation["diff"]:
                self.events.emit(f"{kind}.delta", {**where, "delta": operation["diff"]})
            self.events.emit(f"{kind}.done", {**where, "diff": operation["diff"]})

    def close(self, status: str = "completed") -> None:
        # an apply_patch_call is "in_progress" or "completed" (no "incomplete" in its schema)
        super().close("completed" if status == "incomplete" else status)


# -- history: what the model sees of these items on later turns ---------------------------------------
def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    args = {k: v for k, v in arguments.items() if v is not None}
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": orjson.dumps(args).decode()}


def _output(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def replay_shell_call(item: dict[str, Any]) -> list[dict[str, Any]]:
    return [_call(item["call_id"], SHELL, dict(item.get("action") or {}))]


def shell_output_text(item: dict[str, Any]) -> str:
    """The client's results as the model reads them: per command, its outcome, stdout and stderr."""
    parts = []
    for chunk in item.get("output") or []:
        outcome = chunk.get("outcome") or {}
        head = "timed out" if outcome.get("type") == "timeout" else f"exit code {outcome.get('exit_code')}"
        text = head
        if chunk.get("stdout"):
            text += f"\nstdout:\n{chunk['stdout']}"
        if chunk.get("stderr"):
            text += f"\nstderr:\n{chunk['stderr']}"
        parts.append(text)
    return "\n\n".join(parts)


def replay_shell_output(item: dict[str, Any]) -> list[dict[str, Any]]:
    return [_output(item["call_id"], shell_output_text(item))]


def replay_patch_call(item: dict[str, Any]) -> list[dict[str, Any]]:
    return [_call(item["call_id"], APPLY_PATCH, dict(item.get("operation") or {}))]


def replay_patch_output(item: dict[str, Any]) -> list[dict[str, Any]]:
    text = str(item.get("status") or "completed")
    if item.get("output"):
        text += f": {item['output']}"
    return [_output(item["call_id"], text)]


CONVERTERS = {
    "shell_call": replay_shell_call,
    "shell_call_output": replay_shell_output,
    "apply_patch_call": replay_patch_call,
    "apply_patch_call_output": replay_patch_output,
}
