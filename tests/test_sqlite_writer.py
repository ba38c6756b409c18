"""Group commit in the SQLite writer: concurrent writes share transactions, a failing one fails alone."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from storage.sqlite_conn import DatabaseError, WriterConnection


async def test_batched_writes_are_isolated(tmp_path: Path) -> None:
    writer = WriterConnection(tmp_path / "w.db", "test-writer")
    await writer.open()
    await writer.transact(lambda c: c.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)"))

    def insert(c: Any, x: int) -> int:
        c.execute("INSERT INTO t (x) VALUES (?)", (x,))
        return x

    def broken(c: Any) -> None:
        c.execute("INSERT INTO t (x) VALUES (1000)")
        c.execute("INSERT INTO missing_table VALUES (1)")

    results = await asyncio.gather(
        *(writer.transact(insert, i) for i in range(100)), writer.transact(broken), return_exceptions=True
    )
    assert results[:100] == list(range(100))
    assert isinstance(results[100], DatabaseError)
    rows = await writer.transact(lambda c: c.execute("SELECT COUNT(*), MAX(x) FROM t").fetchone())
    assert tuple(rows) == (100, 99)  # the broken write's first insert was rolled back with it
    with pytest.raises(DatabaseError):
        await writer.transact(insert, 5)  # duplicate key: an error for this caller only
    assert await writer.transact(insert, 200) == 200
    await writer.close()
