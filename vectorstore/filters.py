"""OpenAI's attribute-filter grammar: validation, SQL and Milvus translations, and a reference evaluator.

Semantics, identical in every backend (the conformance suite checks each against `matches`):

* A comparison on a key the file does not have is false, for `ne` and `nin` too (SQL/Milvus null
  semantics: "author != 'ann'" does not select files without an author).
* Values compare only with values of the same JSON type: numbers with numbers (int and float alike),
  strings with strings (`gt`/`lt` on strings are code-point order), booleans with booleans (eq/ne
  only). A type mismatch makes `eq`/`in` false and `ne`/`nin` true (the value is present and is not
  equal).
* `in`/`nin` take a list; `and`/`or` nest to any depth.

Keys may not contain a double quote or a control character: both backends splice the key into a
path expression, and refusing is safer than a second escaping scheme.
"""

from __future__ import annotations

from typing import Any

from vectorstore.base import Filter

COMPARISONS = frozenset({"eq", "ne", "gt", "gte", "lt", "lte", "in", "nin"})
_RANGE_SQL = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
Scalar = str | int | float | bool


class FilterError(ValueError):
    """The filter does not follow the grammar (the API answers 400 with this message)."""


def _check_key(key: Any) -> str:
    if not isinstance(key, str) or not key:
        raise FilterError("filter 'key' must be a non-empty string")
    if '"' in key or any(ord(ch) < 32 for ch in key):
        raise FilterError(f"filter key {key!r} may not contain a double quote or control characters")
    return key


def _check_scalar(value: Any) -> Scalar:
    if isinstance(value, bool | str | int | float):
        return value
    raise FilterError(f"filter value must be a string, number or boolean, got {type(value).__name__}")


def validate(f: Filter) -> Filter:
    """Raise FilterError unless `f` follows the grammar; returns it unchanged."""
    if not isinstance(f, dict):
        raise FilterError("a filter must be an object")
    kind = f.get("type")
    if kind in ("and", "or"):
        subs = f.get("filters")
        if not isinstance(subs, list) or not subs:
            raise FilterError(f"'{kind}' filter needs a non-empty 'filters' list")
        for sub in subs:
            validate(sub)
        return f
    if kind not in COMPARISONS:
        raise FilterError(f"unknown filter type {kind!r}")
    _check_key(f.get("key"))
    value = f.get("value")
    if kind in ("in", "nin"):
        if not isinstance(value, list):
            raise FilterError(f"'{kind}' filter needs a list value")
        for v in value:
            _check_scalar(v)
    else:
        _check_scalar(value)
        if kind in _RANGE_SQL and isinstance(value, bool):
            raise FilterError(f"'{kind}' cannot compare booleans")
    return f


def _kind(value: Any) -> str:
    return "bool" if isinstance(value, bool) else "num" if isinstance(value, int | float) else "str"


# --- reference evaluator ---------------------------------------------------------------------


def _eq(actual: Any, value: Scalar) -> bool:
    return _kind(actual) == _kind(value) and actual == value


def matches(f: Filter, attributes: dict[str, Any]) -> bool:
    """Does a file with these attributes pass the filter? (The semantics every backend must follow.)"""
    kind = f["type"]
    if kind == "and":
        return all(matches(sub, attributes) for sub in f["filters"])
    if kind == "or":
        return any(matches(sub, attributes) for sub in f["filters"])
    key, value = f["key"], f["value"]
    if key not in attributes or not isinstance(attributes[key], bool | str | int | float):
        return False
    actual = attributes[key]
    if kind == "eq":
        return _eq(actual, value)
    if kind == "ne":
        return not _eq(actual, value)
    if kind == "in":
        return any(_eq(actual, v) for v in value)
    if kind == "nin":
        return not any(_eq(actual, v) for v in value)
    if _kind(actual) != _kind(value) or isinstance(actual, bool):
        return False
    return bool({"gt": actual > value, "gte": actual >= value, "lt": actual < value, "lte": actual <= value}[kind])


# --- SQLite (JSON1 over a TEXT column of JSON objects) ---------------------------------------


def to_sql(f: Filter, column: str) -> tuple[str, list[Any]]:
    """A WHERE fragment over `column` (a JSON object) and its parameters."""
    kind = f["type"]
    if kind in ("and", "or"):
        parts = [to_sql(sub, column) for sub in f["filters"]]
        sql = f" {kind.upper()} ".join(f"({p})" for p, _ in parts)
        return sql, [param for _, params in parts for param in params]
    path = '$."' + f["key"] + '"'
    typ = f"json_type({column}, ?)"
    val = f"json_extract({column}, ?)"

    def eq(v: Scalar) -> tuple[str, list[Any]]:
        if isinstance(v, bool):
            return f"{typ} = ?", [path, "true" if v else "false"]
        if isinstance(v, str):
            return f"({typ} = 'text' AND {val} = ?)", [path, path, v]
        return f"({typ} IN ('integer', 'real') AND {val} = ?)", [path, path, v]

    if kind in ("eq", "in"):
        values = [f["value"]] if kind == "eq" else f["value"]
        if not values:
            return "0", []
        parts = [eq(v) for v in values]
        return "(" + " OR ".join(p for p, _ in parts) + ")", [x for _, ps in parts for x in ps]
    if kind in ("ne", "nin"):
        values = [f["value"]] if kind == "ne" else f["value"]
        parts = [eq(v) for v in values]
        inner = " OR ".join(p for p, _ in parts) or "0"
        return f"({typ} IS NOT NULL AND NOT ({inner}))", [path] + [x for _, ps in parts for x in ps]
    value = f["value"]
    types = "('text')" if isinstance(value, str) else "('integer', 'real')"
    return f"({typ} IN {types} AND {val} {_RANGE_SQL[kind]} ?)", [path, path, value]


# --- Milvus boolean expressions over a JSON field ---------------------------------------------


def milvus_literal(value: Scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_milvus(f: Filter, field: str) -> str:
    """A Milvus boolean expression over the JSON field `field`.

    milvus-lite rejects `json["k"] in [...]`, so `in` becomes a disjunction of equalities; `ne` and
    `nin` carry an `exists` guard so a missing key never matches (Milvus `not` alone keeps nulls).
    """
    kind = f["type"]
    if kind in ("and", "or"):
        return f" {kind} ".join(f"({to_milvus(sub, field)})" for sub in f["filters"])
    ref = f'{field}["{f["key"]}"]'

    def eq(v: Scalar) -> str:
        return f"{ref} == {milvus_literal(v)}"

    if kind in ("eq", "in"):
        values = [f["value"]] if kind == "eq" else f["value"]
        return " or ".join(f"({eq(v)})" for v in values) if values else "false"
    if kind in ("ne", "nin"):
        values = [f["value"]] if kind == "ne" else f["value"]
        if not values:
            return f"exists {ref}"
        return f"exists {ref} and not (" + " or ".join(f"({eq(v)})" for v in values) + ")"
    op = _RANGE_SQL[kind]
    return f"{ref} {op} {milvus_literal(f['value'])}"
