"""Validate and normalise input items into their stored form.

Every item a client sends is checked here, with a precise `param` path for errors, and given the
shape OpenAI returns from `input_items.list` (messages always carry a content-part list, every item
has an id). Later layers can then trust the shape and stay branch-free.
"""

from __future__ import annotations

from typing import Any

from gateway.api_models import shell_items
from gateway.api_models.checks import bad as _bad
from gateway.api_models.checks import require_str as _require_str
from gateway.common.ids import item_id, require_id

USER_ROLES = frozenset({"user", "system", "developer"})
INPUT_PART_TYPES = frozenset({"input_text", "input_image", "input_file", "input_audio"})
OUTPUT_PART_TYPES = frozenset({"output_text", "refusal"})
# Items produced by server-side tools: accepted back as input (clients echo `response.output`).
ECHO_TYPES = frozenset({"file_search_call", "web_search_call", "mcp_list_tools", "mcp_call", "mcp_approval_request"})


def _string_or_absent(value: Any, param: str) -> None:
    """Fields compared against known values must be strings: a list or object is a 400, not a crash."""
    if value is not None and not isinstance(value, str):
        raise _bad(f"Invalid type for '{param}': expected a string.", param, "invalid_type")


def _parts(content: Any, role: str, param: str) -> list[dict[str, Any]]:
    allowed = OUTPUT_PART_TYPES if role == "assistant" else INPUT_PART_TYPES
    if isinstance(content, str):
        if role == "assistant":
            return [{"type": "output_text", "text": content, "annotations": [], "logprobs": []}]
        return [{"type": "input_text", "text": content}]
    if not isinstance(content, list):
        raise _bad(
            f"Invalid type for '{param}.content': expected a string or an array of content parts.",
            f"{param}.content",
            "invalid_type",
        )
    parts = []
    for i, part in enumerate(content):
        p = f"{param}.content[{i}]"
        if not isinstance(part, dict):
            raise _bad(f"Invalid type for '{p}': expected an object.", p, "invalid_type")
        ptype = part.get("type")
        _string_or_absent(ptype, f"{p}.type")
        if ptype not in allowed:
            raise _bad(
                f"Invalid value: '{ptype}'. Supported values for a {role} message are: "
                + ", ".join(f"'{t}'" for t in sorted(allowed))
                + ".",
                f"{p}.type",
            )
        if ptype in ("input_text", "output_text"):
            _require_str(part, "text", p)
        elif ptype == "refusal":
            _require_str(part, "refusal", p)
        elif ptype == "input_image" and not (part.get("image_url") or part.get("file_id")):
            raise _bad(f"'{p}' needs 'image_url' or 'file_id'.", p, "missing_required_parameter")
        elif ptype == "input_file" and not (part.get("file_data") or part.get("file_id") or part.get("file_url")):
            raise _bad(f"'{p}' needs 'file_data', 'file_id' or 'file_url'.", p, "missing_required_parameter")
        if ptype == "output_text":
            part = {"annotations": [], "logprobs": [], **part}
        parts.append(part)
    return parts


def _message(item: dict[str, Any], param: str) -> dict[str, Any]:
    role = item.get("role")
    _string_or_absent(role, f"{param}.role")
    if role not in USER_ROLES and role != "assistant":
        raise _bad(
            f"Invalid value: '{role}'. Supported values are: 'user', 'assistant', 'system' and 'developer'.",
            f"{param}.role",
        )
    if "content" not in item:
        raise _bad(f"Missing required parameter: '{param}.content'.", f"{param}.content", "missing_required_parameter")
    return {
        "id": item.get("id") or item_id("message"),
        "type": "message",
        "role": role,
        "content": _parts(item["content"], role, param),
        "status": item.get("status") or "completed",
    }


def _output_text(output: Any, param: str) -> Any:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return [p for p in _parts(output, "user", param.rsplit(".", 1)[0])] if output else output
    raise _bad(f"Invalid type for '{param}': expected a string or an array.", param, "invalid_type")


