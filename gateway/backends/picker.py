"""Which replica of a pool serves a call (#27): one policy, cheap enough to run per request.

1. *Affinity.* A call that continues a chain carries a key (the conversation, `prompt_cache_key`, or
   the chain's first item: see `gateway.engine.runner.affinity_key`). Keys sit on a consistent-hash
   ring of the pool's replicas, so every process of every gateway replica that sees the same pool
   sends a chain to the same replica, whose prefix (KV) cache holds the chain's history, with nothing
   stored or shared between them. A replica that is down, or over the load bound, is passed over for
   the next one on the ring: the chain moves once (to the same next replica everywhere), not every
   turn, and comes back when the replica does.
2. *Bounded load* (consistent hashing with bounded loads): a replica is over the bound when its
   load would exceed `bound` x the pool's mean (counting this call) while work waits in its queue
   (its vLLM `/metrics` say so; unknown, while calls of this process are in flight there), so
   light traffic never moves a chain. A replica's load is the larger of this process's calls in
   flight there and the running + waiting sequences it reports (other gateway processes send it
   work too); reports older than a few seconds are not used.
3. *Load.* A call without a key goes to the healthy replica with the least load, ties taken in turn.
4. *Health.* A replica that refused or dropped a connection before its reply is marked down for a
   while (`down_for`); the client retries the call on another replica, and probes the down one
   (`/health`) to bring it back sooner.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from hashlib import blake2b
from itertools import count
from typing import Protocol

from gateway import metrics

POINTS_PER_REPLICA = 64  # ring points per replica: keys spread within a few percent of even


class Candidate(Protocol):
    name: str
    in_flight: int  # this process's calls open on it now
    down_until: float
    waiting: int | None  # the replica's own queue (vLLM /metrics), None when unknown or stale
    running: int  # the replica's own running sequences (0 when unknown)
    kv_cache: float  # the replica's KV-cache use, 0..1 (0 when unknown): breaks ties between equal loads


def _hash(text: str) -> int:
    return int.from_bytes(blake2b(text.encode(), digest_size=8).digest(), "big")


def load(r: Candidate) -> int:
    """What a replica has on its hands: this process's calls, or what it reports, whichever is more
    (other gateway processes send it work too)."""
    return max(r.in_flight, r.running + r.waiting) if r.waiting is not None else r.in_flight


@dataclass
class Ring:
    """The consistent-hash ring of a replica set: the same replicas give the same ring in every process."""

    names: tuple[str, ...]
    points: list[int] = field(default_factory=list)
    orders: list[tuple[int, ...]] = field(default_factory=list)

    def __post_init__(self) -> None:
        pairs = sorted(
            (_hash(f"{name}#{i}"), k) for k, name in enumerate(self.names) for i in range(POINTS_PER_REPLICA)
        )
        self.points = [p for p, _ in pairs]
        owners = [k for _, k in pairs]
        n, total = len(self.names), len(owners)
        # from every point, the replicas in ring order, each once: made here, so a pick only looks up
        for start in range(total):
            seen: list[int] = []
            for step in range(total):
                k = owners[(start + step) % total]
                if k not in seen:
                    seen.append(k)
                    if len(seen) == n:
                        break
            self.orders.append(tuple(seen))

    def walk(self, key: str) -> tuple[int, ...]:
        """The replicas' indices in ring order from `key`'s point, each once."""
        return self.orders[bisect.bisect(self.points, _hash(key)) % len(self.points)]


class Picker:
    """The policy above for one pool's replicas (the client keeps one per pool)."""

    def __init__(self, bound: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.bound = bound
        self.clock = clock  # a simulator's (bench/bench_fleet.py) runs the same policy in virtual time
        self._ring: Ring | None = None
        self._turn = count()

    def ring(self, replicas: Sequence[Candidate]) -> Ring:
        ring = self._ring
        if (
            ring is None
            or len(ring.names) != len(replicas)
            or any(a != r.name for a, r in zip(ring.names, replicas, strict=True))
        ):
            ring = self._ring = Ring(tuple(r.name for r in replicas))
        return ring

    def pick(self, replicas: Sequence[Candidate], key: str | None, tried: Sequence[Candidate] = ()) -> Candidate:
        """The replica for one call; `tried` are the ones this call failed on already."""
        now = self.clock()
        if key is None or len(replicas) == 1:
            return self._least_loaded(replicas, tried, now)
        total = 0
        for r in replicas:
            total += load(r)
        limit = self.bound * (total + 1) / len(replicas)
        order = self.ring(replicas).walk(key)
        for k in order:
            r = replicas[k]
            if r.down_until > now or (tried and r in tried):
                continue
            # over the bound: only with work waiting (known), or else with calls of ours in flight
            busy = r.waiting > 0 if r.waiting is not None else r.in_flight > 0
            if not busy or load(r) + 1 <= limit:
                metrics.backend_affinity(r.name, k == order[0])
                return r
        chosen = self._least_loaded(replicas, tried, now)  # every replica down or over the bound
        metrics.backend_affinity(chosen.name, False)
        return chosen

    def _least_loaded(self, replicas: Sequence[Candidate], tried: Sequence[Candidate], now: float) -> Candidate:
        up = [r for r in replicas if r.down_until <= now and r not in tried]
        if not up:  # all down (or tried): try the untried anyway, else any; the call then fails
            up = [r for r in replicas if r not in tried] or list(replicas)
        if len(up) == 1:
            return up[0]
        loads = [load(r) + r.kv_cache for r in up]
        low = min(loads)
        lightest = [r for r, n in zip(up, loads, strict=True) if n == low]
        return lightest[next(self._turn) % len(lightest)]
