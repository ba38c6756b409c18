"""The outbound address policy (SSRF): what a client may make the gateway connect to.

The reproduction that started it: an MCP tool whose `server_url` is Envoy's admin `/quitquitquit`
stopped the whole stack. Through both doors that is now a 400 and Envoy keeps serving. Below the
API: every refused address form, the allowlist, redirects re-checked, and DNS rebinding (a name that
answers differently at connect time) refused by both HTTP stacks at connect time.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import urllib.request
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import openai
import pytest
from aiohttp import web
from openai import OpenAI

from gateway.net.netguard import AddressPolicy, TooManyRedirects, URLNotAllowed, fetch, refusal
from gateway.tools.mcp.client import McpFailure, ServerSpec, SessionPool
from tests.support.mcp_servers import McpServers, mcp_servers
from tests.support.procs import SERVICES_HOST, Gateway, free_port
from tests.support.stack import EnvoyStack

MODEL = "scripted-model"


def mcp_tool(url: str) -> dict[str, Any]:
    return {"type": "mcp", "server_label": "x", "server_url": url, "require_approval": "never"}


def test_mcp_server_url_cannot_reach_envoy_admin(
    client: OpenAI, envoy: EnvoyStack, http_gateway: Gateway, door_kind: str
) -> None:
    admin = f"http://127.0.0.1:{envoy.admin_port}"
    for url in (
        f"{admin}/quitquitquit",
        f"http://localhost:{envoy.admin_port}/quitquitquit",
        f"http://[::ffff:127.0.0.1]:{envoy.admin_port}/quitquitquit",
        f"http://2130706433:{envoy.admin_port}/quitquitquit",  # 127.0.0.1 as one decimal number
        f"http://0x7f000001:{envoy.admin_port}/quitquitquit",
        f"http://127.0.0.1:{http_gateway.port}/v1/responses",  # the gateway itself
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "http://10.0.0.1/mcp",
        "http://100.64.0.1/mcp",
    ):
        with pytest.raises(openai.BadRequestError) as info:
            client.responses.create(model=MODEL, input="x", tools=[mcp_tool(url)])  # type: ignore[list-item]
        body: Any = info.value.body
        assert (body["code"], body["param"], body["type"]) == (
            "url_not_allowed",
            "tools[0].server_url",
            "invalid_request_error",
        ), url
    with urllib.request.urlopen(f"{admin}/ready", timeout=5) as ready:  # Envoy is still up
        assert ready.status == 200
    assert client.models.list().data  # and the door still serves


def test_connector_cannot_name_private_hosts(client: OpenAI) -> None:
    for url in ("http://127.0.0.1:9901/quitquitquit", "http://192.168.1.1/mcp", "http://[fe80::1]/mcp"):
        with pytest.raises(openai.BadRequestError) as info:
            client.post("/connectors", body={"name": "x", "server_url": url}, cast_to=dict)
        assert info.value.body["code"] == "url_not_allowed"  # type: ignore[index]


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("10.2.3.4", "private"),
        ("172.16.0.1", "private"),
        ("192.168.0.1", "private"),
        ("100.64.0.1", "CGNAT"),
        ("169.254.169.254", "metadata"),
        ("169.254.1.1", "link-local"),
        ("224.0.0.251", "multicast"),
        ("240.0.0.1", "reserved"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fd12:3456::1", "private"),
        ("ff02::1", "multicast"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:169.254.169.254", "metadata"),
        ("::127.0.0.1", "loopback"),
        ("2002:a00:1::", "private"),  # 6to4 of 10.0.0.1
        ("64:ff9b::a9fe:a9fe", "metadata"),  # NAT64 of 169.254.169.254
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "private"),  # Teredo of 10.0.0.1
        ("fd00:ec2::254", "metadata"),
    ],
)
def test_refused_address_forms(address: str, why: str) -> None:
    reason = refusal(ipaddress.ip_address(address))
    assert reason is not None and why.lower() in reason.lower()


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(address: str) -> None:
    assert refusal(ipaddress.ip_address(address)) is None


async def test_allowlist_opens_exceptions_but_not_metadata() -> None:
    policy = AddressPolicy.from_setting("127.0.0.2, *.internal, 10.0.0.5:8080, [::1]:9000, *")
    assert await policy.check_url("http://127.0.0.2:1234/") == ["127.0.0.2"]
    assert await policy.check_url("http://10.0.0.5:8080/") == ["10.0.0.5"]
    assert await policy.check_url("http://[::1]:9000/") == ["::1"]
    with pytest.raises(URLNotAllowed, match="metadata"):  # `*` opens everything else, never metadata
        await policy.check_url("http://169.254.169.254/")
    assert await AddressPolicy(["169.254.169.254"]).check_url("http://169.254.169.254/") == ["169.254.169.254"]
    strict = AddressPolicy.from_setting("10.0.0.5:8080")
    for url in ("http://10.0.0.5:8081/", "http://10.0.0.6:8080/", "http://localhost/"):
        with pytest.raises(URLNotAllowed):
            await strict.check_url(url)
    for url in ("file:///etc/passwd", "gopher://x/", "http:///nohost", "http://[::1/"):
        with pytest.raises(URLNotAllowed):
            await AddressPolicy().check_url(url)
    assert AddressPolicy.from_setting(None).allowed_hosts == AddressPolicy.from_setting(" , ").allowed_hosts == ()


@asynccontextmanager
async def page_server(host: str, routes: Callable[[str], web.RouteTableDef]) -> AsyncIterator[str]:
    port = free_port()
    base = f"http://{host}:{port}"
    app = web.Application()
    app.add_routes(routes(base))
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    try:
        yield base
    finally:
        await runner.cleanup()


async def test_fetch_rechecks_every_redirect() -> None:
    hits: list[str] = []

    def routes(base: str) -> web.RouteTableDef:
        r = web.RouteTableDef()

        @r.get("/page")
        async def page(_: web.Request) -> web.Response:
            hits.append("page")
            return web.Response(text="x" * 5000)

        @r.get("/hop")
        async def hop(_: web.Request) -> web.Response:
            raise web.HTTPFound(f"{base}/page")

        @r.get("/escape")
        async def escape(_: web.Request) -> web.Response:
            raise web.HTTPFound(f"http://127.0.0.1:{local.port}/secret")

        @r.get("/loop")
        async def loop(_: web.Request) -> web.Response:
            raise web.HTTPFound(f"{base}/loop")

        return r

    local = _Local()
    async with page_server("127.0.0.1", local.routes) as _, page_server(SERVICES_HOST, routes) as base:
        policy = AddressPolicy([SERVICES_HOST])
        got = await fetch(f"{base}/hop", policy=policy, max_bytes=1000, timeout=5)
        assert (got.status, got.final_url, len(got.body), got.truncated) == (200, f"{base}/page", 1000, True)
        with pytest.raises(URLNotAllowed):
            await fetch(f"{base}/escape", policy=policy, max_bytes=1000, timeout=5)
        with pytest.raises(TooManyRedirects):
            await fetch(f"{base}/loop", policy=policy, max_bytes=1000, timeout=5, max_redirects=3)
        with pytest.raises(URLNotAllowed):  # without the allowlist the first hop is refused already
            await fetch(f"{base}/page", policy=AddressPolicy(), max_bytes=1000, timeout=5)
        async with policy.session() as session:  # a policy session on its own: redirects followed by aiohttp
            async with session.get(f"{base}/hop") as resp:
                assert resp.status == 200
            with pytest.raises(URLNotAllowed):
                await session.get(f"{base}/escape")
            with pytest.raises(URLNotAllowed):
                await session.get(f"http://127.0.0.1:{local.port}/secret")
    assert local.hits == [] and hits == ["page", "page"]


class _Local:
    """A service on 127.0.0.1 that must never be reached."""

    def __init__(self) -> None:
        self.port = 0
        self.hits: list[str] = []

    def routes(self, base: str) -> web.RouteTableDef:
        self.port = int(base.rsplit(":", 1)[1])
        r = web.RouteTableDef()

        @r.get("/secret")
        async def secret(_: web.Request) -> web.Response:
            self.hits.append("secret")
            return web.Response(text="secret")

        return r


@asynccontextmanager
async def rebinding_dns(name: str, answers: list[str]) -> AsyncIterator[list[str]]:
    """Resolve `name` to each of `answers` in turn (the last one repeats), as a rebinding DNS server does."""
    loop = asyncio.get_running_loop()
    real = loop.getaddrinfo
    asked: list[str] = []

    async def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != name:
            return await real(host, port, *args, **kwargs)
        answer = answers[min(len(asked), len(answers) - 1)]
        asked.append(answer)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answer, int(port or 0)))]

    loop.getaddrinfo = getaddrinfo  # type: ignore[method-assign]
    try:
        yield asked
    finally:
        loop.getaddrinfo = real  # type: ignore[method-assign]


async def test_dns_rebinding_is_refused_at_connect_time_aiohttp() -> None:
    local = _Local()
    async with page_server("127.0.0.1", local.routes):
        policy = AddressPolicy()
        # the pre-check sees a public address, the connection would get loopback
        async with rebinding_dns("rebind.test", ["93.184.216.34", "127.0.0.1"]) as asked:
            with pytest.raises(URLNotAllowed):
                await fetch(f"http://rebind.test:{local.port}/secret", policy=policy, max_bytes=100, timeout=5)
        assert asked == ["93.184.216.34", "127.0.0.1"]
    assert local.hits == []


@pytest.fixture(scope="module")
def servers() -> Any:
    with mcp_servers() as s:
        yield s


async def test_mcp_client_connects_only_to_vetted_addresses(servers: McpServers) -> None:
    port = servers.ports["plain"]
    open_pool = SessionPool(timeout=5.0, policy=AddressPolicy([SERVICES_HOST]))
    closed_pool = SessionPool(timeout=5.0, policy=AddressPolicy())
    try:
        assert await open_pool.list_tools(ServerSpec.make(servers.url("plain"), None, None))
        with pytest.raises(McpFailure):  # no pre-check here: the transport itself refuses
            await closed_pool.list_tools(ServerSpec.make(servers.url("plain"), None, None))
        async with rebinding_dns("mcp.rebind.test", ["93.184.216.34", SERVICES_HOST, SERVICES_HOST]) as asked:
            await AddressPolicy().check_url(f"http://mcp.rebind.test:{port}/mcp")  # looks public
            with pytest.raises(McpFailure):
                await closed_pool.list_tools(ServerSpec.make(f"http://mcp.rebind.test:{port}/mcp", None, None))
        assert asked[:2] == ["93.184.216.34", SERVICES_HOST]
    finally:
        await open_pool.close()
        await closed_pool.close()
