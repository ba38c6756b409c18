"""The usage ledger end to end (#30): calls through both doors on each store, read back through the
Usage and Costs APIs with the openai SDK's admin types; totals equal what the stand-in reported.

One stack per store (SQLite; PostgreSQL through GATEWAY_DATABASE_URL), keys minted through the
admin routes. The ExtProc's records reach the database from its own process (a batch every
0.2 s here), so the reads poll until the figures settle.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK ships with
import pytest
from openai import OpenAI

from tests.support.pg import truncate
from tests.support.procs import ADMIN_KEY, KEYS_ENV, Backend
from tests.support.stack import EnvoyStack, envoy_stack

pytestmark = pytest.mark.slow
MODEL = "scripted-model"
PRICES = {MODEL: {"input": 2.0, "cached_input": 1.0, "output": 8.0}}


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def stack(
    request: pytest.FixtureRequest, backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[EnvoyStack]:
    env = {**KEYS_ENV, "GATEWAY_USAGE_FLUSH_SECONDS": "0.2", "GATEWAY_MODEL_PRICES": json.dumps(PRICES)}
    if request.param == "postgres":
        url = request.getfixturevalue("postgres_url")
        asyncio.run(truncate(url))
        env["GATEWAY_DATABASE_URL"] = url
    with envoy_stack(backend.url, tmp_path_factory.mktemp(f"usage-{request.param}"), **env) as s:
        yield s


def _key(stack: EnvoyStack, project: str) -> dict[str, Any]:
    r = httpx.post(
        f"{stack.http_url}/organization/projects/{project}/api_keys",
        json={"name": "usage"},
        headers={"Authorization": f"Bearer {ADMIN_KEY}"},
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def _settle(read: Callable[[], Any], want: Callable[[Any], bool], seconds: float = 15.0) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        got = read()
        if want(got) or time.monotonic() > deadline:
            return got
        time.sleep(0.2)


def _one_row_per_group(groups: list[Any]) -> None:
    """A bucket holds one row per group: summing a group's rows over buckets must not hide a split."""
    assert len(groups) == len(set(groups)), f"a group has several rows in one bucket: {groups}"


