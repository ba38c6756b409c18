"""SQL for the pgvector backend: OpenAI attribute filters over a JSONB column, full-text queries.

Filters follow `vectorstore.filters.matches` exactly (the conformance suite checks it): a missing
key or a non-scalar value never matches (`ne`/`nin` included); values compare only with values of
the same JSON type (JSONB equality already knows `1` = `1.0` and never `1` = `"1"` or `true`);
strings order by code point (`COLLATE "C"`). Range comparisons are guarded by a CASE so a cast is
never attempted on a value of another type (SQL does not promise to evaluate AND left to right).
Keys and values are always bind parameters, never spliced into the SQL.
"""

from __future__ import annotations

from typing import Any

import orjson

from vectorstore.base import Filter
from vectorstore.filters import Scalar
from vectorstore.keyword import query_terms

_RANGE = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
_SCALAR = "('string', 'number', 'boolean')"


class Params:
    """Bind parameters collected while building a statement ($n numbering from `start`)."""

    def __init__(self, start: int) -> None:
        self.values: list[Any] = []
        self.start = start

    def add(self, value: Any) -> str:
        self.values.append(value)
        return f"${self.start + len(self.values) - 1}"


def filter_sql(f: Filter, column: str, params: Params) -> str:
    """A WHERE fragment over the JSONB `column` (the filter is validated beforehand)."""
    kind = f["type"]
    if kind in ("and", "or"):
        return f" {kind.upper()} ".join(f"({filter_sql(sub, column, params)})" for sub in f["filters"])
    ref = f"({column} -> {params.add(f['key'])}::text)"

    def eq(v: Scalar) -> str:
        return f"{ref} = {params.add(orjson.dumps(v).decode())}::jsonb"

    if kind in ("eq", "in"):
        values = [f["value"]] if kind == "eq" else f["value"]
        return "(" + " OR ".join(eq(v) for v in values) + ")" if values else "FALSE"
    if kind in ("ne", "nin"):
        values = [f["value"]] if kind == "ne" else f["value"]
        inner = " OR ".join(eq(v) for v in values) or "FALSE"
        return f"(jsonb_typeof({ref}) IN {_SCALAR} AND NOT ({inner}))"
    value = f["value"]
    op = _RANGE[kind]
    if isinstance(value, str):
        return (
            f"(CASE WHEN jsonb_typeof({ref}) = 'string' "
            f"THEN ({ref} #>> '{{}}') COLLATE \"C\" {op} {params.add(value)}::text ELSE FALSE END)"
        )
    return (
        f"(CASE WHEN jsonb_typeof({ref}) = 'number' "
        f"THEN ({ref} #>> '{{}}')::numeric {op} {params.add(repr(value))}::text::numeric ELSE FALSE END)"
    )


def websearch_query(text: str) -> str | None:
    """A `websearch_to_tsquery` input ORing the question's terms, or None without a searchable word.

    Every term is quoted, so words such as `or`, `and` or a leading `-` are never operators; terms
    hold only word characters (`query_terms`), so no quote can break out.
    """
    terms = query_terms(text)
    if not terms:
        return None
    return " OR ".join(f'"{t}"' for t in terms)


def vector_literal(vector: list[float]) -> str:
    """pgvector's text form, `[x,y,...]` (sent as text and cast, so asyncpg needs no vector codec)."""
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"
