"""The MCP server's tools: argument and result models (their JSON Schemas are what `tools/list`
shows), MCP annotations (read-only, destructive, idempotent, open-world), and one dispatcher.

Why pydantic models per tool: one declaration gives the input schema clients see, the bounds
(query length, result counts, crawl sizes) and the validation, so a bad argument is a clear MCP
tool error (`isError: true`) naming the field, never a transport failure. Results are structured
(`structuredContent`, checked against the output schema by clients) and also sent as one JSON text
block, which is what ChatGPT connectors and deep research read.

Every call is logged once with its duration, outcome and argument *names*; no document text, no
query text.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gateway.common.errors import APIError
from gateway.mcp_server.knowledge_base import KnowledgeBase, ToolFailure
from gateway.mcp_server.memory import Memory
from gateway.retrieval import params
from gateway.retrieval.search import breakdown_of

log = logging.getLogger("gateway.mcp_server")

MAX_QUERY = 2000
MAX_RESULTS = 50
MAX_TEXT = 1_000_000
MAX_TAGS = 12
StoreId = Field(min_length=3, max_length=100, description="a vector store id (vs_...)")
DocId = Field(min_length=5, max_length=100, description="a document (file) id (file-...)")
Tags = Field(default=None, max_length=MAX_TAGS, description="tags: letters, digits, _ . : - (up to 40 characters)")


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SearchArgs(Args):
    query: str = Field(min_length=1, max_length=MAX_QUERY, description="what to look for, in natural language")


class FetchArgs(Args):
    id: str = Field(min_length=1, max_length=200, description="a result id from `search`")


class SearchKnowledgeArgs(Args):
    query: str = Field(min_length=1, max_length=MAX_QUERY)
    vector_store_ids: list[str] | None = Field(default=None, max_length=20, description="default: every served store")
    filters: dict[str, Any] | None = Field(default=None, description="OpenAI attribute filter (eq, ne, in, and, or…)")
    max_results: int = Field(default=10, ge=1, le=MAX_RESULTS)
    ranker: str | None = Field(
        default=None, max_length=40, description="'auto' (hybrid) or 'kg' (knowledge graph); default: the server's"
    )
    score_threshold: float = Field(default=0.0, ge=0.0, le=1.0)


class ListDocumentsArgs(Args):
    vector_store_id: str = StoreId
    tag: str | None = Field(default=None, max_length=40)
    limit: int = Field(default=20, ge=1, le=100)
    after: str | None = Field(default=None, max_length=100, description="cursor: the last id of the previous page")


class DocumentArgs(Args):
    vector_store_id: str = StoreId
    document_id: str = DocId


class GetDocumentArgs(DocumentArgs):
    include_text: bool = True


class AddDocumentArgs(Args):
    vector_store_id: str = StoreId
    text: str = Field(min_length=1, max_length=MAX_TEXT)
    title: str = Field(min_length=1, max_length=300)
    tags: list[str] | None = Tags


class UpdateDocumentArgs(DocumentArgs):
    text: str | None = Field(default=None, min_length=1, max_length=MAX_TEXT, description="new text: re-ingested")
    title: str | None = Field(default=None, min_length=1, max_length=300)
    tags: list[str] | None = Field(default=None, max_length=MAX_TAGS, description="replaces every tag")


class DeleteDocumentArgs(DocumentArgs):
    delete_file: bool = Field(default=True, description="also delete the file itself (from every store)")


class TagArgs(DocumentArgs):
    tags: list[str] = Field(min_length=1, max_length=MAX_TAGS)


class StoreArgs(Args):
    vector_store_id: str = StoreId


class RetentionArgs(StoreArgs):
    retention: str = Field(min_length=2, max_length=20, description="'permanent', or an age: '30d', '12h', '90m'")


class ExportArgs(StoreArgs):
    format: Literal["markdown", "json"] = "markdown"
    tag: str | None = Field(default=None, max_length=40)
    max_documents: int = Field(default=50, ge=1, le=200)


class SearchResult(BaseModel):
    id: str
    title: str
    url: str


class SearchOutput(BaseModel):
    results: list[SearchResult]


class FetchOutput(BaseModel):
    id: str
    title: str
    text: str
    url: str
    metadata: dict[str, Any] | None = None


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args: type[Args]
    run: Callable[[Any], Awaitable[dict[str, Any]]]
    read_only: bool
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False
    output: type[BaseModel] | None = None
    group: str = "read"  # read | write | crawl: what configuration decides whether it is offered


class ToolBox:
    """The tools of one process, bound to its knowledge base."""

    def __init__(self, kb: KnowledgeBase, memory: Memory, extra: list[Tool] | None = None) -> None:
        self.kb, self.memory = kb, memory
        self.all = {t.name: t for t in [*self._read_tools(), *self._write_tools(), *(extra or [])]}

    def offered(self, *, write: bool, crawl: bool) -> list[Tool]:
        groups = {"read"} | ({"write"} if write else set()) | ({"crawl"} if crawl and write else set())
        return [t for t in self.all.values() if t.group in groups]

    async def call(self, tool: Tool, arguments: dict[str, Any] | None) -> tuple[dict[str, Any] | None, str | None]:
        """(structured result, None) or (None, error message); logs the call with its duration."""
        started = time.perf_counter()
        outcome, error = "ok", None
        result: dict[str, Any] | None = None
        try:
            args = tool.args.model_validate(arguments or {})
            result = await tool.run(args)
        except ValidationError as exc:
            outcome, error = "invalid_arguments", _validation_message(tool.name, exc)
        except ToolFailure as exc:
            outcome, error = "refused", str(exc)
        except APIError as exc:
            outcome, error = "refused", exc.message
        except Exception as exc:  # never a transport failure: the client gets a tool error
            log.exception("MCP tool %s failed", tool.name)
            outcome, error = "failed", f"The tool failed: {type(exc).__name__}."
        log.info(
            "mcp tool=%s outcome=%s args=%s duration_ms=%.1f",
            tool.name,
            outcome,
            ",".join(sorted((arguments or {}).keys()))[:200] if isinstance(arguments, dict) else "?",
            (time.perf_counter() - started) * 1000,
        )
        return result, error

    # -- the tools ---------------------------------------------------------------------------------
    def _read_tools(self) -> list[Tool]:
        kb = self.kb

        async def search(a: SearchArgs) -> dict[str, Any]:
            return {"results": await kb.search(a.query, k=10)}

        async def fetch(a: FetchArgs) -> dict[str, Any]:
            return await kb.fetch(a.id)

        async def search_knowledge(a: SearchKnowledgeArgs) -> dict[str, Any]:

            filters = params.filters(a.filters)
            stores = await kb.readable_stores(a.vector_store_ids)
            hits = await kb.search_hits(
                a.query, stores, k=a.max_results, filters=filters, ranker=a.ranker, score_threshold=a.score_threshold
            )
            return {
                "vector_store_ids": stores,
                "results": [
                    {
                        "id": h.file_id,
                        "filename": h.filename,
                        "score": h.score,
                        "text": h.text,
                        "url": kb.url_of(h.file_id, h.attributes),
                        "attributes": h.attributes,
                        **breakdown_of(h),  # the kg ranker's score_breakdown
                    }
                    for h in hits
                ],
            }

        async def list_documents(a: ListDocumentsArgs) -> dict[str, Any]:
            docs, more = await kb.list_documents(a.vector_store_id, limit=a.limit, after=a.after, tag=a.tag)
            return {
                "documents": [_summary(kb, d) for d in docs],
                "has_more": more,
                "next_after": docs[-1].file_id if more and docs else None,
            }

        async def get_document(a: GetDocumentArgs) -> dict[str, Any]:
            doc = await kb.document(a.vector_store_id, a.document_id)
            out = _summary(kb, doc)
            if a.include_text:
                out["text"], truncated = await kb.text(doc)
                out["metadata"] = kb.metadata(doc, truncated)
            return out

        async def list_tags(a: StoreArgs) -> dict[str, Any]:
            counts, truncated = await self.memory.list_tags(a.vector_store_id)
            return {"tags": [{"tag": t, "documents": n} for t, n in counts.items()], "truncated": truncated}

        async def export_documents(a: ExportArgs) -> dict[str, Any]:
            text, count, truncated = await self.memory.export(
                a.vector_store_id, a.format, tag=a.tag, limit=a.max_documents
            )
            return {"format": a.format, "documents": count, "truncated": truncated, "content": text}

        return [
            Tool(
                "search",
                "Search the knowledge base. Returns matching documents (id, title, url); pass an id to `fetch` "
                "for the full text.",
                SearchArgs,
                search,
                read_only=True,
                output=SearchOutput,
            ),
            Tool(
                "fetch",
                "Fetch a document's full text by the id `search` returned, with its title, url and metadata.",
                FetchArgs,
                fetch,
                read_only=True,
                output=FetchOutput,
            ),
            Tool(
                "search_knowledge",
                "Full search: passages with scores, in chosen vector stores, with attribute filters (tags are "
                "attributes 'tag:<name>': true), result count and ranker.",
                SearchKnowledgeArgs,
                search_knowledge,
                read_only=True,
            ),
            Tool(
                "list_documents",
                "List a vector store's documents, newest first.",
                ListDocumentsArgs,
                list_documents,
                True,
            ),
            Tool(
                "get_document",
                "One document: title, tags, url, metadata and text.",
                GetDocumentArgs,
                get_document,
                True,
            ),
            Tool("list_tags", "The tags used in a vector store, with document counts.", StoreArgs, list_tags, True),
            Tool(
                "export_documents",
                "Export a vector store's documents (optionally one tag) as markdown or JSON.",
                ExportArgs,
                export_documents,
                True,
            ),
        ]

    def _write_tools(self) -> list[Tool]:
        kb, memory = self.kb, self.memory

        async def add_document(a: AddDocumentArgs) -> dict[str, Any]:
            doc = await memory.add(a.vector_store_id, a.text, title=a.title, tags=a.tags or [])
            return _summary(kb, doc)

        async def update_document(a: UpdateDocumentArgs) -> dict[str, Any]:
            if a.text is None and a.title is None and a.tags is None:
                raise ToolFailure("Nothing to update: give text, title or tags.")
            doc, replaced = await memory.update(
                a.vector_store_id, a.document_id, text=a.text, title=a.title, tags=a.tags
            )
            return _summary(kb, doc) | {"replaces": replaced}

        async def delete_document(a: DeleteDocumentArgs) -> dict[str, Any]:
            await memory.delete(a.vector_store_id, a.document_id, delete_file=a.delete_file)
            return {"id": a.document_id, "deleted": True}

        async def tag_document(a: TagArgs) -> dict[str, Any]:
            return _summary(kb, await memory.tag(a.vector_store_id, a.document_id, a.tags, add=True))

        async def untag_document(a: TagArgs) -> dict[str, Any]:
            return _summary(kb, await memory.tag(a.vector_store_id, a.document_id, a.tags, add=False))

        async def set_retention(a: RetentionArgs) -> dict[str, Any]:
            return await memory.set_retention(a.vector_store_id, a.retention)

        def w(name: str, desc: str, args: type[Args], run: Any, **kw: Any) -> Tool:
            return Tool(name, desc, args, run, read_only=False, group="write", **kw)

        add_desc = "Remember a text: store it as a document in a vector store and index it."
        update_desc = (
            "Change a document's title or tags, or its text (re-ingested as a new document id, returned with the "
            "id it replaces)."
        )
        retention_desc = (
            "Set how long a vector store keeps documents: 'permanent', or an age such as '30d' (older documents "
            "are deleted by a periodic sweep)."
        )
        return [
            w("add_document", add_desc, AddDocumentArgs, add_document, idempotent=False),
            w("update_document", update_desc, UpdateDocumentArgs, update_document, idempotent=False),
            w(
                "delete_document",
                "Delete a document from a vector store (and, by default, its file).",
                DeleteDocumentArgs,
                delete_document,
                destructive=True,
            ),
            w("tag_document", "Add tags to a document.", TagArgs, tag_document),
            w("untag_document", "Remove tags from a document.", TagArgs, untag_document),
            w("set_retention", retention_desc, RetentionArgs, set_retention, destructive=True),
        ]


def _summary(kb: KnowledgeBase, doc: Any) -> dict[str, Any]:
    return {
        "id": doc.file_id,
        "vector_store_id": doc.store_id,
        "title": doc.title,
        "url": kb.url_of(doc.file_id, doc.attributes),
        "uri": doc.uri,
        "tags": doc.tags,
        "status": doc.status,
        "created_at": doc.created_at,
    }


def _validation_message(tool: str, exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"'{where}': {err['msg']}")
    return f"Invalid arguments for '{tool}': " + "; ".join(parts)
