"""Research through the Responses API, in the shape of OpenAI's deep-research models.

`model: "research" | "deep-research"` runs the orchestrator instead of a model turn loop; the run
is an ordinary `ResponseRun` otherwise (stored, background, cancel, retrieve, resume from any
event, both doors: the ExtProc hands these requests to the HTTP server). Output items:
`reasoning` (progress summaries), `web_search_call` with `action.type` `search` (query and sources)
or `open_page` (a page read), `file_search_call` (knowledge-base searches), and the final `message`
whose `[n]` markers carry `url_citation` annotations for the notes they cite.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from gateway.common.errors import APIError, ServerError
from gateway.common.ids import item_id
from gateway.engine.events import Event, TextItem
from gateway.engine.runner import ResponseRun
from gateway.research.chat import progress_text
from gateway.research.mcp_source import mcp_searches
from gateway.research.models import RESEARCH_MODELS
from gateway.research.orchestrator import AnswerDelta, Finished, Note, Opened, Searched, url_citations

log = logging.getLogger(__name__)


def question_of(items: list[dict[str, Any]]) -> str:
    """The latest user message's text."""
    for item in reversed(items):
        if item.get("type", "message") == "message" and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, str):
                return content.strip()
            texts = [p.get("text", "") for p in content or [] if isinstance(p, dict) and p.get("type") == "input_text"]
            return " ".join(t for t in texts if t).strip()
    return ""


class ResearchRun(ResponseRun):
    async def _produce(self) -> AsyncIterator[Event]:
        """The research run instead of the tool loop; its events stream as they are built."""
        task = asyncio.get_running_loop().create_task(self._research())
        async for event in self._drain_until(task):
            yield event
        task.result()

    async def _research(self) -> None:
        service = self.deps.research
        if service is None:
            raise ServerError("Research runs in the gateway's HTTP server only.")
        question = question_of(self.p.inputs)
        if not question:
            raise APIError(
                "Research needs a question in the input.", status=400, param="input", type="invalid_request_error"
            )
        tools = self.p.req.tools or []
        web = any(str(t.get("type", "")).startswith("web_search") for t in tools)
        stores = [sid for t in tools if t.get("type") == "file_search" for sid in t.get("vector_store_ids") or []]
        model = self.deps.settings.research_model or await self.deps.models.resolve(None)
        extra = await mcp_searches(self.deps, tools)  # the request's MCP servers' search/fetch tools
        kind = RESEARCH_MODELS[self.response["model"]]
        events = service.events(kind, question, model, web=web, store_ids=stores, extra=extra)
        message: TextItem | None = None
        try:
            async for event in events:
                if isinstance(event, Searched):
                    self._searched(event)
                elif isinstance(event, Opened):
                    self._opened(event)
                elif isinstance(event, AnswerDelta):
                    message = message or TextItem(self.events)
                    message.delta(event.text)
                elif isinstance(event, Finished):
                    message = message or TextItem(self.events)
                    self._cite(message, event.notes)
                    message.close()
                elif (text := progress_text(event)) is not None:
                    self._reasoning(text.strip())
        finally:
            await events.aclose()

    def _reasoning(self, text: str) -> None:
        item = {"id": item_id("reasoning"), "type": "reasoning", "summary": [{"type": "summary_text", "text": text}]}
        self.events.add_item(item)

    def _searched(self, event: Searched) -> None:
        if event.kind == "web":
            action = {
                "type": "search",
                "query": event.query,
                "sources": [{"type": "url", "url": s.url} for s in event.sources],
            }
            self._web_call(action)
            return
        if event.kind == "mcp":
            self._mcp_call(event)
            return
        item: dict[str, Any] = {
            "id": item_id("file_search_call"),
            "type": "file_search_call",
            "status": "in_progress",
            "queries": [q.strip() for q in event.query.split(";") if q.strip()],
            "results": None,
        }
        index = self.events.open_item(item)
        ref = {"item_id": item["id"], "output_index": index}
        for step in ("in_progress", "searching", "completed"):
            self.events.emit(f"response.file_search_call.{step}", ref)
        self.events.close_item(index, "completed")

    def _mcp_call(self, event: Searched) -> None:
        """An MCP server's search (and the fetches of what it found), as an `mcp_call` item."""
        found = [{"title": s.title, "url": s.url} for s in event.sources]
        item = {
            "id": item_id("mcp_call"),
            "type": "mcp_call",
            "server_label": "research",
            "name": "search",
            "arguments": json.dumps({"query": event.query}),
            "output": json.dumps({"results": found}),
            "error": None,
            "status": "completed",
        }
        self.events.add_item(item)

    def _opened(self, event: Opened) -> None:
        self._web_call({"type": "open_page", "url": event.url})

    def _web_call(self, action: dict[str, Any]) -> None:
        item: dict[str, Any] = {"id": item_id("web_search_call"), "type": "web_search_call", "status": "in_progress"}
        index = self.events.open_item({**item, "action": {"type": action["type"]}})
        ref = {"item_id": item["id"], "output_index": index}
        self.events.emit("response.web_search_call.in_progress", ref)
        self.events.emit("response.web_search_call.searching", ref)
        self.events.output[index] = {**item, "action": action}
        self.events.emit("response.web_search_call.completed", ref)
        self.events.close_item(index, "completed")

    @staticmethod
    def _cite(message: TextItem, notes: list[Note]) -> None:
        for annotation in url_citations("".join(message.chunks), notes):
            message.annotate(annotation)
