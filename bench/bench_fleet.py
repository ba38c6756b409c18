"""Fleet simulator (#27): the gateway's replica picker against round-robin and least-load.

A discrete-event simulation in virtual time of K stand-in replicas, each with `slots` concurrent
sequences, a FIFO queue and a prefix cache (an LRU of 16-token blocks of settable capacity): a
request's time to first token is its queueing plus the prefill of its *uncached* prompt tokens, then
paced decoding; `cached_tokens` is reported as vLLM's `usage.prompt_tokens_details.cached_tokens`.
The workload is multi-turn agent traffic: conversations arrive at random, each a system prompt plus
turns that add a user message or tool result and the model's reply, with think time between turns,
so the context grows. Offered load is a share of the fleet's capacity (slots / the service time of
a turn whose history is cached).

The pickers are the gateway's own `gateway.inference.picker.Picker` (affinity by the chain's key with
bounded load; least-load when given no key) driven by a virtual clock, round-robin, and an oracle
(unbounded affinity: a chain never leaves its replica). A replica is killed mid-run and brought
back: requests queued on it that had not started are re-picked elsewhere (the gateway's retry before
the first byte), those decoding fail.

Why a simulation and not the doors: on the 2 shared cores of the benchmark host, K real replicas,
a load generator and the doors would measure the machine; the policy's effect on prefix-cache hits
and queueing is what this isolates. Picking cost is measured for real, on the same Picker.

    .venv/bin/python -m bench.bench_fleet [--replicas 4 --seconds 300 --seed 1]
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import random
import statistics
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from gateway.inference.picker import Picker

BLOCK = 16


@dataclass
class Params:
    replicas: int = 4
    slots: int = 16  # sequences a replica runs at once
    cache_tokens: int = 100_000  # prefix cache per replica
    prefill_ms_per_token: float = 0.25
    decode_ms_per_token: float = 20.0
    system_tokens: int = 1500
    turn_tokens: int = 150  # user message or tool result per turn
    output_tokens: int = 100
    turns: int = 12
    think_s: float = 1.0
    seconds: float = 300.0
    warmup: float = 60.0
    kill_at: float = 150.0  # replica 0 dies then, and comes back `down_for` later
    down_for: float = 20.0
    probe_s: float = 1.0  # the gateway's /health probe interval (a replica is back within it)


@dataclass(eq=False)
class Replica:
    name: str
    in_flight: int = 0
    down_until: float = 0.0
    alive: bool = True
    running: int = 0  # sequences running (what its vLLM /metrics would say)
    waiting: int | None = 0  # its queue's length (likewise)
    kv_cache: float = 0.0
    queue: deque[Any] = field(default_factory=deque)
    cache: OrderedDict[tuple[int, int], None] = field(default_factory=OrderedDict)


@dataclass
class Request:
    conv: int
    turn: int
    prompt: int
    sent: float
    replica: Replica | None = None
    started: bool = False


class Sim:
    def __init__(self, p: Params, policy: str, load: float, seed: int) -> None:
        self.p, self.policy, self.load = p, policy, load
        self.rng = random.Random(seed)
        self.now = 0.0
        self.events: list[tuple[float, int, str, Any]] = []
        self.seq = itertools.count()
        self.replicas = [Replica(f"r{i}") for i in range(p.replicas)]
        self.picker = Picker(2.0, clock=lambda: self.now)  # GATEWAY_BACKEND_LOAD_BOUND's default
        self.oracle = Picker(1e9, clock=lambda: self.now)
        self.stored: dict[int, str] = {}  # conversation -> the replica stored for it (the gateway's policy)
        self.rr = itertools.count()
        self.home: dict[int, Replica] = {}
        self.capacity_blocks = p.cache_tokens // BLOCK
        self.ttft: list[float] = []
        self.prompt_tokens = self.cached_tokens = self.out_tokens = 0
        self.failed_unstarted = self.failed_started = 0
        self.moves: dict[int, set[str]] = {}
        self.back_at: float | None = None
        self.first_after_back: float | None = None

    def at(self, t: float, kind: str, data: Any = None) -> None:
        heapq.heappush(self.events, (t, next(self.seq), kind, data))

    def service_cached(self) -> float:
        """A turn's service time when its history is cached: the capacity's yardstick."""
        p = self.p
        return (p.turn_tokens * p.prefill_ms_per_token + p.output_tokens * p.decode_ms_per_token) / 1000

    def run(self) -> dict[str, float]:
        p = self.p
        request_rate = self.load * p.replicas * p.slots / self.service_cached()
        conv_rate = request_rate / p.turns
        t, conv = 0.0, 0
        while t < p.seconds:
            t += self.rng.expovariate(conv_rate)
            self.at(t, "turn", (conv, 0))
            conv += 1
        self.at(p.kill_at, "kill")
        self.at(p.kill_at + p.down_for, "revive")
        while self.events:
            self.now, _, kind, data = heapq.heappop(self.events)
            if self.now > p.seconds:
                break
            getattr(self, "on_" + kind)(data)
        window = p.seconds - p.warmup
        return {
            "cached": self.cached_tokens / max(1, self.prompt_tokens),
            "ttft_p50": statistics.median(self.ttft),
            "ttft_p90": statistics.quantiles(self.ttft, n=10)[-1],
            "tokens_s": self.out_tokens / window,
            "failed_unstarted": self.failed_unstarted,
            "failed_started": self.failed_started,
            "moved_more_than_once": sum(1 for s in self.moves.values() if len(s) > 2),
            "back_after_s": (self.first_after_back - self.back_at)
            if self.first_after_back is not None and self.back_at is not None
            else float("nan"),
        }

    # --- picking ---------------------------------------------------------------------------------
    def pick(self, req: Request, tried: list[Replica]) -> Replica:
        live = self.replicas
        if self.policy == "round-robin":
            base = next(self.rr)
            order = [live[(base + i) % len(live)] for i in range(len(live))]
            now = self.now
            return next((r for r in order if r.down_until <= now and r not in tried), order[0])
        if self.policy == "least-load":
            return self.picker.pick(live, None, tried)  # type: ignore[return-value]
        if self.policy == "oracle":
            return self.oracle.pick(live, f"chain:{req.conv}", tried)  # type: ignore[return-value]
        # the gateway's: a new chain (its first turn: no key) on the least-loaded replica, then the
        # chain's stored replica (as the engine reads it with the history), the ring as the fallback;
        # the replica that served is stored for the next turn
        key = f"chain:{req.conv}" if req.turn else None
        chosen = self.picker.pick(live, key, tried, self.stored.get(req.conv))
        self.stored[req.conv] = chosen.name
        return chosen  # type: ignore[return-value]

    # --- events ----------------------------------------------------------------------------------
    def on_turn(self, data: tuple[int, int]) -> None:
        conv, turn = data
        p = self.p
        prompt = p.system_tokens + turn * (p.turn_tokens + p.output_tokens) + p.turn_tokens
        self.send(Request(conv, turn, prompt, self.now), [])

    def send(self, req: Request, tried: list[Replica]) -> None:
        r = self.pick(req, tried)
        if not r.alive:  # refused: marked down, retried before the first byte
            r.down_until = self.now + 3600  # until the probe finds it back
            if len(tried) + 1 < len(self.replicas):
                self.send(req, [*tried, r])
            else:
                self.failed_unstarted += 1
            return
        req.replica = r
        self.moves.setdefault(req.conv, set()).add(r.name)
        if self.back_at is not None and self.first_after_back is None and r is self.replicas[0]:
            self.first_after_back = self.now
        r.in_flight += 1
        r.queue.append(req)
        self.start(r)
        r.waiting = len(r.queue)

    def start(self, r: Replica) -> None:
        p = self.p
        while r.alive and r.running < p.slots and r.queue:
            req = r.queue.popleft()
            r.running += 1
            req.started = True
            blocks = req.prompt // BLOCK
            hit = 0
            for b in range(blocks):  # the cached prefix: leading blocks present
                if (req.conv, b) not in r.cache:
                    break
                hit += 1
            cached = hit * BLOCK
            prefill = (req.prompt - cached) * p.prefill_ms_per_token / 1000
            if self.now >= p.warmup:
                self.prompt_tokens += req.prompt
                self.cached_tokens += cached
                self.ttft.append(self.now - req.sent + prefill)
            total = req.prompt + p.output_tokens
            for b in range(total // BLOCK):
                key = (req.conv, b)
                r.cache[key] = None
                r.cache.move_to_end(key)
            while len(r.cache) > self.capacity_blocks:
                r.cache.popitem(last=False)
            self.at(self.now + prefill + p.output_tokens * p.decode_ms_per_token / 1000, "done", req)
        r.waiting = len(r.queue)

    def on_done(self, req: Request) -> None:
        r = req.replica
        assert r is not None
        if not r.alive or req.replica is None:
            return  # failed with its replica
        r.running -= 1
        r.in_flight -= 1
        if self.now >= self.p.warmup:
            self.out_tokens += self.p.output_tokens
        if req.turn + 1 < self.p.turns:
            self.at(self.now + self.rng.expovariate(1 / self.p.think_s), "turn", (req.conv, req.turn + 1))
        self.start(r)

    def on_kill(self, _: Any) -> None:
        r = self.replicas[0]
        r.alive = False
        r.cache.clear()
        self.failed_started += r.running  # streaming: they end failed
        queued = list(r.queue)
        r.queue.clear()
        r.in_flight = r.running = 0
        r.down_until = self.now + 3600
        for req in queued:  # not started: retried elsewhere before the first byte
            self.send(req, [r])

    def on_revive(self, _: Any) -> None:
        r = self.replicas[0]
        r.alive = True
        self.back_at = self.now
        # the gateway's probe asks /health every probe_s: it finds the replica within one interval
        self.at(self.now + self.rng.uniform(0, self.p.probe_s), "probed")

    def on_probed(self, _: Any) -> None:
        self.replicas[0].down_until = 0.0


def picking_cost(replicas: int, n: int = 200_000) -> float:
    """µs per pick of the real Picker (a chain key, K replicas, some load)."""
    picker = Picker(1.25)
    pool = [Replica(f"10.0.0.{i}:8000") for i in range(replicas)]
    for i, r in enumerate(pool):
        r.in_flight = i % 3
    keys = [f"chain:item_{i:08d}" for i in range(1000)]
    started = time.process_time()  # CPU time: the host's other processes do not count
    stored = [pool[i % replicas].name if i % 2 else None for i in range(1000)]  # half have a stored replica
    for i in range(n):
        picker.pick(pool, keys[i % 1000], (), stored[i % 1000])  # type: ignore[arg-type]
    return (time.process_time() - started) / n * 1e6


def door_picking_cost(replicas: int, n: int = 50_000) -> tuple[float, float]:
    """µs of CPU per request for everything each door does to pick (not only the Picker): the
    HTTP door's client routes by model and picks (`BackendClient.pool_for` + `Picker.pick`) after
    the run computed the chain's key; the Envoy door's ExtProc also builds the header mutation
    naming the replica and two fallbacks (`EndpointPicker.route` + `done`)."""
    from types import SimpleNamespace

    from extproc.fleet import EndpointPicker
    from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2 as ep
    from gateway.config import BackendPool
    from gateway.engine.run_lifecycle import affinity_key
    from gateway.inference.client import BackendClient
    from gateway.inference.picker import Affinity
    from gateway.inference.replicas import Pool

    spec = BackendPool(name="chat", urls=[f"http://10.0.0.{i}:8000/v1" for i in range(replicas)], models=["m"])
    client = BackendClient([Pool(spec, "sk-pool-key", 1.25)], connect_timeout=5, read_timeout=300)
    client.pools.append(Pool(BackendPool(name="embed", urls=["http://10.0.1.1:8000/v1"], models=["e"]), None, 1.25))
    prepared = [
        SimpleNamespace(
            req=SimpleNamespace(prompt_cache_key=None),
            conversation_id=None,
            history=[{"id": f"msg_{i:024x}"}],
            inputs=[],
            response={"model": "m"},
            # half the chains have a stored replica (read with their history), half are placed by hash
            replica=f"chat/10.0.0.{i % replicas}:8000" if i % 2 else None,
        )
        for i in range(1000)
    ]
    started = time.process_time()
    for i in range(n):
        p = prepared[i % 1000]
        chain = Affinity(affinity_key(p), p.replica)  # type: ignore[arg-type]
        pool = client.pool_for("m")
        pool.picker.pick(pool.replicas, chain.key, (), chain.preferred(pool.name))
    http = (time.process_time() - started) / n * 1e6
    picker = EndpointPicker(client, ep.HeaderMutation(remove_headers=["authorization"]))
    started = time.process_time()
    for i in range(n):
        p = prepared[i % 1000]
        pool_ = picker.pool("m")
        assert pool_ is not None
        _mutation, named = picker.route(pool_, Affinity(affinity_key(p), p.replica))  # type: ignore[arg-type]
        picker.done(named[0])
    envoy = (time.process_time() - started) / n * 1e6
    return http, envoy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--replicas", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=300.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    p = Params(replicas=args.replicas, seconds=args.seconds, kill_at=args.seconds / 2)
    print(
        f"fleet: {p.replicas} replicas x {p.slots} slots, prefix cache {p.cache_tokens} tokens each; "
        f"{p.turns}-turn conversations, context {p.system_tokens}+{p.turn_tokens + p.output_tokens}/turn; "
        f"{p.seconds:.0f} s virtual, replica r0 killed at {p.kill_at:.0f} s for {p.down_for:.0f} s"
    )
    header = (
        f"{'load':>5} {'policy':<12} {'cached':>7} {'TTFT p50':>9} {'TTFT p90':>9} {'tok/s':>7} "
        f"{'fail<1st':>8} {'fail>1st':>8} {'moved>1':>7} {'back s':>6}"
    )
    results: dict[tuple[float, str], dict[str, float]] = {}
    for load in (0.5, 0.9):
        print(header)
        for policy in ("oracle", "affinity", "round-robin", "least-load"):
            r = results[(load, policy)] = Sim(p, policy, load, args.seed).run()
            print(
                f"{load:>5.0%} {policy:<12} {r['cached']:>7.1%} {r['ttft_p50']:>8.2f}s {r['ttft_p90']:>8.2f}s "
                f"{r['tokens_s']:>7.0f} {r['failed_unstarted']:>8.0f} {r['failed_started']:>8.0f} "
                f"{r['moved_more_than_once']:>7.0f} {r['back_after_s']:>6.1f}"
            )
    cost = picking_cost(8)
    print("\ntargets (#27):")
    for load in (0.5, 0.9):
        a, o, rr = results[(load, "affinity")], results[(load, "oracle")], results[(load, "round-robin")]
        share = a["cached"] / o["cached"] if o["cached"] else 0.0
        print(
            f"  {load:.0%} load: cached tokens {share:.0%} of the oracle's (target >= 90%): "
            f"{'PASS' if share >= 0.9 else 'MISS'}"
        )
    a, rr = results[(0.9, "affinity")], results[(0.9, "round-robin")]
    ratio = a["ttft_p90"] / rr["ttft_p90"]
    print(f"  90% load: TTFT p90 {ratio:.2f}x round-robin's (target <= 0.5x): {'PASS' if ratio <= 0.5 else 'MISS'}")
    print(
        f"  90% load: tokens/s {a['tokens_s']:.0f} vs round-robin {rr['tokens_s']:.0f} (target >=): "
        f"{'PASS' if a['tokens_s'] >= rr['tokens_s'] * 0.99 else 'MISS'}"
    )
    print(
        f"  replica killed: {a['failed_unstarted']:.0f} failed before streaming (target 0): "
        f"{'PASS' if a['failed_unstarted'] == 0 else 'MISS'}; back in use {a['back_after_s']:.1f} s after "
        "it returned"
    )
    print(
        f"  picking: the Picker {cost:.1f} us per request, 8 replicas (CPU; target <= 50 us): "
        f"{'PASS' if cost <= 50 else 'MISS'}"
    )
    http, envoy = door_picking_cost(8)
    for door, spent in (("HTTP door", http), ("Envoy door (ExtProc, with the header mutation)", envoy)):
        print(
            f"  picking in the {door}: {spent:.1f} us per request (target <= 50 us): "
            f"{'PASS' if spent <= 50 else 'MISS'}"
        )


if __name__ == "__main__":
    main()
