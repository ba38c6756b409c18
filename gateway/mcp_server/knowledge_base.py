"""Reading the knowledge base for MCP clients: which stores a caller searches, search, fetch, documents.

A *document* is a file in a vector store. Its id in `search`/`fetch` is the file id (what ChatGPT
connectors and deep research pass back to `fetch`); the memory tools and `kb://` resources name the
store too. Every search goes through `gateway.retrieval.search.search_stores`, so the MCP server
ranks exactly as `file_search` and the Vector Stores API do (and gets the `kg` ranker when #12 adds
it there). Stores are always looked up through the vector store store, which is what tenancy scopes.

Why re-extract the file for `fetch` instead of joining chunks: chunks overlap, so joining them
would repeat text; extraction (CPU-bound) runs in a thread.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from gateway.common.errors import APIError
from gateway.common.ids import id_problem, is_valid_id
from gateway.config import Settings
from gateway.retrieval.core import Retrieval
from gateway.retrieval.files import FilesService
from gateway.retrieval.params import RANKERS
from gateway.retrieval.search import search_stores
from gateway.retrieval.stores import VectorStoresService
from vectorstore.base import Hit

MAX_STORES = 200  # stores one call may search (a caller with more names them)
MAX_FETCH_CHARS = 200_000  # text `fetch` returns at most; longer documents are cut and say so
TAG_PREFIX = "tag:"  # tags live in the file's attributes as `tag:<name>: true` (filterable in search)
SOURCE_KEYS = ("source_url", "url")  # attributes holding a document's origin (crawled pages set source_url)


class ToolFailure(Exception):
    """A caller's mistake or a refused operation: becomes an MCP tool error with this message."""


@dataclass(frozen=True)
class Document:
    store_id: str
    file_id: str
    filename: str
    attributes: dict[str, Any]
    status: str
    created_at: int
    bytes: int

    @property
    def title(self) -> str:
        title = self.attributes.get("title")
        return title if isinstance(title, str) and title else self.filename

    @property
    def tags(self) -> list[str]:
        return sorted(k[len(TAG_PREFIX) :] for k, v in self.attributes.items() if k.startswith(TAG_PREFIX) and v)

    @property
    def uri(self) -> str:
        return f"kb://{self.store_id}/{self.file_id}"


def split_ids(value: str | None) -> list[str]:
    return [s.strip() for s in (value or "").split(",") if s.strip()]


