"""Background streams across processes: the producer appends its events to the store in small
batches; a client resuming the stream on another process (an HTTP worker, the ExtProc, another
replica) follows those batches live instead of waiting for the end.

Why batches on a timer: one write per event would put the database on the token path; one every
`FLUSH_SECONDS` keeps a follower at most that far behind, and a run producing nothing writes
nothing. On PostgreSQL each batch also notifies the followers (`wait_for_change("response")`), so
they poll nothing; on SQLite they look every `poll` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from gateway.engine.events import Event
from storage.base import StateStore

log = logging.getLogger(__name__)

FLUSH_SECONDS = 0.1
TERMINAL = ("completed", "failed", "incomplete", "cancelled")


class EventRelay:
    """The producing side: `push` each event; batches reach the store every `FLUSH_SECONDS`."""

    def __init__(self, store: StateStore, response_id: str) -> None:
        self.store = store
        self.response_id = response_id
        self._pending: list[Event] = []
        self._task: asyncio.Task[None] | None = None
        self._writing = asyncio.Lock()  # batches reach the store in order (a follower reads them so)

    def push(self, event: Event) -> None:
        self._pending.append(event)
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._flush_soon(), name=f"relay-{self.response_id}")

    async def _flush_soon(self) -> None:
        try:
            await asyncio.sleep(FLUSH_SECONDS)
        finally:
            self._task = None
        await self._flush()

    async def _flush(self) -> None:
        async with self._writing:
            batch, self._pending = self._pending, []
            if not batch:
                return
            try:
                await self.store.append_response_events(self.response_id, batch)
            except Exception:  # followers fall back to the final stream; the run itself goes on
                log.exception("could not relay the events of %s", self.response_id)

    async def close(self) -> None:
        """Stop the timer; the terminal write keeps the whole stream, so nothing else is flushed."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._pending = []


async def follow(
    store: StateStore,
    response_id: str,
    after: int,
    retrieve: Callable[[str], Awaitable[dict[str, Any]]],
    poll: float,
    terminal_event: Callable[[dict[str, Any], int], list[Event]],
) -> AsyncGenerator[Event, None]:
    """Events of a background response produced elsewhere, after `after`, live until it ends.

    Once the response is terminal its whole stream is read from `get_response_events` (or, for a
    response whose producer died, `terminal_event` makes its one terminal event).
    """
    while True:
        found = await retrieve(response_id)
        if found.get("status") in TERMINAL:
            events = await store.get_response_events(response_id)
            if events is None:
                events = terminal_event(found, after)
            for event in events:
                if event["sequence_number"] > after:
                    yield event
            return
        for event in await store.response_events_after(response_id, after):
            yield event
            after = event["sequence_number"]
        await store.wait_for_change("response", response_id, poll)
