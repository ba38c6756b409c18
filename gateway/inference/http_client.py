"""What the HTTP backend adapters share: the reader of a streamed reply and the model list.

Every call itself goes through `gateway.inference.client.BackendClient` (one error mapping,
redaction and metrics for every call to an inference server).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp

from gateway.common.errors import BackendError
from gateway.inference.client import BackendClient
from gateway.inference.sse_reader import SSEParser

BackendHTTP = BackendClient  # the name before the one client (#25); kept for callers


class SSEReads:
    """The data of the events each read of a streamed body completes, a list per read, up to the
    stream's `[DONE]` (then `done` is true).

    Per read, not per event: under load one read carries many tokens, and every layer an event
    passed through one by one (this iterator, the backend's, the runner's) cost CPU per token; all
    of a read's events were there at once, so none waits for the others."""

    def __init__(self, resp: aiohttp.ClientResponse) -> None:
        self.resp = resp
        self.done = False

    async def __aiter__(self) -> AsyncIterator[list[bytes]]:
        parser = SSEParser()
        async for chunk in self.resp.content.iter_any():
            if batch := self._data(parser.feed(chunk)):
                yield batch
            if self.done:
                return
        if batch := self._data(parser.close()):
            yield batch

    def _data(self, events: list[tuple[str | None, bytes]]) -> list[bytes]:
        out = []
        for _event, data in events:
            if data == b"[DONE]":
                self.done = True
                break
            out.append(data)
        return out


class HTTPBackend:
    """What every HTTP backend adapter shares: the model list, reachability, the session."""

    def __init__(self, http: BackendClient) -> None:
        self.http = http

    async def list_models(self) -> list[dict[str, Any]]:
        body = await self.http.get_json("/models")
        return list(body.get("data", [])) if isinstance(body, dict) else []

    async def ping(self) -> bool:
        try:
            await self.list_models()
        except BackendError:
            return False
        return True

    async def close(self) -> None:
        await self.http.close()
