"""A SQLite connection pinned to its own thread.

sqlite3 calls block, so they must stay off the event loop. Rather than one thread hop per statement
(aiosqlite's model), a whole transaction is a plain function run on the connection's thread: one hop
per logical operation, and the transaction is never held open across an `await`.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from storage.scope import Scope

try:  # A SQLite build that can load extensions (sqlite-vec); the stdlib one often cannot.
    import pysqlite3.dbapi2 as sqlite3  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the platform's wheels
    import sqlite3  # type: ignore[no-redef]

T = TypeVar("T")

WAL_SIZE_LIMIT = 16 * 1024 * 1024  # bytes the -wal file is cut back to after a restart
RESTART_FRAMES = 4096  # a WAL longer than this (16 MiB of 4 KiB pages) is restarted, not only copied
RESTART_WAIT_MS = 100  # how long a RESTART may wait for readers (holding every writer back meanwhile)
RESTART_BACKOFF_S = 5.0  # after a RESTART found a reader in the way, the next attempt waits this long
BUSY_TIMEOUT_MS = 10_000

# Statements and their parameter rows, for writes that only insert or upsert (no reads, no logic).
Rows = list[tuple[str, list[tuple[Any, ...]]]]

DatabaseError = sqlite3.DatabaseError
IntegrityError = sqlite3.IntegrityError


# Called with "transaction" when a write transaction fails on a lock past the busy timeout, and with
# "checkpoint" when a WAL restart backs off for a reader; the gateway points it at its metrics.
def _no_busy_hook(kind: str) -> None:
    return None


on_busy: Callable[[str], None] = _no_busy_hook


def connect(path: Path | str, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Any:
    """Open a connection in autocommit mode (transactions are explicit) with WAL pragmas."""
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000)
    conn.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
    conn.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode cannot corrupt the database on a crash; it can only lose the last commits on
    # power loss, which is the trade every WAL deployment makes for fast commits.
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=OFF")
    # No checkpoint inside a commit: an automatic one made every ~80th request ~20 ms slower.
    # `Checkpointer` does it off the request path instead.
    conn.execute("PRAGMA wal_autocheckpoint=0")
    # When the WAL restarts from its beginning, the file is cut back to this size.
    conn.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
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


class WriterConnection(ThreadConnection):
    """The write connection, with group commit.

    Writes that arrive while the thread is busy are committed together in one transaction, each in
    its own savepoint (a failing write rolls back alone). Under load this turns N fsync-ordered
    commits and N thread hops into one; with no load a write commits at once, as before.

    Row writes (`write_rows`: plain inserts and upserts) of one batch go further: their rows are
    merged into one `executemany` per statement. Each sqlite3 call gives up and retakes the GIL,
    which the busy event loop thread holds most of the time, so statements per batch rather than
    per write is what the writer thread costs under load (measured: ~0.1 ms less CPU per stored
    response). If a merged statement fails, the batch's row writes are replayed one by one, each in
    its own savepoint, so only the faulty one fails.
    """

    def __init__(self, path: Path | str, name: str, max_batch: int = 64) -> None:
        super().__init__(path, name)
        self._pending: list[tuple[Callable[..., Any] | None, tuple[Any, ...], asyncio.Future[Any]]] = []
        self._scheduled = False
        self._max_batch = max_batch
        self._restart_queued = False
        self._restart_after = 0.0  # monotonic time before which no RESTART is tried again

    def request_restart(self) -> None:
        """Rewind the WAL between two batches (called by the `Checkpointer`'s thread).

        Run here, on the writer's own thread and connection, the RESTART checkpoint takes the write
        lock at once instead of losing the race for it to this very writer's back-to-back batches.
        """
        with self._lock:
            if self._restart_queued or self._conn is None or time.monotonic() < self._restart_after:
                return
            self._restart_queued = True
        try:
            self._executor.submit(self._restart_wal)
        except RuntimeError:  # closing: nothing left to rewind for
            self._restart_queued = False

    def _restart_wal(self) -> None:
        self._restart_queued = False
        conn = self._conn
        if conn is None:
            return
        conn.execute(f"PRAGMA busy_timeout={RESTART_WAIT_MS}")
        try:
            busy = conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()[0]
        except DatabaseError:
            busy = 1
        finally:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        if busy:  # a reader is in the way; holding writers back for it again soon would only repeat that
            on_busy("checkpoint")
            self._restart_after = time.monotonic() + RESTART_BACKOFF_S

    async def transact(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(conn, *args)` inside a (possibly shared) write transaction."""
        return await self._submit(fn, args)  # type: ignore[no-any-return]

    async def write_rows(self, rows: Rows) -> None:
        """Execute `rows` (statement, parameter rows) in order, in a (possibly shared) transaction."""
        await self._submit(None, (rows,))

    def _submit(self, fn: Callable[..., Any] | None, args: tuple[Any, ...]) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        with self._lock:
            self._pending.append((fn, args, future))
            schedule = not self._scheduled
            self._scheduled = True
        if schedule:
            self._executor.submit(self._drain, loop)
        return future

    def _drain(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            batch, self._pending = self._pending[: self._max_batch], self._pending[self._max_batch :]
            if self._pending:
                self._executor.submit(self._drain, loop)
            else:
                self._scheduled = False
        outcomes: list[tuple[bool, Any]] = [(True, None)] * len(batch)
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                merged: list[int] = []  # row writes waiting to be executed together
                for i, (fn, args, _future) in enumerate(batch):
                    if fn is None:
                        merged.append(i)
                        continue
                    self._flush_rows(conn, batch, merged, outcomes)  # keep the batch's order
                    outcomes[i] = _in_savepoint(conn, fn, args)
                self._flush_rows(conn, batch, merged, outcomes)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except Exception as exc:  # BEGIN or COMMIT failed (busy past the timeout, disk full): all fail
            if "locked" in str(exc) or "busy" in str(exc):
                on_busy("transaction")
            outcomes = [(False, exc)] * len(batch)
        # One wake-up of the event loop for the whole batch, not one per write.
        loop.call_soon_threadsafe(
            _settle, [(future, ok, value) for (_f, _a, future), (ok, value) in zip(batch, outcomes, strict=True)]
        )

    @staticmethod
    def _flush_rows(conn: Any, batch: list[Any], merged: list[int], outcomes: list[tuple[bool, Any]]) -> None:
        """Execute the row writes `merged` as one executemany per statement; on failure, one by one."""
        if not merged:
            return
        statements: dict[str, list[tuple[Any, ...]]] = {}
        for i in merged:
            for sql, params in batch[i][1][0]:
                statements.setdefault(sql, []).extend(params)
        ok, _error = _in_savepoint(conn, execute_rows, (list(statements.items()),))
        if not ok:
            for i in merged:
                outcomes[i] = _in_savepoint(conn, execute_rows, batch[i][1])
        merged.clear()


def execute_rows(conn: Any, rows: Rows) -> None:
    for sql, params in rows:
        if params:
            conn.executemany(sql, params)


def _in_savepoint(conn: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[bool, Any]:
    """Run `fn(conn, *args)` so that a failure rolls back only what it did."""
    conn.execute("SAVEPOINT write")
    try:
        result = fn(conn, *args)
    except Exception as exc:
        conn.execute("ROLLBACK TO write")
        conn.execute("RELEASE write")
        return False, exc
    conn.execute("RELEASE write")
    return True, result


def _settle(results: list[tuple[asyncio.Future[Any], bool, Any]]) -> None:
    for future, ok, value in results:
        if future.done():
            continue
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)


class Checkpointer:
    """WAL checkpoints on their own connection and thread, off every request's path.

    A PASSIVE checkpoint copies the WAL into the database without stopping writers, but under a
    steady stream of writes it never catches up with the WAL's end, and SQLite only rewinds a WAL
    that is fully copied: measured, the -wal file grew by ~8 MB a second without bound at 1,000
    stored responses a second. So once the WAL is longer than `restart_frames`, the process's
    writer is asked for a RESTART checkpoint (`WriterConnection.request_restart`), which copies the
    short tail the PASSIVE ones left while writers wait, and the next write starts the WAL again
    from the top (its file cut back to `WAL_SIZE_LIMIT`).
    """

    def __init__(
        self,
        path: Path | str,
        restart: Callable[[], None],
        interval: float = 0.5,
        restart_frames: int = RESTART_FRAMES,
    ) -> None:
        self._path = path
        self._restart = restart
        self._interval = interval
        self._restart_frames = restart_frames
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="sqlite-checkpoint", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _loop(self) -> None:
        conn = connect(self._path)
        try:
            while not self._stop.wait(self._interval):
                try:
                    _busy, frames, _copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                except DatabaseError:
                    continue  # busy with another checkpointer: try again next round
                if frames > self._restart_frames:
                    self._restart()
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            conn.close()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()


def visible(c: Any, table: str, key: str, scope: Scope) -> bool:
    """Whether row `key` of `table` exists for the caller's project (`scope` from `storage.scope.filter_sql`)."""
    where, params = scope
    return c.execute(f"SELECT 1 FROM {table} WHERE id = ?{where}", (key, *params)).fetchone() is not None
