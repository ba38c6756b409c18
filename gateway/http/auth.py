"""Authentication on the HTTP door: every `/v1` and `/mcp` request runs in its caller's project.

The middleware resolves the project (`gateway.auth.authenticator`) and runs the handler inside
`project_scope`, so every store call the request makes, and every task it starts (a background
run, a detached stream), is scoped to it. The admin routes (`/v1/organization/...`) take the admin
key instead and act across projects; with keys on, the admin key may also act in any one project on
the project routes, named by `OpenAI-Project` (`admin_project`, for the console's admin).
`/health`, `/ready`, `/metrics` and `/openapi.json` stay open.
"""

from __future__ import annotations

import hmac
from typing import Any

from aiohttp import web

from gateway.auth import limits
from gateway.auth.authenticator import NO_KEY, Authenticator
from gateway.auth.keys import PROJECT_RE
from gateway.common.errors import InvalidRequest, NotFound, RateLimited, Unauthorized
from gateway.http.common import read_json
from gateway.http.guard import TenantSlots, tenant_of
from gateway.http.state import door, runtime
from gateway.usage.admission import admit_call
from gateway.usage.recorder import DOOR_HEADER, caller_key, entry_door
from gateway.usage.reserve import RESERVING
from storage.scope import DEFAULT_PROJECT, project_scope

ADMIN_PREFIX = "/v1/organization/"
PROJECT_HEADER = "OpenAI-Project"  # the project the admin key acts in (OpenAI's header of that name)
CHAT_PATHS = frozenset({"/v1/chat/completions", "/v1/completions"})  # the passthrough a project may be denied


def _needs_project(path: str) -> bool:
    return path.startswith("/v1/") or path == "/v1" or path == "/mcp" or path.startswith("/mcp/")


def check_admin(request: web.Request) -> None:
    admin_key = runtime(request).settings.admin_key
    if not admin_key:
        raise NotFound("The admin routes are off: set GATEWAY_ADMIN_KEY to use them.")
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized(NO_KEY, verbatim=True)
    if not hmac.compare_digest(token.strip().encode(), admin_key.encode()):
        raise Unauthorized("Incorrect admin key provided.")


def admin_project(request: web.Request) -> str | None:
    """The project the admin key acts in on a project route, or None when the caller is not the admin.

    With `GATEWAY_AUTH=keys`, the admin key (which can mint a key for any project anyway) may read and
    act in any project on the HTTP door, naming it in OpenAI's `OpenAI-Project` header (default:
    the `default` project): the console's admin sees every project through the public API (#32).
    """
    settings = runtime(request).settings
    if settings.auth != "keys" or not settings.admin_key:
        return None
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode(), settings.admin_key.encode()):
        return None
    project = request.headers.get(PROJECT_HEADER) or DEFAULT_PROJECT
    if not PROJECT_RE.match(project):
        raise InvalidRequest(f"Invalid {PROJECT_HEADER} header: not a project id.", param=PROJECT_HEADER)
    return project


@web.middleware
async def auth_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    path = request.path
    if path.startswith(ADMIN_PREFIX):
        check_admin(request)
        with project_scope(None):
            return await handler(request)
    if not _needs_project(path):
        return await handler(request)
    auth: Authenticator = runtime(request).authenticator
    project = admin_project(request) or await auth.project(
        request.headers.get("Authorization"),
        request.headers.get(auth.header),
        peer_trusted=auth.enabled and auth.trusted_peer(request.remote),
    )
    request["project"] = project
    # Envoy's routes to this server say so (overwriting any client's copy); only a trusted peer's counts
    via_envoy = request.headers.get(DOOR_HEADER) == "envoy" and auth.trusted_peer(request.remote)
    entry_door.set("envoy" if via_envoy else "")  # set on every request: a connection's task is reused
    # requests_per_minute first: a tenant over it is refused before its body is read or parsed
    call = await admit_call(limits.LIMITS, project, caller_key.get())
    request["ratelimit"] = call.headers
    if request.method == "POST" and path in RESERVING and call.reserves():
        # tokens_per_minute: reserve the call's output cap (and prompt estimate) before it is made;
        # the body is parsed here only then (aiohttp keeps the bytes for the handler)
        await call.reserve(path, await read_json(request))  # a bad body: counted
        request["ratelimit"] = call.headers
    tenant = None
    slots: TenantSlots = door(request).tenant_slots
    try:
        if path in CHAT_PATHS:
            limits.LIMITS.check_chat(project)
        tenant = tenant_of(request)
        if tenant is not None and not slots.acquire(tenant):
            tenant = None
            raise RateLimited(
                f"Too many open requests for this project ({slots.cap} per process): wait for some to finish.",
                retry_after=1,
                code="too_many_concurrent_requests",
            )
        with project_scope(project):
            return await handler(request)
    finally:
        if tenant is not None:
            slots.release(tenant)
        call.settle()  # what the request's calls did not spend goes back (client gone too)


async def rate_headers(request: web.Request, response: web.StreamResponse) -> None:
    """`on_response_prepare`: OpenAI's x-ratelimit-* headers on every admitted request's reply
    (streams included: they are prepared inside the handler)."""
    headers = request.get("ratelimit")
    if headers:
        response.headers.update(headers)
