"""The ExtProc stream's messages, with a tick when Envoy has sent nothing for a while (#26's leftover).

Why: the processor answers Envoy's messages one by one, so it used to act only when one arrived;
a stream whose backend went silent (a long prefill, a stuck replica) re-checked its key only when
the next chunk came, and a revoked key kept the stream open all that time. While a response is
running, `next` waits at most `wait` seconds for Envoy's next message and returns None instead,
so the processor can re-check the key and, revoked, end the stream with an immediate response
(which Envoy accepts at any point of the exchange). The pending read is kept, never cancelled:
cancelling the gRPC iterator's read would lose the message it was about to return.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Generic, TypeVar

T = TypeVar("T")


class TickingMessages(Generic[T]):
    def __init__(self, messages: AsyncIterator[T]) -> None:
        self._it = aiter(messages)
        self._pending: asyncio.Future[T] | None = None

    async def next(self, wait: float | None) -> T | None:
        """Envoy's next message (StopAsyncIteration at the stream's end), or None after `wait`
        seconds without one (`wait` None: as long as it takes, no task made)."""
        if self._pending is None:
            if wait is None:
                return await anext(self._it)
            self._pending = asyncio.ensure_future(anext(self._it))
        done, _ = await asyncio.wait((self._pending,), timeout=wait)
        if not done:
            return None
        read, self._pending = self._pending, None
        return read.result()

    async def close(self) -> None:
        """The exchange ended before Envoy's stream did: stop the pending read."""
        if self._pending is not None:
            self._pending.cancel()
            with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration, Exception):
                await self._pending
            self._pending = None
