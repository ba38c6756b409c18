"""The web_search tool against local stand-ins of Serper, Brave, Tavily and SearXNG.

Nothing reaches the internet: one aiohttp server in this process plays all four providers' APIs
(each under its own path prefix) and records every request, so the tests check the request shape
each real API expects (endpoint, auth header or key, parameters) as well as what the client sees:
the `web_search_call` item and its events, `url_citation` annotations, `allowed_domains` filtering,
and a provider failure that fails the call but not the response. Serper runs behind a full Envoy +
ExtProc stack so both front doors are exercised; the others behind one HTTP gateway each.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai
import pytest
from aiohttp import web
from openai import OpenAI

from tests.support.procs import Backend, Gateway, start_gateway, stop
from tests.support.stack import EnvoyStack, envoy_stack

MODEL = "scripted-model"
HITS = [
    ("https://docs.example.com/cats", "Cats", "Cats sleep sixteen hours a day."),
    ("https://other.org/dogs", "Dogs", "Dogs bark."),
    ("https://example.com/birds", "Birds", "Birds sing at dawn."),
]
LOCATION = {"type": "approximate", "country": "GB", "city": "London", "timezone": "Europe/London"}


class SearchStandIn:
    """The four providers' HTTP APIs on one local port, on a thread of their own (the tests use the
    synchronous SDK, which blocks the test's thread)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runner: web.AppRunner | None = None
        self.base = ""

    def start(self) -> str:
        self.thread.start()
        port = asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(10)
        self.base = f"http://127.0.0.1:{port}"
        return self.base

    async def _start(self) -> int:
        app = web.Application()
        app.router.add_post("/serper/search", self._handler("serper"))
        app.router.add_get("/brave/res/v1/web/search", self._handler("brave"))
        app.router.add_post("/tavily/search", self._handler("tavily"))
        app.router.add_get("/searxng/search", self._handler("searxng"))
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", 0).start()
        return int(self.runner.addresses[0][1])

    def stop(self) -> None:
        if self.runner is not None:
            asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    def matching(self, marker: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if marker in json.dumps(r)]

    def _handler(self, provider: str) -> Any:
        async def handle(request: web.Request) -> web.Response:
            body = await request.json() if request.method == "POST" else None
            record = {
                "provider": provider,
                "method": request.method,
                "path": request.path,
                "headers": dict(request.headers),
                "query": dict(request.query),
                "json": body,
            }
            self.requests.append(record)
            if "fail-500" in json.dumps(record):
                return web.json_response({"message": "upstream exploded"}, status=500)
            return web.json_response(_reply(provider))

        return handle


def _reply(provider: str) -> dict[str, Any]:
    """Each API's real response shape (trimmed to the fields that matter)."""
    if provider == "serper":
        organic = [{"title": t, "link": u, "snippet": s, "position": i + 1} for i, (u, t, s) in enumerate(HITS)]
        return {"searchParameters": {"type": "search"}, "organic": organic}
    if provider == "brave":  # Brave marks query terms up unless text_decorations=false
        results = [
            {"title": t, "url": u, "description": s.replace("sixteen", "<strong>sixteen</strong>")} for u, t, s in HITS
        ]
        return {"type": "search", "web": {"type": "search", "results": results}}
    if provider == "tavily":
        return {"query": "q", "results": [{"title": t, "url": u, "content": s, "score": 0.9} for u, t, s in HITS]}
    return {"query": "q", "results": [{"title": t, "url": u, "content": s, "engine": "duckduckgo"} for u, t, s in HITS]}


@dataclass
class SearchStack:
    standin: SearchStandIn
    serper: EnvoyStack
    gateways: dict[str, Gateway]  # brave, tavily, searxng


