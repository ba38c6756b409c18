"""The Vector Stores API as operations: stores, their files, file batches, search.

Adding files only records them (`in_progress`) and queues them: the ingestion worker does the work
in the background, so these calls answer at once, as OpenAI's do, and clients poll the status.
"""

from __future__ import annotations

import logging
from typing import Any

from gateway.common.errors import InvalidRequest, NotFound
from gateway.common.ids import new_id, require_id
from gateway.retrieval import params
from gateway.retrieval.core import Retrieval
from gateway.retrieval.search import DEFAULT_MAX_RESULTS, result_object, search_stores_detailed
from storage.base import Page

log = logging.getLogger(__name__)

MAX_BATCH_FILES = 2000
FILE_FILTERS = ("in_progress", "completed", "failed", "cancelled")


def _body(body: Any) -> dict[str, Any]:
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise InvalidRequest("The request body must be a JSON object.", code="invalid_json")
    return body


def _unknown(body: dict[str, Any], allowed: set[str]) -> None:
    for key in body:
        if key not in allowed:
            raise InvalidRequest(f"Unknown parameter: '{key}'.", param=key, code="unknown_parameter")


def _check_status_filter(status: str | None) -> None:
    if status is not None and status not in FILE_FILTERS:
        raise params.bad(f"Invalid 'filter': expected one of {', '.join(FILE_FILTERS)}.", "filter")


