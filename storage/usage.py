"""The usage ledger and the shared rate windows, whichever database holds them (tables from
migration 0020): the records, roll-ups and statements written once, with `?` placeholders, for both
(`storage/sqlite/usage.py` runs them on SQLite, `storage/postgres/usage.py` on PostgreSQL).

One recorded model call is a raw row (`usage_records`, kept for a retention period) and an addition
to two roll-ups (`usage_minutes`, `usage_hours`), written in the same transaction, so the Usage API
reads at most a few thousand rolled-up rows for a month however many calls there were (`1m` buckets
from minutes, `1h` from hours, `1d` from days). The rate windows are counters per scope (a project
or key), metric and minute that every process leases quota from (see `gateway.usage.limiter`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

SUMS = ("input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens", "requests", "estimated")
GROUPS = ("project", "api_key_id", "model", "pool")
RAW_COLUMNS = (
    "at",
    "kind",
    "project",
    "api_key_id",
    "model",
    "pool",
    "replica",
    "door",
    "source",
    "input_tokens",
    "cached_tokens",
    "output_tokens",
    "reasoning_tokens",
    "requests",
    "estimated",
)


@dataclass(frozen=True, slots=True)
class UsageRecord:
    """One model call (or one passthrough request) as the ledger keeps it."""

    at: float
    kind: str  # "completions" | "embeddings"
    project: str
    api_key_id: str
    model: str
    pool: str
    replica: str
    door: str  # "http" | "extproc"
    source: str  # "responses", "research", "compaction", "chat", "completions", "embeddings"
    input_tokens: int
    cached_tokens: int
    output_tokens: int
    reasoning_tokens: int
    requests: int
    estimated: bool

    def row(self) -> tuple[Any, ...]:
        """The raw row, in RAW_COLUMNS' order."""
        return (
            self.at,
            self.kind,
            self.project,
            self.api_key_id,
            self.model,
            self.pool,
            self.replica,
            self.door,
            self.source,
            self.input_tokens,
            self.cached_tokens,
            self.output_tokens,
            self.reasoning_tokens,
            self.requests,
            int(self.estimated),
        )


@dataclass(frozen=True, slots=True)
class UsageQuery:
    """What the Usage API asks: a kind, a time range, a bucket width, groups and filters."""

    kind: str
    start: int
    end: int
    width: int  # 60, 3600 or 86400 seconds
    group_by: tuple[str, ...] = ()  # among GROUPS
    projects: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    api_key_ids: tuple[str, ...] = ()


Row = tuple[Any, ...]
ROLLUPS = {60: "usage_minutes", 3600: "usage_hours", 86400: "usage_days"}  # bucket width -> table


def rollup(records: Iterable[UsageRecord], width: int) -> list[Row]:
    """The records summed per bucket of `width` seconds and group: the roll-up tables' rows."""
    acc: dict[tuple[Any, ...], list[int]] = {}
    for r in records:
        key = (int(r.at // width) * width, r.kind, r.project, r.api_key_id, r.model, r.pool)
        sums = acc.get(key)
        if sums is None:
            sums = acc[key] = [0, 0, 0, 0, 0, 0]
        sums[0] += r.input_tokens
        sums[1] += r.cached_tokens
        sums[2] += r.output_tokens
        sums[3] += r.reasoning_tokens
        sums[4] += r.requests
        sums[5] += r.requests if r.estimated else 0
    return [(*k, *v) for k, v in acc.items()]


def insert_raw() -> str:
    return f"INSERT INTO usage_records ({', '.join(RAW_COLUMNS)}) VALUES ({', '.join('?' * len(RAW_COLUMNS))})"


def upsert_rollup(table: str) -> str:
    cols = ("start", "kind", *GROUPS, *SUMS)
    adds = ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in SUMS)
    return (
        f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) "
        f"ON CONFLICT (start, kind, {', '.join(GROUPS)}) DO UPDATE SET {adds}"
    )


def bucket_sql(q: UsageQuery) -> tuple[str, list[Any]]:
    """Sums per bucket and group over the roll-up that fits the width."""
    table = next((t for w, t in sorted(ROLLUPS.items(), reverse=True) if q.width % w == 0 and q.start % w == 0), "")
    table = table or "usage_minutes"
    params: list[Any] = [q.width, q.width, q.start, q.end]
    where = "start >= ? AND start < ?"
    if q.kind != "*":  # "*": every kind (what the Costs API prices)
        where += " AND kind = ?"
        params.append(q.kind)
    for column, values in (("project", q.projects), ("model", q.models), ("api_key_id", q.api_key_ids)):
        if values:
            where += f" AND {column} IN ({', '.join('?' * len(values))})"
            params.extend(values)
    groups = "".join(f", {g}" for g in q.group_by)
    sums = ", ".join(f"CAST(SUM({c}) AS BIGINT)" for c in SUMS)  # PostgreSQL's SUM(bigint) is numeric
    sql = (
        f"SELECT (start / ?) * ? AS bucket{groups}, {sums} FROM {table} WHERE {where} "
        f"GROUP BY bucket{groups} ORDER BY bucket{groups}"
    )
    return sql, params


SPENT_SQL = (
    "SELECT model, SUM(input_tokens), SUM(cached_tokens), SUM(output_tokens) FROM usage_hours "
    "WHERE project = ? AND start >= ? GROUP BY model"
)
ENSURE_WINDOW = (
    "INSERT INTO rate_windows (scope, metric, window_start, used) VALUES (?, ?, ?, 0) "
    "ON CONFLICT (scope, metric, window_start) DO NOTHING"
)
# Take `n` units only if they fit under the limit: atomic on either database (the row is re-checked
# on its latest version), so processes leasing at once never hand out more than the limit together.
TAKE = (
    "UPDATE rate_windows SET used = used + ? WHERE scope = ? AND metric = ? AND window_start = ? "
    "AND used + ? <= ? RETURNING used"
)
ADD = "UPDATE rate_windows SET used = used + ? WHERE scope = ? AND metric = ? AND window_start = ? RETURNING used"
USED = "SELECT used FROM rate_windows WHERE scope = ? AND metric = ? AND window_start = ?"
