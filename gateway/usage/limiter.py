"""Requests and tokens per minute shared by every process and replica, through the database.

Each limit is a counter per scope (`project:<id>` or `key:<id>`), metric and minute window in the
`rate_windows` table. A process does not ask the database for every request: it takes a *lease*
of several units at once (a sixteenth of what is left in the window, with at least what the request
needs) with one conditional update, `used + n <= limit`, that the database applies atomically; the
leased units are then spent locally at the cost of a dict lookup. Far from the limit that is one
round trip per many requests; near it the leases shrink to one unit, so the processes together
never admit more than the limit. Units a process leased but did not spend within
`GIVE_BACK_AFTER` seconds go back to the window (the `sync` task), so an idle process does not
starve busy ones: the deployment admits the limit within one or two requests.

Tokens are leased the same way when a request is admitted (what it reserves: see
`gateway.usage.admission.Reservation`) and charged when the backend reports its usage: what a call
spends beyond its reservation and the process's lease is added to the window by `sync`, so the
next requests see it. What a request reserved and did not spend is `release`d when it ends: back
in this process's lease at once, and the surplus back in the shared window at the next `sync`
(within `SYNC_EVERY`), so other processes may take it. Windows are fixed minutes (`retry-after` is the time to
the next one), as OpenAI's `x-ratelimit-reset-*` headers describe them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import NamedTuple, Protocol

log = logging.getLogger(__name__)

WINDOW = 60
LEASE_SHARE = 16  # a lease takes this fraction of what the window has left
GIVE_BACK_AFTER = 1.0  # seconds a lease may sit unspent before its units go back to the window
SYNC_EVERY = 0.5


class WindowStore(Protocol):
    async def take(self, scope: str, metric: str, window: int, n: int, limit: int) -> int | None: ...

    async def add(self, scope: str, metric: str, window: int, n: int) -> int: ...

    async def used(self, scope: str, metric: str, window: int) -> int: ...


class MemoryWindows:
    """The windows in this process only (no database: a CLI, unit tests, the benchmark's floor)."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str, int], int] = {}

    async def take(self, scope: str, metric: str, window: int, n: int, limit: int) -> int | None:
        used = self.rows.get((scope, metric, window), 0)
        if used + n > limit:
            return None
        self.rows[(scope, metric, window)] = used + n
        return used + n

    async def add(self, scope: str, metric: str, window: int, n: int) -> int:
        self.rows[(scope, metric, window)] = self.rows.get((scope, metric, window), 0) + n
        return self.rows[(scope, metric, window)]

    async def used(self, scope: str, metric: str, window: int) -> int:
        return self.rows.get((scope, metric, window), 0)


@dataclass(slots=True)
class Lease:
    window: int
    balance: int = 0  # units leased by this process and not spent yet
    used: int = 0  # the window's shared total when last seen (every process's leases included)
    touched: float = 0.0
    debt: int = 0  # tokens spent beyond the lease, not yet added to the window
    surplus: int = 0  # units released by ended requests, to give back to the window at the next sync


class Verdict(NamedTuple):  # a tuple: made on every admission, where a frozen dataclass costs microseconds
    ok: bool
    limit: int
    remaining: int
    reset: float  # seconds until the window turns
    window: int = 0  # the window the units were taken from


class SharedLimiter:
    def __init__(self, store: WindowStore | None = None) -> None:
        self.store: WindowStore = store if store is not None else MemoryWindows()
        self.leases: dict[tuple[str, str], Lease] = {}
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None

    def _lease(self, scope: str, metric: str, now: float) -> Lease:
        window = int(now // WINDOW) * WINDOW
        lease = self.leases.get((scope, metric))
        if lease is None or lease.window != window:
            lease = self.leases[(scope, metric)] = Lease(window, touched=now)
        return lease

    def spend(self, scope: str, metric: str, limit: int, need: int = 1) -> Verdict | None:
        """`acquire` from this process's lease alone (no coroutine: the common case, far from the
        limit); None when the lease does not hold `need` units."""
        now = time.time()
        lease = self.leases.get((scope, metric))
        if lease is None or lease.balance < need or now - lease.window >= WINDOW:
            return None
        lease.touched = now
        lease.balance -= need
        left = max(0, limit - lease.used + lease.balance)
        return Verdict(True, limit, left, lease.window + WINDOW - now, lease.window)

    async def acquire(self, scope: str, metric: str, limit: int, need: int = 1) -> Verdict:
        """Spend `need` units of the scope's window, from this process's lease or a new one."""
        now = time.time()
        lease = self._lease(scope, metric, now)
        lease.touched = now
        reset = lease.window + WINDOW - now
        if lease.balance >= need:
            lease.balance -= need
            return Verdict(True, limit, max(0, limit - lease.used + lease.balance), reset, lease.window)
        if self._task is None:
            self._start()
        if lease.debt:  # tokens spent past the lease count before anything more is leased
            debt, lease.debt = lease.debt, 0
            lease.used = await self.store.add(scope, metric, lease.window, debt)
        have, lease.balance = lease.balance, 0  # spent now; other requests may lease meanwhile
        short = need - have
        extra = max(0, (limit - lease.used - short) // LEASE_SHARE)
        got = await self.store.take(scope, metric, lease.window, short + extra, limit)
        if got is None and extra:
            extra = 0
            got = await self.store.take(scope, metric, lease.window, short, limit)
        if got is None:
            lease.balance += have  # not spent after all
            lease.used = max(lease.used, await self.store.used(scope, metric, lease.window))
            return Verdict(False, limit, max(0, limit - lease.used + lease.balance), reset)
        lease.used = max(lease.used, got)
        lease.balance += extra
        return Verdict(True, limit, max(0, limit - lease.used + lease.balance), reset, lease.window)

    def release(self, scope: str, metric: str, n: int, window: int | None = None, *, surplus: bool = False) -> None:
        """Put back units this process took for a request that did not use them (refused by another
        limit; tokens reserved and not spent). Units of a window that has turned are gone with it.
        `surplus`: more than a lease's share may come back (a reservation): `sync` returns it to the
        shared window, so another process may take it."""
        lease = self.leases.get((scope, metric))
        if lease is not None and n > 0 and (window is None or lease.window == window):
            lease.balance += n
            if surplus:
                lease.surplus += n
                if self._task is None:
                    self._start()

    async def give_back(self, scope: str, metric: str, n: int) -> None:
        """Return `n` spent units to the shared window at once (another process will take them)."""
        lease = self._lease(scope, metric, time.time())
        lease.used = await self.store.add(scope, metric, lease.window, -n)

    def charge(self, scope: str, metric: str, n: int) -> None:
        """Spend `n` more units now (tokens a backend reported): from the lease, the rest as debt."""
        lease = self._lease(scope, metric, time.time())
        lease.balance -= n
        if lease.balance < 0:
            lease.debt -= lease.balance
            lease.used -= lease.balance
            lease.balance = 0
        if self._task is None:
            self._start()

    def _start(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._stop = asyncio.Event()
        self._task = loop.create_task(self._run(self._stop), name="limits-sync")

    async def _run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SYNC_EVERY):
                    await stop.wait()
            try:
                await self.sync()
            except Exception:
                log.exception("could not sync the shared limits")

    async def sync(self, *, everything: bool = False) -> None:
        """Add debts to their windows; give back leases left unspent (all of them when stopping)."""
        now = time.time()
        current = int(now // WINDOW) * WINDOW
        for (scope, metric), lease in list(self.leases.items()):
            if lease.debt and lease.window >= current - WINDOW:
                debt, lease.debt = lease.debt, 0
                lease.used = await self.store.add(scope, metric, lease.window, debt)
            if lease.window != current:
                if lease.window < current - WINDOW:
                    del self.leases[(scope, metric)]
                continue
            if lease.surplus:  # what ended requests released: back to the window (if not spent here since)
                back, lease.surplus = min(lease.surplus, lease.balance), 0
                if back:
                    lease.balance -= back
                    lease.used = await self.store.add(scope, metric, lease.window, -back)
            if lease.balance and (everything or now - lease.touched >= GIVE_BACK_AFTER):
                back, lease.balance = lease.balance, 0
                lease.used = await self.store.add(scope, metric, lease.window, -back)

    async def stop(self) -> None:
        if self._task is not None and self._stop is not None:
            self._stop.set()  # no cancellation: a sync in flight completes
            await self._task
            self._task = None
        try:
            await self.sync(everything=True)
        except Exception:
            log.exception("could not give back the leases of the shared limits")