def normalize_item(item: Any, param: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise _bad(f"Invalid type for '{param}': expected an object.", param, "invalid_type")
    itype = item.get("type")
    _string_or_absent(itype, f"{param}.type")
    _string_or_absent(item.get("id"), f"{param}.id")
    if item.get("id") is not None:  # an id is looked up (references, dedup): short and plain (#26)
        require_id(item["id"], f"{param}.id")
    if itype is None and "role" in item:
        itype = "message"
    if itype is None and "id" in item:
        itype = "item_reference"
    if itype == "message":
        return _message(item, param)
    if itype == "function_call":
        call = {
            "id": item.get("id") or item_id("function_call"),
            "type": "function_call",
            "call_id": _require_str(item, "call_id", param),
            "name": _require_str(item, "name", param),
            "arguments": _require_str(item, "arguments", param),
            "status": item.get("status") or "completed",
        }
        _string_or_absent(item.get("namespace"), f"{param}.namespace")
        if item.get("namespace"):  # a function of a `namespace` tool (Codex's MCP tools): kept, stored
            call["namespace"] = item["namespace"]
        return call
    if itype == "function_call_output":
        if "output" not in item:
            raise _bad(
                f"Missing required parameter: '{param}.output'.", f"{param}.output", "missing_required_parameter"
            )
        return {
            "id": item.get("id") or item_id("function_call_output"),
            "type": "function_call_output",
            "call_id": _require_str(item, "call_id", param),
            "output": _output_text(item["output"], f"{param}.output"),
            "status": item.get("status") or "completed",
        }
    if itype == "reasoning":
        out = {"id": item.get("id") or item_id("reasoning"), "type": "reasoning", "summary": item.get("summary") or []}
        for key in ("content", "encrypted_content", "status"):
            if item.get(key) is not None:
                out[key] = item[key]
        return out
    if itype == "item_reference":
        return {"type": "item_reference", "id": _require_str(item, "id", param)}
    if itype == "custom_tool_call":
        out = {
            "id": item.get("id") or item_id("custom_tool_call"),
            "type": "custom_tool_call",
            "call_id": _require_str(item, "call_id", param),
            "name": _require_str(item, "name", param),
            "input": _require_str(item, "input", param),
            "status": item.get("status") or "completed",
        }
        if isinstance(item.get("namespace"), str):
            out["namespace"] = item["namespace"]
        return out
    if itype == "custom_tool_call_output":
        if "output" not in item:
            raise _bad(
                f"Missing required parameter: '{param}.output'.", f"{param}.output", "missing_required_parameter"
            )
        return {
            "id": item.get("id") or item_id("custom_tool_call_output"),
            "type": "custom_tool_call_output",
            "call_id": _require_str(item, "call_id", param),
            "output": _output_text(item["output"], f"{param}.output"),
        }
    if itype == "local_shell_call":
        action = item.get("action")
        if not isinstance(action, dict) or not isinstance(action.get("command"), list):
            raise _bad(f"'{param}.action' must be an exec action with a 'command' array.", f"{param}.action")
        return {
            "id": item.get("id") or item_id("local_shell_call"),
            "type": "local_shell_call",
            "call_id": _require_str(item, "call_id", param),
            "action": action,
            "status": item.get("status") or "completed",
        }
    if itype == "local_shell_call_output":
        return {
            "id": _require_str(item, "id", param),
            "type": "local_shell_call_output",
            "output": _require_str(item, "output", param),
            "status": item.get("status") or "completed",
        }
    if itype in ("tool_search_call", "tool_search_output"):
        return _tool_search_item(item, itype, param)
    if itype == "compaction":  # from /v1/responses/compact; decoded (and checked) when replayed
        return {
            "id": item.get("id") or item_id("compaction"),
            "type": "compaction",
            "encrypted_content": _require_str(item, "encrypted_content", param),
        }
    if itype in shell_items.NORMALIZERS:  # the `shell` and `apply_patch` tools' calls and outputs
        return shell_items.NORMALIZERS[itype](item, param)
    if itype == "compaction_trigger":  # a control signal, taken out of the input in prepare: never stored
        return {"type": "compaction_trigger"}
    if itype == "mcp_approval_response":
        if not isinstance(item.get("approve"), bool):
            raise _bad(f"'{param}.approve' must be a boolean.", f"{param}.approve", "invalid_type")
        return {
            "id": item.get("id") or item_id("mcp_approval_response"),
            "type": "mcp_approval_response",
            "approval_request_id": _require_str(item, "approval_request_id", param),
            "approve": item["approve"],
            "reason": item.get("reason"),
        }
    if itype in ECHO_TYPES:
        return {**item, "id": item.get("id") or item_id(itype)}
    raise _bad(f"Invalid value: '{itype}'. Unsupported input item type.", f"{param}.type", "invalid_value")


def normalize_input(value: str | list[Any] | None, param: str = "input") -> list[dict[str, Any]]:
    """The request's `input` as stored items (a bare string is one user message)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [
            {
                "id": item_id("message"),
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": value}],
                "status": "completed",
            }
        ]
    return [normalize_item(item, f"{param}[{i}]") for i, item in enumerate(value)]


def _tool_search_item(item: dict[str, Any], itype: str, param: str) -> dict[str, Any]:
    """A `tool_search_call` replayed, or the `tool_search_output` a client answers its search with:
    its `tools` are loaded (offered to the model) from then on."""
    execution = item.get("execution") or "client"
    if execution not in ("server", "client"):
        raise _bad(f"Invalid value for '{param}.execution': expected 'server' or 'client'.", f"{param}.execution")
    out: dict[str, Any] = {
        "id": item.get("id") or item_id(itype),
        "type": itype,
        "call_id": item.get("call_id"),
        "execution": execution,
        "status": item.get("status") or "completed",
    }
    if itype == "tool_search_call":
        arguments = item.get("arguments")
        if not isinstance(arguments, (dict, str)):
            raise _bad(f"'{param}.arguments' must be an object.", f"{param}.arguments", "invalid_type")
        out["arguments"] = arguments
        return out
    tools = item.get("tools")
    if not isinstance(tools, list) or not all(
        isinstance(t, dict) and isinstance(t.get("name"), str) and t.get("type") in ("function", "namespace", "custom")
        for t in tools
    ):
        raise _bad(
            f"'{param}.tools' must be an array of function, namespace or custom tools, each with a name.",
            f"{param}.tools",
            "invalid_type",
        )
    out["tools"] = tools
    return out
