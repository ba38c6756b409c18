"""OpenAI's cursor-page envelope, shared by every list endpoint."""

from __future__ import annotations

from typing import Any


def list_body(data: list[dict[str, Any]], has_more: bool, cursor: str = "id") -> dict[str, Any]:
    """`first_id`/`last_id` are what `after`/`before` take: the objects' `cursor` field (a prompt
    version page pages by `version`)."""
    return {
        "object": "list",
        "data": data,
        "first_id": data[0][cursor] if data else None,
        "last_id": data[-1][cursor] if data else None,
        "has_more": has_more,
    }