class KnowledgeBase:
    """The read side, shared by every transport of one process."""

    def __init__(self, retrieval: Retrieval, settings: Settings) -> None:
        self.r = retrieval
        self.settings = settings
        self.files = FilesService(retrieval)
        self.vector_stores = VectorStoresService(retrieval)
        self.configured = split_ids(settings.mcp_server_vector_store_ids)
        base = settings.mcp_server_public_url or f"http://{settings.host}:{settings.envoy_port}"
        self.public_url = base.rstrip("/")

    # -- stores ------------------------------------------------------------------------------------
    async def store(self, store_id: str) -> dict[str, Any]:
        """The store, if the caller may use it (configured set, tenancy through the store lookup)."""
        if not is_valid_id(store_id):  # before any lookup or message (#26)
            raise ToolFailure(f"Invalid vector store id: {id_problem(store_id, 'vector_store_id')}")
        if self.configured and store_id not in self.configured:
            raise ToolFailure(f"Vector store '{store_id}' is not served by this MCP server.")
        try:
            return await self.vector_stores.retrieve(store_id)
        except APIError:
            raise ToolFailure(f"No vector store found with id '{store_id}'.") from None

    async def readable_stores(self, requested: list[str] | None = None) -> list[str]:
        """Stores a search covers: those named (each checked), else the configured set, else every
        store the caller may read; expired stores and stores of another embedder are left out."""
        if requested:
            found = [await self.store(s) for s in dict.fromkeys(requested)]
            for s in found:
                await self.r.check_embedder(s["id"])  # vectors of another embedder: a clear refusal
            return [s["id"] for s in found if s.get("status") != "expired"]
        if not self.configured:  # every store of the caller's: one lean read (this runs on every `search`)
            name, _dimension = await self.r.embedder_identity()
            return await self.r.stores.searchable(name, MAX_STORES)
        usable = []
        for sid in self.configured:
            try:
                store = await self.vector_stores.retrieve(sid)
                await self.r.check_embedder(sid)
            except APIError:
                continue  # deleted, another project's, or another embedder's: nothing to search there
            if store.get("status") != "expired":
                usable.append(sid)
        return usable

    # -- search ------------------------------------------------------------------------------------
    async def search_hits(
        self,
        query: str,
        store_ids: list[str],
        *,
        k: int,
        filters: dict[str, Any] | None = None,
        ranker: str | None = None,
        score_threshold: float = 0.0,
    ) -> list[Hit]:
        """Passages through `search_stores` only; `ranker` None means the configured one."""

        ranker = ranker or self.settings.mcp_server_ranker
        if ranker not in RANKERS:
            raise ToolFailure(f"Unknown ranker '{ranker[:40]}': expected one of {', '.join(sorted(RANKERS))}.")
        return await search_stores(
            self.r,
            store_ids,
            [query],
            k=k,
            filters=filters,
            score_threshold=score_threshold,
            ranker="kg" if ranker == "kg" else None,
        )

    def url_of(self, file_id: str, attributes: dict[str, Any]) -> str:
        """Where a client can cite the document: its source URL, else the gateway's file content URL."""
        for key in SOURCE_KEYS:
            value = attributes.get(key)
            if isinstance(value, str) and value.startswith(("http://", "https://")):
                return value
        return f"{self.public_url}/v1/files/{file_id}/content"

    async def search(self, query: str, k: int) -> list[dict[str, str]]:
        """Deep research's `search`: one result per document, best passage first."""
        hits = await self.search_hits(query, await self.readable_stores(), k=k * 2)  # passages → documents
        results: list[dict[str, str]] = []
        seen: set[str] = set()
        for hit in hits:
            if hit.file_id in seen:
                continue
            seen.add(hit.file_id)
            title = hit.attributes.get("title")
            results.append(
                {
                    "id": hit.file_id,
                    "title": title if isinstance(title, str) and title else hit.filename,
                    "url": self.url_of(hit.file_id, hit.attributes),
                }
            )
            if len(results) == k:
                break
        return results

    # -- documents ---------------------------------------------------------------------------------
    async def document(self, store_id: str, file_id: str) -> Document:
        if not is_valid_id(file_id):
            raise ToolFailure(f"Invalid document id: {id_problem(file_id, 'file_id')}")
        await self.store(store_id)
        vs_file = await self.r.stores.get_file(store_id, file_id)
        file = await self.r.files.get(file_id)
        if vs_file is None or file is None:
            raise ToolFailure(f"No document '{file_id}' in vector store '{store_id}'.")
        return _document(store_id, vs_file, file)

    async def locate(self, file_id: str) -> Document:
        """The document a bare file id names, in the first store the caller may read that holds it."""
        if not is_valid_id(file_id) or not file_id.startswith("file-"):
            raise ToolFailure(f"Invalid document id '{file_id[:100]}': expected an id returned by `search`.")
        file = await self.r.files.get(file_id)
        if file is not None:
            for store_id in await self.readable_stores():
                vs_file = await self.r.stores.get_file(store_id, file_id)
                if vs_file is not None:
                    return _document(store_id, vs_file, file)
        raise ToolFailure(f"No document with id '{file_id}'.")

    async def text(self, doc: Document) -> tuple[str, bool]:
        """The document's whole text (cut at MAX_FETCH_CHARS; the flag says whether it was)."""
        from vectorstore.extract import ExtractionError, UnsupportedFileType, extract_text

        file = await self.r.files.get(doc.file_id)
        if file is None:
            raise ToolFailure(f"No document with id '{doc.file_id}'.")
        data = await self.r.blobs.read(file["blob"])
        try:
            text = await asyncio.to_thread(
                extract_text, file["filename"], data, file.get("content_type"), self.r.extract_limits
            )
        except (UnsupportedFileType, ExtractionError) as exc:
            raise ToolFailure(f"The document's text could not be read: {exc}") from exc
        return text[:MAX_FETCH_CHARS], len(text) > MAX_FETCH_CHARS

    def metadata(self, doc: Document, truncated: bool = False) -> dict[str, Any]:
        return {
            "vector_store_id": doc.store_id,
            "file_id": doc.file_id,
            "filename": doc.filename,
            "status": doc.status,
            "created_at": doc.created_at,
            "bytes": doc.bytes,
            "tags": doc.tags,
            "attributes": doc.attributes,
            "uri": doc.uri,
            **({"truncated": True} if truncated else {}),
        }

    async def fetch(self, file_id: str) -> dict[str, Any]:
        doc = await self.locate(file_id)
        text, truncated = await self.text(doc)
        return {
            "id": doc.file_id,
            "title": doc.title,
            "text": text,
            "url": self.url_of(doc.file_id, doc.attributes),
            "metadata": self.metadata(doc, truncated),
        }

    async def list_documents(
        self, store_id: str, *, limit: int, after: str | None, tag: str | None
    ) -> tuple[list[Document], bool]:
        """One page of a store's documents (newest first), optionally only those with `tag`."""
        await self.store(store_id)
        out: list[Document] = []
        cursor = after
        for _ in range(50):  # a tag filter may skip many rows: bounded pages of 100
            page = await self.r.stores.list_files(
                store_id, status=None, limit=100 if tag else limit, order="desc", after=cursor, before=None
            )
            files = await self.r.files.get_many([f["id"] for f in page.data])
            for vs_file in page.data:
                file = files.get(vs_file["id"])
                if file is None:
                    continue
                doc = _document(store_id, vs_file, file)
                if tag is None or tag in doc.tags:
                    out.append(doc)
                    if len(out) == limit:
                        more = page.has_more or vs_file is not page.data[-1]
                        return out, more
            if not page.has_more or not page.data:
                return out, False
            cursor = page.data[-1]["id"]
        return out, True


def _document(store_id: str, vs_file: dict[str, Any], file: dict[str, Any]) -> Document:
    return Document(
        store_id=store_id,
        file_id=vs_file["id"],
        filename=file.get("filename") or vs_file["id"],
        attributes=dict(vs_file.get("attributes") or {}),
        status=vs_file.get("status", ""),
        created_at=int(vs_file.get("created_at") or file.get("created_at") or 0),
        bytes=int(file.get("bytes") or 0),
    )
