"""The lease keeper: every live process renews its own runs' leases and ends expired ones.

Why every process sweeps, and not only at start-up: the survivor of a crash is often a sibling
(the other door, another worker, another replica) that never restarts, and a run whose owner died
must still end within the lease time, as `failed` with the reason stored, so no client waits on an
`in_progress` response forever and a resumed stream gets its terminal event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from storage.base import StateStore

log = logging.getLogger(__name__)


class LeaseKeeper:
    def __init__(
        self,
        store: StateStore,
        owner: str,
        lease_seconds: float,
        on_sweep: Callable[[], Awaitable[Any]] | None = None,
    ) -> None:
        self.store = store
        self.owner = owner
        self.on_sweep = on_sweep  # more upkeep on the sweep's beat (claiming handed-back runs)
        # Renew three times per lease (two missed heartbeats are survivable); sweep often enough that
        # an expired run ends within about 1.5 leases.
        self.renew_every = lease_seconds / 3
        self.sweep_every = min(lease_seconds / 2, 5.0)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._keep(), name="lease-keeper")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def sweep(self) -> list[str]:
        expired = await self.store.expire_leases()
        if expired:
            log.warning("ended %d response(s) whose producing process stopped: %s", len(expired), ", ".join(expired))
        return expired

    async def _keep(self) -> None:
        loop = asyncio.get_running_loop()
        next_renew = next_sweep = loop.time()
        while True:
            now = loop.time()
            try:
                if now >= next_sweep:
                    next_sweep = now + self.sweep_every
                    await self.sweep()
                    if self.on_sweep is not None:
                        await self.on_sweep()
                if now >= next_renew:
                    next_renew = now + self.renew_every
                    await self.store.renew_leases(self.owner)
            except Exception:  # a busy or briefly failing database must not end the keeper
                log.exception("lease keeping failed; retrying")
            await asyncio.sleep(max(0.0, min(next_renew, next_sweep) - loop.time()))
