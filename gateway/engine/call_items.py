"""Client call items built from the model's JSON arguments once they are whole.

Shared by the client tools of `client_tools` (Codex's `local_shell`, a client-run `tool_search`)
and `shell_tools` (`shell`, `apply_patch`), so neither imports the other for them.
"""

from __future__ import annotations

from typing import Any

import orjson

from gateway.engine.events import EventBuilder


def json_args(raw: str) -> dict[str, Any]:
    """The model's arguments as an object; anything else (broken JSON, a list) is no arguments."""
    try:
        value = orjson.loads(raw or "{}")
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


class WholeArgumentsCallItem:
    """A client call whose item is built from the model's JSON arguments once they are whole
    (`local_shell`'s action, a client-run `tool_search`'s arguments): nothing streams meanwhile."""

    def __init__(self, events: EventBuilder, item: dict[str, Any]) -> None:
        self.events = events
        self.id = str(item["id"])
        self.item = item
        self.index = events.open_item(item)
        self.chunks: list[str] = []

    def delta(self, text: str) -> None:
        self.chunks.append(text)

    def close(self, status: str = "completed") -> None:
        self.complete("".join(self.chunks))
        self.events.close_item(self.index, status)

    def complete(self, raw: str) -> None:
        raise NotImplementedError
