"""Research slots for the whole deployment: at most N standard and M deep runs at once, FIFO.

A run enters the database's queue, then tries to start whenever it may have moved up: on each
poll (SQLite) or a short wait (PostgreSQL has no notification for it; a slot frees at most every
run, so a 0.25 s poll costs nothing). While waiting it reports its place; a run's process renews
the lease of its rows, so a crashed process frees its slots within the lease time; a cancelled run
(client gone) leaves the queue at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from gateway.common.ids import new_id
from gateway.engine.owner import OWNER

if TYPE_CHECKING:  # the bundle's family types exist for the type checker only
    from storage.bundle import ResearchQueues

POLL_SECONDS = 0.25


class Slots:
    def __init__(self, queue: ResearchQueues, limits: dict[str, int], lease: float) -> None:
        self.queue = queue
        self.limits = limits
        self.lease = lease
        self._renewer: asyncio.Task[None] | None = None
        self._held: set[str] = set()  # this process's runs in the queue (waiting or running)

    @staticmethod
    def new_run_id() -> str:
        return new_id("rsq")

    async def wait_turn(self, run_id: str, kind: str) -> AsyncIterator[int]:
        """Yields the run's place in line whenever it changes (1: next), then returns holding a slot.
        The caller must `release(run_id)` afterwards, whatever happens (a `finally`)."""
        await self.queue.enter(run_id, kind, OWNER, self.lease)
        self._held.add(run_id)
        self._start_renewing()
        last = -1
        while True:
            place = await self.queue.try_start(run_id, kind, self.limits[kind])
            if place == 0:
                return
            if place != last:
                last = place
                yield place
            await asyncio.sleep(POLL_SECONDS)

    async def release(self, run_id: str) -> None:
        if run_id not in self._held:
            return  # never entered (the enter itself failed)
        self._held.discard(run_id)
        with contextlib.suppress(Exception):
            await asyncio.shield(self.queue.leave(run_id))
        if not self._held and self._renewer is not None:
            self._renewer.cancel()
            self._renewer = None

    def _start_renewing(self) -> None:
        if self._renewer is None:
            self._renewer = asyncio.get_running_loop().create_task(self._renew(), name="research-slots")

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self.lease / 3)
            with contextlib.suppress(Exception):
                await self.queue.renew(OWNER, self.lease)
