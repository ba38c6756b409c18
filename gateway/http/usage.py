"""The Usage and Costs APIs (#30): the admin key reads every project, a project key its own.

    GET /v1/organization/usage/completions   (admin key)  OpenAI's page of buckets
    GET /v1/organization/usage/embeddings    (admin key)
    GET /v1/organization/costs               (admin key)  USD from GATEWAY_MODEL_PRICES
    GET /v1/usage                            (project key) completions usage of the caller's project
    GET /v1/usage/embeddings, /v1/usage/costs (project key)

The shapes are built in `gateway.usage.api`; this module only reads the request and the ledger.
"""

from __future__ import annotations

from aiohttp import web

from gateway.http.common import json_response
from gateway.http.state import runtime
from gateway.usage import api
from gateway.usage import recorder as usage_recorder

routes = web.RouteTableDef()


async def _usage(request: web.Request, kind: str, project: str | None) -> web.Response:
    query, page_start, end = api.plan(api.Params(request.query), kind, project=project)
    await usage_recorder.RECORDER.flush()  # this process's queued calls count at once
    rows = await runtime(request).usage.ledger.buckets(query) if query.end > query.start else []
    return json_response(api.usage_page(rows, query, page_start, end))


async def _costs(request: web.Request, project: str | None) -> web.Response:
    params = api.Params(request.query)
    query, page_start, end = api.plan(params, "*", costs=True, project=project)
    await usage_recorder.RECORDER.flush()
    rows = await runtime(request).usage.ledger.buckets(query) if query.end > query.start else []
    page = api.costs_page(rows, query, page_start, end, runtime(request).usage.prices, params.many("group_by"))
    return json_response(page)


@routes.get("/v1/organization/usage/completions")
async def org_completions(request: web.Request) -> web.Response:
    return await _usage(request, "completions", None)


@routes.get("/v1/organization/usage/embeddings")
async def org_embeddings(request: web.Request) -> web.Response:
    return await _usage(request, "embeddings", None)


@routes.get("/v1/organization/costs")
async def org_costs(request: web.Request) -> web.Response:
    return await _costs(request, None)


@routes.get("/v1/usage")
async def project_completions(request: web.Request) -> web.Response:
    return await _usage(request, "completions", request["project"])


@routes.get("/v1/usage/embeddings")
async def project_embeddings(request: web.Request) -> web.Response:
    return await _usage(request, "embeddings", request["project"])


@routes.get("/v1/usage/costs")
async def project_costs(request: web.Request) -> web.Response:
    return await _costs(request, request["project"])
