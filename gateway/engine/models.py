"""The backend's model list, cached and refreshed in the background.

`GET /v1/models` must keep answering while the backend is down, and a request without `model` needs
a default without a round trip, so the list is fetched off the request path.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from gateway.common.errors import APIError
from gateway.inference.base import Backend

log = logging.getLogger(__name__)


class ModelCatalog:
    def __init__(self, backend: Backend, refresh_seconds: float, default_model: str | None = None) -> None:
        self.backend = backend
        self.refresh_seconds = refresh_seconds
        self.default_model = default_model
        self.models: list[dict[str, Any]] = []
        self._task: asyncio.Task[None] | None = None

    async def refresh(self) -> bool:
        try:
            models = await self.backend.list_models()
        except APIError as exc:
            log.debug("model list refresh failed: %s", exc.message)
            return False
        self.models = models
        return True

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def _loop(self) -> None:
        while True:
            ok = await self.refresh()
            await asyncio.sleep(self.refresh_seconds if ok else min(2.0, self.refresh_seconds))

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def resolve(self, requested: str | None) -> str:
        if requested:
            return requested
        if self.default_model:
            return self.default_model
        if not self.models:
            await self.refresh()
        if self.models:
            return str(self.models[0]["id"])
        return "default"
