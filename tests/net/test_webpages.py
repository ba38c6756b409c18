"""gateway/net/webpages.py: the page reader shared by research mode and the MCP server's crawl tools,
against real local web servers (the services address is allowlisted, 127.0.0.1 is not)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from aiohttp import web

from gateway.net.netguard import AddressPolicy
from gateway.net.webpages import PageReader, PageRefused
from tests.support.procs import SERVICES_HOST, free_port

ARTICLE = (
    "<html><head><title>The  Heron</title><script>var tracking = 1;</script></head><body>"
    "<nav>Home | About</nav><article><h1>The heron</h1>"
    + "<p>The grey heron waits motionless at the water's edge before it strikes at a fish.</p>" * 4
    + "</article><footer>(c) nobody</footer></body></html>"
)


@asynccontextmanager
async def server(
    host: str, robots: tuple[int, str] = (200, "User-agent: *\nDisallow: /private\n")
) -> AsyncIterator[str]:
    port = free_port()
    base = f"http://{host}:{port}"
    routes = web.RouteTableDef()

    @routes.get("/robots.txt")
    async def robots_txt(_: web.Request) -> web.Response:
        return web.Response(status=robots[0], text=robots[1])

    @routes.get("/heron.html")
    async def heron(_: web.Request) -> web.Response:
        return web.Response(text=ARTICLE, content_type="text/html")

    @routes.get("/notes.txt")
    async def notes(_: web.Request) -> web.Response:
        return web.Response(text="plain notes about otters", content_type="text/plain")

    @routes.get("/image.png")
    async def image(_: web.Request) -> web.Response:
        return web.Response(body=b"\x89PNG\r\n", content_type="image/png")

    @routes.get("/big.txt")
    async def big(_: web.Request) -> web.Response:
        return web.Response(text="x" * 5000, content_type="text/plain")

    @routes.get("/gone.html")
    async def gone(_: web.Request) -> web.Response:
        return web.Response(status=404, text="no")

    @routes.get("/private/secret.html")
    async def secret(_: web.Request) -> web.Response:
        return web.Response(text="<p>secret</p>", content_type="text/html")

    @routes.get("/moved")
    async def moved(_: web.Request) -> web.Response:
        raise web.HTTPFound(f"{base}/heron.html")

    @routes.get("/escape")
    async def escape(_: web.Request) -> web.Response:
        raise web.HTTPFound(f"http://127.0.0.1:{port}/heron.html")

    app = web.Application()
    app.add_routes(routes)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    try:
        yield base
    finally:
        await runner.cleanup()


async def test_reads_html_text_and_follows_safe_redirects() -> None:
    reader = PageReader(AddressPolicy([SERVICES_HOST]), max_bytes=4000)
    async with server(SERVICES_HOST) as base:
        try:
            page = await reader.read(f"{base}/heron.html")
            assert (page.url, page.final_url, page.title, page.content_type) == (
                f"{base}/heron.html",
                f"{base}/heron.html",
                "The Heron",
                "text/html",
            )
            assert "motionless at the water's edge" in page.text
            assert "tracking" not in page.text and "Home | About" not in page.text  # boilerplate gone
            moved = await reader.read(f"{base}/moved")
            assert moved.final_url == f"{base}/heron.html" and moved.url == f"{base}/moved"
            notes = await reader.read(f"{base}/notes.txt")
            assert (notes.text, notes.content_type) == ("plain notes about otters", "text/plain")
        finally:
            await reader.close()


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/image.png", "unsupported content type image/png"),
        ("/big.txt", "larger than 4000 bytes"),
        ("/gone.html", "HTTP 404"),
        ("/private/secret.html", "robots.txt"),
        ("/escape", "address not allowed"),
    ],
)
async def test_refusals_say_why(path: str, reason: str) -> None:
    reader = PageReader(AddressPolicy([SERVICES_HOST]), max_bytes=4000)
    async with server(SERVICES_HOST) as base:
        try:
            with pytest.raises(PageRefused) as info:
                await reader.read(base + path)
            assert reason in info.value.reason
        finally:
            await reader.close()


async def test_address_policy_and_robots_rules() -> None:
    async with server("127.0.0.1") as local:
        reader = PageReader(AddressPolicy([SERVICES_HOST]))
        with pytest.raises(PageRefused, match="address not allowed"):
            await reader.read(f"{local}/heron.html")  # loopback, not allowlisted
        with pytest.raises(PageRefused, match="http and https"):
            await reader.read("file:///etc/passwd")
        await reader.close()
    async with server(SERVICES_HOST, robots=(503, "down")) as base:
        reader = PageReader(AddressPolicy([SERVICES_HOST]))
        with pytest.raises(PageRefused, match=r"robots\.txt"):  # RFC 9309: unreachable rules → disallow all
            await reader.read(f"{base}/heron.html")
        ignoring = PageReader(AddressPolicy([SERVICES_HOST]), respect_robots=False)
        assert "heron" in (await ignoring.read(f"{base}/heron.html")).text
        await reader.close()
        await ignoring.close()
    async with server(SERVICES_HOST, robots=(404, "")) as base:
        reader = PageReader(AddressPolicy([SERVICES_HOST]))
        assert (await reader.read(f"{base}/private/secret.html")).text == "secret"  # no robots.txt: no rules
        await reader.close()
