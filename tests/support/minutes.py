"""Bursts against the gateway's fixed-minute rate windows, judged only within one minute.

The limiter's windows are wall-clock minutes (`gateway/usage/limiter.py`: `now // 60`), read by the
gateway's processes from the same clock as the tests'. A burst that must be refused at its N-th request
fails spuriously when a minute turns between its requests (the counts start again). Waiting for a
margin before every burst (the old `_clear_of_minute_turn`) cost up to that margin each time, about a
minute of sleep over the suite, and still failed when a loaded machine made a burst outlast it.
Instead the burst runs at once; if it fails and the minute turned while it ran, it is run again from
the start of a minute it did not touch (the one it ended in holds some of its counts). A failure
within one minute is a failure; a burst that passed across a turn passed.

    for attempt in within_one_minute():
        with attempt:
            ...  # the requests and their assertions (fresh keys or scripts made here are made again)
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import TracebackType

WINDOW = 60.0


def _minute(t: float) -> int:
    return int(t // WINDOW)


class Attempt:
    """One run of the burst: swallows its failure only when the burst crossed a minute's turn."""

    def __init__(self, n: int, last: bool) -> None:
        self.n = n  # which try: a test that counts the backend's requests by marker keeps each try's apart
        self.last = last
        self.crossed = False
        self.failed = False
        self.started = 0.0

    def __enter__(self) -> Attempt:
        self.started = time.time()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> bool:
        self.crossed = _minute(time.time()) != _minute(self.started)
        self.failed = kind is not None
        # a failure inside one minute (or on the last try) is the test's; one across a turn is retried
        return self.failed and self.crossed and not self.last and issubclass(kind, Exception)  # type: ignore[arg-type]


def within_one_minute(tries: int = 3) -> Iterator[Attempt]:
    """Attempts at a burst until one passes, or fails within one minute (see the module's docstring)."""
    for n in range(tries):
        attempt = Attempt(n, last=n == tries - 1)
        yield attempt
        if not attempt.failed:
            return
        time.sleep(WINDOW - time.time() % WINDOW + 0.2)  # a fresh minute: none of the burst's counts in it
