"""Client-supplied item ids never alias stored items with other content.

Why: items are stored once, keyed by id, and referenced from every response and conversation that
holds them. A client that sends an input item with an id already stored, but different content,
would otherwise be linked to the *stored* item: a later turn's history (and what the model is sent
then) would show the first content, not what the client sent. Echoing an output item back as input
(the same id, the same content) stays a reference to the stored item; only a real conflict gets a
new id. What counts as "the same" ignores what normalisation adds (status, empty annotations).
"""

from __future__ import annotations

from typing import Any

import orjson

from gateway.common.ids import item_id
from storage.base import StateStore
from storage.scope import project_scope

_IGNORED = frozenset({"id", "status"})
_PART_IGNORED = frozenset({"annotations", "logprobs"})


def _essence(item: dict[str, Any]) -> bytes:
    core = {k: v for k, v in item.items() if k not in _IGNORED}
    if isinstance(core.get("content"), list):
        core["content"] = [
            {k: v for k, v in part.items() if k not in _PART_IGNORED} if isinstance(part, dict) else part
            for part in core["content"]
        ]
    return orjson.dumps(core, option=orjson.OPT_SORT_KEYS)


def supplied_ids(raw: Any, items: list[dict[str, Any]]) -> list[str]:
    """Ids of `items` (normalised from `raw`) that the client chose itself."""
    if not isinstance(raw, list):
        return []
    return [
        item["id"]
        for given, item in zip(raw, items, strict=False)
        if isinstance(given, dict) and given.get("id") and item.get("type") != "item_reference"
    ]


async def dealias(store: StateStore, raw: Any, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`items` with a fresh id for each client-supplied id already stored with other content."""
    ids = supplied_ids(raw, items)
    if not ids:
        return items
    known = {iid: _essence(old) for iid, old in (await store.get_items(ids)).items()}
    with project_scope(None):  # an id another project stored is taken too: never link its content
        taken = set(await store.get_items([i for i in ids if i not in known]))
    known.update({iid: b"" for iid in taken})
    out = []
    for item in items:
        iid = item.get("id", "")
        if item.get("type") != "item_reference" and iid in ids:
            essence = _essence(item)
            if known.setdefault(iid, essence) != essence:  # stored, or earlier in this request, as other content
                item = {**item, "id": item_id(str(item.get("type", "item")))}
        out.append(item)
    return out
