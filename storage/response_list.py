"""The list of stored responses (`GET /v1/responses`), one query for SQLite and PostgreSQL.

OpenAI keeps the list of stored responses in its dashboard's logs only; the console (#32) needs it
through the public API. Newest first (SQLite: by rowid, the order rows were created in;
PostgreSQL, whose `responses` has no row sequence: by `(created_at, id)`); cursors are response ids
turned into that key by a subquery, as every other list does (`storage.pages`). Filters:

- `model`, `status`: any of the given values (the research page asks for both research models);
- `created_after` / `created_before`: unix seconds, inclusive / exclusive;
- `previous_response_id`: the responses that continue this one (the timeline's "next" links);
- `search`: a case-insensitive substring of the response's stored JSON (id, model, instructions,
  metadata, error) or of any item it links (its input and output), so a person can find a run by
  what was said in it. It scans; at 10,000 responses that is a few milliseconds
  (`bench/bench_console.py`).

The page is the stored objects with their `output`, like `GET /v1/responses/{id}`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from storage.pages import Binds, Dialect, PageRequest


@dataclass(frozen=True, slots=True)
class ResponseFilter:
    """What `GET /v1/responses` may narrow the list by (empty: everything the caller's project holds)."""

    models: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    search: str | None = None
    created_after: float | None = None
    created_before: float | None = None
    previous_response_id: str | None = None


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def list_query(dialect: Dialect, flt: ResponseFilter, req: PageRequest) -> tuple[str, list[Any]]:
    """One page of response ids in list order (plus one, for `has_more`) and the statement's parameters."""
    b = Binds(dialect)
    sqlite = dialect == "sqlite"
    where = "TRUE" + b.project("r.project")
    if flt.models:
        if sqlite:  # a byte search rules most rows out before any JSON is parsed (10,000 rows: ms, not 100 ms)
            near = " OR ".join(f"instr(r.data, {b(orjson.dumps({'model': m})[1:-1])}) > 0" for m in flt.models)
            model = f"({near}) AND json_extract(r.data, '$.model')"
        else:
            model = "convert_from(r.data, 'UTF8')::jsonb->>'model'"
        where += f" AND {model} IN ({', '.join(b(m) for m in flt.models)})"
    if flt.statuses:
        where += f" AND r.status IN ({', '.join(b(s) for s in flt.statuses)})"
    if flt.previous_response_id is not None:  # the chain's next turns
        where += f" AND r.previous_response_id = {b(flt.previous_response_id)}"
    if flt.created_after is not None:
        where += f" AND r.created_at >= {b(flt.created_after)}"
    if flt.created_before is not None:
        where += f" AND r.created_at < {b(flt.created_before)}"
    if flt.search:
        text = "CAST({c} AS TEXT)" if sqlite else "convert_from({c}, 'UTF8')"
        op = "LIKE" if sqlite else "ILIKE"  # SQLite's LIKE ignores ASCII case already
        pattern = b(_like(flt.search))
        # the items are scanned once (not once per response): the ids of the responses linking a match
        where += (
            f" AND ({text.format(c='r.data')} {op} {pattern} ESCAPE '\\' OR r.id IN (SELECT x.response_id FROM items i"
            f" JOIN response_items x ON x.item_id = i.id WHERE {text.format(c='i.data')} {op} {pattern} ESCAPE '\\'))"
        )
    # SQLite walks the table's rowid (creation order) backwards and stops at the page's end; PostgreSQL's
    # table has no row sequence, so it sorts by (created_at, id). Another project's id as a cursor finds
    # no row (an empty page), as an unknown id does.
    key, keys, pick = (
        ("r.rowid", ("r.rowid",), "rowid")
        if sqlite
        else ("(r.created_at, r.id)", ("r.created_at", "r.id"), "created_at, id")
    )
    where += req.bounds(key, b, lambda cur: f"SELECT {pick} FROM responses WHERE id = {cur}{b.project()}")
    sql = f"SELECT r.id FROM responses r WHERE {where}" + req.tail(b, *keys)
    return sql, b.values