@pytest.fixture(scope="module")
def search(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SearchStack]:
    standin = SearchStandIn()
    base = standin.start()
    envs = {
        "brave": {"GATEWAY_WEB_SEARCH_URL": f"{base}/brave", "GATEWAY_WEB_SEARCH_API_KEY": "brave-key"},
        # a full endpoint URL works too
        "tavily": {"GATEWAY_WEB_SEARCH_URL": f"{base}/tavily/search", "GATEWAY_WEB_SEARCH_API_KEY": "tavily-key"},
        "searxng": {"GATEWAY_WEB_SEARCH_URL": f"{base}/searxng"},
    }

    # tmp_path_factory is not thread-safe: make the directories here, start the gateways in threads
    dirs: dict[str, Path] = {name: tmp_path_factory.mktemp(f"ws-{name}") for name in envs}

    def start(name: str) -> Gateway:
        return start_gateway(backend.url, dirs[name], GATEWAY_WEB_SEARCH_PROVIDER=name, **envs[name])

    with ThreadPoolExecutor(3) as pool:
        futures = {name: pool.submit(start, name) for name in envs}
        try:
            with envoy_stack(
                backend.url,
                tmp_path_factory.mktemp("ws-serper"),
                GATEWAY_WEB_SEARCH_PROVIDER="serper",
                GATEWAY_WEB_SEARCH_URL=f"{base}/serper",
                GATEWAY_WEB_SEARCH_API_KEY="serper-key",
            ) as serper:
                yield SearchStack(standin, serper, {name: f.result() for name, f in futures.items()})
        finally:
            for future in futures.values():
                if future.exception() is None:
                    stop(future.result().proc)
            standin.stop()


def _client(url: str) -> OpenAI:
    return OpenAI(base_url=url, api_key="test-key", max_retries=0, timeout=30)


def _script(backend: Backend, marker: str, answer: str) -> None:
    backend.script(
        marker,
        {"tool_calls": [{"name": "web_search", "arguments": {"query": f"cats {marker}"}}]},
        {"content": answer, "chunk_size": 4},
    )


@pytest.mark.parametrize("door", ["http", "envoy"])
def test_serper_search_streams_cites_and_filters(search: SearchStack, backend: Backend, marker: str, door: str) -> None:
    client = _client(search.serper.http_url if door == "http" else search.serper.url)
    _script(backend, marker, "Cats sleep a lot [1]. Birds sing [2].")
    tool = {
        "type": "web_search",
        "search_context_size": "low",
        "filters": {"allowed_domains": ["https://Example.com/"]},
        "user_location": LOCATION,
    }
    events = list(
        client.responses.create(
            model=MODEL,
            input=f"what do cats do? {marker}",
            tools=[tool],  # type: ignore[list-item]
            include=["web_search_call.action.sources"],
            stream=True,
        )
    )
    ws_id = next(
        e.item.id for e in events if e.type == "response.output_item.added" and e.item.type == "web_search_call"
    )
    progress = [
        e.type
        for e in events
        if getattr(e, "item_id", None) == ws_id or getattr(getattr(e, "item", None), "id", None) == ws_id
    ]
    assert progress == [
        "response.output_item.added",
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.output_item.done",
    ]
    final = events[-1].response  # type: ignore[union-attr]
    assert final.status == "completed" and [o.type for o in final.output] == ["web_search_call", "message"]
    call = final.output[0]
    assert ws_id.startswith("ws_") and call.status == "completed"
    assert call.action.type == "search" and call.action.query == f"cats {marker}"
    # other.org is outside allowed_domains: dropped although the provider returned it
    assert [s.url for s in call.action.sources] == ["https://docs.example.com/cats", "https://example.com/birds"]
    text = final.output[1].content[0]
    assert text.text == "Cats sleep a lot. Birds sing."
    assert [a.model_dump() for a in text.annotations] == [
        {
            "type": "url_citation",
            "url": "https://docs.example.com/cats",
            "title": "Cats",
            "start_index": 0,
            "end_index": 16,
        },
        {
            "type": "url_citation",
            "url": "https://example.com/birds",
            "title": "Birds",
            "start_index": 18,
            "end_index": 28,
        },
    ]
    assert sum(e.type == "response.output_text.annotation.added" for e in events) == 2
    assert client.responses.retrieve(final.id).output[0].model_dump() == call.model_dump()

    # Serper's API: POST /search, X-API-KEY, JSON {q (with site:), num, gl, location}
    (sent,) = search.standin.matching(marker)
    assert (sent["method"], sent["path"], sent["headers"]["X-API-KEY"]) == ("POST", "/serper/search", "serper-key")
    assert sent["json"] == {"q": f"cats {marker} site:example.com", "num": 3, "gl": "gb", "location": "London"}
    # the model saw the numbered results it can cite, and nothing from other.org
    tool_msg = backend.requests_matching(marker)[1]["body"]["messages"][-1]
    assert tool_msg["role"] == "tool" and "[1] Cats\nURL: https://docs.example.com/cats" in tool_msg["content"]
    assert "[2] Birds" in tool_msg["content"] and "other.org" not in tool_msg["content"]

    # a later turn replays the stored call through the converter
    client.responses.create(model=MODEL, input=f"more {marker}", previous_response_id=final.id)
    replay = backend.requests_matching(marker)[-1]["body"]["messages"]
    assert [m["role"] for m in replay] == ["user", "assistant", "tool", "assistant", "user"]
    assert replay[1]["tool_calls"][0]["function"]["name"] == "web_search"


