"""Stored affinity (#27) on every `StateStore`: the replica a chain's last turn went to, stored when
it changes and read back as the nearest one up the chain, per conversation and per
(project, prompt_cache_key); never part of an API object."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from storage import StateStore
from storage.postgres import replicas as postgres_replicas
from storage.scope import project_scope
from storage.sqlite import replicas as sqlite_replicas
from tests.storage.test_store_conformance import msg, resp
from tests.support.stores import built_store


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StateStore]:
    s: StateStore = await built_store(request.param, tmp_path, request)
    yield s
    await s.close()


async def test_a_chain_reads_the_replica_stored_nearest_up_it(store: StateStore) -> None:
    prev = None
    for n in range(5):
        await store.write_response(resp(f"r{n}", prev), inputs=[msg(f"i{n}", f"q{n}")])
        prev = f"r{n}"
    routed = await store.routed_history("r4")
    assert routed is not None and routed[1] is None  # nothing stored yet
    assert [h["id"] for h in routed[0]] == [f"i{n}" for n in range(5)]  # the same history
    await store.record_replica("chat/10.0.0.1:8000", response_id="r0")
    assert (await store.routed_history("r4"))[1] == "chat/10.0.0.1:8000"  # type: ignore[index]
    await store.record_replica("chat/10.0.0.2:8000", response_id="r2")  # the chain moved at r2
    assert (await store.routed_history("r4"))[1] == "chat/10.0.0.2:8000"  # type: ignore[index]
    assert (await store.routed_history("r1"))[1] == "chat/10.0.0.1:8000"  # type: ignore[index]
    assert await store.routed_history("missing") is None
    # internal: not in the response object, nor in its history
    got = await store.get_response("r2")
    assert got is not None and "10.0.0.2" not in str(got)


async def test_conversations_and_cache_keys_keep_their_last_replica_per_project(store: StateStore) -> None:
    with project_scope("p1"):
        await store.create_conversation({"id": "conv_1", "created_at": 1, "metadata": {}}, [])
        assert await store.conversation_replica("conv_1") == (True, None)
        await store.record_replica("chat/a:1", conversation_id="conv_1", cache_key="k")
        assert await store.conversation_replica("conv_1") == (True, "chat/a:1")
        assert await store.cache_key_replica("k") == "chat/a:1"
        await store.record_replica("chat/b:1", cache_key="k")
        assert await store.cache_key_replica("k") == "chat/b:1"
        assert await store.conversation_replica("nope") == (False, None)
        conversation = await store.get_conversation("conv_1")
        assert conversation is not None and "chat/" not in str(conversation)
    with project_scope("p2"):  # another project's key and conversation are not seen
        assert await store.cache_key_replica("k") is None
        assert await store.conversation_replica("conv_1") == (False, None)


async def test_long_and_nul_cache_keys_are_stored_by_their_digest(store: StateStore) -> None:
    """A client's key may be 10,000 characters or hold a NUL (PostgreSQL's text refuses one; a long
    primary key fails its index): stored by digest, looked up alike, distinct keys kept apart."""
    long_a, long_b, nul = "a" * 10_000, "a" * 9_999 + "b", "k\x00ey"
    with project_scope("p1"):
        await store.record_replica("chat/a:1", cache_key=long_a)
        await store.record_replica("chat/b:1", cache_key=long_b)
        await store.record_replica("chat/c:1", cache_key=nul)
        assert await store.cache_key_replica(long_a) == "chat/a:1"
        assert await store.cache_key_replica(long_b) == "chat/b:1"
        assert await store.cache_key_replica(nul) == "chat/c:1"
        assert await store.cache_key_replica("k") is None


_batches = [0]  # statements the prune sent (the last test's)


def _counted(prune: Any) -> Any:
    """`prune_cache_keys` of a backend, counting its statements (either backend's: one runs)."""

    def counted(*args: Any) -> Any:
        _batches[0] += 1
        return prune(*args)

    return counted


async def test_cache_keys_are_pruned_by_age_in_every_project(
    store: StateStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache key's row goes once it was last written before the horizon, whatever its project;
    a newer one (or one written again since) stays. Deleted in batches until none is left."""
    _batches[:] = [0]
    for backend in (sqlite_replicas, postgres_replicas):
        monkeypatch.setattr(backend, "PRUNE_BATCH", 3)  # 7 old rows: three batches (3, 3, 1)
        monkeypatch.setattr(backend, "prune_cache_keys", _counted(backend.prune_cache_keys))
    with project_scope("p1"):
        for n in range(5):
            await store.record_replica("chat/a:1", cache_key=f"old{n}")
        await store.record_replica("chat/a:1", cache_key="again")
    with project_scope("p2"):
        await store.record_replica("chat/a:1", cache_key="old0")
        await store.record_replica("chat/a:1", cache_key="old1")
    await asyncio.sleep(0.05)
    horizon = time.time()
    await asyncio.sleep(0.05)
    with project_scope("p1"):
        await store.record_replica("chat/b:1", cache_key="again")  # moved since: written after the horizon
        await store.record_replica("chat/b:1", cache_key="new")
    assert await store.prune_cache_keys(horizon) == 7
    assert _batches == [3]  # a short batch is the last: no fourth statement to find none left
    with project_scope("p1"):
        assert [await store.cache_key_replica(f"old{n}") for n in range(5)] == [None] * 5
        assert await store.cache_key_replica("again") == "chat/b:1"
        assert await store.cache_key_replica("new") == "chat/b:1"
    with project_scope("p2"):
        assert await store.cache_key_replica("old0") is None
        assert await store.cache_key_replica("old1") is None
    assert await store.prune_cache_keys(horizon) == 0


async def test_a_cache_key_read_for_routing_past_half_its_horizon_is_kept(store: StateStore) -> None:
    """A key in steady use is never placed afresh: the routing read (`refresh_before`) writes its
    age again once the row is older than that, so a prune at the old age keeps it; a read of a row
    newer than `refresh_before`, or without it, writes nothing."""
    with project_scope("p1"):
        await store.record_replica("chat/a:1", cache_key="steady")
        await store.record_replica("chat/a:1", cache_key="idle")
    await asyncio.sleep(0.05)
    half = time.time()
    await asyncio.sleep(0.05)
    with project_scope("p1"):
        assert await store.cache_key_replica("idle") == "chat/a:1"  # no refresh asked: its age stays
        assert await store.cache_key_replica("steady", half) == "chat/a:1"  # older than half: refreshed
    with project_scope("p1"):
        assert await store.cache_key_replica("steady", half) == "chat/a:1"  # now newer: nothing written
    assert await store.prune_cache_keys(half) == 1  # the idle one, last written before
    with project_scope("p1"):
        assert await store.cache_key_replica("steady") == "chat/a:1"
        assert await store.cache_key_replica("idle") is None
