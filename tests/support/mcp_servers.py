"""Real MCP servers for tests and benchmarks, built with the official `mcp` package (MCPServer).

    python -m tests.support.mcp_servers     # prints "READY plain=PORT bearer=PORT ..." then serves

One process, one event loop, one uvicorn server per MCP server on its own free port:

- plain  (streamable HTTP): `add_points(a: Point, b: Point)` (a `$defs`/`$ref` schema), `echo` (read-only)
- bearer (streamable HTTP): `whoami`; every HTTP request needs `Authorization: Bearer <BEARER_TOKEN>`
- error  (streamable HTTP): `explode` raises
- slow   (streamable HTTP): `nap(n)` sleeps 200 ms
- sse    (HTTP+SSE only, at /sse): the plain server's tools, for the transport fallback
- library (streamable HTTP): `search(query)` / `fetch(id)` in the shape OpenAI's deep research and
  ChatGPT connectors use, over a few fixed documents (research's MCP data source)

Why a subprocess: the servers must be real network peers of a gateway that itself runs as a
subprocess, and a separate process keeps their CPU out of the test's event loop.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel

from tests.support.procs import ROOT, SERVICES_HOST, stop

BEARER_TOKEN = "tok-bearer-4711"
LIBRARY = [
    {
        "id": "doc-ledger",
        "title": "Harbour ledger",
        "url": "https://library.example/ledger",
        "text": "The harbour ledger says the keeper ordered violin strings from Cremona every spring.",
    },
    {
        "id": "doc-tides",
        "title": "Tide tables",
        "url": "https://library.example/tides",
        "text": "Tides at Skerry rise twice a day.",
    },
]
NAP_SECONDS = 0.2


class Point(BaseModel):
    x: int
    y: int


def _servers() -> dict[str, Any]:
    plain = MCPServer("plain")

    @plain.tool(description="Add two points.")
    def add_points(a: Point, b: Point) -> str:
        return f"{a.x + b.x},{a.y + b.y}"

    @plain.tool(description="Echo the text back.", annotations=ToolAnnotations(read_only_hint=True))
    def echo(text: str) -> str:
        return f"echo: {text}"

    bearer = MCPServer("bearer")

    @bearer.tool(description="Who is calling.")
    def whoami() -> str:
        return "authenticated caller"

    error = MCPServer("error")

    @error.tool(description="Always fails.")
    def explode() -> str:
        raise ToolError("the reactor is on fire")

    slow = MCPServer("slow")

    @slow.tool(description=f"Sleep {NAP_SECONDS * 1000:.0f} ms.")
    async def nap(n: int) -> str:
        await asyncio.sleep(NAP_SECONDS)
        return f"rested {n}"

    library = MCPServer("library")

    @library.tool(description="Search the library.", annotations=ToolAnnotations(read_only_hint=True))
    def search(query: str) -> dict[str, Any]:
        words = set(query.lower().split())
        hits = [d for d in LIBRARY if words & set(d["text"].lower().split())]
        return {"results": [{"id": d["id"], "title": d["title"], "url": d["url"]} for d in hits]}

    @library.tool(description="Fetch a document by id.", annotations=ToolAnnotations(read_only_hint=True))
    def fetch(id: str) -> dict[str, Any]:
        found = next((d for d in LIBRARY if d["id"] == id), None)
        if found is None:
            raise ToolError(f"no document {id}")
        return {**found, "metadata": {}}

    inner = bearer.streamable_http_app(host=SERVICES_HOST)
    expected = f"Bearer {BEARER_TOKEN}".encode()

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"unauthorized"})
            return
        await inner(scope, receive, send)

    return {
        "plain": plain.streamable_http_app(host=SERVICES_HOST),
        "bearer": guarded,
        "error": error.streamable_http_app(host=SERVICES_HOST),
        "slow": slow.streamable_http_app(host=SERVICES_HOST),
        "sse": plain.sse_app(host=SERVICES_HOST),
        "library": library.streamable_http_app(host=SERVICES_HOST),
    }


async def _serve() -> None:
    import uvicorn

    logging.getLogger("mcp").setLevel(logging.WARNING)
    apps = _servers()
    servers, socks, ports = [], [], {}
    for name, app in apps.items():
        sock = socket.socket()
        sock.bind((SERVICES_HOST, 0))
        sock.listen(128)  # connections queue until uvicorn (and the app's lifespan) is up
        socks.append(sock)
        ports[name] = sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="critical", lifespan="on", timeout_graceful_shutdown=1)
        servers.append((uvicorn.Server(config), sock))
    print("READY " + " ".join(f"{k}={v}" for k, v in ports.items()), flush=True)
    await asyncio.gather(*(server.serve(sockets=[sock]) for server, sock in servers))


class McpServers:
    """URLs of the running servers; `down` is a port nothing listens on."""

    def __init__(self, ports: dict[str, int], down: int) -> None:
        self.ports = ports
        self.down_port = down

    def url(self, name: str) -> str:
        return f"http://{SERVICES_HOST}:{self.ports[name]}/{'sse' if name == 'sse' else 'mcp'}"

    @property
    def down(self) -> str:
        return f"http://{SERVICES_HOST}:{self.down_port}/mcp"


@contextmanager
def mcp_servers() -> Iterator[McpServers]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.mcp_servers"], cwd=Path(ROOT), stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("READY"):
        proc.kill()
        raise RuntimeError(f"MCP servers did not start: {line!r}")
    with socket.socket() as s:  # bound then closed: connections to it are refused
        s.bind((SERVICES_HOST, 0))
        down = int(s.getsockname()[1])
    try:
        yield McpServers({k: int(v) for k, v in (p.split("=") for p in line.split()[1:])}, down)
    finally:
        stop(proc, signal.SIGKILL)  # nothing to save; a graceful stop waits on open SSE streams


if __name__ == "__main__":
    asyncio.run(_serve())
