"""The Usage and Costs APIs' pages, in OpenAI's shapes (what its SDK's admin types parse).

    GET /v1/organization/usage/completions   a `page` of `bucket`s of organization.usage.completions.result
    GET /v1/organization/usage/embeddings    ... of organization.usage.embeddings.result
    GET /v1/organization/costs               ... of organization.costs.result (USD, GATEWAY_MODEL_PRICES)

Buckets are aligned to their width in UTC (`1m`, `1h`, `1d`; costs: `1d`), from the one holding
`start_time` to `end_time` (exclusive, default now); a page holds `limit` buckets, empty ones
included (their `results` are empty), and `next_page` is the cursor of the next. Arrays come as
`group_by=model&group_by=project_id` or the SDK's `group_by[]=...`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from gateway.common.errors import InvalidRequest
from gateway.usage.prices import Prices
from storage.usage import UsageQuery

WIDTHS = {"1m": 60, "1h": 3600, "1d": 86400}
LIMITS = {"1m": (60, 1440), "1h": (24, 168), "1d": (7, 31)}
COST_LIMIT = (7, 180)
# `door` ("http" | "envoy") is the gateway's own group: read from the raw rows, so within the
# ledger's retention (GATEWAY_USAGE_RETENTION_DAYS); OpenAI's groups read the roll-ups
GROUPS = {"project_id": "project", "model": "model", "api_key_id": "api_key_id", "door": "door"}
COST_GROUPS = ("project_id", "api_key_id", "line_item")
PAGE_PREFIX = "page_"
MAX_INT = 10**11  # Unix seconds far past any ledger (and inside a 64-bit column)


class Params:
    """Query parameters, read the way the openai SDK sends them (arrays as `name[]`)."""

    def __init__(self, query: Mapping[str, str] | Any) -> None:
        self.query = query

    def one(self, name: str) -> str | None:
        value = self.query.get(name)
        return None if value is None or value == "" else str(value)

    def many(self, name: str) -> tuple[str, ...]:
        out: list[str] = []
        for key in (name, name + "[]"):
            for value in self.query.getall(key, []) if hasattr(self.query, "getall") else [self.query.get(key)]:
                if value:
                    out.extend(v for v in str(value).split(",") if v)
        return tuple(dict.fromkeys(out))

    def integer(self, name: str, default: int | None = None) -> int | None:
        raw = self.one(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise InvalidRequest(f"{name} must be an integer (Unix seconds or a count).", param=name) from None
        if not 0 <= value <= MAX_INT:
            raise InvalidRequest(f"{name} must be between 0 and {MAX_INT}.", param=name)
        return value


def _cursor(page: str | None, first: int, width: int) -> int:
    if page is None:
        return first
    raw = page[len(PAGE_PREFIX) :] if page.startswith(PAGE_PREFIX) else ""
    if not raw.isdigit() or len(raw) > 12 or int(raw) % width:
        raise InvalidRequest("Invalid page cursor: use next_page from the previous response.", param="page")
    return int(raw)


def plan(params: Params, kind: str, *, costs: bool = False, project: str | None = None) -> tuple[UsageQuery, int, int]:
    """(the store query for one page, the page's bucket count, the end of the whole range)."""
    start = params.integer("start_time")
    if start is None:
        raise InvalidRequest("Missing required parameter: 'start_time'.", param="start_time")
    end = params.integer("end_time") or int(time.time()) + 1
    if end <= start:
        raise InvalidRequest("end_time must be after start_time.", param="end_time")
    width_name = params.one("bucket_width") or "1d"
    if width_name not in WIDTHS or (costs and width_name != "1d"):
        allowed = "'1d'" if costs else "'1m', '1h' or '1d'"
        raise InvalidRequest(f"bucket_width must be {allowed}.", param="bucket_width")
    width = WIDTHS[width_name]
    default, most = COST_LIMIT if costs else LIMITS[width_name]
    limit = params.integer("limit", default) or default
    if not 1 <= limit <= most:
        raise InvalidRequest(f"limit must be between 1 and {most} for bucket_width={width_name}.", param="limit")
    allowed_groups = COST_GROUPS if costs else tuple(GROUPS)
    group_by = params.many("group_by")
    for g in group_by:
        if g not in allowed_groups:
            raise InvalidRequest(f"group_by supports {', '.join(allowed_groups)}; got {g!r}.", param="group_by")
    first = start // width * width
    page_start = _cursor(params.one("page"), first, width)
    page_end = min(end, page_start + limit * width)
    if page_start >= end:
        page_end = page_start
    projects = params.many("project_ids")
    if project is not None:  # a project key reads its own project only
        projects = (project,) if not projects or project in projects else ("-",)  # "-" names no project
    columns = tuple(GROUPS[g] for g in group_by if g in GROUPS)
    if costs:  # priced per model, whatever the grouping
        columns = tuple(dict.fromkeys((*columns, "model")))
    query = UsageQuery(
        kind=kind,
        start=page_start,  # a bucket holds its whole width (the first one too), as its start_time says
        end=page_end,
        width=width,
        group_by=columns,
        projects=projects,
        models=params.many("models"),
        api_key_ids=params.many("api_key_ids"),
    )
    return query, page_start, end


def _bucket_list(page_start: int, query: UsageQuery, end: int) -> list[dict[str, Any]]:
    return [
        {"object": "bucket", "start_time": t, "end_time": min(t + query.width, end), "results": []}
        for t in range(page_start, query.end, query.width)
    ]


def _page(buckets: list[dict[str, Any]], query: UsageQuery, end: int) -> dict[str, Any]:
    more = query.end < end
    return {
        "object": "page",
        "data": buckets,
        "has_more": more,
        "next_page": f"{PAGE_PREFIX}{query.end}" if more else None,
    }


def usage_page(rows: Sequence[tuple[Any, ...]], query: UsageQuery, page_start: int, end: int) -> dict[str, Any]:
    """A page of completions or embeddings buckets from the store's rows (bucket, groups..., sums)."""
    buckets = _bucket_list(page_start, query, end)
    by_start = {b["start_time"]: b["results"] for b in buckets}
    n = len(query.group_by)
    names = {v: k for k, v in GROUPS.items()}
    grouped = [names[col] for col in query.group_by]
    embeddings = query.kind == "embeddings"
    for row in rows:
        results = by_start.get(row[0])
        if results is None:
            continue
        inp, cached, out, _reasoning, requests, _estimated = row[1 + n :]
        if embeddings:
            result: dict[str, Any] = {
                "object": "organization.usage.embeddings.result",
                "input_tokens": inp,
                "num_model_requests": requests,
                "project_id": None,
                "user_id": None,
                "api_key_id": None,
                "model": None,
            }
        else:
            result = {
                "object": "organization.usage.completions.result",
                "input_tokens": inp,
                "output_tokens": out,
                "input_cached_tokens": cached,
                "input_uncached_tokens": inp - cached,
                "input_audio_tokens": 0,
                "output_audio_tokens": 0,
                "num_model_requests": requests,
                "project_id": None,
                "user_id": None,
                "api_key_id": None,
                "model": None,
                "batch": None,
                "service_tier": None,
            }
        for i, name in enumerate(grouped):
            result[name] = row[1 + i] or None
        results.append(result)
    return _page(buckets, query, end)


def costs_page(
    rows: Sequence[tuple[Any, ...]],
    query: UsageQuery,
    page_start: int,
    end: int,
    prices: Prices,
    group_by: tuple[str, ...],
) -> dict[str, Any]:
    """A page of cost buckets: each row priced at its model's prices, summed per requested group."""
    buckets = _bucket_list(page_start, query, end)
    by_start = {b["start_time"]: b for b in buckets}
    cols = query.group_by
    sums: dict[tuple[Any, ...], float] = {}
    for row in rows:
        fields = dict(zip(cols, row[1 : 1 + len(cols)], strict=True))
        inp, cached, out = (int(v or 0) for v in row[1 + len(cols) : 4 + len(cols)])
        model = str(fields["model"])
        price = prices.price(model)
        parts = (
            [
                (f"{model}, input", price.cost(inp, cached, 0) - price.cost(cached, cached, 0)),
                (f"{model}, cached input", price.cost(cached, cached, 0)),
                (f"{model}, output", price.cost(0, 0, out)),
            ]
            if "line_item" in group_by
            else [(None, price.cost(inp, cached, out))]
        )
        for line_item, usd in parts:
            key = (
                int(row[0]),
                fields.get("project") if "project_id" in group_by else None,
                fields.get("api_key_id") if "api_key_id" in group_by else None,
                line_item,
            )
            sums[key] = sums.get(key, 0.0) + usd
    for (start, project, key_id, line_item), usd in sorted(sums.items(), key=lambda kv: tuple(map(str, kv[0]))):
        bucket = by_start.get(start)
        if bucket is not None:
            bucket["results"].append(
                {
                    "object": "organization.costs.result",
                    "amount": {"value": round(usd, 10), "currency": "usd"},
                    "line_item": line_item,
                    "project_id": project or None,
                    "api_key_id": key_id or None,
                }
            )
    return _page(buckets, query, end)
