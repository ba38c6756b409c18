"""Bursts against the gateway's fixed-minute rate windows, judged only within one minute.

The limiter's windows are wall-clock minutes (`gateway/usage/limiter.py`: `now // 60`), read by the
gateway's processes from the same clock as the tests'. A burst that crosses a minute's turn proves
nothing either way: one that must be refused at its N-th request fails spuriously (the counts start
again), and one that checks a reservation was given back can pass spuriously (a leaked reservation is
forgotten with the old minute). Waiting for a margin before every burst (the old
`_clear_of_minute_turn`) cost up to that margin each time, about a minute of sleep over the suite, and
still failed when a loaded machine made a burst outlast it. Instead the burst runs at once, and an
attempt that crossed a turn is inconclusive: whether it passed or failed (a failure is reported as a
warning, with its exception) it is run again from the start of a minute it did not touch (the one it
ended in holds some of its counts). Only an attempt wholly inside one minute decides, except the last,
which decides whatever happened.

    for attempt in within_one_minute():          # or `async for ... in within_one_minute_async()`
        with attempt:
            ...  # the requests and their assertions (fresh keys or scripts made here are made again)
"""

from __future__ import annotations

import asyncio
import time
import warnings
from collections.abc import AsyncIterator, Iterator
from types import TracebackType

WINDOW = 60.0


def _minute(t: float) -> int:
    return int(t // WINDOW)


def _to_next_minute() -> float:
    """Seconds until just after the next minute's turn: a minute none of the burst's counts are in."""
    return WINDOW - time.time() % WINDOW + 0.2


class Attempt:
    """One run of the burst: inconclusive (swallowed, to be run again) when it crossed a minute's turn."""

    def __init__(self, n: int, last: bool) -> None:
        self.n = n  # which try: a test that counts the backend's requests by marker keeps each try's apart
        self.last = last
        self.again = False  # crossed a turn (and not the last try): run it again
        self.started = 0.0

    def __enter__(self) -> Attempt:
        self.started = time.time()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> bool:
        crossed = _minute(time.time()) != _minute(self.started)
        if not crossed or self.last or (exc is not None and not isinstance(exc, Exception)):
            return False  # decided: a pass passes, a failure propagates (as does Ctrl-C)
        self.again = True
        outcome = "passed" if exc is None else f"failed ({type(exc).__name__}: {exc})"
        warnings.warn(f"try {self.n} crossed a minute's turn and {outcome}: inconclusive, run again", stacklevel=2)
        return True


def within_one_minute(tries: int = 3) -> Iterator[Attempt]:
    """Attempts at a burst until one is decided (see the module's docstring)."""
    for n in range(tries):
        attempt = Attempt(n, last=n == tries - 1)
        yield attempt
        if not attempt.again:
            return
        time.sleep(_to_next_minute())


async def within_one_minute_async(tries: int = 3) -> AsyncIterator[Attempt]:
    """`within_one_minute` for a burst run on an event loop, which the wait for a fresh minute leaves free."""
    for n in range(tries):
        attempt = Attempt(n, last=n == tries - 1)
        yield attempt
        if not attempt.again:
            return
        await asyncio.sleep(_to_next_minute())
