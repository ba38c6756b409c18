"""`tool_choice` against the request's tools: a choice that names nothing the model is offered is a 400.

Why here and not in the request model: the check needs the tools (a function name must be one of
them), and OpenAI answers such a request with a 400 rather than running it with the choice ignored.
"""

from __future__ import annotations

from typing import Any

from gateway.common.errors import InvalidRequest

HOSTED = frozenset(
    {
        "file_search",
        "web_search",
        "web_search_preview",
        "web_search_preview_2025_03_11",
        "web_search_2025_08_26",
        "code_interpreter",
        "image_generation",
        "computer_use_preview",
        "shell",  # client tools named by type: the choice needs one in `tools` (gateway/tools/shell_tools.py)
        "apply_patch",
    }
)
NAMED = {"function": "name", "custom": "name", "mcp": "server_label"}


def _bad(message: str, param: str, code: str = "invalid_value") -> InvalidRequest:
    return InvalidRequest(message, param=param, code=code)


def _names(tools: list[dict[str, Any]], ttype: str) -> set[str]:
    key = NAMED[ttype]
    return {t[key] for t in tools if isinstance(t, dict) and t.get("type") == ttype and isinstance(t.get(key), str)}


def _check_one(choice: Any, tools: list[dict[str, Any]], param: str) -> None:
    if not isinstance(choice, dict):
        raise _bad(f"Invalid type for '{param}': expected an object.", param, "invalid_type")
    ctype = choice.get("type")
    if not isinstance(ctype, str):
        raise _bad(f"Invalid type for '{param}.type': expected a string.", f"{param}.type", "invalid_type")
    if ctype in NAMED:
        key = NAMED[ctype]
        name = choice.get(key)
        if not isinstance(name, str):
            raise _bad(f"Missing required parameter: '{param}.{key}'.", f"{param}.{key}", "missing_required_parameter")
        if name not in _names(tools, ctype):
            raise _bad(f"Tool choice '{name}' is not among the {ctype} tools of this request.", f"{param}.{key}")
        return
    if ctype in HOSTED:
        if not any(isinstance(t, dict) and t.get("type") == ctype for t in tools):
            raise _bad(f"Tool choice '{ctype}' needs a '{ctype}' tool in 'tools'.", f"{param}.type")
        return
    raise _bad(f"Invalid value for '{param}.type': '{ctype}' is not a tool choice type.", f"{param}.type")


def check_tool_choice(choice: Any, tools: list[dict[str, Any]]) -> None:
    """Raise a 400 for a `tool_choice` object that does not match the request's `tools`."""
    if choice is None or isinstance(choice, str):  # the strings are checked by the request model
        return
    if isinstance(choice, dict) and choice.get("type") == "allowed_tools":
        mode = choice.get("mode", "auto")
        if mode not in ("auto", "required"):
            raise _bad("Invalid value for 'tool_choice.mode': expected 'auto' or 'required'.", "tool_choice.mode")
        listed = choice.get("tools")
        if not isinstance(listed, list) or not listed:
            raise _bad("'tool_choice.tools' must be a non-empty array of tools.", "tool_choice.tools")
        for i, entry in enumerate(listed):
            _check_one(entry, tools, f"tool_choice.tools[{i}]")
        return
    _check_one(choice, tools, "tool_choice")
