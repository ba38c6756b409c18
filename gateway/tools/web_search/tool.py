"""The web_search tool: OpenAI's `web_search` / `web_search_preview` tool types run server-side.

The model is offered one function, `web_search(query)`. Each call becomes a `web_search_call` output
item streamed as `output_item.added` → `web_search_call.in_progress` → `.searching` → `.completed`
→ `output_item.done` (a provider failure ends the item `failed` and the model is told, so the
response still completes). Results reach the model numbered with citation markers from
`run.citations`; when the answer writes `[n]`, the engine turns it into a `url_citation` annotation
spanning the sentence that used source n.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from gateway.common.errors import InvalidRequest
from gateway.common.ids import item_id
from gateway.config import Settings
from gateway.engine.deps import EngineDeps
from gateway.engine.events import EventBuilder
from gateway.telemetry import tracing
from gateway.tools.registry import ToolResult
from gateway.tools.web_search.providers import (
    SearchError,
    SearchHit,
    SearchProvider,
    SearchQuery,
    configuration_problem,
    domain_allowed,
    make_provider,
)

# The types the SDK lists (web_search_tool.py, web_search_preview_tool.py).
WEB_SEARCH_TYPES = ("web_search", "web_search_2025_08_26", "web_search_preview", "web_search_preview_2025_03_11")
FUNCTION = "web_search"
SOURCES_INCLUDE = "web_search_call.action.sources"
# search_context_size → (results shown to the model, characters of snippet per result)
CONTEXT_SIZES = {"low": (3, 300), "medium": (5, 600), "high": (10, 1200)}
MAX_DOMAINS = 100
_TAG = re.compile(r"<[^>]{0,200}>")  # Brave marks query terms with <strong>; snippets are plain text here


def _domain(value: str) -> str:
    """`https://Docs.Example.com/path` → `docs.example.com` (clients paste URLs)."""
    host = value.strip().lower().split("://", 1)[-1]
    return host.split("/", 1)[0].rstrip(".")


def check_tool(settings: Settings, tool: dict[str, Any], i: int, tools: list[dict[str, Any]]) -> None:
    """400 for a web_search tool this gateway cannot run or whose options are malformed (the
    registry runs it from `prepare()`, so both doors reject it before any output)."""
    if any(isinstance(t, dict) and t.get("type") in WEB_SEARCH_TYPES for t in tools[:i]):
        # each would offer the model the same `web_search` function
        raise InvalidRequest("Only one web_search tool can be given.", param=f"tools[{i}].type")
    size = tool.get("search_context_size")
    if size is not None and size not in CONTEXT_SIZES:
        raise InvalidRequest(
            f"Invalid value: '{size}'. Supported values are: 'low', 'medium' and 'high'.",
            param=f"tools[{i}].search_context_size",
        )
    filters = tool.get("filters")
    if filters is not None:
        domains = filters.get("allowed_domains") if isinstance(filters, dict) else None
        valid = isinstance(filters, dict) and (
            domains is None or (isinstance(domains, list) and all(isinstance(d, str) and d for d in domains))
        )
        if not valid or (domains and len(domains) > MAX_DOMAINS):
            raise InvalidRequest(
                f"Invalid value for 'tools[{i}].filters.allowed_domains': expected up to {MAX_DOMAINS} domains.",
                param=f"tools[{i}].filters.allowed_domains",
            )
    location = tool.get("user_location")
    if location is not None and not isinstance(location, dict):
        raise InvalidRequest(
            f"Invalid type for 'tools[{i}].user_location': expected an object.",
            param=f"tools[{i}].user_location",
            code="invalid_type",
        )


class WebSearchTool:
    def __init__(self, config: dict[str, Any], run: Any, provider: SearchProvider) -> None:
        self.run_ctx = run
        self.provider = provider
        self.count, self.snippet_chars = CONTEXT_SIZES[config.get("search_context_size") or "medium"]
        filters = config.get("filters") or {}
        self.domains = [_domain(d) for d in filters.get("allowed_domains") or []]
        self.location = {k: v for k, v in (config.get("user_location") or {}).items() if v and k != "type"}
        include = getattr(getattr(getattr(run, "p", None), "req", None), "include", None) or []
        self.with_sources = SOURCES_INCLUDE in include

    def definitions(self) -> list[dict[str, Any]]:
        return [
            {
                "type": "function",
                "name": FUNCTION,
                "description": "Search the web for current information. Returns numbered results; cite a "
                "result by writing its marker, e.g. [1], right after the sentence that uses it.",
                "parameters": {
                    "type": "object",
                    "properties": {"query": {"type": "string", "description": "The search query."}},
                    "required": ["query"],
                },
            }
        ]

    def handles(self, name: str) -> bool:
        return name == FUNCTION

    async def run(self, call: dict[str, Any], events: EventBuilder) -> ToolResult:
        query = _query(call.get("arguments"))
        item: dict[str, Any] = {
            "id": item_id("web_search_call"),
            "type": "web_search_call",
            "status": "in_progress",
            "action": {"type": "search", "query": query or ""},
        }
        index = events.open_item(item)
        ref = {"item_id": item["id"], "output_index": index}
        events.emit("response.web_search_call.in_progress", ref)
        if not query:
            events.close_item(index, "failed")
            return ToolResult('Error: web_search needs a non-empty "query" argument.')
        item["status"] = "searching"
        events.emit("response.web_search_call.searching", ref)
        try:
            attributes = {"gateway.web_search.provider": type(self.provider).__name__.lower()}
            with tracing.span("web_search", "client", attributes) as span:
                hits = await self.provider.search(
                    SearchQuery(query=query, count=self.count, allowed_domains=self.domains, location=self.location)
                )
                if span is not None:
                    span.set_attribute("gateway.web_search.hits", len(hits))
        except SearchError as exc:
            events.close_item(index, "failed")
            return ToolResult(f"Error: the web search failed ({exc}). Answer without it and say so.")
        hits = [h for h in hits if domain_allowed(h.url, self.domains)][: self.count]
        action: dict[str, Any] = {"type": "search", "query": query}
        if self.with_sources:
            action["sources"] = [{"type": "url", "url": h.url} for h in hits]
        item["action"] = action  # a new dict: the `added` event must keep the action it was sent with
        events.emit("response.web_search_call.completed", ref)
        events.close_item(index, "completed")
        return ToolResult(self._model_text(query, hits))

    def _model_text(self, query: str, hits: list[SearchHit]) -> str:
        if not hits:
            return f"The web search for {json.dumps(query)} found no results."
        lines = [
            f"Web search results for {json.dumps(query)}. Cite a result by writing its marker, e.g. [1], "
            "right after the sentence that uses it."
        ]
        for hit in hits:
            n = self.run_ctx.citations.add({"type": "url_citation", "url": hit.url, "title": hit.title})
            lines.append(f"\n[{n}] {hit.title}\nURL: {hit.url}\n{_clip(hit.snippet, self.snippet_chars)}")
        return "\n".join(lines)


def _query(arguments: Any) -> str | None:
    try:
        args = json.loads(arguments or "{}")
    except (TypeError, ValueError):
        return None
    query = args.get("query") if isinstance(args, dict) else None
    return query.strip() if isinstance(query, str) and query.strip() else None


def _clip(text: str, limit: int) -> str:
    text = " ".join(html.unescape(_TAG.sub("", text)).split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit] + "…"


def replay(item: dict[str, Any]) -> list[dict[str, Any]]:
    """A stored web_search_call as the call and result the model sees on later turns (the result
    text itself is not stored; the answer that used it is)."""
    action = item.get("action") or {}
    query = action.get("query") or ""
    sources = [s.get("url") for s in action.get("sources") or [] if isinstance(s, dict)]
    output = f"Web search for {json.dumps(query)}: {item.get('status', 'completed')}."
    if sources:
        output += " Sources: " + ", ".join(str(s) for s in sources)
    return [
        {"type": "function_call", "call_id": item["id"], "name": FUNCTION, "arguments": json.dumps({"query": query})},
        {"type": "function_call_output", "call_id": item["id"], "output": output},
    ]


class WebSearchUnavailable:
    """A web_search tool on a gateway with no search provider. Clients such as Codex CLI always send
    one, so it is not an error: the model is not offered a search, and a reasoning note at the start
    of the output says why (the response's `tools` still echo what the client sent)."""

    def __init__(self, problem: str) -> None:
        self.problem = problem

    def definitions(self) -> list[dict[str, Any]]:
        return []

    def handles(self, name: str) -> bool:
        return False

    async def run(self, call: dict[str, Any], events: Any) -> Any:
        raise AssertionError("an unavailable web_search offers no function")

    async def prelude(self, run: Any) -> bool:
        note = f"web_search was not used: {self.problem}"
        run.events.add_item(
            {
                "id": item_id("reasoning"),
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": note}],
                "status": "completed",
            }
        )
        return False


async def _factory(config: dict[str, Any], run: Any) -> WebSearchTool | WebSearchUnavailable:
    problem = configuration_problem(run.deps.settings)
    if problem is not None:
        return WebSearchUnavailable(problem)
    return WebSearchTool(config, run, make_provider(run.deps.settings))


def register(deps: EngineDeps) -> None:
    """Register every web_search tool type, with the request-time check `check_tool`."""
    settings: Settings = deps.settings

    async def checker(
        tool: dict[str, Any], index: int, tools: list[dict[str, Any]], _shared: dict[str, Any]
    ) -> dict[str, Any]:
        check_tool(settings, tool, index, tools)
        return tool

    for tool_type in WEB_SEARCH_TYPES:
        deps.tools.register(tool_type, _factory, converter=replay, item_type="web_search_call", checker=checker)
