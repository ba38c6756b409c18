"""A fleet's stored `prompt_cache_key` affinity is pruned by age (#27's leftover), off the request path.

Before: a row per (project, cache key) was kept forever (nothing else deletes a client's string).
Now every process deletes, on its lease sweep's beat, the rows last written more than
`GATEWAY_CACHE_KEY_AFFINITY_SECONDS` ago; a key seen again is placed and stored afresh. Here the
horizon is 2 s and the lease 1 s (a sweep every 0.5 s), so the prune is seen within seconds; the row
is read from the gateway's own SQLite file.
"""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import ExitStack
from pathlib import Path

import httpx2 as httpx  # the HTTP client the openai SDK ships with
import pytest

from gateway.engine.affinity_upkeep import AffinityPruner
from gateway.engine.leases import LeaseKeeper
from storage.sqlite.conn import sqlite3
from tests.support.procs import Gateway, gateway, scripted_backend
from tests.support.stores import built_store

pytestmark = pytest.mark.slow
CHAT = "chat-model"


def _rows(db: Path) -> dict[str, float]:
    with sqlite3.connect(db) as c:
        return dict(c.execute("SELECT cache_key, updated_at FROM cache_key_replicas").fetchall())


def _until(check: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _fleet_gateway(ctx: ExitStack, tmp_path: Path) -> Gateway:
    """A gateway in front of two replicas, with a 2 s affinity horizon and a 1 s lease (a sweep
    every 0.5 s), its SQLite file in `tmp_path`."""
    fleet = [ctx.enter_context(scripted_backend(CHAT)) for _ in range(2)]
    env = {
        "GATEWAY_BACKENDS": json.dumps([{"name": "chat", "urls": [b.url for b in fleet], "models": [CHAT]}]),
        "GATEWAY_CACHE_KEY_AFFINITY_SECONDS": "2",
        "GATEWAY_RUN_LEASE_SECONDS": "1",
    }
    return ctx.enter_context(gateway(fleet[0].url, tmp_path, **env))


def test_cache_key_affinity_is_pruned_after_its_horizon(tmp_path: Path) -> None:
    with ExitStack() as ctx:
        gw = _fleet_gateway(ctx, tmp_path)
        db = tmp_path / "gateway.db"

        def turn(key: str) -> None:
            body = {"model": CHAT, "input": f"hello {key}", "prompt_cache_key": key}
            r = httpx.post(f"{gw.url}/responses", json=body, timeout=30)
            assert r.status_code == 200 and r.json()["status"] == "completed", r.text

        turn("kept-a-while")
        assert "kept-a-while" in _rows(db)  # stored with the key's first turn
        time.sleep(1.0)
        assert "kept-a-while" in _rows(db)  # younger than the horizon: kept
        assert _until(lambda: "kept-a-while" not in _rows(db), 6), _rows(db)  # older: pruned
        turn("kept-a-while")  # seen again: placed and stored afresh
        assert "kept-a-while" in _rows(db)


def test_a_key_in_steady_use_keeps_its_affinity_past_the_horizon(tmp_path: Path) -> None:
    """A key whose replica never changes writes no row on its turns; its row's age restarts when a
    turn reads it past half the horizon, so turns every 0.4 s for twice the 2 s horizon never find
    it pruned (before: pruned after the horizon and placed afresh on its next turn)."""
    with ExitStack() as ctx:
        gw = _fleet_gateway(ctx, tmp_path)
        db = tmp_path / "gateway.db"
        body = {"model": CHAT, "input": "hello", "prompt_cache_key": "steady"}
        r = httpx.post(f"{gw.url}/responses", json=body, timeout=30)
        assert r.status_code == 200, r.text
        first = _rows(db)["steady"]
        until = time.monotonic() + 4.0
        while time.monotonic() < until:
            time.sleep(0.4)
            assert "steady" in _rows(db)  # not pruned since the last turn
            r = httpx.post(f"{gw.url}/responses", json=body, timeout=30)
            assert r.status_code == 200, r.text
        assert _rows(db)["steady"] > first + 1.0  # its age restarted


async def test_a_long_prune_never_holds_lease_renewal(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """An upgraded deployment's first prune may be a thousand batches: the lease keeper's beat only
    starts it, and keeps renewing leases (every lease/3 s) while it runs; a prune still running is
    not started again. Here the prune is held until released (a stand-in for a million rows)."""
    store = await built_store("sqlite", tmp_path, request)
    release = asyncio.Event()
    prunes = renewals = 0

    async def held_prune(before: float) -> int:
        nonlocal prunes
        prunes += 1
        await release.wait()
        return 0

    real_renew = store.renew_leases

    async def counted_renew(owner: str) -> int:
        nonlocal renewals
        renewals += 1
        return int(await real_renew(owner))

    store.prune_cache_keys = held_prune
    store.renew_leases = counted_renew
    pruner = AffinityPruner(store, horizon_seconds=0.2)  # a prune due every 0.1 s
    keeper = LeaseKeeper(store, "owner-1", 0.3, on_sweep=pruner.maybe_prune)  # renewed every 0.1 s
    keeper.start()
    try:
        await asyncio.sleep(1.0)
        assert renewals >= 5, renewals  # the beat went on while the prune ran
        assert prunes == 1  # never two at once
        release.set()
        await asyncio.sleep(0.4)
        assert prunes >= 2  # done: due again on a later beat
    finally:
        release.set()
        await keeper.stop()
        await pruner.stop()
        await store.close()
