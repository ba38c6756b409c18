"""Writing the knowledge base for MCP clients: documents as memory, tags, retention, export.

Everything goes through the Files and Vector Stores services the HTTP API uses, so a document added
here is an ordinary file in an ordinary vector store (ingested by the same worker, visible to
`file_search`), and tenancy applies unchanged.

- Tags live in the file's attributes as `tag:<name>: true`, so a search can filter on them with the
  ordinary attribute filter grammar (`{"type": "eq", "key": "tag:work", "value": true}`).
- Updating a document's text stores a new file (files are immutable, as at OpenAI) with the same
  title and tags, ingests it, and removes the old one; the answer names both ids.
- Retention is per store, in its metadata (`retention`: `permanent`, or an age such as `30d`,
  `12h`, `3600s`); a periodic sweep (`RetentionSweeper`) deletes documents older than that.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import AsyncIterator
from typing import Any

from gateway.common.errors import APIError
from gateway.mcp_server.knowledge_base import TAG_PREFIX, Document, KnowledgeBase, ToolFailure

log = logging.getLogger(__name__)

MAX_ATTRIBUTES = 16  # OpenAI's limit on a vector store file's attributes
TAG_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,39}\Z")
RETENTION_RE = re.compile(r"^(\d{1,7})([smhd])\Z")
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MIN_RETENTION_SECONDS = 1
MAX_EXPORT_CHARS = 2_000_000
MAX_TAG_SCAN = 10_000  # documents list_tags reads at most


def check_tag(tag: str) -> str:
    if not TAG_RE.match(tag):
        raise ToolFailure(
            f"Invalid tag '{tag[:50]}': 1 to 40 letters, digits, '_', '.', ':' or '-', starting with a letter or digit."
        )
    return tag


def retention_seconds(value: str) -> int | None:
    """`permanent` → None; `30d`, `12h`, `90m`, `3600s` → seconds (at least a minute)."""
    if value == "permanent":
        return None
    match = RETENTION_RE.match(value)
    if match is None:
        raise ToolFailure(f"Invalid retention '{value[:50]}': expected 'permanent' or an age such as '30d', '12h'.")
    seconds = int(match[1]) * UNIT_SECONDS[match[2]]
    if seconds < MIN_RETENTION_SECONDS:
        raise ToolFailure(f"Invalid retention '{value}': at least {MIN_RETENTION_SECONDS} seconds.")
    return seconds


def _filename(title: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-")[:80]
    return (slug or "document") + ".md"


async def _one(data: bytes) -> AsyncIterator[bytes]:
    yield data


class Memory:
    """The write side: documents, tags, retention, export."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb

    async def add(
        self, store_id: str, text: str, *, title: str, tags: list[str], extra: dict[str, Any] | None = None
    ) -> Document:
        """Store `text` as a new document in the store and queue its ingestion."""
        await self.kb.store(store_id)
        await self.kb.r.check_embedder(store_id)
        attributes: dict[str, Any] = {"title": title[:512], **(extra or {})}
        attributes.update({TAG_PREFIX + check_tag(t): True for t in tags})
        if len(attributes) > MAX_ATTRIBUTES:
            raise ToolFailure(f"A document holds at most {MAX_ATTRIBUTES} attributes (title, source and tags).")
        file_id, size = await self.kb.files.save(_one(text.encode()))
        try:
            await self.kb.files.create(
                file_id,
                size=size,
                filename=_filename(title),
                content_type="text/markdown",
                purpose="assistants",
                expires_seconds=None,
            )
            await self.kb.vector_stores.create_file(store_id, {"file_id": file_id, "attributes": attributes})
        except BaseException:
            with contextlib.suppress(Exception):
                await self.kb.files.remove(file_id)  # the row (if made) and its bytes
            with contextlib.suppress(Exception):
                await self.kb.files.discard(file_id)  # the bytes, if no row was made
            raise
        return await self.kb.document(store_id, file_id)

    async def set_attributes(self, doc: Document, attributes: dict[str, Any]) -> Document:
        if len(attributes) > MAX_ATTRIBUTES:
            raise ToolFailure(f"A document holds at most {MAX_ATTRIBUTES} attributes (title, source and tags).")
        await self.kb.vector_stores.update_file(doc.store_id, doc.file_id, {"attributes": attributes})
        return await self.kb.document(doc.store_id, doc.file_id)

    async def update(
        self, store_id: str, file_id: str, *, text: str | None, title: str | None, tags: list[str] | None
    ) -> tuple[Document, str | None]:
        """Change a document's tags or title in place, or its text (a new file; returns the old id)."""
        doc = await self.kb.document(store_id, file_id)
        attributes = {k: v for k, v in doc.attributes.items() if not (tags is not None and k.startswith(TAG_PREFIX))}
        if tags is not None:
            attributes.update({TAG_PREFIX + check_tag(t): True for t in tags})
        if title is not None:
            attributes["title"] = title[:512]
        if text is None:
            return await self.set_attributes(doc, attributes), None
        new_title = attributes.pop("title", doc.title)
        tag_names = [k[len(TAG_PREFIX) :] for k in attributes if k.startswith(TAG_PREFIX)]
        extra = {k: v for k, v in attributes.items() if not k.startswith(TAG_PREFIX)}
        new = await self.add(store_id, text, title=str(new_title), tags=tag_names, extra=extra)
        await self.delete(store_id, file_id, delete_file=True)
        return new, file_id

    async def delete(self, store_id: str, file_id: str, *, delete_file: bool) -> None:
        await self.kb.document(store_id, file_id)
        await self.kb.vector_stores.delete_file(store_id, file_id)
        if delete_file:
            await self.kb.files.remove(file_id)  # from every store, with its bytes

    async def tag(self, store_id: str, file_id: str, tags: list[str], *, add: bool) -> Document:
        doc = await self.kb.document(store_id, file_id)
        attributes = dict(doc.attributes)
        for t in tags:
            if add:
                attributes[TAG_PREFIX + check_tag(t)] = True
            else:
                attributes.pop(TAG_PREFIX + t, None)
        return await self.set_attributes(doc, attributes)

    async def list_tags(self, store_id: str) -> tuple[dict[str, int], bool]:
        """Tag → document count over the store's newest MAX_TAG_SCAN documents (and whether it stopped there)."""
        counts: dict[str, int] = {}
        after: str | None = None
        for _ in range(MAX_TAG_SCAN // 100):
            docs, more = await self.kb.list_documents(store_id, limit=100, after=after, tag=None)
            for doc in docs:
                for t in doc.tags:
                    counts[t] = counts.get(t, 0) + 1
            if not more or not docs:
                return dict(sorted(counts.items())), False
            after = docs[-1].file_id
        return dict(sorted(counts.items())), True

    async def set_retention(self, store_id: str, retention: str) -> dict[str, Any]:
        retention_seconds(retention)
        store = await self.kb.store(store_id)
        metadata = {**(store.get("metadata") or {}), "retention": retention}
        if len(metadata) > 16:
            raise ToolFailure("The vector store's metadata is full (16 keys); remove a key to set a retention.")
        await self.kb.vector_stores.update(store_id, {"metadata": metadata})
        return {"vector_store_id": store_id, "retention": retention}

    async def export(self, store_id: str, fmt: str, *, tag: str | None, limit: int) -> tuple[str, int, bool]:
        """The store's documents (newest first) as one markdown or JSON text: (text, count, truncated)."""
        import orjson

        docs, _more = await self.kb.list_documents(store_id, limit=limit, after=None, tag=tag)
        parts: list[Any] = []
        total, truncated = 0, False
        for doc in docs:
            if doc.status != "completed" and doc.status != "in_progress":
                continue
            text, cut = await self.kb.text(doc)
            if total + len(text) > MAX_EXPORT_CHARS:
                truncated = True
                break
            total += len(text)
            truncated |= cut
            url = self.kb.url_of(doc.file_id, doc.attributes)
            if fmt == "json":
                parts.append(
                    {"id": doc.file_id, "title": doc.title, "url": url, "tags": doc.tags, "created_at": doc.created_at}
                    | {"attributes": doc.attributes, "text": text}
                )
            else:
                tags = f"tags: {', '.join(doc.tags)}\n" if doc.tags else ""
                parts.append(f"# {doc.title}\n\nid: {doc.file_id}\nsource: {url}\n{tags}\n{text}\n")
        if fmt == "json":
            body = orjson.dumps({"vector_store_id": store_id, "documents": parts}).decode()
        else:
            body = "\n---\n\n".join(parts)
        return body, len(parts), truncated


class RetentionSweeper:
    """Deletes documents older than their store's retention, every `interval` seconds."""

    def __init__(self, memory: Memory, interval: float) -> None:
        self.memory = memory
        self.interval = interval
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="mcp-retention-sweep")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _run(self) -> None:
        while True:
            try:
                await self.sweep_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the MCP retention sweep failed")
            await asyncio.sleep(self.interval)

    async def sweep_once(self, now: float | None = None) -> int:
        """One pass over every store with a retention; returns how many documents were deleted."""
        kb = self.memory.kb
        now = time.time() if now is None else now
        deleted = 0
        after: str | None = None
        while True:
            page = await kb.r.stores.list_stores(limit=100, order="asc", after=after, before=None)
            for store in page.data:
                retention = (store.get("metadata") or {}).get("retention")
                try:
                    seconds = retention_seconds(retention) if isinstance(retention, str) else None
                except ToolFailure:
                    continue
                if seconds is not None:
                    deleted += await self._sweep_store(store["id"], now - seconds)
            if not page.has_more or not page.data:
                break
            after = page.data[-1]["id"]
        if deleted:
            log.info("retention sweep deleted %d document(s)", deleted)
        return deleted

    async def _sweep_store(self, store_id: str, cutoff: float) -> int:
        kb = self.memory.kb
        old: list[str] = []
        after: str | None = None
        while True:
            page = await kb.r.stores.list_files(store_id, status=None, limit=100, order="asc", after=after, before=None)
            old.extend(f["id"] for f in page.data if f["created_at"] < cutoff)
            if not page.has_more or not page.data or page.data[-1]["created_at"] >= cutoff:
                break
            after = page.data[-1]["id"]
        for file_id in old:
            try:
                await self.memory.delete(store_id, file_id, delete_file=True)
            except (APIError, ToolFailure):
                continue  # deleted meanwhile
        return len(old)
