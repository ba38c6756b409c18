"""The console (#32): the static front end at `/console/`, served by the HTTP door.

The console is plain files (`gateway/console/static`, package data): the page talks to the public
`/v1` API with the signed-in key, exactly as any client does; this module only hands out files.
Every `/console/...` path that is not a file is a page of the single-page app, so each page has a
stable URL that can be reloaded or shared.

The files (about 50 KB) are read once and kept in memory. Their URLs carry a version (a hash of
all of them: `/console/assets/<version>/main.js`, written into `index.html` when it is read, and
the modules' relative imports stay under it), so they are cached as immutable: a reload
revalidates `index.html` alone (a 304 by ETag) and loads no module again, and an upgrade changes
the version, so a browser never mixes old and new modules. Every answer carries a
Content-Security-Policy that allows this origin only: the console loads nothing from elsewhere, and
it renders the API's text as text, never as markup (no inline script or style is needed, so none
is allowed).
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
IMMUTABLE = "public, max-age=31536000, immutable"


class Files:
    """Every console file under STATIC, read once, and the version (a hash of them all) in their URL."""

    def __init__(self) -> None:
        found = {
            p.relative_to(STATIC).as_posix(): p.read_bytes()
            for p in sorted(STATIC.rglob("*"))
            if p.is_file() and p.suffix in _TYPES
        }
        digest = hashlib.sha256()
        for name, body in found.items():
            digest.update(name.encode() + b"\0" + body)
        self.version = digest.hexdigest()[:16]
        page = found.pop("index.html").replace(b"/console/assets/", f"/console/assets/{self.version}/".encode())
        self.index = (page, '"' + hashlib.sha256(page).hexdigest()[:20] + '"')
        self.assets = {name: (body, _TYPES[Path(name).suffix]) for name, body in found.items()}


_FILES: list[Files] = []
routes = web.RouteTableDef()


def files() -> Files:
    if not _FILES:
        _FILES.append(Files())
    return _FILES[0]


@routes.get("/console")
async def console_root(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/console/")


@routes.get("/console/{tail:.*}")
async def console(request: web.Request) -> web.StreamResponse:
    """A console file (`/console/assets/<version>/...`) or a page of the console (`index.html`)."""
    tail = request.match_info["tail"]
    found = files()
    if tail.startswith("assets/"):
        version, _, name = tail.removeprefix("assets/").partition("/")
        asset = found.assets.get(name) if version == found.version else None
        if asset is None:  # only names read from STATIC: no path of the request reaches the disk
            raise web.HTTPNotFound()
        body, content_type = asset
        return web.Response(
            body=body, content_type=content_type, charset="utf-8", headers={**HEADERS, "Cache-Control": IMMUTABLE}
        )
    page, etag = found.index
    headers = {**HEADERS, "ETag": etag}
    if request.headers.get("If-None-Match") == etag:
        return web.Response(status=304, headers=headers)
    return web.Response(body=page, content_type="text/html", charset="utf-8", headers=headers)
