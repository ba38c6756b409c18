"""The engine's `Backend` over several pools (#27): a turn goes to the adapter of its model's pool.

With one pool the adapter itself is the engine's backend (no layer per streamed read); with
`GATEWAY_BACKENDS`, this routes by model and merges the pools' model lists. Picking the replica
inside a pool is the client's (`gateway.inference.client`), for every kind of call alike.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from gateway.common.errors import APIError
from gateway.inference.base import TurnRequest
from gateway.inference.chat_completions import ChatCompletionsBackend
from gateway.inference.client import BackendClient
from gateway.inference.deltas import Delta
from gateway.inference.http_client import HTTPBackend
from gateway.inference.replicas import Pool
from gateway.inference.responses_api import ResponsesBackend


async def _failing(err: APIError) -> AsyncIterator[list[Delta]]:
    raise err
    yield  # an async generator, so the error surfaces where the stream is read, as a backend's would


class FleetBackend:
    def __init__(self, client: BackendClient) -> None:
        self.http = client
        self.adapters: dict[str, HTTPBackend] = {
            "chat_completions": ChatCompletionsBackend(client),
            "responses": ResponsesBackend(client),
        }
        self.entries: dict[str, list[dict[str, Any]]] = {}  # each pool's last model list

    def adapter(self, model: str | None) -> Any:
        return self.adapters[self.http.pool_for(model).api]

    def turn_stream(self, turn: TurnRequest) -> AsyncIterator[list[Delta]]:
        try:
            adapter = self.adapter(turn.model)
        except APIError as err:
            return _failing(err)
        return adapter.turn_stream(turn)  # type: ignore[no-any-return]

    async def count_tokens(self, turn: TurnRequest) -> int:
        return int(await self.adapter(turn.model).count_tokens(turn))

    async def _pool_models(self, pool: Pool) -> list[dict[str, Any]]:
        """One pool's models: what a replica's /v1/models says (kept when it cannot be asked), cut
        to the pool's `models` when it names them."""
        try:
            body = await self.http.get_json("/models", pool=pool)
            data = body.get("data", []) if isinstance(body, dict) else []
            self.entries[pool.name] = [e for e in data if isinstance(e, dict) and isinstance(e.get("id"), str)]
            pool.discovered = {e["id"] for e in self.entries[pool.name]}
        except APIError:
            if pool.static_models is None and pool.name not in self.entries:
                raise
        entries = self.entries.get(pool.name, [])
        if pool.static_models is None:
            return entries
        entries = [e for e in entries if e["id"] in pool.static_models]
        named = {e["id"] for e in entries}
        return entries + [
            {"id": m, "object": "model", "created": 0, "owned_by": pool.name}
            for m in sorted(pool.static_models - named)
        ]

    async def list_models(self) -> list[dict[str, Any]]:
        """Every pool's models, each once (the first pool that serves one names it)."""
        found = await asyncio.gather(*(self._pool_models(p) for p in self.http.pools), return_exceptions=True)
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        failure: BaseException | None = None
        for entries in found:
            if isinstance(entries, BaseException):
                failure = entries
                continue
            for entry in entries:
                if entry["id"] not in seen:
                    seen.add(entry["id"])
                    out.append(entry)
        if not out and failure is not None:
            raise failure
        return out

    async def ping(self) -> bool:
        try:
            return bool(await self.list_models())
        except APIError:
            return False

    async def close(self) -> None:
        await self.http.close()
