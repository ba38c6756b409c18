"""A key revoked while the backend is silent ends an Envoy-door exchange (#26's leftover).

Why: the processor answers Envoy's messages one by one, so it acts only when one arrives; a stream
whose backend went silent (a long prefill, a stuck replica) used to re-check its key only when the
next chunk came, and a revoked key kept the exchange open all that while. One watcher task per
running response (started once, asleep between periods, so a streamed chunk costs nothing more)
looks every `GATEWAY_AUTH_CACHE_SECONDS`: when Envoy has sent nothing for a period and the
processor is waiting for its next message, it re-checks the key; revoked, it records the reason
(`revoked`) and cancels the exchange's task, whose wait for Envoy's read ends, so it can end the run
and answer with an immediate response (which Envoy takes at any point of the exchange). It cancels
only a task that is waiting on Envoy (`reading`): never one in the middle of handling a message.
A message may arrive while the check is under way (and that check already counted as the key's
last, so the processor's own re-check at the message sees nothing due): the reason stays recorded
all the same, the processor acts on it at its next message, and the watcher cancels the wait as
soon as the exchange is back to `reading` (so the revocation is never dropped for a period).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Protocol

from gateway.common.errors import APIError

log = logging.getLogger(__name__)


class Watched(Protocol):
    reading: bool  # the exchange's task waits for Envoy's next message (and does nothing else)
    last_seen: float  # monotonic time of Envoy's last message
    revoked: APIError | None  # set here: why the exchange's task was cancelled

    def running(self) -> bool: ...

    async def key_revoked(self) -> APIError | None: ...


async def watch_silence(ex: Watched, period: float, handler: asyncio.Task[object]) -> None:
    """Until the response ends: after each silent period, re-check the key; revoked, record it and
    cancel `handler` once it waits on Envoy (at once, or on a later period)."""
    while True:
        await asyncio.sleep(period)
        if not ex.running():
            return
        if ex.revoked is None:
            if not ex.reading or time.monotonic() - ex.last_seen < period:
                continue  # chunks are flowing: the processor re-checks as they arrive
            try:
                revoked = await ex.key_revoked()
            except Exception:  # the key store unreachable: the next period tries again
                log.exception("could not re-check the key of a silent stream")
                continue
            if revoked is None:
                continue
            ex.revoked = revoked  # kept even if a message came meanwhile: the processor acts on it there
        if ex.reading and ex.running():
            log.info("the key of a stream whose backend is silent no longer authenticates: ending it")
            handler.cancel()
            return
