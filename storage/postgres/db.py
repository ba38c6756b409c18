"""The PostgreSQL connection pool, migrations and notifications that every PostgreSQL store shares.

asyncpg (not psycopg 3): a native asyncio driver with its own pool, the binary protocol and prepared
statements cached per connection (fewer round trips and less CPU per query on the request path), and
`add_listener` for LISTEN/NOTIFY on a connection of its own. One `Database` per process; the stores
of every family take it, as the SQLite stores share the process's writer and reader.

Notifications replace polling where another replica must learn of something at once: a cancel asked
of a run it owns, a response reaching a terminal status that a client on this replica follows. A
waiter still wakes up after its timeout, so a notification lost with a dropped listener connection
costs latency, never correctness.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from typing import Any

import asyncpg

from storage.schema import migrations, statements
from storage.scope import current_project

log = logging.getLogger("storage.postgres")

# The channels the stores NOTIFY on; the payload is the row's id.
CANCEL_CHANNEL = "gateway_cancel"
RESPONSE_CHANNEL = "gateway_response"
CHANNELS = (CANCEL_CHANNEL, RESPONSE_CHANNEL)
_MIGRATION_LOCK = 0x67_61_74_65  # pg_advisory_xact_lock key: one migrating process at a time

# The gateway's statements are few and prepared once per connection (asyncpg caches them); a generic
# plan is planned once, where `auto` kept re-planning the response write's CTEs on every execution.
SERVER_SETTINGS = {"plan_cache_mode": "force_generic_plan"}

Key = tuple[str, str | None]
PENDING_SECONDS = 2.0  # a notification nobody waited for is kept this long for the next waiter


async def migrate(conn: Any) -> list[int]:
    """Apply the versions not yet applied, in one transaction, under an advisory lock.

    Two replicas starting at once: the second waits for the lock, then finds nothing to do.
    """
    applied: list[int] = []
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations "
            "(version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)"
        )
        done = {r[0] for r in await conn.fetch("SELECT version FROM schema_migrations")}
        for number, sql in migrations("postgres"):
            if number in done:
                continue
            for statement in statements(sql):
                await conn.execute(statement)
            await conn.execute("INSERT INTO schema_migrations VALUES ($1, $2)", number, time.time())
            applied.append(number)
    return applied


async def _no_reset(_conn: Any) -> None:
    """Skip asyncpg's reset on release (`SELECT pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *;
    RESET ALL`): one more statement per pooled call, a third of the server's work per response write.
    Safe here because the stores leave no session state behind: no SET, no LISTEN, no cursors, no
    session advisory locks (migrations and DDL take transaction-scoped ones)."""


class Database:
    """A pool of connections plus one listening connection."""

    def __init__(self, url: str, *, pool_size: int = 10) -> None:
        self.url = url
        self.pool_size = pool_size
        self._pool: asyncpg.Pool | None = None
        self._listener: asyncpg.Connection | None = None
        self._waiters: dict[Key, set[asyncio.Future[None]]] = {}
        # Notifications that arrived while nobody waited on their key (a waiter checks the table,
        # then waits: one landing in between must not be lost): key -> arrival, oldest first.
        self._pending: collections.OrderedDict[Key, float] = collections.OrderedDict()
        self._reconnect: asyncio.Task[None] | None = None
        self._closing = False
        self._opened = 0

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("the PostgreSQL database is not open")
        return self._pool

    async def open(self) -> None:
        """Idempotent: each store opens the shared database; the first call connects."""
        self._opened += 1
        if self._pool is not None:
            return
        self._pool = await asyncpg.create_pool(
            self.url, min_size=1, max_size=self.pool_size, server_settings=SERVER_SETTINGS, reset=_no_reset
        )
        async with self._pool.acquire() as conn:
            await migrate(conn)
        await self._listen()

    async def close(self) -> None:
        self._opened -= 1
        if self._opened > 0 or self._pool is None:
            return
        self._closing = True
        if self._reconnect is not None:
            self._reconnect.cancel()
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self._listener.close()
        pool, self._pool = self._pool, None
        await pool.close()

    # -- notifications -----------------------------------------------------------------------------
    async def _listen(self) -> None:
        conn = await asyncpg.connect(self.url)
        for channel in CHANNELS:
            await conn.add_listener(channel, self._notified)
        conn.add_termination_listener(self._lost)
        self._listener = conn

    def _lost(self, _conn: Any) -> None:
        if not self._closing and (self._reconnect is None or self._reconnect.done()):
            self._reconnect = asyncio.get_running_loop().create_task(self._relisten())

    async def _relisten(self) -> None:
        delay = 0.2
        while not self._closing:
            try:
                await self._listen()
                self._wake_all()  # whatever was announced meanwhile: every waiter looks again
                return
            except Exception:  # the server is away; waiters fall back on their timeouts
                log.warning("PostgreSQL listener lost; reconnecting in %.1fs", delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    def _notified(self, _conn: Any, _pid: int, channel: str, payload: str) -> None:
        now = time.monotonic()
        while self._pending and next(iter(self._pending.values())) < now - PENDING_SECONDS:
            self._pending.popitem(last=False)
        for key in ((channel, payload), (channel, None)):
            woken = False
            for fut in self._waiters.pop(key, ()):
                if not fut.done():
                    fut.set_result(None)
                    woken = True
            if not woken:
                self._pending.pop(key, None)
                self._pending[key] = now

    def _wake_all(self) -> None:
        waiters, self._waiters = self._waiters, {}
        for futs in waiters.values():
            for fut in futs:
                if not fut.done():
                    fut.set_result(None)

    async def wait(self, channel: str, key: str | None, seconds: float) -> bool:
        """Wait for a NOTIFY on `channel` (about `key`, or any when None); False after `seconds`.

        A notification that came in shortly before, with nobody waiting, returns at once (once).
        """
        arrived = self._pending.pop((channel, key), None)
        if arrived is not None and arrived >= time.monotonic() - PENDING_SECONDS:
            return True
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault((channel, key), set()).add(fut)
        try:
            await asyncio.wait_for(fut, seconds)
            return True
        except TimeoutError:
            return False
        finally:
            futs = self._waiters.get((channel, key))
            if futs is not None:
                futs.discard(fut)
                if not futs:
                    self._waiters.pop((channel, key), None)


async def hidden(db: Database, table: str, key: str) -> bool:
    """Whether row `key` of `table` is missing for the caller's project (`storage.scope`); no
    project set (system work) sees every row, at no cost."""
    project = current_project()
    if project is None:
        return False
    return await db.pool.fetchval(f"SELECT 1 FROM {table} WHERE id = $1 AND project = $2", key, project) is None
