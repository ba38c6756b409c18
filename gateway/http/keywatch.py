"""A long-lived request re-checks its key (#26): a revoked or expired key ends it, not only new requests.

Why: credentials are checked when a request starts; a WebSocket, an SSE stream or an MCP session
opened before a revocation would otherwise go on producing with the revoked key for as long as it
lasts. `credentials_problem` asks the authenticator again (its cache is `GATEWAY_AUTH_CACHE_SECONDS`,
so a revocation is seen within that time) and `watch_key` does it every such period beside a
running request, calling back once when the key stops working.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable

from aiohttp import web

from gateway.auth.authenticator import Authenticator
from gateway.common.errors import APIError, Unauthorized
from gateway.http.state import RUNTIME

log = logging.getLogger(__name__)


async def credentials_problem(request: web.Request) -> APIError | None:
    """The 401 the request's credentials would get now (a key revoked or expired since it began)."""
    auth: Authenticator = request.app[RUNTIME].authenticator
    if not auth.enabled:
        return None
    try:
        project = await auth.project(
            request.headers.get("Authorization"),
            request.headers.get(auth.header),
            peer_trusted=auth.trusted_peer(request.remote),
        )
    except APIError as err:
        return err
    if project != request.get("project"):
        return Unauthorized("The credentials of this connection now name another project.")
    return None


@contextlib.asynccontextmanager
async def watch_key(request: web.Request, on_revoked: Callable[[APIError], None]) -> AsyncIterator[None]:
    """Re-check the request's key every `GATEWAY_AUTH_CACHE_SECONDS` while the block runs; call
    `on_revoked` once (and stop watching) when it no longer authenticates. Nothing without keys."""
    auth: Authenticator = request.app[RUNTIME].authenticator
    if not auth.enabled:
        yield
        return
    period = max(0.1, auth.ttl)

    async def watch() -> None:
        while True:
            await asyncio.sleep(period)
            try:
                problem = await credentials_problem(request)
            except Exception:  # the key store unreachable: the next period tries again
                log.exception("could not re-check a stream's key")
                continue
            if problem is not None:
                log.info("a stream's key no longer authenticates: ending it")
                on_revoked(problem)
                return

    task = asyncio.get_running_loop().create_task(watch(), name="key-watch")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
