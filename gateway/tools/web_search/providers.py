"""Search providers behind one interface: Serper, Brave, Tavily and a self-hosted SearXNG.

Each provider speaks its service's real HTTP API (documented endpoints, auth headers, parameters)
and returns the same `SearchHit`s, so the web_search tool neither knows nor cares which one runs.
`settings.web_search_url` replaces the provider's base URL (required for SearXNG, which has no
public default); a URL that already ends in the provider's path is used as is.

Every failure (refused, timed out, non-2xx, unparsable reply) is a `SearchError`: the tool turns it
into a `failed` web_search_call, never a failed response.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

import aiohttp

from gateway.config import Settings
from gateway.telemetry import tracing

TIMEOUT = aiohttp.ClientTimeout(total=20.0, connect=5.0)
USER_AGENT = "responses-gateway/0.1 (+web_search)"


class SearchError(Exception):
    """The provider could not answer; the message is safe to show the model and the client."""


@dataclass(slots=True)
class SearchQuery:
    query: str
    count: int
    allowed_domains: list[str] = field(default_factory=list)
    # OpenAI's user_location: {"type": "approximate", "city", "region", "country" (ISO-2), "timezone"}
    location: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class SearchHit:
    url: str
    title: str
    snippet: str


class SearchProvider(Protocol):
    name: str

    async def search(self, q: SearchQuery) -> list[SearchHit]: ...


def domain_allowed(url: str, domains: list[str]) -> bool:
    """OpenAI's rule: a domain allows itself and its subdomains."""
    if not domains:
        return True
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    return any(host == d or host.endswith("." + d) for d in domains)


def with_sites(query: str, domains: list[str]) -> str:
    """`site:` operators for engines that understand them (Google, Brave, most SearXNG engines)."""
    if not domains:
        return query
    sites = " OR ".join(f"site:{d}" for d in domains)
    return f"{query} ({sites})" if len(domains) > 1 else f"{query} {sites}"


def _endpoint(settings: Settings, default_base: str | None, path: str) -> str:
    base = (settings.web_search_url or default_base or "").rstrip("/")
    if not base:
        raise SearchError(f"web_search provider '{settings.web_search_provider}' needs GATEWAY_WEB_SEARCH_URL")
    return base if base.endswith(path) else base + path


async def _fetch_json(method: str, url: str, *, name: str, **kwargs: Any) -> Any:
    headers = {"Accept": "application/json", "User-Agent": USER_AGENT, **kwargs.pop("headers", {})}
    headers = tracing.inject(headers)  # tracing on: the web search span's traceparent
    try:
        async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
            async with session.request(method, url, headers=headers, **kwargs) as resp:
                if resp.status >= 400:
                    detail = (await resp.text())[:200].strip()
                    raise SearchError(f"{name} answered HTTP {resp.status}" + (f": {detail}" if detail else ""))
                return await resp.json(content_type=None)
    except TimeoutError:
        raise SearchError(f"{name} did not answer within {TIMEOUT.total:.0f}s") from None
    except aiohttp.ClientError as exc:
        raise SearchError(f"{name} is unreachable: {type(exc).__name__}") from None
    except ValueError:
        raise SearchError(f"{name} answered with something that is not JSON") from None


def _hits(rows: Any, url_key: str, snippet_key: str) -> list[SearchHit]:
    if not isinstance(rows, list):
        return []
    return [
        SearchHit(url=str(r[url_key]), title=str(r.get("title") or r[url_key]), snippet=str(r.get(snippet_key) or ""))
        for r in rows
        if isinstance(r, dict) and isinstance(r.get(url_key), str)
    ]


class Serper:
    """Google results via serper.dev: `POST /search`, key in `X-API-KEY`, JSON `{q, num, gl, location}`."""

    name = "serper"

    def __init__(self, settings: Settings) -> None:
        self.url = _endpoint(settings, "https://google.serper.dev", "/search")
        self.key = settings.web_search_api_key or ""

    async def search(self, q: SearchQuery) -> list[SearchHit]:
        body: dict[str, Any] = {"q": with_sites(q.query, q.allowed_domains), "num": q.count}
        loc = q.location
        if loc.get("country"):
            body["gl"] = str(loc["country"]).lower()
        place = ", ".join(str(loc[k]) for k in ("city", "region") if loc.get(k))
        if place:
            body["location"] = place
        data = await _fetch_json("POST", self.url, name="Serper", json=body, headers={"X-API-KEY": self.key})
        return _hits(data.get("organic") if isinstance(data, dict) else None, "link", "snippet")