def test_usage_api_totals_match_the_backend(stack: EnvoyStack, backend: Backend, marker: str) -> None:
    start = int(time.time()) - 60
    alpha, beta = _key(stack, f"alpha-{marker}"), _key(stack, f"beta-{marker}")
    via_http = OpenAI(base_url=stack.http_url, api_key=alpha["value"], max_retries=0)
    via_envoy = OpenAI(base_url=stack.url, api_key=beta["value"], max_retries=0)
    backend.script(
        f"one {marker}", {"text": "hello", "usage": {"prompt_tokens": 11, "completion_tokens": 7, "cached_tokens": 3}}
    )
    backend.script(f"two {marker}", {"text": "hi", "usage": {"prompt_tokens": 13, "completion_tokens": 5}})
    backend.script(f"three {marker}", {"text": "yo", "usage": {"prompt_tokens": 17, "completion_tokens": 9}})
    backend.script(f"four {marker}", {"text": "ok", "usage": {"prompt_tokens": 19, "completion_tokens": 2}})
    via_http.responses.create(model=MODEL, input=f"one {marker}")  # alpha, HTTP door
    via_envoy.responses.create(model=MODEL, input=f"two {marker}")  # beta, Envoy door (ExtProc)
    with via_envoy.responses.stream(model=MODEL, input=f"four {marker}") as events:  # beta, streamed via ExtProc
        events.until_done()
    via_http.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": f"three {marker}"}])
    via_envoy.embeddings.create(model=MODEL, input=f"a b c d {marker}")  # beta: 5 words -> 5 tokens

    admin = OpenAI(base_url=stack.http_url, api_key="unused", admin_api_key=ADMIN_KEY, max_retries=0)

    def completions() -> Any:
        return admin.admin.organization.usage.completions(
            start_time=start,
            bucket_width="1h",
            group_by=["project_id", "api_key_id", "model"],
            project_ids=[alpha["project_id"], beta["project_id"]],
        )

    page = _settle(completions, lambda p: sum(r.num_model_requests for b in p.data for r in b.results) >= 4)
    assert page.object == "page" and page.data[0].object == "bucket"
    # the calls may fall in two hourly buckets (an hour turned between them): each key's rows are summed
    results: dict[tuple[str, str], list[Any]] = {}
    for bucket in page.data:
        _one_row_per_group([(r.project_id, r.api_key_id, r.model) for r in bucket.results])
        for r in bucket.results:
            results.setdefault((r.project_id, r.api_key_id), []).append(r)

    def total(key: dict[str, Any], *fields: str) -> tuple[int, ...]:
        return tuple(sum(getattr(r, f) for r in results[(key["project_id"], key["id"])]) for f in fields)

    assert total(alpha, "input_tokens", "input_cached_tokens", "output_tokens", "num_model_requests") == (28, 3, 16, 2)
    assert total(beta, "input_tokens", "output_tokens", "num_model_requests") == (13 + 19, 5 + 2, 2)
    a = results[(alpha["project_id"], alpha["id"])][0]
    assert a.object == "organization.usage.completions.result" and a.model == MODEL

    embeddings = _settle(
        lambda: admin.admin.organization.usage.embeddings(start_time=start, project_ids=[beta["project_id"]]),
        lambda p: any(b.results for b in p.data),
    )
    (emb,) = [r for b in embeddings.data for r in b.results]
    assert (emb.input_tokens, emb.num_model_requests, emb.project_id) == (5, 1, None)  # not grouped: no project

    costs = admin.admin.organization.usage.costs(
        start_time=start, group_by=["project_id"], project_ids=[alpha["project_id"]]
    )
    spent = [r for b in costs.data for r in b.results]  # one daily bucket, or two across midnight (UTC)
    for bucket in costs.data:
        _one_row_per_group([r.project_id for r in bucket.results])
    expected = ((28 - 3) * 2.0 + 3 * 1.0 + 16 * 8.0) / 1e6
    assert spent and all(c.amount is not None and c.amount.currency == "usd" for c in spent)
    assert sum(c.amount.value for c in spent) == pytest.approx(expected)
    assert {c.project_id for c in spent} == {alpha["project_id"]}

    # a project key reads its own project's usage only, whatever it asks for
    own = httpx.get(
        f"{stack.url}/usage",
        params={"start_time": start, "group_by": "project_id", "project_ids": beta["project_id"]},
        headers={"Authorization": f"Bearer {alpha['value']}"},
    ).json()
    assert [r["project_id"] for b in own["data"] for r in b["results"]] == []
    own = httpx.get(
        f"{stack.http_url}/usage", params={"start_time": start}, headers={"Authorization": f"Bearer {alpha['value']}"}
    ).json()
    assert sum(r["input_tokens"] for b in own["data"] for r in b["results"]) == 28
    denied = httpx.get(
        f"{stack.http_url}/organization/usage/completions",
        params={"start_time": start},
        headers={"Authorization": f"Bearer {alpha['value']}"},
    )
    assert denied.status_code == 401


def test_the_door_each_call_came_in_by(stack: EnvoyStack, backend: Backend, marker: str) -> None:
    """Passthroughs reach the HTTP server through Envoy's route, yet count as the Envoy door's: Envoy
    labels its routes to the HTTP server (over any copy the client sends); the Usage API groups by it."""
    start = int(time.time()) - 60
    project = f"doors-{marker}"
    via_envoy, direct = _key(stack, project), _key(stack, project)
    envoy = OpenAI(base_url=stack.url, api_key=via_envoy["value"], max_retries=0)
    http = OpenAI(base_url=stack.http_url, api_key=direct["value"], max_retries=0)
    for n in range(3):
        backend.script(f"door{n} {marker}", {"text": "ok", "usage": {"prompt_tokens": 3, "completion_tokens": 1}})
    said = [{"role": "user", "content": f"door0 {marker}"}]
    envoy.chat.completions.create(model=MODEL, messages=said, extra_headers={"x-gateway-door": "http"})
    envoy.responses.create(model=MODEL, input=f"door1 {marker}")  # the ExtProc's own turn
    http.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": f"door2 {marker}"}])
    envoy.embeddings.create(model=MODEL, input=f"a b {marker}")

    def read(kind: str) -> dict[str, Any]:
        return dict(
            httpx.get(
                f"{stack.http_url}/organization/usage/{kind}",
                params={"start_time": start, "bucket_width": "1h", "group_by": ["door", "api_key_id"]}
                | {"project_ids": project},
                headers={"Authorization": f"Bearer {ADMIN_KEY}"},
            ).json()
        )

    def doors(page: dict[str, Any]) -> dict[tuple[str, str], int]:
        counts: dict[tuple[str, str], int] = {}  # summed over the hourly buckets (an hour may turn mid-test)
        for bucket in page["data"]:
            _one_row_per_group([(r["door"], r["api_key_id"]) for r in bucket["results"]])
        for r in (r for b in page["data"] for r in b["results"]):
            counts[(r["door"], r["api_key_id"])] = counts.get((r["door"], r["api_key_id"]), 0) + r["num_model_requests"]
        return counts

    got = doors(_settle(lambda: read("completions"), lambda p: sum(doors(p).values()) >= 3))
    assert got == {("envoy", via_envoy["id"]): 2, ("http", direct["id"]): 1}, got
    embedded = doors(_settle(lambda: read("embeddings"), lambda p: bool(doors(p))))
    assert embedded == {("envoy", via_envoy["id"]): 1}, embedded


