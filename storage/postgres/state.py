"""`StateStore` on PostgreSQL: responses, items, background event streams, cancels, conversations.

Raw SQL, the SQLite store's schema and semantics statement for statement (ids, ordering, pagination
identical). This module opens and closes the `Database`; `PostgresStore`'s methods come from one
module per part of `StateStore`, as on SQLite: `responses.py` (writes, reads, event streams,
cancels, history), `affinity.py` (stored replicas), `leases.py` (in-progress responses' leases) and
`conversations.py`, with the item rows and checks they share in `items.py`. The parts are base
classes of the one `PostgresStore`, not stores of their own: callers hold one `StateStore`, and
every part runs on the same `Database`.
"""

from __future__ import annotations

from storage.postgres.affinity import PostgresAffinity
from storage.postgres.conversations import PostgresConversations
from storage.postgres.db import Database
from storage.postgres.leases import PostgresLeases
from storage.postgres.responses import PostgresResponses


class PostgresStore(PostgresResponses, PostgresAffinity, PostgresLeases, PostgresConversations):
    """`StateStore` on a PostgreSQL database shared by every replica."""

    def __init__(self, db: Database | str, *, pool_size: int = 10, lease_seconds: float = 10.0) -> None:
        self.db = db if isinstance(db, Database) else Database(db, pool_size=pool_size)
        self.lease_seconds = lease_seconds

    async def open(self) -> None:
        await self.db.open()

    async def close(self) -> None:
        await self.db.close()

    async def ping(self) -> bool:
        return bool(await self.db.pool.fetchval("SELECT 1"))
