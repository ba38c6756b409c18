"""Responses in the SQLite state store: writing them, reading them back, their event streams and cancels.

`write_response` is the hot path: its rows are built on the caller's thread and handed to the
writer's group commit as plain rows; only a fenced write (a run's owner) or a conversation append
reads first, as one function on the writer's thread. Reads run on the reader connection, scoped to
the caller's project. `routed_history` reads the chain's stored replica (`replicas.py`) alongside
the history, in the same read.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson

from storage.base import JSON, LeaseLost, Order, Page, ResponseGone
from storage.pages import RESPONSE_INPUTS, PageRequest, linked_items_query
from storage.response_list import ResponseFilter, list_query
from storage.scope import Scope, filter_sql, owning_project
from storage.sqlite import replicas
from storage.sqlite.conn import Rows, ThreadConnection, WriterConnection, execute_rows, visible
from storage.sqlite.items import INSERT_ITEM, append_conversation_links, delete_orphans, insert_items, item_rows

TERMINAL = frozenset({"completed", "failed", "incomplete", "cancelled"})
INPUT, OUTPUT = 0, 1


_UPSERT_RESPONSE = (
    "INSERT INTO responses (id, created_at, updated_at, status, previous_response_id, conversation_id, owner, "
    "lease_until, data, project) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
    "updated_at=excluded.updated_at, status=excluded.status, owner=excluded.owner, "
    "lease_until=excluded.lease_until, data=excluded.data"
)
_LINK_RESPONSE_ITEM = "INSERT INTO response_items (response_id, role, position, item_id) VALUES (?, ?, ?, ?)"
_UPSERT_EVENTS = "INSERT OR REPLACE INTO response_events (response_id, data) VALUES (?, ?)"


class SQLiteResponses:
    """The responses part of `SQLiteStore` (`state.py`), on the connections it opens."""

    _writer: WriterConnection
    _reader: ThreadConnection
    lease_seconds: float

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
                rows.append((INSERT_ITEM, item_rows(items, now, project)))
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
                insert_items(c, appended, now, project)
                c.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conv))
                append_conversation_links(c, conv, [i["id"] for i in appended])

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
            delete_orphans(c, ids)
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
