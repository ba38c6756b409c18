"""Wait on a condition with a deadline, never on the wall clock alone.

A fixed sleep before an assertion is a guess about how fast another process is; on a loaded 2-core
machine the guess is sometimes wrong and the test flakes. These poll instead: they return as soon as
the condition holds and fail with the last value seen when the deadline passes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


def until(probe: Callable[[], T], done: Callable[[T], bool] = bool, *, timeout: float = 10.0, what: str = "") -> T:
    """Call `probe` until `done(value)`; return that value."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what or 'condition'} not met within {timeout} s; last value: {value!r}")
        time.sleep(0.05)


async def until_async(
    probe: Callable[[], Awaitable[T]], done: Callable[[T], bool] = bool, *, within: float = 10.0, what: str = ""
) -> T:
    """`until` for a coroutine probe, without blocking the event loop."""
    deadline = time.monotonic() + within
    while True:
        value = await probe()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what or 'condition'} not met within {within} s; last value: {value!r}")
        await asyncio.sleep(0.05)