class Brave:
    """Brave Search: `GET /res/v1/web/search?q&count&country`, key in `X-Subscription-Token`,
    the user's place in the `X-Loc-*` headers."""

    name = "brave"

    def __init__(self, settings: Settings) -> None:
        self.url = _endpoint(settings, "https://api.search.brave.com", "/res/v1/web/search")
        self.key = settings.web_search_api_key or ""

    async def search(self, q: SearchQuery) -> list[SearchHit]:
        params = {"q": with_sites(q.query, q.allowed_domains), "count": str(min(q.count, 20))}
        headers = {"X-Subscription-Token": self.key}
        loc = q.location
        if loc.get("country"):
            params["country"] = str(loc["country"]).upper()
        for key, header in (
            ("city", "X-Loc-City"),
            ("region", "X-Loc-State-Name"),
            ("country", "X-Loc-Country"),
            ("timezone", "X-Loc-Timezone"),
        ):
            if loc.get(key):
                headers[header] = str(loc[key])
        data = await _fetch_json("GET", self.url, name="Brave", params=params, headers=headers)
        web = data.get("web") if isinstance(data, dict) else None
        return _hits(web.get("results") if isinstance(web, dict) else None, "url", "description")


class Tavily:
    """Tavily: `POST /search` with `{api_key, query, max_results, search_depth, include_domains}`;
    the key also goes as `Authorization: Bearer`, which Tavily's current API reference uses."""

    name = "tavily"

    def __init__(self, settings: Settings) -> None:
        self.url = _endpoint(settings, "https://api.tavily.com", "/search")
        self.key = settings.web_search_api_key or ""

    async def search(self, q: SearchQuery) -> list[SearchHit]:
        body: dict[str, Any] = {
            "api_key": self.key,
            "query": q.query,
            "max_results": min(q.count, 20),
            "search_depth": "advanced" if q.count > 5 else "basic",
            "topic": "general",
        }
        if q.allowed_domains:
            body["include_domains"] = q.allowed_domains
        headers = {"Authorization": f"Bearer {self.key}"}
        data = await _fetch_json("POST", self.url, name="Tavily", json=body, headers=headers)
        return _hits(data.get("results") if isinstance(data, dict) else None, "url", "content")


class SearXNG:
    """A self-hosted SearXNG: `GET /search?q&format=json` (the instance must enable the json
    format), no key; it returns one page of ~20 results, cut to `count` here."""

    name = "searxng"

    def __init__(self, settings: Settings) -> None:
        self.url = _endpoint(settings, None, "/search")

    async def search(self, q: SearchQuery) -> list[SearchHit]:
        params = {"q": with_sites(q.query, q.allowed_domains), "format": "json", "pageno": "1"}
        data = await _fetch_json("GET", self.url, name="SearXNG", params=params)
        return _hits(data.get("results") if isinstance(data, dict) else None, "url", "content")


PROVIDERS: dict[str, type[Serper] | type[Brave] | type[Tavily] | type[SearXNG]] = {
    "serper": Serper,
    "brave": Brave,
    "tavily": Tavily,
    "searxng": SearXNG,
}
NEEDS_KEY = frozenset({"serper", "brave", "tavily"})


def configuration_problem(settings: Settings) -> str | None:
    """Why web_search cannot run with these settings, or None when it can."""
    name = settings.web_search_provider
    if name is None:
        return (
            "Web search is not configured on this gateway: set GATEWAY_WEB_SEARCH_PROVIDER "
            "(searxng, serper, brave or tavily)."
        )
    if name in NEEDS_KEY and not settings.web_search_api_key:
        return f"Web search provider '{name}' needs an API key: set GATEWAY_WEB_SEARCH_API_KEY."
    if name == "searxng" and not settings.web_search_url:
        return "Web search provider 'searxng' needs the instance's URL: set GATEWAY_WEB_SEARCH_URL."
    return None


def make_provider(settings: Settings) -> SearchProvider:
    problem = configuration_problem(settings)
    if problem is not None:
        raise SearchError(problem)
    assert settings.web_search_provider is not None
    return PROVIDERS[settings.web_search_provider](settings)
