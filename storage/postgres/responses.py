"""Responses in the PostgreSQL state store: writing them, reading them back, their event streams and cancels.

A response write is ONE statement (data-modifying CTEs over `unnest` arrays): one round trip, its
own implicit transaction, no BEGIN/COMMIT; appending the turn to a conversation first locks the
conversation's row, so concurrent appends from several replicas take positions one after the other.
A background run's end, its appended events and cancels are announced with NOTIFY, so a follower or
canceller on another replica wakes up (`wait_for_change`). `routed_history` reads the chain's stored
replica (`replicas.py`) in the statement that checks the response exists, on the same connection.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from storage.base import JSON, History, LeaseLost, Order, Page, ResponseGone
from storage.pages import RESPONSE_INPUTS, PageRequest
from storage.postgres import replicas
from storage.postgres.db import CANCEL_CHANNEL, RESPONSE_CHANNEL, Database
from storage.postgres.items import delete_orphans, hidden, linked_page, loads
from storage.response_list import ResponseFilter, list_query
from storage.scope import current_project, owning_project

TERMINAL = frozenset({"completed", "failed", "incomplete", "cancelled"})
INPUT, OUTPUT = 0, 1
NOTIFY_FALLBACK = {"cancel": 0.5, "response": 1.0}  # waits end after this even without a notification

# $1 id, $2 created_at, $3 now, $4 status, $5 prev, $6 conv, $7 owner (NULL once terminal), $8 data,
# $9..$11 items (ids, types, data), $12..$14 links (roles, positions, item ids),
# $15 events (NULL: keep), $16 conversation item ids to append, $17 announce (a background run's end),
# $18 fence (the writer's lease token, NULL: none), $19 lease seconds, $20 an owner's update (no
# inputs): it never creates the row (a response deleted while its run went on stays deleted).
# The fence: a writer naming an owner only updates a row that owner still holds; otherwise `r` is
# empty, nothing else is written, and the statement returns false (LeaseLost).
_WRITE_RESPONSE = (
    """
