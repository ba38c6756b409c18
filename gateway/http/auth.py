"""Authentication on the HTTP door: every `/v1` and `/mcp` request runs in its caller's project.

The middleware resolves the project (`gateway.auth.authenticator`) and runs the handler inside
`project_scope`, so every store call the request makes, and every task it starts (a background
run, a detached stream), is scoped to it. The admin routes (`/v1/organization/...`) take the admin
key instead and act across projects. `/health`, `/ready`, `/metrics` and `/openapi.json` stay open.
"""

from __future__ import annotations

import hmac
from typing import Any

from aiohttp import web

from gateway.auth import limits
from gateway.auth.authenticator import NO_KEY, Authenticator
from gateway.errors import NotFound, Unauthorized
from gateway.usage.recorder import caller_key
from storage.scope import project_scope

ADMIN_PREFIX = "/v1/organization/"
CHAT_PATHS = frozenset({"/v1/chat/completions", "/v1/completions"})  # the passthrough a project may be denied


def _needs_project(path: str) -> bool:
    return path.startswith("/v1/") or path == "/v1" or path == "/mcp" or path.startswith("/mcp/")


def check_admin(request: web.Request) -> None:
    admin_key = request.app["settings"].admin_key
    if not admin_key:
        raise NotFound("The admin routes are off: set GATEWAY_ADMIN_KEY to use them.")
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized(NO_KEY)
    if not hmac.compare_digest(token.strip().encode(), admin_key.encode()):
        raise Unauthorized("Incorrect admin key provided.")


@web.middleware
async def auth_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    path = request.path
    if path.startswith(ADMIN_PREFIX):
        check_admin(request)
        with project_scope(None):
            return await handler(request)
    if not _needs_project(path):
        return await handler(request)
    auth: Authenticator = request.app["auth"]
    project = await auth.project(
        request.headers.get("Authorization"),
        request.headers.get(auth.header),
        peer_trusted=auth.enabled and auth.trusted_peer(request.remote),
    )
    request["project"] = project
    request["ratelimit"] = await limits.LIMITS.admit(project, caller_key.get())
    if path in CHAT_PATHS:
        limits.LIMITS.check_chat(project)
    with project_scope(project):
        return await handler(request)


async def rate_headers(request: web.Request, response: web.StreamResponse) -> None:
    """`on_response_prepare`: OpenAI's x-ratelimit-* headers on every admitted request's reply
    (streams included: they are prepared inside the handler)."""
    headers = request.get("ratelimit")
    if headers:
        response.headers.update(headers)
