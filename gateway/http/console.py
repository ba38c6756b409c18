"""The console (#32): the static front end at `/console/`, served by the HTTP door.

The console is plain files (`gateway/console/static`, package data): the page talks to the public
`/v1` API with the signed-in key, exactly as any client does; this module only hands out files.
Every `/console/...` path that is not a file is a page of the single-page app, so each page has a
stable URL that can be reloaded or shared. Files are answered with `no-cache` (the browser
revalidates with `If-Modified-Since`, a 304 costs nothing) so an upgrade is seen at once, and with
a Content-Security-Policy that allows this origin only: the console loads nothing from elsewhere
and renders the API's text as text, never as markup.
"""

from __future__ import annotations

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
_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".svg": "image/svg+xml"}

routes = web.RouteTableDef()


def _file(relative: str) -> Path | None:
    """The static file a path names, or None (a page of the app); never a file outside STATIC."""
    if not relative.startswith("assets/"):
        return None
    path = (STATIC / relative.removeprefix("assets/")).resolve()
    if not path.is_relative_to(STATIC) or not path.is_file() or path.suffix not in _TYPES:
        raise web.HTTPNotFound()
    return path


@routes.get("/console")
async def console_root(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/console/")


@routes.get("/console/{tail:.*}")
async def console(request: web.Request) -> web.StreamResponse:
    """A console file (`/console/assets/...`) or a page of the console (`index.html`)."""
    path = _file(request.match_info["tail"]) or STATIC / "index.html"
    resp = web.FileResponse(path, headers={**HEADERS, "Content-Type": _TYPES[path.suffix]})
    return resp
