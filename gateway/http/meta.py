"""Models, health, readiness and the OpenAPI document."""

from __future__ import annotations

import asyncio

from aiohttp import web

from gateway.common.errors import APIError, BackendError, NotFound
from gateway.engine.models import ModelCatalog
from gateway.http.common import error_response, json_response
from gateway.http.openapi import openapi_document
from gateway.http.state import door, runtime
from gateway.process.workers import extproc_ports, extproc_serving
from gateway.research.models import catalog_entries

routes = web.RouteTableDef()


async def _models(request: web.Request) -> list[dict[str, object]]:
    catalog: ModelCatalog = runtime(request).models
    if not catalog.models and not await catalog.refresh():
        raise BackendError("the inference backend is unreachable and no model list is cached", status=503)
    return catalog.models + catalog_entries()  # the backend's models, then research and deep-research


@routes.get("/v1/models")
async def list_models(request: web.Request) -> web.Response:
    return json_response({"object": "list", "data": await _models(request)})


@routes.get("/v1/models/{model_id:.+}")
async def get_model(request: web.Request) -> web.Response:
    model_id = request.match_info["model_id"]
    for model in await _models(request):
        if model.get("id") == model_id:
            return json_response(model)
    return error_response(NotFound(f"The model '{model_id}' does not exist.", param="model", code="model_not_found"))


@routes.get("/health")
async def health(request: web.Request) -> web.Response:
    return json_response({"status": "ok"})


@routes.get("/ready")
async def ready(request: web.Request) -> web.Response:
    """Ready when storage answers, the backend is reachable and (under `up`) every ExtProc worker
    serves: what a load balancer should ask."""
    checks: dict[str, bool] = {}
    try:
        checks["storage"] = await runtime(request).store.ping()
    except APIError:
        checks["storage"] = False
    except Exception:
        checks["storage"] = False
    checks["backend"] = await runtime(request).backend.ping()
    settings = runtime(request).settings
    if settings.ready_checks_extproc:  # under `up`: Envoy sends POST /v1/responses to these workers
        host = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(settings.host, settings.host)
        ports = extproc_ports(settings)
        checks["extproc"] = await asyncio.to_thread(lambda: all(extproc_serving(host, p) for p in ports))
    checks["accepting"] = not door(request).drain.draining  # false once SIGTERM arrived
    ok = all(checks.values())
    return json_response({"status": "ready" if ok else "not_ready", "checks": checks}, status=200 if ok else 503)


@routes.get("/openapi.json")
async def openapi(request: web.Request) -> web.Response:
    return json_response(openapi_document(request.app.router))
