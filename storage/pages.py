"""Cursor pagination, written once for every list of every store and both SQL dialects.

OpenAI lists page by object id: `after` is the last id a client saw, `before` the first, `order` is
`asc` or `desc` by creation, `limit` caps the page and `has_more` says whether more lay beyond it.
Every table keeps an ordering key that is not the id (SQLite's `rowid`, Postgres's `seq`, a link's
`position`, a `(created_at, id)` pair), so a cursor is turned into that key by a subquery inside the
one statement: an id the table does not know compares with NULL and gives an empty page, as OpenAI
does, with no extra round trip and no race between the lookup and the read.

The SQL is the same on SQLite and PostgreSQL; only the placeholder differs (`?3` or `$3`: both
number their parameters, so a clause can bind in any order and reuse a value), which `Binds` hands out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import orjson

from storage.base import Order, Page
from storage.scope import current_project

T = TypeVar("T")
Dialect = Literal["sqlite", "postgres"]


class Binds:
    """A statement's parameters, numbered in the order they are bound."""

    def __init__(self, dialect: Dialect) -> None:
        self._mark = "?" if dialect == "sqlite" else "$"
        self.values: list[Any] = []

    def __call__(self, value: Any) -> str:
        """Bind `value`; return its placeholder."""
        self.values.append(value)
        return f"{self._mark}{len(self.values)}"

    def project(self, column: str = "project") -> str:
        """`AND column = <the caller's project>`, or nothing for system work (which sees every project)."""
        project = current_project()
        return "" if project is None else f" AND {column} = {self(project)}"


@dataclass(frozen=True, slots=True)
class PageRequest:
    """What a client asked for: `limit` objects in `order`, after and/or before a cursor."""

    limit: int
    order: Order = "desc"
    after: Any = None
    before: Any = None

    @classmethod
    def of(cls, limit: int, order: str, after: Any = None, before: Any = None) -> PageRequest:
        """From a store method's arguments (any `order` but `asc` reads newest first)."""
        return cls(limit, "asc" if order == "asc" else "desc", after, before)

    @property
    def backwards(self) -> bool:
        """A page with only `before` is the `limit` objects just before the cursor: the scan runs from
        the cursor away (against `order`) and the page is turned round afterwards."""
        return self.before is not None and self.after is None

    def bounds(self, key: str, binds: Binds, lookup: Callable[[str], str] | None = None) -> str:
        """`AND` clauses that keep `key` beyond the cursors.

        `lookup(placeholder)` is the subquery that finds a cursor's key (None: the cursor is the key).
        """
        sql = ""
        for cursor, forward in ((self.after, True), (self.before, False)):
            if cursor is None:
                continue
            op = ">" if forward == (self.order == "asc") else "<"
            target = binds(cursor)
            sql += f" AND {key} {op} {target if lookup is None else f'({lookup(target)})'}"
        return sql

    def keyset(self, binds: Binds, table: str, key: str, id_column: str = "id") -> str:
        """Bounds and tail for a table ordered by `key` whose cursors are its `id_column` values."""
        where = self.bounds(key, binds, lambda cur: f"SELECT {key} FROM {table} WHERE {id_column} = {cur}")
        return where + self.tail(binds, key)

    def tail(self, binds: Binds, *keys: str) -> str:
        """`ORDER BY` the keys in scan direction and `LIMIT` one beyond the page (to learn `has_more`)."""
        direction = "ASC" if (self.order == "asc") != self.backwards else "DESC"
        return f" ORDER BY {', '.join(f'{k} {direction}' for k in keys)} LIMIT {binds(self.limit + 1)}"

    def cut(self, rows: Sequence[Any], decode: Callable[[Any], T]) -> tuple[list[T], bool]:
        """The page in `order` from the scanned rows, and whether more lay beyond it."""
        kept = [decode(r) for r in rows[: self.limit]]
        if self.backwards:
            kept.reverse()
        return kept, len(rows) > self.limit

    def page(self, rows: Sequence[Any], decode: Callable[[Any], dict[str, Any]] | None = None) -> Page:
        """A `Page` of the scanned rows (by default each row's first column is the object's JSON)."""
        data, more = self.cut(rows, decode or json_data)
        return Page(data=data, has_more=more)


def json_data(row: Any) -> dict[str, Any]:
    return orjson.loads(row[0])  # type: ignore[no-any-return]


RESPONSE_INPUTS = ("response_items", "{a}.response_id = {k} AND {a}.role = 0")
"""A response's input items: its links of role 0 (`a` is the link table's alias, `k` the response id)."""
CONVERSATION_ITEMS = ("conversation_items", "{a}.conversation_id = {k}")


def linked_items_query(dialect: Dialect, links: tuple[str, str], key: str, req: PageRequest) -> tuple[str, list[Any]]:
    """One page of the items an owner links (`RESPONSE_INPUTS`, `CONVERSATION_ITEMS`) and its parameters.

    Cursors are item ids, opaque to clients, turned into positions (the links' order).
    """
    table, owner = links
    b = Binds(dialect)
    k = b(key)
    at = owner.format(a="y", k=k)
    where = req.bounds("x.position", b, lambda cur: f"SELECT position FROM {table} y WHERE {at} AND y.item_id = {cur}")
    sql = (
        f"SELECT i.data FROM {table} x JOIN items i ON i.id = x.item_id WHERE {owner.format(a='x', k=k)}{where}"
        + req.tail(b, "x.position")
    )
    return sql, b.values
