"""The SQLite state store (WAL; safe for several processes on one file).

Two connections per process: a writer whose transactions are short and IMMEDIATE, and a reader, so
reads never queue behind writes (WAL lets readers proceed while a writer commits).
"""

from __future__ import annotations

import asyncio
import fcntl
import time
from pathlib import Path
from typing import IO, Any

import orjson

from storage.base import JSON, LeaseLost, Order, Page, Requeued, ResponseGone, cache_key_id
from storage.pages import CONVERSATION_ITEMS, RESPONSE_INPUTS, PageRequest, linked_items_query
from storage.response_list import ResponseFilter, list_query
from storage.schema import migrations, statements
from storage.scope import Scope, filter_sql, owning_project
from storage.sqlite import replicas, requeue
from storage.sqlite.conn import (
    Checkpointer,
    Rows,
    ThreadConnection,
    WriterConnection,
    execute_rows,
    transaction,
    visible,
)

TERMINAL = frozenset({"completed", "failed", "incomplete", "cancelled"})
INPUT, OUTPUT = 0, 1


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


_UPSERT_RESPONSE = (
    "INSERT INTO responses (id, created_at, updated_at, status, previous_response_id, conversation_id, owner, "
    "lease_until, data, project) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
    "updated_at=excluded.updated_at, status=excluded.status, owner=excluded.owner, "
    "lease_until=excluded.lease_until, data=excluded.data"
)
LEASE_EXPIRED = {
    "code": "server_error",
    "message": "The gateway process producing this response stopped before it finished (its lease expired).",
}
_INSERT_ITEM = "INSERT OR IGNORE INTO items (id, type, created_at, data, project) VALUES (?, ?, ?, ?, ?)"
_LINK_RESPONSE_ITEM = "INSERT INTO response_items (response_id, role, position, item_id) VALUES (?, ?, ?, ?)"
_UPSERT_EVENTS = "INSERT OR REPLACE INTO response_events (response_id, data) VALUES (?, ?)"


def _item_rows(items: list[JSON], now: float, project: str) -> list[tuple[Any, ...]]:
    return [(it["id"], it.get("type", ""), now, orjson.dumps(it), project) for it in items]


def _insert_items(c: Any, items: list[JSON], now: float, project: str) -> None:
    c.executemany(_INSERT_ITEM, _item_rows(items, now, project))


def _append_conversation_links(c: Any, conversation_id: str, item_ids: list[str]) -> None:
    """Append items to a conversation, after whatever it already holds."""
    if not item_ids:
        return
    row = c.execute(
        "SELECT COALESCE(MAX(position), -1) FROM conversation_items WHERE conversation_id = ?", (conversation_id,)
    ).fetchone()
    start = row[0] + 1
    c.executemany(
        "INSERT INTO conversation_items (conversation_id, position, item_id) VALUES (?, ?, ?)",
        [(conversation_id, start + i, iid) for i, iid in enumerate(item_ids)],
    )


def _delete_orphans(c: Any, item_ids: list[str]) -> None:
    """Delete the given items unless another response or a conversation still links them."""
    c.executemany(
        "DELETE FROM items WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM response_items WHERE item_id = ?1) "
        "AND NOT EXISTS (SELECT 1 FROM conversation_items WHERE item_id = ?1)",
        [(i,) for i in item_ids],
    )


def _exclusive(path: Path) -> IO[bytes]:
    """An open file holding an exclusive advisory lock (blocks until it is free)."""
    handle = open(path, "ab")
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
    return handle


