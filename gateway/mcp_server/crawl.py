"""crawl_url and crawl_site: web pages into the knowledge base.

Pages are read by `gateway.net.webpages.PageReader` (shared with research mode): the outbound address
policy of `GATEWAY_CRAWL_ALLOWED_HOSTS` (no loopback, private or metadata addresses unless
allowlisted, re-checked on every connection and redirect), robots.txt, size and time limits, and
trafilatura for the text. Each page becomes a document whose `source_url` is the page's final URL,
so `search` and `fetch` cite the page itself. Crawling a URL already in the store replaces its
document (re-crawl = refresh), so a store holds one document per page.

crawl_site walks links breadth-first from the start page: the links come from the page's HTML,
fetched once more through `netguard.fetch` (the page reader returns text only), bounded by
`max_pages` (at most `GATEWAY_MCP_SERVER_MAX_CRAWL_PAGES`) and optionally to the start's host.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

from pydantic import Field

from gateway.mcp_server.knowledge_base import KnowledgeBase, ToolFailure
from gateway.mcp_server.memory import Memory
from gateway.mcp_server.tools import MAX_TAGS, Args, StoreId, Tool
from gateway.net import netguard
from gateway.net.netguard import AddressPolicy
from gateway.net.webpages import PageReader, PageRefused

log = logging.getLogger("gateway.mcp_server")

MAX_URL = 2048
MAX_PAGE_BYTES = 2_000_000
PAGE_TIMEOUT = 15.0
MAX_LINKS_PER_PAGE = 200


class CrawlUrlArgs(Args):
    url: str = Field(min_length=8, max_length=MAX_URL, description="an http(s) URL")
    vector_store_id: str = StoreId
    tags: list[str] | None = Field(default=None, max_length=MAX_TAGS)


class CrawlSiteArgs(CrawlUrlArgs):
    max_pages: int = Field(default=10, ge=1, le=500)
    same_domain: bool = Field(default=True, description="follow links on the start page's host only")


def available() -> bool:
    return importlib.util.find_spec("gateway.net.webpages") is not None


def _links(base: str, html: bytes) -> list[str]:
    """Absolute http(s) links of an HTML page, without fragments, in document order."""
    import lxml.html

    try:
        tree = lxml.html.fromstring(html)
    except (ValueError, TypeError, lxml.etree.ParserError):  # type: ignore[attr-defined]
        return []
    out: list[str] = []
    for href in tree.xpath("//a/@href")[: MAX_LINKS_PER_PAGE * 4]:
        url = urldefrag(urljoin(base, str(href).strip()))[0]
        if urlsplit(url).scheme in ("http", "https") and url not in out:
            out.append(url)
        if len(out) >= MAX_LINKS_PER_PAGE:
            break
    return out


class Crawler:
    def __init__(self, kb: KnowledgeBase, memory: Memory) -> None:

        self.kb, self.memory = kb, memory
        self.policy = AddressPolicy.from_setting(kb.settings.crawl_allowed_hosts)

    def _reader(self) -> Any:

        return PageReader(self.policy, max_bytes=MAX_PAGE_BYTES, timeout=PAGE_TIMEOUT)

    async def _store_page(self, store_id: str, page: Any, tags: list[str]) -> dict[str, Any]:
        if not page.text.strip():
            raise ToolFailure(f"The page {page.final_url[:200]} has no text to store.")
        replaced = await self._existing(store_id, page.final_url)
        doc = await self.memory.add(
            store_id, page.text, title=page.title or page.final_url, tags=tags, extra={"source_url": page.final_url}
        )
        for old in replaced:
            with contextlib.suppress(Exception):
                await self.memory.delete(store_id, old, delete_file=True)
        return {"id": doc.file_id, "title": doc.title, "url": page.final_url, "replaces": replaced or None}

    async def _existing(self, store_id: str, url: str) -> list[str]:
        found: list[str] = []
        after: str | None = None
        for _ in range(100):
            docs, more = await self.kb.list_documents(store_id, limit=100, after=after, tag=None)
            found.extend(d.file_id for d in docs if d.attributes.get("source_url") == url)
            if not more or not docs:
                break
            after = docs[-1].file_id
        return found

    async def crawl_url(self, a: CrawlUrlArgs) -> dict[str, Any]:

        await self.kb.store(a.vector_store_id)
        reader = self._reader()
        try:
            page = await reader.read(a.url)
        except PageRefused as exc:
            raise ToolFailure(f"The page was not read: {exc.reason}") from None
        finally:
            await reader.close()
        return await self._store_page(a.vector_store_id, page, a.tags or [])

    async def crawl_site(self, a: CrawlSiteArgs) -> dict[str, Any]:

        await self.kb.store(a.vector_store_id)
        limit = min(a.max_pages, self.kb.settings.mcp_server_max_crawl_pages)
        host = urlsplit(a.url).hostname
        queue, seen = [urldefrag(a.url)[0]], {urldefrag(a.url)[0]}
        stored: list[dict[str, Any]] = []
        skipped: list[dict[str, str]] = []
        reader = self._reader()
        try:
            while queue and len(stored) + len(skipped) < limit:
                url = queue.pop(0)
                try:
                    page = await reader.read(url)
                    stored.append(await self._store_page(a.vector_store_id, page, a.tags or []))
                except (PageRefused, ToolFailure) as exc:
                    skipped.append({"url": url, "reason": getattr(exc, "reason", None) or str(exc)})
                    continue
                if "html" not in page.content_type:
                    continue
                try:
                    fetched = await netguard.fetch(
                        page.final_url, policy=self.policy, max_bytes=MAX_PAGE_BYTES, timeout=PAGE_TIMEOUT
                    )
                except Exception as exc:  # links are a bonus: the page itself is stored
                    log.info("crawl_site: no links from a page: %s", type(exc).__name__)
                    continue
                for link in await asyncio.to_thread(_links, fetched.final_url, fetched.body):
                    if link in seen or (a.same_domain and urlsplit(link).hostname != host):
                        continue
                    seen.add(link)
                    queue.append(link)
        finally:
            await reader.close()
        return {"pages": stored, "skipped": skipped, "remaining": len(queue), "max_pages": limit}


def crawl_tools(kb: KnowledgeBase, memory: Memory) -> list[Tool]:
    """The crawl tools, when a page reader exists; the server offers them only when crawling is allowed."""
    if not available():
        return []
    crawler = Crawler(kb, memory)
    return [
        Tool(
            "crawl_url",
            "Read a web page, store its text as a document in a vector store and index it (re-crawling a URL "
            "replaces its document).",
            CrawlUrlArgs,
            crawler.crawl_url,
            read_only=False,
            idempotent=True,
            open_world=True,
            group="crawl",
        ),
        Tool(
            "crawl_site",
            "Crawl a site breadth-first from a URL (bounded by max_pages, same host by default) into a vector store.",
            CrawlSiteArgs,
            crawler.crawl_site,
            read_only=False,
            idempotent=True,
            open_world=True,
            group="crawl",
        ),
    ]