WITH r AS (
  INSERT INTO responses AS x (id, created_at, updated_at, status, previous_response_id, conversation_id, owner,
    lease_until, data, project)
  SELECT $1, $2, $3, $4, $5, $6, $7,
    CASE WHEN $7::text IS NULL THEN NULL ELSE extract(epoch FROM clock_timestamp()) + $19 END, $8, $21
  WHERE NOT ($20::bool AND NOT EXISTS (SELECT 1 FROM responses WHERE id = $1))
  ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, status = excluded.status,
    owner = excluded.owner, lease_until = excluded.lease_until, data = excluded.data
  WHERE $18::text IS NULL OR x.owner = $18::text
  RETURNING 1
), i AS (
  INSERT INTO items (id, type, created_at, data, project)
  SELECT t.id, t.type, $3, t.data, $21 FROM unnest($9::text[], $10::text[], $11::bytea[]) AS t(id, type, data)
  WHERE EXISTS (SELECT 1 FROM r)
  ON CONFLICT (id) DO NOTHING
), l AS (
  INSERT INTO response_items (response_id, role, position, item_id)
  SELECT $1, t.role, t.position, t.item_id
  FROM unnest($12::smallint[], $13::int[], $14::text[]) AS t(role, position, item_id) WHERE EXISTS (SELECT 1 FROM r)
), e AS (
  INSERT INTO response_events (response_id, data) SELECT $1, $15::bytea
  WHERE $15::bytea IS NOT NULL AND EXISTS (SELECT 1 FROM r)
  ON CONFLICT (response_id) DO UPDATE SET data = excluded.data
), d AS (
  DELETE FROM response_event_chunks WHERE $15::bytea IS NOT NULL AND response_id = $1 AND EXISTS (SELECT 1 FROM r)
), c AS (
  INSERT INTO conversation_items (conversation_id, position, item_id)
  SELECT $6, (SELECT COALESCE(MAX(position), -1) FROM conversation_items WHERE conversation_id = $6) + t.n, t.id
  FROM unnest($16::text[]) WITH ORDINALITY AS t(id, n) WHERE EXISTS (SELECT 1 FROM r)
)
SELECT EXISTS (SELECT 1 FROM r) AND (NOT $17::bool OR pg_notify('"""
    + RESPONSE_CHANNEL
    + """', $1) IS NOT NULL)
"""
)


class PostgresResponses:
    """The responses part of `PostgresStore` (`state.py`), on the database it opens."""

    db: Database
    lease_seconds: float

    async def wait_for_change(self, topic: str, key: str | None, poll: float) -> None:
        """Return on a NOTIFY about `topic` (`cancel` | `response`, for `key` or any), or after a fallback."""
        channel = CANCEL_CHANNEL if topic == "cancel" else RESPONSE_CHANNEL
        await self.db.wait(channel, key, max(poll, NOTIFY_FALLBACK.get(topic, 1.0)))

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
        conv = (response.get("conversation") or {}).get("id")
        terminal = status in TERMINAL
        # Only a background response is followed or cancelled from another replica: only its end is announced.
        announce = terminal and bool(response.get("background"))
        rid = response["id"]
        now = time.time()
        seen: set[str] = set()
        ids: list[str] = []
        types: list[str] = []
        datas: list[bytes] = []
        roles: list[int] = []
        positions: list[int] = []
        links: list[str] = []
        appended = list(conversation_append or []) if conv else []
        for role, items in ((INPUT, inputs or []), (OUTPUT, outputs or []), (-1, appended)):
            for k, item in enumerate(items):
                if item["id"] not in seen:
                    seen.add(item["id"])
                    ids.append(item["id"])
                    types.append(item.get("type", ""))
                    datas.append(orjson.dumps(item))
                if role >= 0:
                    roles.append(role)
                    positions.append(k)
                    links.append(item["id"])
        args = (
            rid,
            float(response.get("created_at", now)),
            now,
            status,
            response.get("previous_response_id"),
            conv,
            None if terminal else owner,
            orjson.dumps(row),
            ids,
            types,
            datas,
            roles,
            positions,
            links,
            None if events is None else orjson.dumps(events),
            [i["id"] for i in appended],
            announce,
            owner,
            self.lease_seconds,
            owner is not None and inputs is None,
            owning_project(),
        )
        async with self.db.pool.acquire() as c:
            if not appended:
                written = await c.fetchval(_WRITE_RESPONSE, *args)
            else:
                async with c.transaction():  # the conversation's row lock orders concurrent appends
                    await c.execute("UPDATE conversations SET updated_at = $1 WHERE id = $2", now, conv)
                    written = await c.fetchval(_WRITE_RESPONSE, *args)
                    if not written:
                        raise await self._refusal(c, rid)
            if not written:
                raise await self._refusal(c, rid)

    @staticmethod
    async def _refusal(c: Any, rid: str) -> LeaseLost:
        """Why a fenced write wrote nothing: the row is gone (deleted) or held by another owner."""
        if await c.fetchval("SELECT 1 FROM responses WHERE id = $1", rid) is None:
            return ResponseGone(f"response {rid} was deleted")
        return LeaseLost(f"response {rid} is no longer owned by this process")

    async def get_response(self, response_id: str) -> JSON | None:
        if await hidden(self.db, "responses", response_id):
            return None
        rows = await self.db.pool.fetch(
            "SELECT r.data, i.data FROM responses r "
            "LEFT JOIN response_items x ON x.response_id = r.id AND x.role = 1 "
            "LEFT JOIN items i ON i.id = x.item_id WHERE r.id = $1 ORDER BY x.position",
            response_id,
        )
        if not rows:
            return None
        resp: JSON = loads(rows[0][0])
        resp["output"] = [loads(r[1]) for r in rows if r[1] is not None]
        return resp

    async def get_response_events(self, response_id: str) -> list[JSON] | None:
        if await hidden(self.db, "responses", response_id):
            return None
        data = await self.db.pool.fetchval("SELECT data FROM response_events WHERE response_id = $1", response_id)
        return None if data is None else list(loads(data))

    async def append_response_events(self, response_id: str, events: list[JSON]) -> None:
        if events:
            await self.db.pool.execute(
                "WITH ins AS (INSERT INTO response_event_chunks (response_id, first_seq, data) VALUES ($1, $2, $3) "
                "ON CONFLICT (response_id, first_seq) DO UPDATE SET data = excluded.data) "
                "SELECT pg_notify('" + RESPONSE_CHANNEL + "', $1)",
                response_id,
                int(events[0]["sequence_number"]),
                orjson.dumps(events),
            )

    async def response_events_after(self, response_id: str, after: int) -> list[JSON]:
        rows = await self.db.pool.fetch(
            "SELECT data FROM response_event_chunks WHERE response_id = $1 ORDER BY first_seq", response_id
        )
        return [e for r in rows for e in orjson.loads(r[0]) if e["sequence_number"] > after]

    async def delete_response(self, response_id: str) -> bool:
        if await hidden(self.db, "responses", response_id):
            return False
        async with self.db.pool.acquire() as c, c.transaction():
            if await c.fetchval("DELETE FROM responses WHERE id = $1 RETURNING 1", response_id) is None:
                return False
            ids = [
                r[0]
                for r in await c.fetch(
                    "DELETE FROM response_items WHERE response_id = $1 RETURNING item_id", response_id
                )
            ]
            await c.execute("DELETE FROM response_events WHERE response_id = $1", response_id)
            await c.execute("DELETE FROM response_cancels WHERE response_id = $1", response_id)
            await c.execute("DELETE FROM response_event_chunks WHERE response_id = $1", response_id)
            await c.execute("DELETE FROM response_requeue WHERE response_id = $1", response_id)
            await delete_orphans(c, ids)
            return True

    async def request_cancel(self, response_id: str) -> None:
        await self.db.pool.execute(
            "WITH ins AS (INSERT INTO response_cancels (response_id, requested_at) VALUES ($1, $2) "
            "ON CONFLICT DO NOTHING) SELECT pg_notify('" + CANCEL_CHANNEL + "', $1)",
            response_id,
            time.time(),
        )

    async def take_cancel_requests(self, response_ids: list[str]) -> list[str]:
        if not response_ids:
            return []
        rows = await self.db.pool.fetch(
            "DELETE FROM response_cancels WHERE response_id = ANY($1::text[]) RETURNING response_id", response_ids
        )
        return [r[0] for r in rows]

    async def list_responses(self, flt: ResponseFilter, req: PageRequest) -> Page:
        sql, values = list_query("postgres", flt, req)
        async with self.db.pool.acquire() as c:
            ids, more = req.cut(await c.fetch(sql, *values), lambda r: str(r[0]))
            if not ids:
                return Page()
            found = {r[0]: loads(r[1]) for r in await c.fetch("SELECT id, data FROM responses WHERE id = ANY($1)", ids)}
            for resp in found.values():
                resp["output"] = []
            rows = await c.fetch(
                "SELECT x.response_id, i.data FROM response_items x JOIN items i ON i.id = x.item_id "
                "WHERE x.response_id = ANY($1) AND x.role = 1 ORDER BY x.response_id, x.position",
                ids,
            )
        for rid, data in rows:
            found[rid]["output"].append(loads(data))
        return Page(data=[found[i] for i in ids if i in found], has_more=more)

    async def list_input_items(
        self, response_id: str, *, limit: int, order: Order, after: str | None, before: str | None
    ) -> Page:
        if await hidden(self.db, "responses", response_id):
            return Page()
        return await linked_page(self.db, RESPONSE_INPUTS, response_id, PageRequest(limit, order, after, before))

    async def response_history(self, response_id: str) -> list[JSON] | None:
        found = await self._history(response_id, "SELECT 1 FROM responses WHERE id = $1")
        return None if found is None else found[0]

    async def routed_history(self, response_id: str) -> History | None:
        return await self._history(response_id, replicas.CHAIN_REPLICA)

    async def _history(self, response_id: str, head: str) -> History | None:
        """The chain's items, after `head` (one row when the response exists: its first column is
        the chain's stored replica, or anything else) on the same connection."""
        if await hidden(self.db, "responses", response_id):
            return None
        async with self.db.pool.acquire() as c:
            row = await c.fetchrow(head, response_id)
            if row is None:
                return None
            rows = await c.fetch(
                "WITH RECURSIVE chain(id, prev, depth) AS ("
                " SELECT id, previous_response_id, 0 FROM responses WHERE id = $1"
                " UNION ALL SELECT r.id, r.previous_response_id, chain.depth + 1"
                " FROM responses r JOIN chain ON r.id = chain.prev)"
                # one index lookup of links and items per chain link: the planner guesses a recursive
                # CTE at 100 rows and, left to itself, hash-joins whole `response_items` and `items`
                # (78 ms at 10,000 responses); a LATERAL that is not flattened (OFFSET 0) cannot
                " SELECT l.data FROM chain CROSS JOIN LATERAL (SELECT i.data, x.role, x.position"
                " FROM response_items x JOIN items i ON i.id = x.item_id WHERE x.response_id = chain.id OFFSET 0) l"
                " ORDER BY chain.depth DESC, l.role, l.position",
                response_id,
            )
        replica = row[0]
        return [loads(r[0]) for r in rows], replica if isinstance(replica, str) else None

    async def get_items(self, item_ids: list[str]) -> dict[str, JSON]:
        if not item_ids:
            return {}
        rows = await self.db.pool.fetch(
            "SELECT id, data FROM items WHERE id = ANY($1::text[]) AND ($2::text IS NULL OR project = $2)",
            item_ids,
            current_project(),
        )
        return {r[0]: loads(r[1]) for r in rows}
