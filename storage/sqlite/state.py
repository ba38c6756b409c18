"""The SQLite state store (WAL; safe for several processes on one file).

Two connections per process: a writer whose transactions are short and IMMEDIATE, and a reader, so
reads never queue behind writes (WAL lets readers proceed while a writer commits). This module
opens, migrates and closes them; `SQLiteStore`'s methods come from one module per part of
`StateStore`, each running on these connections: `responses.py` (writes, reads, event streams,
cancels, history), `affinity.py` (stored replicas), `leases.py` (in-progress responses' leases) and
`conversations.py`, with the item rows they share in `items.py`. The parts are base classes of the one
`SQLiteStore`, not stores of their own: callers hold one `StateStore`, and every part runs on the
same two connections.
"""

from __future__ import annotations

import asyncio
import fcntl
import time
from pathlib import Path
from typing import IO, Any

from storage.schema import migrations, statements
from storage.sqlite.affinity import SQLiteAffinity
from storage.sqlite.conn import Checkpointer, ThreadConnection, WriterConnection, transaction
from storage.sqlite.conversations import SQLiteConversations
from storage.sqlite.leases import SQLiteLeases
from storage.sqlite.responses import SQLiteResponses


def _migrate(conn: Any) -> None:
    """Apply every version not applied yet, in order, by set (as on PostgreSQL), not "above the
    highest": versions developed in parallel may land out of order, and a database that already has
    a later one must still get an earlier one. `user_version` (the older record) seeds the set."""

    def apply(c: Any) -> None:
        c.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
        )
        done = {r[0] for r in c.execute("SELECT version FROM schema_migrations")}
        every = migrations("sqlite")
        if not done:
            legacy = c.execute("PRAGMA user_version").fetchone()[0]
            done = {number for number, _sql in every if number <= legacy}
            c.executemany("INSERT INTO schema_migrations VALUES (?, ?)", [(n, time.time()) for n in sorted(done)])
        for number, sql in every:
            if number not in done:
                for statement in statements(sql):
                    c.execute(statement)
                c.execute("INSERT INTO schema_migrations VALUES (?, ?)", (number, time.time()))
        c.execute(f"PRAGMA user_version={max((n for n, _sql in every), default=0)}")

    transaction(conn, apply)


def _exclusive(path: Path) -> IO[bytes]:
    """An open file holding an exclusive advisory lock (blocks until it is free)."""
    handle = open(path, "ab")
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
    return handle


class SQLiteStore(SQLiteResponses, SQLiteAffinity, SQLiteLeases, SQLiteConversations):
    """`StateStore` on one SQLite file shared by every gateway process."""

    def __init__(self, path: Path | str, *, lease_seconds: float = 10.0) -> None:
        self.path = Path(path)
        self.lease_seconds = lease_seconds
        self._writer = WriterConnection(self.path, "sqlite-writer")
        self._reader = ThreadConnection(self.path, "sqlite-reader")
        self._checkpointer = Checkpointer(self.path, restart=self._writer.request_restart)

    @property
    def writer(self) -> WriterConnection:
        """The process's one write connection (group commit); other SQLite-backed stores share it."""
        return self._writer

    @property
    def reader(self) -> ThreadConnection:
        return self._reader

    async def open(self) -> None:
        """Connect and migrate. Processes starting together on a fresh file (both doors of `up`)
        take turns under an exclusive file lock: switching a new database to WAL fails with
        `database is locked` while another connection migrates it, whatever the busy timeout."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = await asyncio.to_thread(_exclusive, self.path.with_name(self.path.name + ".open-lock"))
        try:
            await self._writer.open()
            await self._writer.run(_migrate)
            await self._reader.open()
        finally:
            lock.close()  # closing the file releases the lock
        self._checkpointer.start()

    async def close(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self._checkpointer.stop)
        await self._reader.close()
        await self._writer.close()

    async def ping(self) -> bool:
        return bool(await self._reader.run(lambda c: c.execute("SELECT 1").fetchone()[0]))
