"""MCP tool configuration and the pure mappings between MCP and the model.

- `check_config`: validates a request's `{"type": "mcp", ...}` entry before any output (OpenAI error
  bodies with precise `param`s) and gives the form the Response object shows (credentials redacted).
- Tool names: the model sees `<server_label>__<tool>` so names stay unique across servers; the
  mapping is deterministic, so stored `mcp_call` items replay under the same name on later turns.
- `allowed_tools` / `require_approval` filters, as OpenAI's `Mcp` tool type defines them.
- Items: `mcp_list_tools` tools as OpenAI shows them, and what the model reads of an `mcp_call`.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from gateway.common.errors import InvalidRequest
from gateway.common.ids import require_id
from gateway.common.redact import redact_url

NAME_LIMIT = 64  # what OpenAI-compatible backends accept for a function name
REDACTED = "[redacted]"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def offered_name(server_label: str, tool: str) -> str:
    """The function name the model sees for `tool` on `server_label`."""
    name = _UNSAFE.sub("_", f"{server_label}__{tool}")
    if len(name) > NAME_LIMIT:
        digest = hashlib.sha256(name.encode()).hexdigest()[:8]
        name = f"{name[: NAME_LIMIT - 9]}_{digest}"
    return name


# -- filters -------------------------------------------------------------------------------------
def _read_only(tool: dict[str, Any]) -> bool:
    return bool((tool.get("annotations") or {}).get("readOnlyHint"))


def _matches(flt: Any, tool: dict[str, Any]) -> bool:
    """An `McpToolFilter` ({tool_names, read_only}): every condition given must hold."""
    if not isinstance(flt, dict):
        return False
    names, read_only = flt.get("tool_names"), flt.get("read_only")
    if names is None and read_only is None:
        return False
    if names is not None and tool["name"] not in names:
        return False
    return read_only is None or _read_only(tool) == read_only


def allowed(config: dict[str, Any], tool: dict[str, Any]) -> bool:
    spec = config.get("allowed_tools")
    if spec is None:
        return True
    if isinstance(spec, list):
        return tool["name"] in spec
    return _matches(spec, tool) or (spec.get("tool_names") is None and spec.get("read_only") is None)


def needs_approval(config: dict[str, Any], tool: dict[str, Any]) -> bool:
    """OpenAI's default is to ask. With filters, a tool matching `always` asks and one matching `never`
    does not; any other tool asks unless only an `always` filter was given (it names the exceptions)."""
    spec = config.get("require_approval")
    if spec is None or spec == "always":
        return True
    if spec == "never":
        return False
    if _matches(spec.get("always"), tool):
        return True
    if _matches(spec.get("never"), tool):
        return False
    return not (spec.get("always") is not None and spec.get("never") is None)


# -- validation ----------------------------------------------------------------------------------
def _bad(message: str, param: str, code: str = "invalid_value") -> InvalidRequest:
    return InvalidRequest(message, param=param, code=code)


def _check_filter(value: Any, param: str) -> None:
    if not isinstance(value, dict):
        raise _bad(f"Invalid type for '{param}': expected an object.", param, "invalid_type")
    names = value.get("tool_names")
    if names is not None and not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
        raise _bad(f"Invalid type for '{param}.tool_names': expected an array of strings.", f"{param}.tool_names")
    if value.get("read_only") is not None and not isinstance(value["read_only"], bool):
        raise _bad(f"Invalid type for '{param}.read_only': expected a boolean.", f"{param}.read_only")


def check_config(tool: dict[str, Any], index: int, labels: dict[str, int]) -> None:
    """Static checks of one MCP tool entry (the connector's existence is checked by the caller)."""
    p = f"tools[{index}]"
    label = tool.get("server_label")
    if not isinstance(label, str) or not label.strip():
        raise _bad(
            f"Missing required parameter: '{p}.server_label'.", f"{p}.server_label", "missing_required_parameter"
        )
    if label in labels:  # `labels`: the MCP labels of the entries before this one (a dict: linear, not quadratic)
        raise _bad(f"Duplicate server_label '{label}' (also in 'tools[{labels[label]}]').", f"{p}.server_label")
    labels[label] = index
    url, connector = tool.get("server_url"), tool.get("connector_id")
    if (url is None) == (connector is None):
        raise _bad(
            f"Exactly one of '{p}.server_url' or '{p}.connector_id' must be provided.",
            f"{p}.server_url",
            "missing_required_parameter" if url is None else "invalid_value",
        )
    if url is not None and not (isinstance(url, str) and re.match(r"^https?://[^/\s]+", url)):
        raise _bad(f"Invalid '{p}.server_url': expected an http(s) URL.", f"{p}.server_url")
    if connector is not None and not isinstance(connector, str):
        raise _bad(f"Invalid type for '{p}.connector_id': expected a string.", f"{p}.connector_id", "invalid_type")
    if connector is not None:
        require_id(connector, f"{p}.connector_id")
    headers = tool.get("headers")
    if headers is not None and not (
        isinstance(headers, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())
    ):
        raise _bad(f"Invalid type for '{p}.headers': expected an object of strings.", f"{p}.headers", "invalid_type")
    if tool.get("authorization") is not None and not isinstance(tool["authorization"], str):
        raise _bad(f"Invalid type for '{p}.authorization': expected a string.", f"{p}.authorization", "invalid_type")
    allowed_tools = tool.get("allowed_tools")
    if isinstance(allowed_tools, list):
        if not all(isinstance(n, str) for n in allowed_tools):
            raise _bad(f"Invalid type for '{p}.allowed_tools': expected tool names.", f"{p}.allowed_tools")
    elif allowed_tools is not None:
        _check_filter(allowed_tools, f"{p}.allowed_tools")
    approval = tool.get("require_approval")
    if isinstance(approval, dict):
        for key in approval:
            if key not in ("always", "never"):
                raise _bad(f"Unknown parameter: '{p}.require_approval.{key}'.", f"{p}.require_approval.{key}")
            _check_filter(approval[key], f"{p}.require_approval.{key}")
    elif approval not in (None, "always", "never"):
        raise _bad(
            f"Invalid value for '{p}.require_approval': expected 'always', 'never' or a filter object.",
            f"{p}.require_approval",
        )


def public_config(tool: dict[str, Any]) -> dict[str, Any]:
    """The tool entry as the Response object shows it: header values, the token and URL credentials
    redacted."""
    out = dict(tool)
    if isinstance(out.get("server_url"), str):  # credentials in the URL (user:pass@, ?token=) stay private
        out["server_url"] = redact_url(out["server_url"])
    if isinstance(out.get("headers"), dict):
        out["headers"] = dict.fromkeys(out["headers"], REDACTED)
    if out.get("authorization") is not None:
        out["authorization"] = REDACTED
    return out


# -- items ---------------------------------------------------------------------------------------
def listed_tool(tool: Any) -> dict[str, Any]:
    """An SDK `Tool` as an `mcp_list_tools` entry; the input schema is kept as the server sent it."""
    annotations = tool.annotations.model_dump(exclude_none=True, by_alias=True) if tool.annotations else None
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.input_schema,
        "annotations": annotations or None,
    }


