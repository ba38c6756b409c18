"""The events of a detached run, handed to whoever listens.

A stored run is detached from its client (`ResponsesService._detach`): it must reach its terminal
state whatever the client does. The run pushes its events into a `Feed`; each client reads them
through a `Listener`. The listener also says whether more events are already waiting
(`more_ready`): a door writes everything that is ready in one write instead of one per event. Under
load one backend read brings many tokens at once, and a write (a system call) per token was the
largest per-token cost of the HTTP door (#19); no event waits for a later one, since only what has
already arrived is joined.
"""

from __future__ import annotations

import asyncio

from gateway.engine.events import Event


class Feed:
    """Every listener gets every event; a background run's feed (`keep`) also keeps them, so a
    client resuming later from a sequence number gets what it missed."""

    def __init__(self, keep: bool) -> None:
        self.log: list[Event] | None = [] if keep else None
        self.queues: list[asyncio.Queue[Event | None]] = []
        self.ended = False

    def push(self, event: Event | None) -> None:
        """An event, or None once the run has ended."""
        if event is None:
            self.ended = True
        elif self.log is not None:
            self.log.append(event)
        for queue in self.queues:
            queue.put_nowait(event)

    def listen(self, after: int = -1) -> Listener:
        """Events with a sequence number above `after`: the kept ones at once, then live ones.

        Subscribes now, not at the first iteration, so no event pushed in between is lost.
        """
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        for event in self.log or ():
            if event["sequence_number"] > after:
                queue.put_nowait(event)
        if self.ended:
            queue.put_nowait(None)
        else:
            self.queues.append(queue)
        return Listener(self, queue)


class Listener:
    """One client's events, in order (an async iterator; a class, not a generator, as it is on the
    path of every streamed token)."""

    __slots__ = ("_ended", "_feed", "_queue")

    def __init__(self, feed: Feed, queue: asyncio.Queue[Event | None]) -> None:
        self._feed = feed
        self._queue = queue
        self._ended = False

    def __aiter__(self) -> Listener:
        return self

    async def __anext__(self) -> Event:
        if self._ended:
            raise StopAsyncIteration
        event = await self._queue.get()
        if event is None:
            await self.aclose()
            raise StopAsyncIteration
        return event

    def more_ready(self) -> bool:
        """Whether the next event (or the end) is already here: the caller can go on without waiting."""
        return not self._queue.empty()

    async def aclose(self) -> None:
        """Stop listening (the client went away); the run goes on for the feed's other listeners."""
        self._ended = True
        if self._queue in self._feed.queues:
            self._feed.queues.remove(self._queue)
