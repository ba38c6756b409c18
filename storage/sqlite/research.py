"""The research queue in SQLite (table from migration 0010): slots shared by every process.

`enter` adds a waiting run; `try_start` (one write transaction, so two processes never both take
the last slot) starts it when its kind has a free slot and no older run of its kind waits, else
returns its place in line; `renew` extends the leases of a process's rows; `leave` frees the slot.
Expired rows (a process that died) are deleted by whoever looks next.
"""

from __future__ import annotations

import time
from typing import Any

from storage.scope import owning_project
from storage.sqlite.state import SQLiteStore


class SQLiteResearchQueue:
    def __init__(self, db: SQLiteStore) -> None:
        self._db = db

    async def enter(self, run_id: str, kind: str, owner: str, lease: float) -> None:
        project, now = owning_project(), time.time()
        await self._db.writer.write_rows(
            [
                (
                    "INSERT INTO research_queue (id, kind, project, owner, running, created_at, lease_until) "
                    "VALUES (?, ?, ?, ?, 0, ?, ?)",
                    [(run_id, kind, project, owner, now, now + lease)],
                )
            ]
        )

    async def try_start(self, run_id: str, kind: str, limit: int) -> int:
        """0 when the run holds a slot now; else its place in line (1: next)."""

        def write(c: Any) -> int:
            now = time.time()
            c.execute("DELETE FROM research_queue WHERE lease_until < ?", (now,))
            mine = c.execute("SELECT created_at, running FROM research_queue WHERE id = ?", (run_id,)).fetchone()
            if mine is None:
                raise LookupError(f"research run {run_id} is not queued")
            if mine[1]:
                return 0
            running = c.execute(
                "SELECT COUNT(*) FROM research_queue WHERE kind = ? AND running = 1", (kind,)
            ).fetchone()[0]
            ahead = c.execute(
                "SELECT COUNT(*) FROM research_queue WHERE kind = ? AND running = 0 AND (created_at, id) < (?, ?)",
                (kind, mine[0], run_id),
            ).fetchone()[0]
            if running < limit and ahead == 0:
                c.execute("UPDATE research_queue SET running = 1 WHERE id = ?", (run_id,))
                return 0
            return int(ahead) + 1

        return await self._db.writer.transact(write)

    async def renew(self, owner: str, lease: float) -> None:
        await self._db.writer.write_rows(
            [("UPDATE research_queue SET lease_until = ? WHERE owner = ?", [(time.time() + lease, owner)])]
        )

    async def leave(self, run_id: str) -> None:
        await self._db.writer.write_rows([("DELETE FROM research_queue WHERE id = ?", [(run_id,)])])
