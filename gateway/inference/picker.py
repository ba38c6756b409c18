"""Which replica of a pool serves a call (#27): one policy, cheap enough to run per request.

1. *Affinity.* A call that continues a chain (`previous_response_id`, a conversation or a
   `prompt_cache_key`) goes to the replica that served the chain's last turn, whose prefix (KV)
   cache holds its history: that replica is stored with the chain (`Affinity.stored`, read by the
   engine with the history; see `storage/sqlite/replicas.py`), so every process of every gateway replica
   and both doors agree. While it is up and within the load bound, the chain stays there. Else,
   and for a chain nothing was stored for yet, the chain's key (`gateway.engine.run_lifecycle.affinity_key`)
   on a consistent-hash ring of the pool's replicas names the place: the same in every process. The
   replica that served (`Affinity.served`) is stored when it differs, so a chain moves once and
   then stays on its new replica; it does not bounce back when the load falls.
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

from gateway.telemetry import metrics

POINTS_PER_REPLICA = 64  # ring points per replica: keys spread within a few percent of even


@dataclass
class Affinity:
    """A call's chain, as the picker sees it: the key that places it by hashing, the replica stored
    for it (`pool/host:port`, None: nothing stored yet), and the replica that served this call (set
    by whoever picked: the client, or the ExtProc with what Envoy reached)."""

    key: str | None
    stored: str | None = None
    served: str | None = None

    def preferred(self, pool: str) -> str | None:
        """The stored replica's name when it belongs to `pool`."""
        stored = self.stored
        if stored is None or not stored.startswith(pool) or stored[len(pool) : len(pool) + 1] != "/":
            return None
        return stored[len(pool) + 1 :]


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
    index: dict[str, int] = field(default_factory=dict)  # name -> position (a stored replica's lookup)

    def __post_init__(self) -> None:
        pairs = sorted(
            (_hash(f"{name}#{i}"), k) for k, name in enumerate(self.names) for i in range(POINTS_PER_REPLICA)
        )
        self.index = {name: k for k, name in enumerate(self.names)}
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

    def pick(
        self,
        replicas: Sequence[Candidate],
        key: str | None,
        tried: Sequence[Candidate] = (),
        preferred: str | None = None,
    ) -> Candidate:
        """The replica for one call: `preferred` (the chain's stored replica) while it fits, else
        `key`'s place on the ring; `tried` are the ones this call failed on already."""
        now = self.clock()
        if (key is None and preferred is None) or len(replicas) == 1:
            return self._least_loaded(replicas, tried, now)
        total = 0
        for r in replicas:
            total += load(r)
        limit = self.bound * (total + 1) / len(replicas)
        ring = self.ring(replicas)
        if preferred is not None:
            k = ring.index.get(preferred, -1)
            if k >= 0 and self._fits(replicas[k], now, tried, limit):
                metrics.backend_affinity(preferred, True)
                return replicas[k]
        if key is not None:
            order = ring.walk(key)
            for k in order:
                r = replicas[k]
                if r.name != preferred and self._fits(r, now, tried, limit):
                    metrics.backend_affinity(r.name, preferred is None and k == order[0])
                    return r
        chosen = self._least_loaded(replicas, tried, now)  # every replica down or over the bound
        metrics.backend_affinity(chosen.name, False)
        return chosen

    @staticmethod
    def _fits(r: Candidate, now: float, tried: Sequence[Candidate], limit: float) -> bool:
        """Up, untried, and within the load bound: over it only with work waiting (known), or else
        with calls of ours in flight."""
        if r.down_until > now or (tried and r in tried):
            return False
        busy = r.waiting > 0 if r.waiting is not None else r.in_flight > 0
        return not busy or load(r) + 1 <= limit

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
