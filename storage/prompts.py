"""Prompt templates, whichever database holds them: the record and the listing queries written once
for both dialects (`storage/sqlite/prompts.py`, `storage/postgres/prompts.py` implement the store).

Why versions are rows of their own: a response records which prompt version rendered it, so a
version must never change after it is written; an update appends version N+1 in the same
transaction that reads version N, so two processes updating the same prompt at once get N+1 and
N+2, never a lost update. The stores keep template fields as opaque JSON: what they mean is the
engine's business (`gateway/engine/prompts.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from storage.base import JSON
from storage.pages import Binds, Dialect, PageRequest


@dataclass(slots=True)
class PromptRecord:
    id: str
    version: int
    default_version: int
    latest_version: int
    created_at: float  # when the prompt was created
    version_created_at: float
    data: JSON


SELECT_PROMPTS = (
    "SELECT p.id, v.version, p.default_version, p.latest_version, p.created_at, v.created_at, v.data "
    "FROM prompts p JOIN prompt_versions v ON v.prompt_id = p.id"
)


def list_query(dialect: Dialect, req: PageRequest) -> tuple[str, list[Any]]:
    """Prompts at their default version by creation time; cursors are prompt ids (both dialects)."""
    b = Binds(dialect)
    where = b.project("p.project") + req.bounds(
        "(p.created_at, p.id)", b, lambda cur: f"SELECT created_at, id FROM prompts WHERE id = {cur}"
    )
    sql = f"{SELECT_PROMPTS} AND v.version = p.default_version WHERE TRUE{where}" + req.tail(b, "p.created_at", "p.id")
    return sql, b.values


def versions_query(dialect: Dialect, prompt_id: str, req: PageRequest) -> tuple[str, list[Any]]:
    """A prompt's versions; the cursor is a version number."""
    b = Binds(dialect)
    return f"{SELECT_PROMPTS} WHERE p.id = {b(prompt_id)}{req.bounds('v.version', b)}" + req.tail(
        b, "v.version"
    ), b.values