class VectorStoresService:
    def __init__(self, retrieval: Retrieval) -> None:
        self.r = retrieval

    # -- stores ------------------------------------------------------------------------------------
    async def create(self, body: Any) -> dict[str, Any]:
        body = _body(body)
        _unknown(body, {"name", "file_ids", "metadata", "chunking_strategy", "expires_after", "description"})
        name = params.text(body.get("name"), "name", params.MAX_NAME_CHARS)
        file_ids = params.string_list(body.get("file_ids"), "file_ids", required=False)
        chunking = params.chunking_strategy(body.get("chunking_strategy"))
        data = {
            "name": name or "",
            "metadata": params.metadata(body.get("metadata")) or {},
            "expires_after": params.store_expires_after(body.get("expires_after")),
            "description": params.text(body.get("description"), "description", params.MAX_DESCRIPTION_CHARS),
        }
        await self._require_files(file_ids, "file_ids")
        embedder, dimension = await self.r.embedder_identity()
        store_id = new_id("vs")
        await (await self.r.backend()).create_store(store_id, dimension)
        await self.r.stores.create_store(store_id, embedder=embedder, dimension=dimension, data=data)
        if file_ids:
            entries = [{"file_id": f, "attributes": {}, "chunking_strategy": chunking} for f in dict.fromkeys(file_ids)]
            await self._attach(store_id, entries)
        return await self.retrieve(store_id)

    async def retrieve(self, store_id: str) -> dict[str, Any]:
        found = await self.r.stores.get_store(store_id)
        if found is None:
            raise NotFound(f"No vector store found with id '{store_id}'.", param="vector_store_id")
        return found

    async def list_stores(self, *, limit: int, order: str, after: str | None, before: str | None) -> Page:
        return await self.r.stores.list_stores(limit=limit, order=order, after=after, before=before)

    async def update(self, store_id: str, body: Any) -> dict[str, Any]:
        body = _body(body)
        _unknown(body, {"name", "metadata", "expires_after"})
        changes: dict[str, Any] = {}
        if "name" in body:
            changes["name"] = params.text(body["name"], "name", params.MAX_NAME_CHARS) or ""
        if "metadata" in body:
            changes["metadata"] = params.metadata(body["metadata"]) or {}
        if "expires_after" in body:
            changes["expires_after"] = params.store_expires_after(body["expires_after"])
        updated = await self.r.stores.update_store(store_id, changes)
        if updated is None:
            raise NotFound(f"No vector store found with id '{store_id}'.", param="vector_store_id")
        return updated

    async def delete(self, store_id: str) -> dict[str, Any]:
        await self.retrieve(store_id)
        if self.r.worker is not None:
            await self.r.worker.cancel_store(store_id)
        if not await self.r.stores.delete_store(store_id):
            raise NotFound(f"No vector store found with id '{store_id}'.", param="vector_store_id")
        await (await self.r.backend()).drop_store(store_id)
        await self.r.forget_graph(store_id)
        return {"id": store_id, "object": "vector_store.deleted", "deleted": True}

    async def search(self, store_id: str, body: Any) -> dict[str, Any]:
        body = _body(body)
        _unknown(body, {"query", "filters", "max_num_results", "ranking_options", "rewrite_query"})
        query = body.get("query")
        if isinstance(query, str) and query.strip():
            queries = [query]
        elif isinstance(query, list) and query and all(isinstance(q, str) and q.strip() for q in query):
            queries = list(query)
        elif query is None:
            raise params.bad("Missing required parameter: 'query'.", "query", "missing_required_parameter")
        else:
            raise params.bad("Invalid 'query': expected a non-empty string or array of strings.", "query")
        k = DEFAULT_MAX_RESULTS
        if body.get("max_num_results") is not None:
            k = params.require_int(body["max_num_results"], "max_num_results", 1, params.MAX_NUM_RESULTS)
        filters = params.filters(body.get("filters"))
        ranking = params.ranking_options(body.get("ranking_options"))
        if body.get("rewrite_query") is not None and not isinstance(body["rewrite_query"], bool):
            raise params.bad("Invalid type for 'rewrite_query': expected a boolean.", "rewrite_query", "invalid_type")
        store = await self.retrieve(store_id)
        if store["status"] == "expired":
            raise InvalidRequest(f"Vector store '{store_id}' has expired.", param="vector_store_id", code="expired")
        await self.r.check_embedder(store_id)
        # rewrite_query is accepted; queries are searched as written (no model rewrites them here)
        outcome = await search_stores_detailed(
            self.r,
            [store_id],
            queries,
            k=k,
            filters=filters,
            score_threshold=ranking["score_threshold"],
            mode=ranking["mode"],
            vector_weight=ranking["vector_weight"],
            ranker=ranking["ranker"],
        )
        page: dict[str, Any] = {
            "object": "vector_store.search_results.page",
            "search_query": queries,
            "data": [result_object(h) for h in outcome.hits],
            "has_more": False,
            "next_page": None,
        }
        if outcome.entities is not None:
            page["entities"] = outcome.entities
        return page

    async def entities(
        self, store_id: str, query: str | None, limit: str | None, file_id: str | None = None
    ) -> list[dict[str, Any]]:
        """The knowledge graph's entities whose name contains `query` (#12); without `query`, the
        most-mentioned ones (where the console's graph starts, #32); with `file_id` those extracted
        from that file of the store (#28: `query` then narrows them). The store is looked up through
        its project-scoped store first, so another project's graph is never reached."""
        if file_id is not None and not file_id.strip():
            raise params.bad("Invalid 'file_id': expected a file id.", "file_id")
        if query is not None and len(query) > 256:
            raise params.bad("Invalid 'query': at most 256 characters.", "query")
        count = 20
        if limit is not None:
            try:
                count = int(limit)
            except ValueError:
                raise params.bad("Invalid type for 'limit': expected an integer.", "limit", "invalid_type") from None
            params.require_int(count, "limit", 1, 100)
        await self.retrieve(store_id)
        if file_id is not None and await self.r.stores.get_file(store_id, file_id) is None:
            raise NotFound(f"No file found with id '{file_id}' in vector store '{store_id}'.", param="file_id")
        knowledge = await self.r.knowledge()
        return list(await knowledge.lookup(store_id, (query or "").strip(), count, file_id=file_id))

    # -- files -------------------------------------------------------------------------------------
    async def _require_files(self, file_ids: list[str], param: str) -> None:
        found = await self.r.files.get_many(list(dict.fromkeys(file_ids)))
        missing = [f for f in file_ids if f not in found]
        if missing:
            raise InvalidRequest(f"File(s) not found: {', '.join(missing[:5])}.", param=param, code="file_not_found")

    async def _attach(self, store_id: str, entries: list[dict[str, Any]], batch_id: str | None = None) -> None:
        if self.r.worker is not None:  # a re-added file that is being ingested starts over
            for entry in entries:
                await self.r.worker.cancel(store_id, entry["file_id"])
        if not await self.r.stores.add_files(store_id, entries, batch_id=batch_id):
            raise NotFound(f"No vector store found with id '{store_id}'.", param="vector_store_id")
        if self.r.worker is not None:
            for entry in entries:
                self.r.worker.enqueue(store_id, entry["file_id"])

    async def create_file(self, store_id: str, body: Any) -> dict[str, Any]:
        body = _body(body)
        _unknown(body, {"file_id", "attributes", "chunking_strategy"})
        file_id = body.get("file_id")
        if not isinstance(file_id, str) or not file_id:
            raise params.bad("Missing required parameter: 'file_id'.", "file_id", "missing_required_parameter")
        require_id(file_id, "file_id")
        entry = {
            "file_id": file_id,
            "attributes": params.attributes(body.get("attributes")),
            "chunking_strategy": params.chunking_strategy(body.get("chunking_strategy")),
        }
        await self.retrieve(store_id)
        await self.r.check_embedder(store_id)
        if await self.r.files.get(file_id) is None:
            raise NotFound(f"No file found with id '{file_id}'.", param="file_id")
        await self._attach(store_id, [entry])
        return await self.retrieve_file(store_id, file_id)

    async def retrieve_file(self, store_id: str, file_id: str) -> dict[str, Any]:
        found = await self.r.stores.get_file(store_id, file_id)
        if found is None:
            raise NotFound(f"No file '{file_id}' in vector store '{store_id}'.", param="file_id")
        return found

    async def list_files(
        self, store_id: str, *, status: str | None, limit: int, order: str, after: str | None, before: str | None
    ) -> Page:
        _check_status_filter(status)
        await self.retrieve(store_id)
        return await self.r.stores.list_files(
            store_id, status=status, limit=limit, order=order, after=after, before=before
        )

    async def update_file(self, store_id: str, file_id: str, body: Any) -> dict[str, Any]:
        body = _body(body)
        _unknown(body, {"attributes"})
        if "attributes" not in body:
            raise params.bad("Missing required parameter: 'attributes'.", "attributes", "missing_required_parameter")
        attributes = params.attributes(body["attributes"])
        updated = await self.r.stores.update_attributes(store_id, file_id, attributes)
        if updated is None:
            raise NotFound(f"No file '{file_id}' in vector store '{store_id}'.", param="file_id")
        if updated["status"] == "completed":
            await (await self.r.backend()).update_attributes(store_id, file_id, attributes)
        return updated

    async def delete_file(self, store_id: str, file_id: str) -> dict[str, Any]:
        await self.retrieve_file(store_id, file_id)
        if self.r.worker is not None:
            await self.r.worker.cancel(store_id, file_id)
        if not await self.r.stores.delete_file(store_id, file_id):
            raise NotFound(f"No file '{file_id}' in vector store '{store_id}'.", param="file_id")
        await (await self.r.backend()).delete_file(store_id, file_id)
        await self.r.forget_graph(store_id, file_id)
        return {"id": file_id, "object": "vector_store.file.deleted", "deleted": True}

    async def file_content(self, store_id: str, file_id: str) -> dict[str, Any]:
        await self.retrieve_file(store_id, file_id)
        chunks = await (await self.r.backend()).file_chunks(store_id, file_id)
        return {
            "object": "vector_store.file_content.page",
            "data": [{"type": "text", "text": c.text} for c in chunks],
            "has_more": False,
            "next_page": None,
        }

    # -- batches -----------------------------------------------------------------------------------
    async def create_batch(self, store_id: str, body: Any) -> dict[str, Any]:
        body = _body(body)
        _unknown(body, {"file_ids", "files", "attributes", "chunking_strategy"})
        if ("file_ids" in body) == ("files" in body):
            raise params.bad("Provide exactly one of 'file_ids' or 'files'.", "file_ids", "invalid_request")
        entries: list[dict[str, Any]] = []
        if "file_ids" in body:
            file_ids = params.string_list(body["file_ids"], "file_ids")
            attributes = params.attributes(body.get("attributes"))
            chunking = params.chunking_strategy(body.get("chunking_strategy"))
            entries = [{"file_id": f, "attributes": attributes, "chunking_strategy": chunking} for f in file_ids]
        else:
            files = body["files"]
            if not isinstance(files, list):
                raise params.bad("Invalid type for 'files': expected an array.", "files", "invalid_type")
            for i, spec in enumerate(files):
                if not isinstance(spec, dict) or not isinstance(spec.get("file_id"), str) or not spec["file_id"]:
                    raise params.bad(f"Missing required parameter: 'files[{i}].file_id'.", f"files[{i}].file_id")
                entries.append(
                    {
                        "file_id": spec["file_id"],
                        "attributes": params.attributes(spec.get("attributes"), f"files[{i}].attributes"),
                        "chunking_strategy": params.chunking_strategy(
                            spec.get("chunking_strategy"), f"files[{i}].chunking_strategy"
                        ),
                    }
                )
        if not entries or len(entries) > MAX_BATCH_FILES:
            raise params.bad(
                f"A batch holds 1 to {MAX_BATCH_FILES} files.", "file_ids" if "file_ids" in body else "files"
            )
        entries = list({e["file_id"]: e for e in entries}.values())
        await self.retrieve(store_id)
        await self.r.check_embedder(store_id)
        await self._require_files([e["file_id"] for e in entries], "file_ids" if "file_ids" in body else "files")
        batch_id = new_id("vsfb")
        await self._attach(store_id, entries, batch_id)
        return await self.retrieve_batch(store_id, batch_id)

    async def retrieve_batch(self, store_id: str, batch_id: str) -> dict[str, Any]:
        found = await self.r.stores.get_batch(store_id, batch_id)
        if found is None:
            raise NotFound(f"No file batch '{batch_id}' in vector store '{store_id}'.", param="batch_id")
        return found

    async def cancel_batch(self, store_id: str, batch_id: str) -> dict[str, Any]:
        cancelled = await self.r.stores.cancel_batch(store_id, batch_id)
        if cancelled is None:
            raise NotFound(f"No file batch '{batch_id}' in vector store '{store_id}'.", param="batch_id")
        backend = await self.r.backend()
        for file_id in cancelled:
            if self.r.worker is not None:
                await self.r.worker.cancel(store_id, file_id)
            await backend.delete_file(store_id, file_id)  # chunks a cut-short job may have written
            await self.r.forget_graph(store_id, file_id)
        return await self.retrieve_batch(store_id, batch_id)

    async def list_batch_files(
        self,
        store_id: str,
        batch_id: str,
        *,
        status: str | None,
        limit: int,
        order: str,
        after: str | None,
        before: str | None,
    ) -> Page:
        _check_status_filter(status)
        await self.retrieve_batch(store_id, batch_id)
        return await self.r.stores.list_files(
            store_id, batch_id=batch_id, status=status, limit=limit, order=order, after=after, before=before
        )