class SQLiteStore:
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

    # -- responses ---------------------------------------------------------------------------------
    async def write_response(
        self,
        response: JSON,
        *,
        inputs: list[JSON] | None = None,
        outputs: list[JSON] | None = None,
        conversation_append: list[JSON] | None = None,
        owner: str | None = None,
        events: list[JSON] | None = None,
    ) -> None:
        row = {k: v for k, v in response.items() if k != "output"}
        status = response.get("status") or "completed"
        prev = response.get("previous_response_id")
        conv = (response.get("conversation") or {}).get("id")
        fence = owner  # the writer's identity: a run whose lease was taken over may not write again
        owner = None if status in TERMINAL else owner
        rid = response["id"]
        now = time.time()
        lease = now + self.lease_seconds if owner is not None else None
        project = owning_project()
        # Plain rows, built here on the caller's thread, so the writer thread only executes them.
        rows: Rows = [
            (
                _UPSERT_RESPONSE,
                [
                    (
                        rid,
                        response.get("created_at", now),
                        now,
                        status,
                        prev,
                        conv,
                        owner,
                        lease,
                        orjson.dumps(row),
                        project,
                    )
                ],
            )
        ]
        for role, items in ((INPUT, inputs), (OUTPUT, outputs)):
            if items:
                rows.append((_INSERT_ITEM, _item_rows(items, now, project)))
                # Positions start at 0: a response's inputs and outputs are each written once, so no
                # MAX(position) lookup (it was a third of the write's cost); a second write of the
                # same role would violate the primary key rather than interleave.
                rows.append((_LINK_RESPONSE_ITEM, [(rid, role, k, item["id"]) for k, item in enumerate(items)]))
        if events is not None:
            rows.append((_UPSERT_EVENTS, [(rid, orjson.dumps(events))]))
            rows.append(
                ("DELETE FROM response_event_chunks WHERE response_id = ?", [(rid,)])
            )  # the whole stream is kept
        if not (conv and conversation_append) and fence is None:
            await self._writer.write_rows(rows)
            return
        appended = list(conversation_append or []) if conv else []

        def write(c: Any) -> None:  # a fence or a conversation append reads first: a function
            if fence is not None:
                held = c.execute("SELECT owner FROM responses WHERE id = ?", (rid,)).fetchone()
                if held is None and inputs is None:  # written before (with its inputs), deleted since
                    raise ResponseGone(f"response {rid} was deleted")
                if held is not None and held[0] != fence:
                    raise LeaseLost(f"response {rid} is no longer owned by this process")
            execute_rows(c, rows)
            if conv and appended:
                _insert_items(c, appended, now, project)
                c.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conv))
                _append_conversation_links(c, conv, [i["id"] for i in appended])

        await self._writer.transact(write)

    async def get_response(self, response_id: str) -> JSON | None:
        where, params = filter_sql()

        def read(c: Any) -> JSON | None:
            row = c.execute(f"SELECT data FROM responses WHERE id = ?{where}", (response_id, *params)).fetchone()
            if row is None:
                return None
            resp: JSON = orjson.loads(row[0])
            rows = c.execute(
                "SELECT i.data FROM response_items x JOIN items i ON i.id = x.item_id "
                "WHERE x.response_id = ? AND x.role = 1 ORDER BY x.position",
                (response_id,),
            ).fetchall()
            resp["output"] = [orjson.loads(r[0]) for r in rows]
            return resp

        return await self._reader.run(read)

    async def wait_for_change(self, topic: str, key: str | None, poll: float) -> None:
        """SQLite has no notifications: the caller polls every `poll` seconds."""
        await asyncio.sleep(poll)

    async def get_response_events(self, response_id: str) -> list[JSON] | None:
        scope = filter_sql()

        def read(c: Any) -> list[JSON] | None:
            if not visible(c, "responses", response_id, scope):
                return None
            row = c.execute("SELECT data FROM response_events WHERE response_id = ?", (response_id,)).fetchone()
            return None if row is None else list(orjson.loads(row[0]))

        return await self._reader.run(read)

    async def append_response_events(self, response_id: str, events: list[JSON]) -> None:
        if events:
            await self._writer.write_rows(
                [
                    (
                        "INSERT OR REPLACE INTO response_event_chunks (response_id, first_seq, data) VALUES (?, ?, ?)",
                        [(response_id, events[0]["sequence_number"], orjson.dumps(events))],
                    )
                ]
            )

    async def response_events_after(self, response_id: str, after: int) -> list[JSON]:
        def read(c: Any) -> list[JSON]:
            rows = c.execute(
                "SELECT data FROM response_event_chunks WHERE response_id = ? ORDER BY first_seq", (response_id,)
            ).fetchall()
            return [e for r in rows for e in orjson.loads(r[0]) if e["sequence_number"] > after]

        return await self._reader.run(read)

    async def delete_response(self, response_id: str) -> bool:
        where, params = filter_sql()

        def delete(c: Any) -> bool:
            cur = c.execute(f"DELETE FROM responses WHERE id = ?{where}", (response_id, *params))
            if cur.rowcount == 0:
                return False
            ids = [r[0] for r in c.execute("SELECT item_id FROM response_items WHERE response_id = ?", (response_id,))]
            c.execute("DELETE FROM response_items WHERE response_id = ?", (response_id,))
            c.execute("DELETE FROM response_events WHERE response_id = ?", (response_id,))
            c.execute("DELETE FROM response_cancels WHERE response_id = ?", (response_id,))
            c.execute("DELETE FROM response_event_chunks WHERE response_id = ?", (response_id,))
            c.execute("DELETE FROM response_requeue WHERE response_id = ?", (response_id,))
            _delete_orphans(c, ids)
            return True

        return await self._writer.transact(delete)

    async def request_cancel(self, response_id: str) -> None:
        def write(c: Any) -> None:
            c.execute(
                "INSERT OR IGNORE INTO response_cancels (response_id, requested_at) VALUES (?, ?)",
                (response_id, time.time()),
            )

        await self._writer.transact(write)

    async def take_cancel_requests(self, response_ids: list[str]) -> list[str]:
        if not response_ids:
            return []

        def read(c: Any) -> list[str]:
            marks = ",".join("?" * len(response_ids))
            sql = f"SELECT response_id FROM response_cancels WHERE response_id IN ({marks})"
            return [r[0] for r in c.execute(sql, response_ids)]

        found = await self._reader.run(read)  # a read per poll; a write only when there is news
        if found:
            await self._writer.write_rows(
                [("DELETE FROM response_cancels WHERE response_id = ?", [(i,) for i in found])]
            )
        return found

    async def list_responses(self, flt: ResponseFilter, req: PageRequest) -> Page:
        sql, values = list_query("sqlite", flt, req)

        def read(c: Any) -> Page:
            ids, more = req.cut(c.execute(sql, values).fetchall(), lambda r: str(r[0]))
            if not ids:
                return Page()
            marks = ",".join("?" * len(ids))
            found = {
                r[0]: orjson.loads(r[1])
                for r in c.execute(f"SELECT id, data FROM responses WHERE id IN ({marks})", ids)
            }
            for resp in found.values():
                resp["output"] = []
            rows = c.execute(
                "SELECT x.response_id, i.data FROM response_items x JOIN items i ON i.id = x.item_id "
                f"WHERE x.response_id IN ({marks}) AND x.role = 1 ORDER BY x.response_id, x.position",
                ids,
            )
            for rid, data in rows:
                found[rid]["output"].append(orjson.loads(data))
            return Page(data=[found[i] for i in ids if i in found], has_more=more)

        return await self._reader.run(read)

    async def list_input_items(
        self, response_id: str, *, limit: int, order: Order, after: str | None, before: str | None
    ) -> Page:
        scope = filter_sql()

        def read(c: Any) -> Page:
            if not visible(c, "responses", response_id, scope):
                return Page()
            req = PageRequest(limit, order, after, before)
            return req.page(c.execute(*linked_items_query("sqlite", RESPONSE_INPUTS, response_id, req)).fetchall())

        return await self._reader.run(read)

    async def response_history(self, response_id: str) -> list[JSON] | None:
        scope = filter_sql()
        return await self._reader.run(lambda c: _history(c, response_id, scope))

    async def routed_history(self, response_id: str) -> replicas.History | None:
        scope = filter_sql()

        def read(c: Any) -> replicas.History | None:
            history = _history(c, response_id, scope)
            return None if history is None else (history, replicas.chain_replica(c, response_id))

        return await self._reader.run(read)

    async def conversation_replica(self, conversation_id: str) -> tuple[bool, str | None]:
        where, params = filter_sql()
        return await self._reader.run(replicas.conversation_replica, conversation_id, where, params)

    async def cache_key_replica(self, cache_key: str, refresh_before: float | None = None) -> str | None:
        project, key = owning_project(), cache_key_id(cache_key)
        found = await self._reader.run(replicas.cache_key_replica, project, key)
        if found is None:
            return None
        if refresh_before is not None and found[1] < refresh_before:
            await self._writer.transact(replicas.refresh_cache_key, project, key, refresh_before)
        return found[0]

    async def record_replica(
        self,
        replica: str,
        *,
        response_id: str | None = None,
        conversation_id: str | None = None,
        cache_key: str | None = None,
    ) -> None:
        project = owning_project()
        await self._writer.transact(
            replicas.record,
            replica,
            project,
            response_id,
            conversation_id,
            None if cache_key is None else cache_key_id(cache_key),
        )

    async def prune_cache_keys(self, before: float) -> int:
        total = 0
        while (n := await self._writer.transact(replicas.prune_cache_keys, before)) > 0:
            total += n
            if n < replicas.PRUNE_BATCH:
                break
        return total

    async def get_items(self, item_ids: list[str]) -> dict[str, JSON]:
        if not item_ids:
            return {}

        where, params = filter_sql()

        def read(c: Any) -> dict[str, JSON]:
            marks = ",".join("?" * len(item_ids))
            rows = c.execute(
                f"SELECT id, data FROM items WHERE id IN ({marks}){where}", (*item_ids, *params)
            ).fetchall()
            return {r[0]: orjson.loads(r[1]) for r in rows}

        return await self._reader.run(read)

    async def renew_leases(self, owner: str) -> int:
        def renew(c: Any) -> int:
            until = time.time() + self.lease_seconds
            return int(c.execute("UPDATE responses SET lease_until = ? WHERE owner = ?", (until, owner)).rowcount)

        return await self._writer.transact(renew)

    async def requeue_response(self, response: JSON, owner: str, request: JSON) -> bool:
        def write(c: Any) -> bool:
            dropped = requeue.requeue(c, response, owner, request)
            if dropped is not None:
                _delete_orphans(c, dropped)
            return dropped is not None

        return bool(await self._writer.transact(write))

    async def claim_requeued(self, owner: str, limit: int) -> list[Requeued]:
        if not await self._reader.run(requeue.any_waiting):  # the common case: one read, no write lock
            return []
        lease = time.time() + self.lease_seconds
        return list(await self._writer.transact(lambda c: requeue.claim(c, owner, lease, limit)))

    async def expire_leases(self) -> list[str]:
        def due(c: Any) -> bool:
            query = "SELECT 1 FROM responses WHERE owner IS NOT NULL AND lease_until < ? LIMIT 1"
            return c.execute(query, (time.time(),)).fetchone() is not None

        if not await self._reader.run(due):  # the common case costs one indexed read, no write lock
            return []

        def expire(c: Any) -> list[str]:
            now = time.time()
            rows = c.execute(
                "SELECT id, data FROM responses WHERE owner IS NOT NULL AND lease_until < ?", (now,)
            ).fetchall()
            for rid, data in rows:
                resp = orjson.loads(data)
                resp["status"] = "failed"
                resp["error"] = dict(LEASE_EXPIRED)
                c.execute(
                    "UPDATE responses SET status = 'failed', owner = NULL, lease_until = NULL, updated_at = ?, "
                    "data = ? WHERE id = ?",
                    (now, orjson.dumps(resp), rid),
                )
            return [r[0] for r in rows]

        return await self._writer.transact(expire)

    # -- conversations -----------------------------------------------------------------------------
    async def create_conversation(self, conversation: JSON, items: list[JSON]) -> None:
        project = owning_project()

        def write(c: Any) -> None:
            now = time.time()
            c.execute(
                "INSERT INTO conversations (id, created_at, updated_at, metadata, project) VALUES (?, ?, ?, ?, ?)",
                (
                    conversation["id"],
                    conversation["created_at"],
                    now,
                    orjson.dumps(conversation.get("metadata") or {}),
                    project,
                ),
            )
            _insert_items(c, items, now, project)
            _append_conversation_links(c, conversation["id"], [i["id"] for i in items])

        await self._writer.transact(write)

    @staticmethod
    def _conversation(row: Any) -> JSON:
        return {"id": row[0], "object": "conversation", "created_at": row[1], "metadata": orjson.loads(row[2])}

    async def get_conversation(self, conversation_id: str) -> JSON | None:
        where, params = filter_sql()
        row = await self._reader.run(
            lambda c: c.execute(
                f"SELECT id, created_at, metadata FROM conversations WHERE id = ?{where}", (conversation_id, *params)
            ).fetchone()
        )
        return None if row is None else self._conversation(row)

    async def update_conversation(self, conversation_id: str, metadata: dict[str, str]) -> JSON | None:
        where, params = filter_sql()

        def write(c: Any) -> Any:
            c.execute(
                f"UPDATE conversations SET metadata = ?, updated_at = ? WHERE id = ?{where}",
                (orjson.dumps(metadata), time.time(), conversation_id, *params),
            )
            return c.execute(
                f"SELECT id, created_at, metadata FROM conversations WHERE id = ?{where}", (conversation_id, *params)
            ).fetchone()

        row = await self._writer.transact(write)
        return None if row is None else self._conversation(row)

    async def delete_conversation(self, conversation_id: str) -> bool:
        where, params = filter_sql()

        def delete(c: Any) -> bool:
            if c.execute(f"DELETE FROM conversations WHERE id = ?{where}", (conversation_id, *params)).rowcount == 0:
                return False
            ids = [
                r[0]
                for r in c.execute(
                    "SELECT item_id FROM conversation_items WHERE conversation_id = ?", (conversation_id,)
                )
            ]
            c.execute("DELETE FROM conversation_items WHERE conversation_id = ?", (conversation_id,))
            _delete_orphans(c, ids)
            return True

        return await self._writer.transact(delete)

    async def add_conversation_items(self, conversation_id: str, items: list[JSON]) -> bool:
        where, params = filter_sql()
        project = owning_project()

        def write(c: Any) -> bool:
            now = time.time()
            sql = f"UPDATE conversations SET updated_at = ? WHERE id = ?{where}"
            if c.execute(sql, (now, conversation_id, *params)).rowcount == 0:
                return False
            _insert_items(c, items, now, project)
            _append_conversation_links(c, conversation_id, [i["id"] for i in items])
            return True

        return await self._writer.transact(write)

    async def list_conversation_items(
        self, conversation_id: str, *, limit: int, order: Order, after: str | None, before: str | None
    ) -> Page:
        scope = filter_sql()

        def read(c: Any) -> Page:
            if not visible(c, "conversations", conversation_id, scope):
                return Page()
            req = PageRequest(limit, order, after, before)
            query = linked_items_query("sqlite", CONVERSATION_ITEMS, conversation_id, req)
            return req.page(c.execute(*query).fetchall())

        return await self._reader.run(read)

    async def conversation_items(self, conversation_id: str) -> list[JSON]:
        scope = filter_sql()

        def read(c: Any) -> list[Any]:
            if not visible(c, "conversations", conversation_id, scope):
                return []
            return list(
                c.execute(
                    "SELECT i.data FROM conversation_items x JOIN items i ON i.id = x.item_id "
                    "WHERE x.conversation_id = ? ORDER BY x.position",
                    (conversation_id,),
                ).fetchall()
            )

        return [orjson.loads(r[0]) for r in await self._reader.run(read)]

    async def get_conversation_item(self, conversation_id: str, item_id: str) -> JSON | None:
        scope = filter_sql()

        def read(c: Any) -> Any:
            if not visible(c, "conversations", conversation_id, scope):
                return None
            return c.execute(
                "SELECT i.data FROM conversation_items x JOIN items i ON i.id = x.item_id "
                "WHERE x.conversation_id = ? AND x.item_id = ?",
                (conversation_id, item_id),
            ).fetchone()

        row = await self._reader.run(read)
        return None if row is None else orjson.loads(row[0])

    async def delete_conversation_item(self, conversation_id: str, item_id: str) -> bool:
        scope = filter_sql()

        def delete(c: Any) -> bool:
            if not visible(c, "conversations", conversation_id, scope):
                return False
            cur = c.execute(
                "DELETE FROM conversation_items WHERE conversation_id = ? AND item_id = ?", (conversation_id, item_id)
            )
            return bool(cur.rowcount)

        return await self._writer.transact(delete)


def _history(c: Any, response_id: str, scope: Scope) -> list[JSON] | None:
    """The items of the `previous_response_id` chain ending at `response_id` (None: not the caller's)."""
    if not visible(c, "responses", response_id, scope):
        return None
    rows = c.execute(
        "WITH RECURSIVE chain(id, prev, depth) AS ("
        " SELECT id, previous_response_id, 0 FROM responses WHERE id = ?"
        " UNION ALL SELECT r.id, r.previous_response_id, chain.depth + 1"
        " FROM responses r JOIN chain ON r.id = chain.prev)"
        # CROSS JOIN fixes the join order (chain, then its links, then the items): left to
        # itself SQLite drives the join from a scan of the item index, linear in the database
        " SELECT i.data FROM chain CROSS JOIN response_items x ON x.response_id = chain.id"
        " CROSS JOIN items i ON i.id = x.item_id ORDER BY chain.depth DESC, x.role, x.position",
        (response_id,),
    ).fetchall()
    return [orjson.loads(r[0]) for r in rows]
