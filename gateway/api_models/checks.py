"""The field checks input items share (`items`, `shell_items`): one wording of OpenAI's errors."""

from __future__ import annotations

from typing import Any

from gateway.common.errors import InvalidRequest


def bad(message: str, param: str, code: str = "invalid_value") -> InvalidRequest:
    return InvalidRequest(message, param=param, code=code)


def require_str(item: dict[str, Any], key: str, param: str) -> str:
    """`item[key]` as a string, or the 400 naming `param.key` (missing or of another type)."""
    value = item.get(key)
    if not isinstance(value, str):
        if value is None:
            raise bad(f"Missing required parameter: '{param}.{key}'.", f"{param}.{key}", "missing_required_parameter")
        raise bad(f"Invalid type for '{param}.{key}': expected a string.", f"{param}.{key}", "invalid_type")
    return value
