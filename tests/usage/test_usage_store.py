"""The usage ledger and shared rate windows (#30): the same cases on SQLite and PostgreSQL, plus the
recorder (batches off the request path, nothing lost on a clean stop) and the shared limiter's leases
over the real store."""

from __future__ import annotations

import asyncio
from typing import Any

from gateway.usage.limiter import SharedLimiter
from gateway.usage.recorder import Recorder
from storage.bundle import Stores
from storage.usage import UsageQuery, UsageRecord

DAY = 86400
T0 = 1_767_225_600  # 2026-01-01T00:00:00Z


def rec(
    at: float, project: str = "p1", model: str = "m1", key: str = "", inp: int = 10, out: int = 5, **kw: Any
) -> UsageRecord:
    fields: dict[str, Any] = {
        "kind": "completions",
        "pool": "",
        "replica": "r1",
        "door": "http",
        "source": "responses",
        "cached_tokens": 0,
        "reasoning_tokens": 0,
        "requests": 1,
        "estimated": False,
        **kw,
    }
    return UsageRecord(
        at=at, project=project, api_key_id=key, model=model, input_tokens=inp, output_tokens=out, **fields
    )


async def test_rollups_answer_buckets_by_group(stores: Stores) -> None:
    ledger = stores.usage
    await ledger.write(
        [
            rec(T0 + 5, inp=10, out=1, cached_tokens=4),
            rec(T0 + 65, inp=20, out=2, key="key_a"),
            rec(T0 + 3600 * 5, project="p2", inp=30, out=3),
            rec(T0 + DAY + 1, model="m2", inp=40, out=4, reasoning_tokens=2),
            rec(T0 + DAY + 2, kind="embeddings", inp=7, out=0),
        ]
    )
    await ledger.write([rec(T0 + 6, inp=1, out=1, estimated=True)])  # adds to an existing bucket row
    days = await ledger.buckets(UsageQuery("completions", T0, T0 + 2 * DAY, DAY))
    assert days == [(T0, 61, 4, 7, 0, 4, 1), (T0 + DAY, 40, 0, 4, 2, 1, 0)]
    grouped = await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, DAY, group_by=("project", "api_key_id")))
    assert grouped == [
        (T0, "p1", "", 11, 4, 2, 0, 2, 1),
        (T0, "p1", "key_a", 20, 0, 2, 0, 1, 0),
        (T0, "p2", "", 30, 0, 3, 0, 1, 0),
    ]
    hours = await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, 3600))
    assert [(r[0], r[1]) for r in hours] == [(T0, 31), (T0 + 5 * 3600, 30)]
    minutes = await ledger.buckets(UsageQuery("completions", T0, T0 + 120, 60, projects=("p1",)))
    assert [(r[0], r[1]) for r in minutes] == [(T0, 11), (T0 + 60, 20)]
    only = await ledger.buckets(UsageQuery("embeddings", T0, T0 + 2 * DAY, DAY, models=("m1",)))
    assert only == [(T0 + DAY, 7, 0, 0, 0, 1, 0)]
    every = await ledger.buckets(UsageQuery("*", T0, T0 + 2 * DAY, DAY, group_by=("model",)))
    assert [(r[0], r[1], r[2]) for r in every] == [(T0, "m1", 61), (T0 + DAY, "m1", 7), (T0 + DAY, "m2", 40)]
    spent = sorted(await ledger.spent("p1", T0))
    assert spent == [("m1", 38, 4, 4), ("m2", 40, 0, 4)]
    await ledger.prune(T0 + DAY, T0 + DAY, 0)  # raw rows and minute buckets go; hours stay
    assert await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, 60)) == []
    assert (await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, DAY)))[0][1] == 61


async def test_recorder_writes_batches_and_everything_on_stop(stores: Stores) -> None:
    ledger = stores.usage
    recorder = Recorder(ledger, flush_seconds=0.05)
    seen: list[UsageRecord] = []
    recorder.listeners.append(seen.append)
    for i in range(3):
        recorder.add(rec(T0 + i))
    assert recorder.queue and not await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, DAY))
    for _ in range(100):  # written by the task, off the caller's path
        await asyncio.sleep(0.02)
        if await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, DAY)):
            break
    assert (await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, DAY)))[0][5] == 3
    recorder.flush_seconds = 3600.0
    await asyncio.sleep(0.1)  # the task now waits an hour
    for i in range(4):
        recorder.add(rec(T0 + 10 + i))
    await recorder.stop()  # a clean stop writes what is queued
    assert (await ledger.buckets(UsageQuery("completions", T0, T0 + DAY, DAY)))[0][5] == 7
    assert len(seen) == 7


async def test_leases_never_hand_out_more_than_the_limit(stores: Stores) -> None:
    ledger = stores.usage
    limiters = [SharedLimiter(ledger) for _ in range(4)]  # four processes' worth of leases
    verdicts = await asyncio.gather(*(limiters[i % 4].acquire("project:p", "requests", 50) for i in range(80)))
    assert sum(v.ok for v in verdicts) <= 50
    for limiter in limiters:  # unspent leases go back; then the rest of the window can be had
        await limiter.sync(everything=True)
    more = [await limiters[i % 4].acquire("project:p", "requests", 50) for i in range(80)]
    assert sum(v.ok for v in verdicts) + sum(v.ok for v in more) == 50
    refused = more[-1]
    assert not refused.ok and refused.remaining == 0 and 0 < refused.reset <= 60
    for limiter in limiters:
        await limiter.stop()


async def test_a_lease_is_never_counted_twice(stores: Stores) -> None:
    """Units a process holds are spent before it leases more, never counted again (tokens: need > 1)."""
    limiter = SharedLimiter(stores.usage)
    assert (await limiter.acquire("project:t", "tokens", 100, 1)).ok  # leases 1 + 6
    assert (await limiter.acquire("project:t", "tokens", 100, 89)).ok  # the 6 held, 83 more: 90 taken
    assert not (await limiter.acquire("project:t", "tokens", 100, 11)).ok  # 10 left
    assert (await limiter.acquire("project:t", "tokens", 100, 10)).ok
    await limiter.stop()
