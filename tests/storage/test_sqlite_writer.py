"""Group commit in the SQLite writer: concurrent writes share transactions, a failing one fails alone."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from storage.sqlite.conn import WAL_SIZE_LIMIT, Checkpointer, DatabaseError, WriterConnection, connect


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


async def test_row_writes_merge_and_a_faulty_one_fails_alone(tmp_path: Path) -> None:
    writer = WriterConnection(tmp_path / "w.db", "test-writer")
    await writer.open()
    await writer.transact(lambda c: c.execute("CREATE TABLE t (x INTEGER PRIMARY KEY, tag TEXT)"))
    await writer.transact(lambda c: c.execute("CREATE TABLE u (x INTEGER PRIMARY KEY)"))
    insert_t = "INSERT INTO t (x, tag) VALUES (?, ?)"
    insert_u = "INSERT INTO u (x) VALUES (?)"

    def rows(i: int) -> list[tuple[str, list[tuple[Any, ...]]]]:
        return [(insert_t, [(i, "a"), (1000 + i, "b")]), (insert_u, [(i,)])]

    def after(c: Any) -> int:  # a function write between row writes sees the rows before it
        return int(c.execute("SELECT COUNT(*) FROM t").fetchone()[0])

    # 50 row writes, one of them colliding with another's key, and a function write in the middle.
    writes = [writer.write_rows(rows(i)) for i in range(25)]
    writes.append(writer.transact(after))
    writes += [writer.write_rows(rows(i)) for i in range(25, 50)]
    writes.append(writer.write_rows([(insert_u, [(10_000,)]), (insert_t, [(7, "duplicate of write 7")])]))
    results = await asyncio.gather(*writes, return_exceptions=True)
    assert isinstance(results[-1], DatabaseError)
    assert [r for r in results[:-1] if isinstance(r, BaseException)] == []
    assert results[25] == 50  # every row write submitted before it, whichever batch it fell in
    count_t, count_u = await writer.transact(
        lambda c: c.execute("SELECT (SELECT COUNT(*) FROM t), (SELECT COUNT(*) FROM u)").fetchone()
    )
    assert (count_t, count_u) == (100, 50)  # the faulty write's first row was rolled back with it
    assert await writer.transact(lambda c: c.execute("SELECT tag FROM t WHERE x = 7").fetchone()[0]) == "a"
    await writer.close()


async def test_wal_restarts_under_a_steady_stream_of_writes(tmp_path: Path) -> None:
    """PASSIVE checkpoints alone never let a WAL with writes always in flight rewind; the
    checkpointer restarts it, so the -wal file stops growing."""
    db = tmp_path / "w.db"
    wal = tmp_path / "w.db-wal"
    writer = WriterConnection(db, "test-writer")
    await writer.open()
    await writer.transact(lambda c: c.execute("CREATE TABLE t (x INTEGER PRIMARY KEY, pad BLOB)"))
    checkpointer = Checkpointer(db, restart=writer.request_restart, interval=0.02, restart_frames=200)
    checkpointer.start()
    page = 4096 + 24  # a WAL frame
    target = 2 * WAL_SIZE_LIMIT // page + 1  # rows of ~one page each: twice what the WAL keeps
    written = 0

    async def keep_writing(k: int) -> None:
        nonlocal written
        i = 0
        while written < target:
            await writer.write_rows([("INSERT INTO t (x, pad) VALUES (?, ?)", [(k * 10**7 + i, b"p" * 3000)])])
            i += 1
            written += 1

    try:
        await asyncio.gather(*(keep_writing(k) for k in range(16)))
        size = wal.stat().st_size  # before closing: the last connection to close removes the WAL
    finally:
        checkpointer.stop()
        await writer.close()
    assert written >= target
    assert size <= 2 * WAL_SIZE_LIMIT, (size, written)  # cut back at restarts (PASSIVE alone: ~150 MB here)


async def test_a_lingering_reader_delays_writers_briefly_not_for_the_busy_timeout(tmp_path: Path) -> None:
    """A RESTART checkpoint waits for readers while holding writers back: only RESTART_WAIT_MS."""
    db = tmp_path / "w.db"
    writer = WriterConnection(db, "test-writer")
    await writer.open()
    await writer.transact(lambda c: c.execute("CREATE TABLE t (x INTEGER PRIMARY KEY, pad BLOB)"))
    checkpointer = Checkpointer(db, restart=writer.request_restart, interval=0.02, restart_frames=50)
    reader = connect(db)
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM t").fetchone()  # holds its snapshot: the WAL cannot restart
    checkpointer.start()
    loop = asyncio.get_running_loop()
    slowest = 0.0
    try:
        for i in range(600):
            started = loop.time()
            await writer.write_rows([("INSERT INTO t (x, pad) VALUES (?, ?)", [(i, b"p" * 3000)])])
            slowest = max(slowest, loop.time() - started)
    finally:
        reader.execute("COMMIT")
        reader.close()
        checkpointer.stop()
        await writer.close()
    assert slowest < 1.0, slowest  # about RESTART_WAIT_MS, not the 10 s busy timeout


def test_a_failing_transaction_leaves_nothing_behind(tmp_path: Path) -> None:
    """`transaction` (migrations, the start-up paths) rolls a failure back entirely."""
    from storage.sqlite.conn import transaction

    conn = connect(tmp_path / "t.db")
    conn.execute("CREATE TABLE t (x INTEGER)")

    def half(c: Any) -> None:
        c.execute("INSERT INTO t VALUES (1)")
        raise RuntimeError("halfway")

    with pytest.raises(RuntimeError):
        transaction(conn, half)
    assert conn.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 0
    conn.close()


async def test_a_batch_that_cannot_commit_fails_every_write_in_it(tmp_path: Path) -> None:
    """When BEGIN or COMMIT itself fails (busy past the timeout, disk full, a dead connection), every
    write of the batch hears so: none may believe it was stored."""
    writer = WriterConnection(tmp_path / "w.db", "test-writer")
    await writer.open()
    await writer.transact(lambda c: c.execute("CREATE TABLE t (x INTEGER)"))
    dead = writer._conn
    assert dead is not None
    await writer.run(lambda c: c.close())  # the connection dies under the writer
    results = await asyncio.gather(
        writer.write_rows([("INSERT INTO t VALUES (?)", [(1,)])]),
        writer.transact(lambda c: c.execute("INSERT INTO t VALUES (2)")),
        return_exceptions=True,
    )
    assert all(isinstance(r, Exception) for r in results), results
    writer._conn = None  # already closed
