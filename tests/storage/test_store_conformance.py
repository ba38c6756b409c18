"""One conformance suite for every `StateStore` implementation: SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from storage import StateStore
from storage.base import LeaseLost, ResponseGone
from tests.support.stores import built_store

LEASE = 0.3  # seconds: the suite's stores hold leases this long


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StateStore]:
    """What `gateway/bootstrap.py` builds on each backend (not a class it never builds)."""
    s: StateStore = await built_store(request.param, tmp_path, request, run_lease_seconds=LEASE)
    yield s
    await s.close()


def msg(i: str, text: str, role: str = "user") -> dict[str, Any]:
    ptype = "output_text" if role == "assistant" else "input_text"
    return {"id": i, "type": "message", "role": role, "content": [{"type": ptype, "text": text}], "status": "completed"}


def resp(i: str, prev: str | None = None, status: str = "completed", conv: str | None = None) -> dict[str, Any]:
    return {
        "id": i,
        "object": "response",
        "created_at": 1,
        "status": status,
        "previous_response_id": prev,
        "conversation": {"id": conv} if conv else None,
        "output": [],
        "model": "m",
    }


async def test_write_and_read_response(store: StateStore) -> None:
    await store.write_response(resp("r1"), inputs=[msg("m1", "hi")], outputs=[msg("m2", "yo", "assistant")])
    got = await store.get_response("r1")
    assert got is not None and got["output"] == [msg("m2", "yo", "assistant")] and got["status"] == "completed"
    assert await store.get_response("nope") is None


async def test_two_phase_write_appends_links(store: StateStore) -> None:
    await store.write_response(resp("r1", status="in_progress"), inputs=[msg("m1", "hi")], owner="h:1:1")
    assert (await store.get_response("r1"))["status"] == "in_progress"  # type: ignore[index]
    await store.write_response(resp("r1"), outputs=[msg("m2", "a", "assistant"), msg("m3", "b", "assistant")])
    got = await store.get_response("r1")
    assert got is not None and [o["id"] for o in got["output"]] == ["m2", "m3"]
    page = await store.list_input_items("r1", limit=10, order="asc", after=None, before=None)
    assert [i["id"] for i in page.data] == ["m1"]


async def test_event_stream_kept_with_the_terminal_write(store: StateStore) -> None:
    events = [{"type": "response.created", "sequence_number": 0}, {"type": "response.completed", "sequence_number": 1}]
    await store.write_response(resp("r1", status="in_progress"), inputs=[msg("m1", "hi")], owner="h:1:1")
    assert await store.get_response_events("r1") is None
    await store.write_response(resp("r1"), outputs=[msg("m2", "yo", "assistant")], events=events)
    assert await store.get_response_events("r1") == events
    assert await store.delete_response("r1")
    assert await store.get_response_events("r1") is None


async def test_cancel_requests_are_taken_once(store: StateStore) -> None:
    for rid in ("r1", "r2"):
        await store.write_response(resp(rid, status="in_progress"), inputs=[], owner="h:1:1")
    await store.request_cancel("r2")
    await store.request_cancel("r2")  # asking twice is one request
    assert await store.take_cancel_requests(["r1"]) == []
    assert await store.take_cancel_requests(["r1", "r2"]) == ["r2"]
    assert await store.take_cancel_requests(["r1", "r2"]) == []
    assert await store.take_cancel_requests([]) == []


async def test_history_walks_the_chain_in_order(store: StateStore) -> None:
    prev = None
    for n in range(5):
        await store.write_response(
            resp(f"r{n}", prev), inputs=[msg(f"i{n}", f"q{n}")], outputs=[msg(f"o{n}", f"a{n}", "assistant")]
        )
        prev = f"r{n}"
    history = await store.response_history("r4")
    assert history is not None
    assert [h["id"] for h in history] == [x for n in range(5) for x in (f"i{n}", f"o{n}")]
    assert await store.response_history("missing") is None


async def test_items_are_stored_once(store: StateStore) -> None:
    await store.write_response(resp("r1"), inputs=[msg("m1", "hi")], outputs=[msg("m2", "yo", "assistant")])
    # a client echoing the previous output back as input links the existing item
    await store.write_response(resp("r2"), inputs=[msg("m2", "yo", "assistant"), msg("m3", "next")])
    found = await store.get_items(["m1", "m2", "m3", "zz"])
    assert sorted(found) == ["m1", "m2", "m3"]
    assert await store.delete_response("r1")
    assert sorted(await store.get_items(["m1", "m2"])) == ["m2"]  # m2 is still used by r2
    assert not await store.delete_response("r1")


async def test_input_item_pagination(store: StateStore) -> None:
    await store.write_response(resp("r1"), inputs=[msg(f"m{i}", str(i)) for i in range(7)])

    async def ids(**kw: Any) -> tuple[list[str], bool]:
        page = await store.list_input_items("r1", **{"limit": 3, "order": "asc", "after": None, "before": None, **kw})
        return [i["id"] for i in page.data], page.has_more

    assert await ids() == (["m0", "m1", "m2"], True)
    assert await ids(after="m2") == (["m3", "m4", "m5"], True)
    assert await ids(after="m5") == (["m6"], False)
    assert await ids(order="desc") == (["m6", "m5", "m4"], True)
    assert await ids(order="desc", after="m4") == (["m3", "m2", "m1"], True)
    assert await ids(before="m2") == (["m0", "m1"], False)
    # a `before` page is the one just before the cursor (the previous page), still in `order`
    assert await ids(before="m6") == (["m3", "m4", "m5"], True)
    assert await ids(order="desc", before="m1") == (["m4", "m3", "m2"], True)
    assert await ids(after="m1", before="m5") == (["m2", "m3", "m4"], False)
    assert await ids(after="unknown") == ([], False)
    assert await ids(before="unknown") == ([], False)


async def test_leases_expire_unless_renewed_and_fence_late_writes(store: StateStore) -> None:
    await store.write_response(resp("dead", status="in_progress"), inputs=[], owner="h:1:dead")
    await store.write_response(resp("live", status="in_progress"), inputs=[], owner="h:2:live")
    assert await store.expire_leases() == []  # both leases still run
    for _ in range(3):
        await asyncio.sleep(LEASE / 2)
        assert await store.renew_leases("h:2:live") == 1
    assert await store.expire_leases() == ["dead"]
    dead = await store.get_response("dead")
    assert dead is not None and dead["status"] == "failed" and "lease expired" in dead["error"]["message"]
    assert (await store.get_response("live"))["status"] == "in_progress"  # type: ignore[index]
    # the stalled owner comes back: its writes are refused and change nothing
    with pytest.raises(LeaseLost):
        await store.write_response(resp("dead"), outputs=[msg("late", "too late", "assistant")], owner="h:1:dead")
    again = await store.get_response("dead")
    assert again is not None and again["status"] == "failed" and again["output"] == []
    with pytest.raises(LeaseLost):  # another owner cannot write over a live lease either
        await store.write_response(resp("live"), owner="h:1:dead")
    await store.write_response(resp("live"), outputs=[msg("o1", "done", "assistant")], owner="h:2:live")
    done = await store.get_response("live")
    assert done is not None and done["status"] == "completed" and [o["id"] for o in done["output"]] == ["o1"]
    await asyncio.sleep(LEASE * 1.5)
    assert await store.expire_leases() == []  # terminal rows hold no lease
    assert await store.renew_leases("h:2:live") == 0


async def test_requeued_runs_wait_without_a_lease_and_are_claimed_once(store: StateStore) -> None:
    running = resp("bg", status="in_progress")
    await store.write_response(running, inputs=[msg("m1", "hi")], owner="h:1:1")
    await store.append_response_events("bg", [{"type": "response.created", "sequence_number": 0}])
    request = {"model": "m", "input": "hi", "background": True}
    assert not await store.requeue_response(running, "h:2:2", request)  # only the owner hands it back
    assert await store.requeue_response(running, "h:1:1", request)
    waiting = await store.get_response("bg")
    assert waiting is not None and waiting["status"] == "queued" and waiting["output"] == []
    assert await store.response_events_after("bg", -1) == []  # a second run starts the stream again
    await asyncio.sleep(LEASE * 1.5)
    assert await store.expire_leases() == []  # no lease while it waits: the sweep leaves it
    with pytest.raises(LeaseLost):  # the stopped process's late writes are refused
        await store.write_response(resp("bg"), outputs=[msg("late", "x", "assistant")], owner="h:1:1")
    claimed = await store.claim_requeued("h:3:3", 10)
    assert [(c.response["id"], c.response["status"], c.request, c.project) for c in claimed] == [
        ("bg", "queued", request, "default")
    ]
    assert await store.claim_requeued("h:4:4", 10) == []  # taken once
    assert await store.renew_leases("h:3:3") == 1  # leased to the claimant: a dead claimant's run ends
    await store.write_response(resp("bg"), outputs=[msg("o1", "done", "assistant")], owner="h:3:3")
    done = await store.get_response("bg")
    assert done is not None and done["status"] == "completed" and [o["id"] for o in done["output"]] == ["o1"]
    page = await store.list_input_items("bg", limit=10, order="asc", after=None, before=None)
    assert [i["id"] for i in page.data] == ["m1"]  # the inputs stay linked once
    # a requeued response deleted before anyone claims it is never run
    await store.write_response(resp("gone", status="in_progress"), inputs=[], owner="h:1:1")
    assert await store.requeue_response(resp("gone", status="in_progress"), "h:1:1", request)
    assert await store.delete_response("gone")
    assert await store.claim_requeued("h:3:3", 10) == []


async def test_conversations(store: StateStore) -> None:
    conv = {"id": "c1", "object": "conversation", "created_at": 5, "metadata": {"a": "b"}}
    await store.create_conversation(conv, [msg("s1", "seed")])
    assert await store.get_conversation("c1") == conv
    assert (await store.update_conversation("c1", {"x": "y"}))["metadata"] == {"x": "y"}  # type: ignore[index]
    assert await store.update_conversation("nope", {}) is None
    await store.write_response(
        resp("r1", conv="c1"),
        inputs=[msg("i1", "q")],
        outputs=[msg("o1", "a", "assistant")],
        conversation_append=[msg("i1", "q"), msg("o1", "a", "assistant")],
    )
    assert [i["id"] for i in await store.conversation_items("c1")] == ["s1", "i1", "o1"]
    assert await store.add_conversation_items("c1", [msg("x1", "more")])
    assert not await store.add_conversation_items("nope", [msg("x2", "more")])
    page = await store.list_conversation_items("c1", limit=2, order="desc", after=None, before=None)
    assert [i["id"] for i in page.data] == ["x1", "o1"] and page.has_more
    assert (await store.get_conversation_item("c1", "i1"))["id"] == "i1"  # type: ignore[index]
    assert await store.delete_conversation_item("c1", "i1")
    assert await store.get_conversation_item("c1", "i1") is None
    assert await store.delete_conversation("c1")
    assert await store.get_conversation("c1") is None
    assert not await store.delete_conversation("c1")
    assert await store.get_items(["o1"])  # still referenced by response r1


@pytest.mark.slow
def test_processes_opening_a_fresh_database_together_never_fail() -> None:
    """Both doors of `up` open a new data dir at once: 100 rounds of three processes, zero failures
    (before the open lock: `database is locked` at `PRAGMA journal_mode=WAL` in a few rounds)."""
    out = subprocess.run(
        [sys.executable, "-m", "tests.support.open_race", "--rounds", "100"],
        cwd=Path(__file__).resolve().parent.parent.parent,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    assert out.strip().splitlines()[-1] == "failed 0 of 100", out


async def test_a_deleted_response_is_not_brought_back_by_its_run(store: StateStore) -> None:
    await store.write_response(resp("gone", status="in_progress"), inputs=[msg("g1", "hi")], owner="h:1:run")
    assert await store.delete_response("gone")
    with pytest.raises(ResponseGone):
        await store.write_response(resp("gone"), outputs=[msg("g2", "late", "assistant")], owner="h:1:run")
    assert await store.get_response("gone") is None


async def test_relayed_events_until_the_terminal_write(store: StateStore) -> None:
    """A background response's events appended in batches are read after any sequence number; the
    terminal write (with the whole stream) replaces them; a delete removes them."""
    await store.write_response(resp("resp_r", status="in_progress"), inputs=[msg("m_r", "hi")])
    ev = [{"type": "response.output_text.delta", "sequence_number": n, "delta": str(n)} for n in range(1, 8)]
    await store.append_response_events("resp_r", ev[:3])
    await store.append_response_events("resp_r", ev[3:5])
    assert [e["sequence_number"] for e in await store.response_events_after("resp_r", 0)] == [1, 2, 3, 4, 5]
    assert [e["sequence_number"] for e in await store.response_events_after("resp_r", 3)] == [4, 5]
    await store.write_response(resp("resp_r"), outputs=[], events=ev)
    assert await store.response_events_after("resp_r", 0) == []
    assert [e["sequence_number"] for e in await store.get_response_events("resp_r") or []] == list(range(1, 8))
    await store.write_response(resp("resp_s", status="in_progress"), inputs=[msg("m_s", "hi")])
    await store.append_response_events("resp_s", ev[:2])
    assert await store.delete_response("resp_s")
    assert await store.response_events_after("resp_s", 0) == []