def definition(label: str, name: str, tool: dict[str, Any], server_description: str | None) -> dict[str, Any]:
    """The function tool offered to the model for one MCP tool (schema intact: `$defs`/`$ref` too)."""
    description = tool.get("description") or ""
    if server_description:
        description = f"[{label}: {server_description}] {description}".strip()
    out: dict[str, Any] = {"type": "function", "name": name, "parameters": tool.get("input_schema") or {}}
    if description:
        out["description"] = description
    return out


def result_text(result: Any) -> str:
    """A `CallToolResult` as the string OpenAI puts in `mcp_call.output`."""
    parts = []
    for block in result.content or []:
        text = getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else json.dumps(block.model_dump(mode="json", exclude_none=True)))
    if not parts and result.structured_content is not None:
        return json.dumps(result.structured_content)
    return "\n".join(parts)


def content_blocks(result: Any) -> list[Any]:
    return [block.model_dump(mode="json", exclude_none=True) for block in result.content or []]


def model_output(item: dict[str, Any]) -> str:
    """What the model reads as the result of an `mcp_call` (now and when replayed)."""
    error = item.get("error")
    if not error:
        return str(item.get("output") or "")
    if isinstance(error, dict):
        if error.get("type") == "mcp_tool_execution_error":
            content = error.get("content") or []
            text = " ".join(str(c.get("text", "")) if isinstance(c, dict) else str(c) for c in content)
            return f"Error: the tool failed: {text}".strip()
        return f"Error: {error.get('message') or error.get('type')}"
    return f"Error: {error}"


def replay_call(item: dict[str, Any]) -> list[dict[str, Any]]:
    """A stored `mcp_call` as the call and result the model made and saw."""
    call_id = str(item["id"])
    return [
        {
            "type": "function_call",
            "call_id": call_id,
            "name": offered_name(str(item.get("server_label", "")), str(item.get("name", ""))),
            "arguments": item.get("arguments") or "{}",
        },
        {"type": "function_call_output", "call_id": call_id, "output": model_output(item)},
    ]


def replay_nothing(item: dict[str, Any]) -> list[dict[str, Any]]:
    """Listings and approval items are bookkeeping: the model never sees them."""
    return []
