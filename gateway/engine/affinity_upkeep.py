"""Pruning stored cache-key affinity by age (#27's leftover), on the lease sweep's beat.

Why here and not on a request: the fleet stores, per (project, `prompt_cache_key`), the replica
the key's last turn went to (`storage/{sqlite,postgres}/replicas.py`). A response or a conversation
is deleted by its owner; a cache key is only a client's string, so nothing else ever deletes its
row and the table would grow by one row per key ever sent. Every process already wakes every few
seconds to sweep leases (`gateway.engine.leases`); on that beat, at most every `PRUNE_EVERY`
seconds (or half the horizon, when shorter), this deletes the rows last written more than
`GATEWAY_CACHE_KEY_AFFINITY_SECONDS` ago, in short batches by the age index (migration 0023).
The prune runs in its own task, never two at once, and the beat only starts it: on a deployment
upgraded with a million old keys it is a thousand batches, and the lease renewals of the same beat
must never wait on them (a missed renewal lets other processes end this process's running responses).

A row is written when the key's replica changes, not on every turn (a steady key costs no write),
and again when a turn reads it for routing once it is older than half the horizon (at most one
write per key per half horizon): so a key in steady use keeps its replica, and only a key unused
for the horizon is pruned (its next turn is placed afresh, as a new key's). The default, a day, is OpenAI's
longest prompt-cache retention (`prompt_cache_retention: "24h"`); a replica's prefix cache rarely
holds a prompt that long.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from storage.base import StateStore

log = logging.getLogger(__name__)

PRUNE_EVERY = 3600.0  # seconds between prunes of one process (every process prunes: idempotent)


class AffinityPruner:
    def __init__(self, store: StateStore, horizon_seconds: float) -> None:
        self.store = store
        self.horizon = horizon_seconds
        self.every = min(PRUNE_EVERY, horizon_seconds / 2)
        self._pruned_at = 0.0
        self._task: asyncio.Task[int] | None = None

    async def maybe_prune(self) -> None:
        """Start a prune of the cache-key rows older than the horizon when one is due and none is
        running; returns at once (the prune goes on in its own task, see the module's docstring)."""
        now = time.time()
        if (self._task is not None and not self._task.done()) or now - self._pruned_at < self.every:
            return
        self._pruned_at = now
        self._task = asyncio.get_running_loop().create_task(self._prune(now - self.horizon), name="cache-key-prune")

    async def _prune(self, before: float) -> int:
        """Delete the rows last written before `before`; how many went. A failure is logged and tried
        again on the next due beat: affinity is an optimisation."""
        try:
            pruned = await self.store.prune_cache_keys(before)
        except Exception:
            log.warning("could not prune the stored cache-key affinity", exc_info=True)
            return 0
        if pruned:
            log.info("pruned %d prompt_cache_key affinity row(s) older than %.0f s", pruned, self.horizon)
        return pruned

    async def stop(self) -> None:
        """Shutdown: a prune under way stops between batches (the rows left go on a later beat)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
