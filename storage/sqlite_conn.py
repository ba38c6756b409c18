"""A SQLite connection pinned to its own thread.

sqlite3 calls block, so they must stay off the event loop. Rather than one thread hop per statement
(aiosqlite's model), a whole transaction is a plain function run on the connection's thread: one hop
per logical operation, and the transaction is never held open across an `await`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

try:  # A SQLite build that can load extensions (sqlite-vec); the stdlib one often cannot.
    import pysqlite3.dbapi2 as sqlite3  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the platform's wheels
    import sqlite3  # type: ignore[no-redef]

T = TypeVar("T")

DatabaseError = sqlite3.DatabaseError
IntegrityError = sqlite3.IntegrityError


def connect(path: Path | str, *, busy_timeout_ms: int = 10_000) -> Any:
    """Open a connection in autocommit mode (transactions are explicit) with WAL pragmas."""
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000)
    conn.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
    conn.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode cannot corrupt the database on a crash; it can only lose the last commits on
    # power loss, which is the trade every WAL deployment makes for fast commits.
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=OFF")
    return conn


class ThreadConnection:
    """One sqlite3 connection used only from one dedicated thread."""

    def __init__(self, path: Path | str, name: str) -> None:
        self._path = path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._conn: Any = None
        self._lock = threading.Lock()

    async def open(self) -> None:
        self._conn = await self.call(connect, self._path)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, *args)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(conn, *args)` on the connection's thread."""
        return await self.call(fn, self._conn, *args)

    async def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await self.call(conn.close)
        self._executor.shutdown(wait=True)


def transaction(conn: Any, fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(conn, *args)` inside BEGIN IMMEDIATE … COMMIT (rolled back on any error).

    IMMEDIATE takes the write lock up front, so two processes never deadlock upgrading read locks;
    the busy timeout makes the second writer wait instead of failing.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = fn(conn, *args)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return result
