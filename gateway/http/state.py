"""The HTTP door's typed app keys: the process's `Runtime` (`RUNTIME`) and the door's own state
(`DOOR`). Handlers read typed fields through them; there are no string service keys."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from aiohttp import web

from gateway.auth.slots import TenantSlots
from gateway.engine.service import ResponsesService
from gateway.research.service import ResearchService
from gateway.runtime import Runtime


class Drain:
    """Requests in flight, and whether the process is draining (SIGTERM received)."""

    def __init__(self) -> None:
        self.draining = False
        self.active = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def enter(self) -> None:
        self.active += 1
        self._idle.clear()

    def leave(self) -> None:
        self.active -= 1
        if self.active == 0:
            self._idle.set()

    async def wait_idle(self, timeout: float) -> bool:  # noqa: ASYNC109 (the drain deadline)
        """True when every request in flight finished within ``timeout`` seconds."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            return False
        return True


@dataclass(eq=False)
class HttpDoor:
    """What only this door keeps: the drain gate, the tenant slots, the open WebSocket-mode
    connections, and the runtime's capabilities the HTTP server always has (so handlers need no
    None checks): the Responses service and research."""

    responses: ResponsesService
    research: ResearchService
    tenant_slots: TenantSlots  # fairness between tenants (#26)
    websocket_slots: TenantSlots
    drain: Drain = field(default_factory=Drain)
    websockets: set[web.WebSocketResponse] = field(default_factory=set)  # capped; closed at shutdown
    worker: int = 0  # the index of this worker process (the `x-gateway-worker` header)


RUNTIME = web.AppKey("runtime", Runtime)
DOOR = web.AppKey("door", HttpDoor)


def runtime(request: web.Request) -> Runtime:
    return request.app[RUNTIME]


def door(request: web.Request) -> HttpDoor:
    return request.app[DOOR]
