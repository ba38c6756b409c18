"""Routes of `/v1/vector_stores`: stores, files, file batches and search.

Objects still being processed carry `openai-poll-after-ms`, the header the SDK's `*_and_poll`
helpers read, so clients poll at the pace ingestion actually moves.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from gateway.api_models.pages import list_body
from gateway.http import files
from gateway.http.common import json_response, page_params, read_json
from gateway.http.state import RUNTIME
from gateway.retrieval.stores import VectorStoresService
from storage.base import Page

routes = web.RouteTableDef()
POLL_AFTER_MS = "250"
BASE = "/v1/vector_stores"
STORE = BASE + "/{vector_store_id}"
FILE = STORE + "/files/{file_id}"
BATCH = STORE + "/file_batches/{batch_id}"


def _svc(request: web.Request) -> VectorStoresService:
    return request.app[RUNTIME].vector_stores


def _sid(request: web.Request) -> str:
    return request.match_info["vector_store_id"]


def _ids(request: web.Request) -> tuple[str, str]:
    """(vector store id, file or batch id)."""
    info = request.match_info
    return info["vector_store_id"], info.get("file_id") or info["batch_id"]


def _reply(body: dict[str, Any]) -> web.Response:
    resp = json_response(body)
    if body.get("status") == "in_progress":
        resp.headers["openai-poll-after-ms"] = POLL_AFTER_MS
    return resp


def _page(page: Page) -> web.Response:
    return json_response(list_body(page.data, page.has_more))


# -- stores ----------------------------------------------------------------------------------------
@routes.post(BASE)
async def create_store(request: web.Request) -> web.Response:
    """Create a vector store; its file_ids are ingested in the background."""
    return _reply(await _svc(request).create(await read_json(request, optional=True)))


@routes.get(BASE)
async def list_stores(request: web.Request) -> web.Response:
    """List vector stores."""
    return _page(await _svc(request).list_stores(**page_params(request)))


@routes.get(STORE)
async def retrieve_store(request: web.Request) -> web.Response:
    """Retrieve a vector store with exact file_counts."""
    return _reply(await _svc(request).retrieve(_sid(request)))


@routes.post(STORE)
async def update_store(request: web.Request) -> web.Response:
    """Update a vector store's name, metadata or expires_after."""
    return _reply(await _svc(request).update(_sid(request), await read_json(request, optional=True)))


@routes.delete(STORE)
async def delete_store(request: web.Request) -> web.Response:
    """Delete a vector store and its chunks (the files stay)."""
    return json_response(await _svc(request).delete(_sid(request)))


@routes.post(STORE + "/search")
async def search(request: web.Request) -> web.Response:
    """Search a vector store (query, filters, max_num_results, ranking_options)."""
    return json_response(await _svc(request).search(_sid(request), await read_json(request)))


# -- files -----------------------------------------------------------------------------------------
@routes.post(STORE + "/files")
async def create_file(request: web.Request) -> web.Response:
    """Attach a file to a vector store; ingestion runs in the background."""
    return _reply(await _svc(request).create_file(_sid(request), await read_json(request)))


@routes.get(STORE + "/files")
async def list_files(request: web.Request) -> web.Response:
    """List a vector store's files (filter by status)."""
    page = await _svc(request).list_files(
        _sid(request), status=request.query.get("filter") or None, **page_params(request)
    )
    return _page(page)


@routes.get(FILE)
async def retrieve_file(request: web.Request) -> web.Response:
    """Retrieve a vector store file (status, last_error, attributes)."""
    return _reply(await _svc(request).retrieve_file(*_ids(request)))


@routes.post(FILE)
async def update_file(request: web.Request) -> web.Response:
    """Replace a vector store file's attributes."""
    return _reply(await _svc(request).update_file(*_ids(request), await read_json(request)))


@routes.delete(FILE)
async def delete_file(request: web.Request) -> web.Response:
    """Remove a file from a vector store (the file stays)."""
    return json_response(await _svc(request).delete_file(*_ids(request)))


@routes.get(FILE + "/content")
async def file_content(request: web.Request) -> web.Response:
    """The chunks' text of a vector store file."""
    return json_response(await _svc(request).file_content(*_ids(request)))


# -- file batches ----------------------------------------------------------------------------------
@routes.post(STORE + "/file_batches")
async def create_batch(request: web.Request) -> web.Response:
    """Attach several files at once (file_ids or files)."""
    return _reply(await _svc(request).create_batch(_sid(request), await read_json(request)))


@routes.get(BATCH)
async def retrieve_batch(request: web.Request) -> web.Response:
    """Retrieve a file batch with its file_counts."""
    return _reply(await _svc(request).retrieve_batch(*_ids(request)))


@routes.post(BATCH + "/cancel")
async def cancel_batch(request: web.Request) -> web.Response:
    """Cancel a file batch's files still in progress."""
    return _reply(await _svc(request).cancel_batch(*_ids(request)))


@routes.get(BATCH + "/files")
async def list_batch_files(request: web.Request) -> web.Response:
    """List a file batch's files."""
    store_id, batch_id = _ids(request)
    page = await _svc(request).list_batch_files(
        store_id, batch_id, status=request.query.get("filter") or None, **page_params(request)
    )
    return _page(page)


@routes.get(STORE + "/entities")
async def entities(request: web.Request) -> web.Response:
    """Entities of the vector store's knowledge graph whose name contains `query`, or (`file_id`)
    those extracted from one of its files."""
    q = request.query
    found = await _svc(request).entities(_sid(request), q.get("query"), q.get("limit"), q.get("file_id"))
    return json_response(list_body(found, False))


def install(app: web.Application) -> None:
    """Add the Files and Vector Stores APIs to the app (the runtime runs ingestion)."""
    app.add_routes(files.routes)
    app.add_routes(routes)
