"""The floor of the gateway's stack: an aiohttp server that forwards a POST to the backend with an
aiohttp client and relays the reply, with no engine, no validation and no storage.

    .venv/bin/python -m bench.bare_proxy --port P --backend http://127.0.0.1:B/v1 [--reuse-port]

`bench.bench_gateway` runs it beside the gateway. Whatever throughput ratio this reaches against the
backend is the most any aiohttp gateway can reach on the same machine, because every request the
gateway serves costs at least this much (one server request, one client request); the gap between
this row and the gateway's is the engine's own cost. Two of them on one port (`--reuse-port`, the
kernel spreads connections) show the ceiling when the front end may use every core.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator

import aiohttp
from aiohttp import web


def make_app(backend: str) -> web.Application:
    app = web.Application()
    session_key = web.AppKey("session", aiohttp.ClientSession)

    async def session(app: web.Application) -> AsyncIterator[None]:
        app[session_key] = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), auto_decompress=False)
        yield
        await app[session_key].close()

    async def forward(request: web.Request) -> web.Response:
        body = await request.read()
        async with app[session_key].post(
            backend + request.path.removeprefix("/v1"), data=body, headers={"Content-Type": "application/json"}
        ) as resp:
            data = await resp.read()
            return web.Response(body=data, status=resp.status, content_type="application/json")

    async def health(_request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app.cleanup_ctx.append(session)
    app.router.add_get("/health", health)
    app.router.add_post("/v1/{path:.*}", forward)
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--backend", required=True, help="the backend's base URL, ending in /v1")
    parser.add_argument("--reuse-port", action="store_true", help="share the port with sibling processes")
    args = parser.parse_args()
    print(f"bare proxy on http://127.0.0.1:{args.port}", file=sys.stderr, flush=True)
    web.run_app(
        make_app(args.backend.rstrip("/")),
        host="127.0.0.1",
        port=args.port,
        access_log=None,
        print=None,
        reuse_port=args.reuse_port,
    )


if __name__ == "__main__":
    main()
