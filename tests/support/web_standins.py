"""Local stand-ins for the web: pages (with robots.txt) and a SearXNG-style search API, served on
`SERVICES_HOST` from a thread of their own (the tests' SDK calls block the test thread).

`Web.page(path, title, body)` publishes a page; `Web.results[query_substring] = [paths]` decides
what `/search?q=...&format=json` returns (SearXNG's JSON shape); every request is recorded.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from aiohttp import web

from tests.support.procs import SERVICES_HOST


class Web:
    def __init__(self, host: str = SERVICES_HOST) -> None:
        self.host = host
        self.pages: dict[str, tuple[int, str, bytes]] = {}
        self.results: dict[str, list[str]] = {}
        self.requests: list[dict[str, Any]] = []
        self.delay: dict[str, float] = {}
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runner: web.AppRunner | None = None
        self.base = ""

    def __enter__(self) -> Web:
        self.thread.start()
        port = asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(10)
        self.base = f"http://{self.host}:{port}"
        return self

    def __exit__(self, *exc: object) -> None:
        if self.runner is not None:
            asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    def url(self, path: str) -> str:
        return self.base + path

    def page(self, path: str, title: str, body: str, *, status: int = 200, content_type: str = "text/html") -> str:
        html = (
            f"<html><head><title>{title}</title></head>"
            f"<body><article><h1>{title}</h1><p>{body}</p></article></body></html>"
        )
        self.pages[path] = (status, content_type, html.encode() if content_type == "text/html" else body.encode())
        return self.url(path)

    def raw(self, path: str, body: bytes, *, status: int = 200, content_type: str = "text/plain") -> str:
        self.pages[path] = (status, content_type, body)
        return self.url(path)

    def fetched(self, path: str) -> int:
        return sum(1 for r in self.requests if r["path"] == path)

    async def _start(self) -> int:
        app = web.Application()
        app.router.add_get("/search", self._search)
        app.router.add_get("/{tail:.*}", self._serve)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, self.host, 0).start()
        return int(self.runner.addresses[0][1])

    async def _serve(self, request: web.Request) -> web.Response:
        self.requests.append({"path": request.path, "query": dict(request.query)})
        if request.path in self.delay:
            await asyncio.sleep(self.delay[request.path])
        found = self.pages.get(request.path)
        if found is None:
            return web.Response(status=404, text="not found")
        status, ctype, body = found
        return web.Response(status=status, body=body, content_type=ctype)

    async def _search(self, request: web.Request) -> web.Response:
        q = request.query.get("q", "")
        self.requests.append({"path": "/search", "query": dict(request.query)})
        if "/search" in self.delay:
            await asyncio.sleep(self.delay["/search"])
        paths = next((v for k, v in self.results.items() if k.lower() in q.lower()), [])
        results = []
        for path in paths:
            if path.startswith("http"):  # a result pointing elsewhere (a private address, say)
                results.append({"url": path, "title": path, "content": "elsewhere", "engine": "stand-in"})
                continue
            _status, _ctype, body = self.pages.get(path, (404, "", b""))
            title = (
                body.decode("utf-8", "replace").split("<title>")[-1].split("</title>")[0]
                if b"<title>" in body
                else path
            )
            results.append(
                {"url": self.url(path), "title": title, "content": f"snippet of {title}", "engine": "stand-in"}
            )
        return web.json_response({"query": q, "results": results, "number_of_results": len(results)})