def test_buckets_pages_and_bad_parameters(stack: EnvoyStack) -> None:
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    now = int(time.time())
    url = f"{stack.http_url}/organization/usage/completions"
    # an explicit end: the pages are read against one `now` even if a day turns between the two reads
    first = httpx.get(
        url, params={"start_time": now - 5 * 86400, "end_time": now + 1, "limit": 2}, headers=admin
    ).json()
    assert len(first["data"]) == 2 and first["has_more"] and first["next_page"]
    assert first["data"][0]["start_time"] % 86400 == 0
    assert first["data"][1]["start_time"] == first["data"][0]["end_time"]
    rest = httpx.get(
        url,
        params={"start_time": now - 5 * 86400, "end_time": now + 1, "limit": 7, "page": first["next_page"]},
        headers=admin,
    ).json()
    assert rest["data"][0]["start_time"] == first["data"][1]["end_time"] and not rest["has_more"]
    assert rest["next_page"] is None and len(first["data"]) + len(rest["data"]) == 6
    for params, param in (
        ({}, "start_time"),
        ({"start_time": "soon"}, "start_time"),
        ({"start_time": now, "bucket_width": "2d"}, "bucket_width"),
        ({"start_time": now, "limit": 32}, "limit"),
        ({"start_time": now, "group_by": "user_id"}, "group_by"),
        ({"start_time": now, "page": "nope"}, "page"),
        ({"start_time": now, "end_time": now - 10}, "end_time"),
        ({"start_time": 10**20}, "start_time"),
        ({"start_time": now, "page": "page_" + "9" * 30}, "page"),
    ):
        r = httpx.get(url, params=params, headers=admin)
        assert r.status_code == 400 and r.json()["error"]["param"] == param, (params, r.text)
    costs = httpx.get(
        f"{stack.http_url}/organization/costs", params={"start_time": now, "bucket_width": "1h"}, headers=admin
    )
    assert costs.status_code == 400 and costs.json()["error"]["param"] == "bucket_width"


def test_openapi_lists_the_usage_routes(stack: EnvoyStack) -> None:
    doc = httpx.get(f"{stack.http.base}/openapi.json").json()
    for path in (
        "/v1/organization/usage/completions",
        "/v1/organization/usage/embeddings",
        "/v1/organization/costs",
        "/v1/usage",
    ):
        names = {p["name"] for p in doc["paths"][path]["get"]["parameters"]}
        assert {"start_time", "bucket_width", "group_by", "page"} <= names, path


def test_ledger_keeps_what_a_clean_stop_had_queued(backend: Backend, tmp_path: Path, marker: str) -> None:
    """A long flush period: the records are still queued when the stop comes, and are written then."""
    from tests.support.procs import gateway

    env = {**KEYS_ENV, "GATEWAY_USAGE_FLUSH_SECONDS": "60"}
    with gateway(backend.url, tmp_path, **env) as gw:
        key = httpx.post(
            f"{gw.url}/organization/projects/stop-{marker}/api_keys",
            json={},
            headers={"Authorization": f"Bearer {ADMIN_KEY}"},
        ).json()
        client = OpenAI(base_url=gw.url, api_key=key["value"], max_retries=0)
        backend.script(f"stop {marker}", {"text": "x", "usage": {"prompt_tokens": 23, "completion_tokens": 4}})
        client.responses.create(model=MODEL, input=f"stop {marker}")
    with gateway(backend.url, tmp_path, **env) as gw:
        r = httpx.get(
            f"{gw.url}/organization/usage/completions",
            params={"start_time": int(time.time()) - 300, "project_ids": f"stop-{marker}"},
            headers={"Authorization": f"Bearer {ADMIN_KEY}"},
        ).json()
        assert sum(res["input_tokens"] for b in r["data"] for res in b["results"]) == 23
