"""The backend calls a research run makes, straight to the inference server's chat completions.

A run is not a Responses turn (no tools, no stored items), so it talks to `/chat/completions`
through the gateway's one backend client, with the same error mapping, redaction and metrics as
every other call: `context_length_exceeded` stays recognisable so the run can retry with fewer notes.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

from gateway import usage
from gateway.common.errors import BackendError
from gateway.common.jsonutil import loads
from gateway.inference.client import BackendClient
from gateway.inference.http_client import SSEReads

log = logging.getLogger(__name__)
Message = dict[str, str]


class ChatModel:
    def __init__(self, http: BackendClient, model: str) -> None:
        self.http = http
        self.model = model

    async def complete(self, messages: list[Message], *, max_tokens: int = 300, temperature: float = 0.2) -> str:
        body = {"model": self.model, "messages": messages, "max_tokens": max_tokens, "temperature": temperature}
        async with self.http.post("/chat/completions", body, model=self.model) as resp:
            raw = await resp.read()
        try:
            data = loads(raw)
            text = str(data["choices"][0]["message"].get("content") or "")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            log.warning("the inference backend answered a research call without a message: %r", raw[:500])
            raise BackendError("the inference backend answered without a message") from None
        usage.record(self.model, data.get("usage"), source="research", estimate=(messages, raw))
        return text

    async def stream(self, messages: list[Message], *, max_tokens: int | None = None) -> AsyncIterator[str]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": True}
        if max_tokens:
            body["max_tokens"] = max_tokens
        said: list[str] = []  # a streamed answer carries no usage unless asked: estimated from the text
        async with self.http.post("/chat/completions", body, model=self.model) as resp:
            async for payloads in SSEReads(resp):
                for data in payloads:
                    try:
                        piece = loads(data)
                    except ValueError:
                        raise BackendError("the inference backend sent an invalid stream chunk") from None
                    for choice in piece.get("choices") or []:
                        text = (choice.get("delta") or {}).get("content")
                        if text:
                            said.append(text)
                            yield text
        usage.record(self.model, None, source="research", estimate=(messages, "".join(said)))
