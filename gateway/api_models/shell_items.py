"""Input items of the `shell` and `apply_patch` tools: the calls a client sends back and its outputs.

Why a module of its own: their shapes are nested (a shell output per command with an outcome; a
patch operation of three kinds), and every field a later turn reads is checked here, with a precise
`param`, so replaying them (`gateway/tools/shell_tools.py`) can trust them.
"""

from __future__ import annotations

from typing import Any

from gateway.api_models.checks import bad as _bad
from gateway.api_models.checks import require_str as _str
from gateway.common.ids import item_id

OPERATIONS = ("create_file", "update_file", "delete_file")


def _opt_int(item: dict[str, Any], key: str, param: str) -> int | None:
    value = item.get(key)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise _bad(f"Invalid type for '{param}.{key}': expected an integer.", f"{param}.{key}", "invalid_type")
    return value


def _status(item: dict[str, Any], param: str, allowed: tuple[str, ...], default: str) -> str:
    status = item.get("status") or default
    if status not in allowed:
        raise _bad(f"Invalid value for '{param}.status': expected one of {', '.join(allowed)}.", f"{param}.status")
    return str(status)


def shell_call(item: dict[str, Any], param: str) -> dict[str, Any]:
    action = item.get("action")
    if not isinstance(action, dict):
        raise _bad(f"Missing required parameter: '{param}.action'.", f"{param}.action", "missing_required_parameter")
    commands = action.get("commands")
    if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
        where = f"{param}.action.commands"
        raise _bad(f"'{where}' must be an array of strings.", where, "invalid_type")
    return {
        "id": item.get("id") or item_id("shell_call"),
        "type": "shell_call",
        "call_id": _str(item, "call_id", param),
        "action": {
            "commands": commands,
            "timeout_ms": _opt_int(action, "timeout_ms", f"{param}.action"),
            "max_output_length": _opt_int(action, "max_output_length", f"{param}.action"),
        },
        "status": _status(item, param, ("in_progress", "completed", "incomplete"), "completed"),
    }


def shell_call_output(item: dict[str, Any], param: str) -> dict[str, Any]:
    output = item.get("output")
    if not isinstance(output, list):
        raise _bad(f"'{param}.output' must be an array of command results.", f"{param}.output", "invalid_type")
    results = []
    for i, chunk in enumerate(output):
        p = f"{param}.output[{i}]"
        if not isinstance(chunk, dict):
            raise _bad(f"Invalid type for '{p}': expected an object.", p, "invalid_type")
        outcome = chunk.get("outcome")
        if not isinstance(outcome, dict) or outcome.get("type") not in ("exit", "timeout"):
            raise _bad(f"'{p}.outcome' must be an exit or a timeout outcome.", f"{p}.outcome")
        if outcome["type"] == "exit" and (
            not isinstance(outcome.get("exit_code"), int) or isinstance(outcome.get("exit_code"), bool)
        ):
            raise _bad(f"'{p}.outcome.exit_code' must be an integer.", f"{p}.outcome.exit_code", "invalid_type")
        results.append(
            {
                "stdout": _str(chunk, "stdout", p),
                "stderr": _str(chunk, "stderr", p),
                "outcome": {k: outcome[k] for k in ("type", "exit_code") if k in outcome},
            }
        )
    return {
        "id": item.get("id") or item_id("shell_call_output"),
        "type": "shell_call_output",
        "call_id": _str(item, "call_id", param),
        "output": results,
        "max_output_length": _opt_int(item, "max_output_length", param),
        "status": _status(item, param, ("in_progress", "completed", "incomplete"), "completed"),
    }


def apply_patch_call(item: dict[str, Any], param: str) -> dict[str, Any]:
    operation = item.get("operation")
    p = f"{param}.operation"
    if not isinstance(operation, dict) or operation.get("type") not in OPERATIONS:
        raise _bad(f"'{p}' must be a create_file, update_file or delete_file operation.", f"{p}.type")
    op: dict[str, Any] = {"type": operation["type"], "path": _str(operation, "path", p)}
    if operation["type"] != "delete_file":
        op["diff"] = _str(operation, "diff", p)
    return {
        "id": item.get("id") or item_id("apply_patch_call"),
        "type": "apply_patch_call",
        "call_id": _str(item, "call_id", param),
        "operation": op,
        "status": _status(item, param, ("in_progress", "completed"), "completed"),
    }


def apply_patch_call_output(item: dict[str, Any], param: str) -> dict[str, Any]:
    output = item.get("output")
    if output is not None and not isinstance(output, str):
        raise _bad(f"Invalid type for '{param}.output': expected a string.", f"{param}.output", "invalid_type")
    return {
        "id": item.get("id") or item_id("apply_patch_call_output"),
        "type": "apply_patch_call_output",
        "call_id": _str(item, "call_id", param),
        "status": _status(item, param, ("completed", "failed"), "completed"),
        "output": output,
    }


NORMALIZERS = {
    "shell_call": shell_call,
    "shell_call_output": shell_call_output,
    "apply_patch_call": apply_patch_call,
    "apply_patch_call_output": apply_patch_call_output,
}