@pytest.mark.parametrize(
    ("provider", "tool_type"),
    [("brave", "web_search_2025_08_26"), ("tavily", "web_search"), ("searxng", "web_search_preview")],
)
def test_provider_request_shapes(
    search: SearchStack, backend: Backend, marker: str, provider: str, tool_type: str
) -> None:
    client = _client(search.gateways[provider].url)
    _script(backend, marker, "Cats sleep [1].")
    tool: dict[str, Any] = {"type": tool_type, "search_context_size": "high", "user_location": LOCATION}
    if provider != "searxng":
        tool["filters"] = {"allowed_domains": ["example.com"]}
    resp = client.responses.create(model=MODEL, input=f"cats? {marker}", tools=[tool])  # type: ignore[list-item]
    assert resp.status == "completed" and resp.output[0].type == "web_search_call"
    assert resp.output[0].status == "completed" and resp.output[0].action.sources is None  # not included
    assert resp.output[1].content[0].annotations[0].url == "https://docs.example.com/cats"  # type: ignore[union-attr]

    (sent,) = search.standin.matching(marker)
    headers, query, body = sent["headers"], sent["query"], sent["json"]
    if provider == "brave":  # GET /res/v1/web/search?q&count&country, X-Subscription-Token, X-Loc-*
        assert (sent["method"], sent["path"]) == ("GET", "/brave/res/v1/web/search")
        assert headers["X-Subscription-Token"] == "brave-key" and headers["X-Loc-City"] == "London"
        assert query == {"q": f"cats {marker} site:example.com", "count": "10", "country": "GB"}
        tool_msg = backend.requests_matching(marker)[1]["body"]["messages"][-1]["content"]
        assert "Cats sleep sixteen hours a day." in tool_msg  # markup stripped for the model
    elif provider == "tavily":  # POST /search {api_key, query, max_results, include_domains}
        assert (sent["method"], sent["path"], headers["Authorization"]) == (
            "POST",
            "/tavily/search",
            "Bearer tavily-key",
        )
        assert body["api_key"] == "tavily-key" and body["query"] == f"cats {marker}"
        assert (body["max_results"], body["include_domains"], body["search_depth"]) == (10, ["example.com"], "advanced")
    else:  # GET /search?q&format=json, no key
        assert (sent["method"], sent["path"]) == ("GET", "/searxng/search")
        assert query == {"q": f"cats {marker}", "format": "json", "pageno": "1"}
        assert not any(h.lower() in ("authorization", "x-api-key") for h in headers)


def test_provider_failure_fails_the_call_not_the_response(search: SearchStack, backend: Backend, marker: str) -> None:
    client = _client(search.serper.http_url)
    backend.script(
        marker,
        {"tool_calls": [{"name": "web_search", "arguments": {"query": f"fail-500 {marker}"}}]},
        {"content": "The search failed, sorry."},
    )
    events = list(client.responses.create(model=MODEL, input=marker, tools=[{"type": "web_search"}], stream=True))
    final = events[-1].response  # type: ignore[union-attr]
    assert final.status == "completed" and final.error is None
    assert final.output[0].type == "web_search_call" and final.output[0].status == "failed"
    assert "response.web_search_call.completed" not in [e.type for e in events]
    tool_msg = backend.requests_matching(marker)[-1]["body"]["messages"][-1]["content"]
    assert tool_msg.startswith("Error: the web search failed (Serper answered HTTP 500")


def test_bad_web_search_requests_are_400(search: SearchStack) -> None:
    # (A web_search tool on a gateway with no provider is not an error: tests/tools/test_client_tools.py.)
    configured = _client(search.serper.url)
    for bad, param in [
        ([{"type": "web_search", "search_context_size": "huge"}], "tools[0].search_context_size"),
        ([{"type": "web_search", "filters": {"allowed_domains": "example.com"}}], "tools[0].filters.allowed_domains"),
        ([{"type": "web_search"}, {"type": "web_search_preview"}], "tools[1].type"),
    ]:
        with pytest.raises(openai.BadRequestError) as exc:
            configured.responses.create(model=MODEL, input="x", tools=bad)  # type: ignore[arg-type]
        assert exc.value.body["param"] == param  # type: ignore[index]
