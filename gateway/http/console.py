"""The console (#32): the static front end at `/console/`, served by the HTTP door.

The console is plain files (`gateway/console/static`, package data): the page talks to the public
`/v1` API with the signed-in key, exactly as any client does; this module only hands out files.
Every `/console/...` path that is not a file is a page of the single-page app, so each page has a
stable URL that can be reloaded or shared.

The files (about 50 KB) are read once and kept in memory with an ETag: a browser revalidates each
(`no-cache`) and gets a 304 without a file being opened, so a page's dozen modules cost the
gateway next to nothing. Every answer carries a Content-Security-Policy that allows this origin
only: the console loads nothing from elsewhere, and it renders the API's text as text, never as
markup (no inline script or style is needed, so none is allowed).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from aiohttp import web

STATIC = Path(__file__).resolve().parent.parent / "console" / "static"
HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}
_FILES: dict[str, tuple[bytes, str, str]] = {}  # relative path -> (body, content type, etag)

routes = web.RouteTableDef()


def _load() -> dict[str, tuple[bytes, str, str]]:
    """Every console file under STATIC, read once (a few dozen small files)."""
    if not _FILES:
        for path in sorted(STATIC.rglob("*")):
            if path.is_file() and path.suffix in _TYPES:
                body = path.read_bytes()
                etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
                _FILES[path.relative_to(STATIC).as_posix()] = (body, _TYPES[path.suffix], etag)
    return _FILES


@routes.get("/console")
async def console_root(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/console/")


@routes.get("/console/{tail:.*}")
async def console(request: web.Request) -> web.StreamResponse:
    """A console file (`/console/assets/...`) or a page of the console (`index.html`)."""
    tail = request.match_info["tail"]
    files = _load()
    name = tail.removeprefix("assets/") if tail.startswith("assets/") else "index.html"
    found = files.get(name)  # only names read from STATIC: no path of the request reaches the disk
    if found is None:
        raise web.HTTPNotFound()
    body, content_type, etag = found
    headers = {**HEADERS, "ETag": etag}
    if request.headers.get("If-None-Match") == etag:
        return web.Response(status=304, headers=headers)
    return web.Response(body=body, content_type=content_type, charset="utf-8", headers=headers)
