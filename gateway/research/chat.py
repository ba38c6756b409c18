"""Research through chat completions (the Open WebUI path).

Only the latest user message decides: `research ...` starts a standard run, `deep research ...` a
deep one (case-insensitive, leading whitespace ignored). Anything else (a later turn of the same
chat, "please research ...", multimodal content) is not research and is passed through untouched.
Progress streams as `delta.reasoning_content` before the first `delta.content`; every chunk is a
`chat.completion.chunk`; a non-streamed request gets one `chat.completion` whose message has the
answer and the progress (`reasoning_content`).
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator
from typing import Any

from gateway.common.ids import new_id
from gateway.research.orchestrator import (
    AnswerDelta,
    Event,
    Finished,
    Opened,
    Progress,
    Refused,
    Searched,
    url_citations,
)
from gateway.research.service import Queued

TRIGGER = re.compile(r"^\s*(deep\s+research|research)\b[\s:,.-]*(.*)$", re.I | re.S)


def research_request(body: Any) -> tuple[str, str] | None:
    """(kind, question) when the latest user message asks for research, else None."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return None
    latest = next(
        (m for m in reversed(body["messages"]) if isinstance(m, dict) and m.get("role") == "user"),
        None,
    )
    if latest is None or not isinstance(latest.get("content"), str):
        return None
    found = TRIGGER.match(latest["content"])
    if found is None or not found.group(2).strip():
        return None
    kind = "deep" if found.group(1).lower().startswith("deep") else "standard"
    return kind, found.group(2).strip()


def progress_text(event: Event | Queued) -> str | None:
    """A line of the reasoning stream for a progress event (None: not progress)."""
    if isinstance(event, Queued):
        return f"Waiting for a research slot: place {event.place} in line.\n"
    if isinstance(event, Progress):
        return event.text + "\n"
    if isinstance(event, Searched):
        where = {"web": "the web", "file": "the knowledge base", "mcp": "an MCP server"}.get(event.kind, event.kind)
        return f"Searched {where} for “{event.query}”: {len(event.sources)} result(s).\n"
    if isinstance(event, Opened):
        return f"Read: {event.title} — {event.url}\n"
    if isinstance(event, Refused):
        return f"Skipped {event.url}: {event.reason}\n"
    return None


def chat_annotations(citations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat completions' shape of a url_citation: its fields under `url_citation`."""
    return [{"type": "url_citation", "url_citation": {k: v for k, v in c.items() if k != "type"}} for c in citations]


class ChatRendering:
    """`chat.completion.chunk`s (streaming) or one `chat.completion`, for one run."""

    def __init__(self, model: str) -> None:
        self.id = "chatcmpl-" + new_id("x").split("_", 1)[1]  # OpenAI's shape: chatcmpl-<hex>
        self.created = int(time.time())
        self.model = model
        self.reasoning: list[str] = []
        self.answer: list[str] = []
        self.annotations: list[dict[str, Any]] = []

    def chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    async def chunks(self, events: AsyncIterator[Event | Queued]) -> AsyncIterator[dict[str, Any]]:
        yield self.chunk({"role": "assistant", "content": ""})
        async for event in events:
            if (line := progress_text(event)) is not None:
                self.reasoning.append(line)
                yield self.chunk({"reasoning_content": line})
            elif isinstance(event, AnswerDelta):
                self.answer.append(event.text)
                yield self.chunk({"content": event.text})
            elif isinstance(event, Finished):
                self.annotations = chat_annotations(url_citations("".join(self.answer), event.notes))
                if self.annotations:  # as OpenAI's web-search chat models send them: a delta of their own
                    yield self.chunk({"annotations": self.annotations})
                yield self.chunk({}, finish="stop")

    async def completion(self, events: AsyncIterator[Event | Queued]) -> dict[str, Any]:
        async for _chunk in self.chunks(events):
            pass
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "".join(self.answer),
                        "reasoning_content": "".join(self.reasoning) or "Researched.",
                        "annotations": self.annotations,
                    },
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
        }
