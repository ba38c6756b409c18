"""A safe reader of web pages named by clients (research mode's fetcher, the MCP server's crawl tools).

Every URL goes through `gateway.net.netguard` (public addresses only unless allowlisted, re-checked on
every connection and redirect, so no DNS rebinding), with a byte cap and one time budget per page.
robots.txt is honoured per RFC 9309 (fetched once per origin and cached: 4xx means no rules, 5xx or
an unreachable file means "disallow everything" for that origin) for the reader's user agent.
Text comes from trafilatura (main content, no boilerplate) in a thread, since parsing is CPU-bound;
plain text and markdown pass through, PDFs use the gateway's own extractor. Anything else, a page
over the cap, an HTTP error or a refused address is a `PageRefused` with a short `.reason`.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

import aiohttp

from gateway.common.errors import APIError
from gateway.net.netguard import AddressPolicy, TooManyRedirects, fetch
from gateway.telemetry import tracing

log = logging.getLogger(__name__)

ROBOTS_MAX_BYTES = 500_000
ROBOTS_TIMEOUT = 5.0
HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("text/plain", "text/markdown", "text/x-markdown")
PDF_TYPE = "application/pdf"


@dataclass(frozen=True)
class Page:
    url: str
    final_url: str
    title: str
    text: str
    content_type: str


class PageRefused(Exception):
    """The page was not read: address policy, robots.txt, unsupported type, too large, HTTP error."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _html_text(html: bytes, url: str) -> tuple[str, str]:
    """(title, main text) of an HTML page; falls back to the whole body's text for tiny pages."""
    import lxml.html
    import trafilatura

    decoded = html.decode("utf-8", "replace")
    text = trafilatura.extract(decoded, url=url, include_comments=False, include_tables=True, favor_recall=True)
    title = ""
    try:
        tree = lxml.html.fromstring(html)
        found = tree.findtext(".//title")
        title = " ".join((found or "").split())
        if not text:
            for bad in tree.xpath("//script|//style|//noscript"):
                bad.drop_tree()
            text = tree.text_content()
    except (ValueError, TypeError):
        pass
    return title[:300], re.sub(r"\n{3,}", "\n\n", (text or "").strip())


class PageReader:
    def __init__(
        self,
        policy: AddressPolicy,
        *,
        max_bytes: int = 2_000_000,
        timeout: float = 15.0,
        user_agent: str = "responses-gateway",
        respect_robots: bool = True,
    ) -> None:
        self.policy = policy
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.user_agent = user_agent
        self.respect_robots = respect_robots
        self._session: aiohttp.ClientSession | None = None
        self._robots: dict[str, RobotFileParser | None] = {}  # origin → rules (None: disallow all)
        self._robots_locks: dict[str, asyncio.Lock] = {}

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = self.policy.session()
        return self._session

    async def _get(self, url: str, max_bytes: int, timeout: float) -> Any:  # noqa: ASYNC109
        return await fetch(
            url,
            policy=self.policy,
            max_bytes=max_bytes,
            timeout=timeout,
            headers=tracing.inject({"User-Agent": self.user_agent}),  # tracing on: traceparent
            session=self._http(),
        )

    async def _rules(self, origin: str) -> RobotFileParser | None:
        if origin in self._robots:
            return self._robots[origin]
        lock = self._robots_locks.setdefault(origin, asyncio.Lock())
        async with lock:
            if origin in self._robots:
                return self._robots[origin]
            rules: RobotFileParser | None = RobotFileParser()
            try:
                got = await self._get(origin + "/robots.txt", ROBOTS_MAX_BYTES, ROBOTS_TIMEOUT)
                if got.status >= 500:
                    rules = None
                elif got.status >= 400:
                    rules.parse([])  # type: ignore[union-attr]
                else:
                    rules.parse(got.body.decode("utf-8", "replace").splitlines())  # type: ignore[union-attr]
            except APIError:
                raise
            except (aiohttp.ClientError, TimeoutError, TooManyRedirects, OSError):
                rules = None  # unreachable robots.txt: RFC 9309 says assume complete disallow
            self._robots[origin] = rules
            return rules

    async def read(self, url: str) -> Page:
        """The page's text; with tracing on, a `GET` client span (the URL without its query)."""
        if not tracing.ON:
            return await self._read(url)
        parts = urlsplit(url)
        attributes = {"http.request.method": "GET", "url.full": f"{parts.scheme}://{parts.netloc}{parts.path}"}
        with tracing.span("GET", "client", attributes) as span:
            try:
                page = await self._read(url)
            except PageRefused as exc:
                if span is not None:
                    tracing.fail(span, exc)
                raise
            if span is not None:
                span.set_attribute("gateway.page.content_type", page.content_type)
            return page

    async def _read(self, url: str) -> Page:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise PageRefused("only http and https URLs can be read")
        try:
            if self.respect_robots:
                rules = await self._rules(f"{parts.scheme}://{parts.netloc}")
                if rules is None or not rules.can_fetch(self.user_agent, url):
                    raise PageRefused("robots.txt disallows this page")
            got = await self._get(url, self.max_bytes, self.timeout)
        except APIError as exc:  # URLNotAllowed: the address policy refused the URL or a redirect
            raise PageRefused(f"address not allowed: {exc.message}") from None
        except TooManyRedirects:
            raise PageRefused("too many redirects") from None
        except TimeoutError:
            raise PageRefused(f"no answer within {self.timeout:g}s") from None
        except (aiohttp.ClientError, OSError) as exc:
            raise PageRefused(f"connection failed: {type(exc).__name__}") from None
        if got.status >= 400:
            raise PageRefused(f"HTTP {got.status}")
        if got.truncated:
            raise PageRefused(f"larger than {self.max_bytes} bytes")
        content_type = got.headers.get("content-type", "").split(";")[0].strip().lower() or "text/html"
        if content_type in HTML_TYPES:
            title, text = await asyncio.to_thread(_html_text, got.body, got.final_url)
        elif content_type in TEXT_TYPES:
            title, text = "", got.body.decode("utf-8", "replace").strip()
        elif content_type == PDF_TYPE:
            from vectorstore.extract import ExtractionError, extract_text

            try:
                text = await asyncio.to_thread(extract_text, "page.pdf", got.body, PDF_TYPE)
            except ExtractionError as exc:
                raise PageRefused(f"unreadable PDF: {exc}") from None
            title = ""
        else:
            raise PageRefused(f"unsupported content type {content_type}")
        return Page(url=url, final_url=got.final_url, title=title, text=text, content_type=content_type)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
