"""The server-side tool types this gateway ships, registered on the engine's tool registry.

Each tool module exposes `register(deps)`; adding a tool type is one line here.
"""

from __future__ import annotations

from typing import Any


def register_builtin_tools(deps: Any) -> None:
    """Register every shipped server-side tool type on `deps.tools` (called once per process)."""
    return None
