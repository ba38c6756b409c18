"""The backend calls a research run makes, straight to the inference server's chat completions.

A run is not a Responses turn (no tools, no stored items), so it talks to `/chat/completions`
through the gateway's pooled backend session, with the same error mapping as every other call:
`context_length_exceeded` stays recognisable so the run can retry with fewer notes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp

from gateway import usage
from gateway.backends.base import map_backend_error
from gateway.backends.http_client import BackendHTTP
from gateway.backends.sse import SSEParser
from gateway.errors import BackendError, BackendTimeout
from gateway.jsonutil import dumps, loads

Message = dict[str, str]


class ChatModel:
    def __init__(self, http: BackendHTTP, model: str) -> None:
        self.http = http
        self.model = model

    async def complete(self, messages: list[Message], *, max_tokens: int = 300, temperature: float = 0.2) -> str:
        body = {"model": self.model, "messages": messages, "max_tokens": max_tokens, "temperature": temperature}
        raw = await self._post(body)
        data = loads(raw)
        usage.record(self.model, data.get("usage"), source="research", estimate=(messages, raw))
        try:
            return str(data["choices"][0]["message"].get("content") or "")
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise BackendError(f"inference backend answered without a message: {raw[:200]!r}") from exc

    async def stream(self, messages: list[Message], *, max_tokens: int | None = None) -> AsyncIterator[str]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": True}
        if max_tokens:
            body["max_tokens"] = max_tokens
        parser = SSEParser()
        said: list[str] = []  # a streamed answer carries no usage unless asked: estimated from the text
        try:
            async with self.http.session.post(
                self.http.url("/chat/completions"), data=dumps(body), headers=self.http.headers
            ) as resp:
                if resp.status >= 400:
                    raise map_backend_error(resp.status, await resp.read())
                async for chunk in resp.content.iter_any():
                    for _event, data in parser.feed(chunk):
                        if data.strip() == b"[DONE]":
                            usage.record(self.model, None, source="research", estimate=(messages, "".join(said)))
                            return
                        piece = loads(data)
                        for choice in piece.get("choices") or []:
                            text = (choice.get("delta") or {}).get("content")
                            if text:
                                said.append(text)
                                yield text
        except (aiohttp.ClientConnectorError, ConnectionRefusedError) as exc:
            raise BackendError(f"could not connect to the inference backend: {exc}") from exc
        except TimeoutError as exc:
            raise BackendTimeout("the inference backend timed out") from exc

    async def _post(self, body: dict[str, Any]) -> bytes:
        try:
            async with self.http.session.post(
                self.http.url("/chat/completions"), data=dumps(body), headers=self.http.headers
            ) as resp:
                raw = await resp.read()
                if resp.status >= 400:
                    raise map_backend_error(resp.status, raw)
                return raw
        except (aiohttp.ClientConnectorError, ConnectionRefusedError) as exc:
            raise BackendError(f"could not connect to the inference backend: {exc}") from exc
        except TimeoutError as exc:
            raise BackendTimeout("the inference backend timed out") from exc
