"""The one resolver of `item_reference`s, used by every place that accepts them (#26).

Why one: `POST /v1/conversations` once stored references bare, and the store's later join found
the item whatever its project, so a caller could copy another project's item (text included)
into its own conversation; `items.create` and `responses.create` each had their own lookup. Here
the lookup runs in the caller's project scope (the store filters by it), and an id that is not
there, in this project, is refused: a 404 for the Conversations API, OpenAI's 400
`item_not_found` for `responses.create`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gateway.common.errors import APIError, InvalidRequest, NotFound
from storage.base import StateStore


def not_found(item_id: str, param: str) -> APIError:
    return NotFound(f"Item with id '{item_id}' not found.", param=param)


def item_not_found(item_id: str, param: str) -> APIError:
    return InvalidRequest(f"Item with id '{item_id}' not found.", param=param, code="item_not_found")


async def resolve_references(
    store: StateStore,
    items: list[dict[str, Any]],
    prefix: str,
    missing: Callable[[str, str], APIError] = not_found,
) -> list[dict[str, Any]]:
    """`items` with each `item_reference` replaced by the caller's own stored item it names;
    `missing(id, "prefix[n].id")` is raised for the first id the caller's project does not hold."""
    refs = [i["id"] for i in items if i.get("type") == "item_reference"]
    if not refs:
        return items
    found = await store.get_items(list(dict.fromkeys(refs)))  # scoped: only the caller's project
    resolved = []
    for n, item in enumerate(items):
        if item.get("type") == "item_reference":
            target = found.get(item["id"])
            if target is None:
                raise missing(item["id"], f"{prefix}[{n}].id")
            item = target
        resolved.append(item)
    return resolved
