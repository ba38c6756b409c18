"""What every benchmark measures with: percentiles, CPU accounting, the two load phases, run options.

Shared by `bench.bench_gateway` and `bench.bench_envoy`, so both report latency, throughput and
CPU per request the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import resource
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from bench.loadgen import Generator, Sample, Target, percentile

CLK_TCK = os.sysconf("SC_CLK_TCK")


class Sizes(Protocol):
    """How long a run's phases are (each benchmark has a full and a `--quick` profile)."""

    warmup_requests: int
    rounds: int
    per_round: int
    tp_warmup: float
    tp_duration: float


def ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


async def timed_calls(op: Callable[[], Awaitable[Any]], n: int, unit: float = 1e3) -> list[float]:
    """Wall time of `n` awaited calls one after another, each in `unit`s of a second (ms by default):
    the growth benches time single store reads this way, where a load generator would add noise."""
    out = []
    for _ in range(n):
        started = time.perf_counter()
        await op()
        out.append((time.perf_counter() - started) * unit)
    return out


def pct(values: list[float], q: int) -> float:
    """The q-th percentile (1..99) of values; the value itself when there is only one."""
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


def stats(values: list[float]) -> dict[str, Any]:
    """Milliseconds summary of durations in seconds."""
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50": ms(percentile(values, 50)),
        "p90": ms(percentile(values, 90)),
        "p99": ms(percentile(values, 99)),
        "mean": ms(statistics.fmean(values)),
        "min": ms(min(values)),
        "max": ms(max(values)),
    }


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads)."""
    with open(f"/proc/{pid}/stat", "rb") as fh:
        fields = fh.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def descendants(roots: list[int]) -> list[int]:
    """The processes and all their children (a worker pool's workers are grandchildren)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    parent[int(entry)] = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = set(roots), list(roots)
    while frontier:
        pid = frontier.pop()
        for child, ppid in parent.items():
            if ppid == pid and child not in found:
                found.add(child)
                frontier.append(child)
    return sorted(found)


def self_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


class CpuWatch:
    """CPU used by the benchmark's own processes vs everything else on the machine (/proc/stat).

    The servers and the generator must have the CPUs to themselves; other busy processes (a test
    suite, a build) make the numbers meaningless, so their share is measured and reported.
    """

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids

    @staticmethod
    def _machine() -> tuple[float, float]:
        with open("/proc/stat", "rb") as fh:
            f = [int(x) for x in fh.readline().split()[1:]]
        busy = f[0] + f[1] + f[2] + f[5] + f[6]  # user nice system irq softirq (guest is inside user)
        steal = f[7] if len(f) > 7 else 0
        return busy / CLK_TCK, steal / CLK_TCK

    def start(self) -> None:
        self.t0 = time.monotonic()
        self.m0 = self._machine()
        self.o0 = sum(cpu_seconds(p) for p in self.pids) + self_cpu()

    def stop(self) -> dict[str, float]:
        elapsed = time.monotonic() - self.t0
        busy, steal = self._machine()
        ours = sum(cpu_seconds(p) for p in self.pids) + self_cpu() - self.o0
        return {
            "ours_cores": round(ours / elapsed, 2),
            "foreign_cores": round(max(0.0, busy - self.m0[0] - ours) / elapsed, 2),
            "steal_cores": round((steal - self.m0[1]) / elapsed, 2),
        }


def wait_quiet(limit_s: float, threshold_cores: float = 0.15, window_s: float = 3.0) -> float:
    """Wait (up to `limit_s`) until other processes use less than `threshold_cores`; return their last use."""
    watch = CpuWatch([])
    deadline = time.monotonic() + limit_s
    while True:
        watch.start()
        time.sleep(window_s)
        foreign = watch.stop()["foreign_cores"]
        if foreign < threshold_cores or time.monotonic() >= deadline:
            return foreign
        print(f"  .. machine busy (other processes: {foreign:.2f} cores); waiting", file=sys.stderr, flush=True)


def failures(samples: list[Sample]) -> int:
    return sum(1 for s in samples if not s.ok)


async def latency_interleaved(gen: Generator, kinds: list[Target], prof: Sizes) -> list[list[Sample]]:
    """Concurrency 1; the kinds take turns in rounds so drift (and other load) hits all alike."""
    clients = [gen.client(k) for k in kinds]
    for k, c in zip(kinds, clients, strict=True):
        await gen.sequential(k, prof.warmup_requests, c)
    out: list[list[Sample]] = [[] for _ in kinds]
    for _ in range(prof.rounds):
        for k, c, acc in zip(kinds, clients, out, strict=True):
            gc.collect()
            gc.disable()
            try:
                acc += await gen.sequential(k, prof.per_round, c)
            finally:
                gc.enable()
    for c in clients:
        await c.close()
    return out


async def throughput(gen: Generator, target: Target, clients: int, prof: Sizes, pids: dict[str, int]) -> dict[str, Any]:
    watch = CpuWatch(list(pids.values()))
    watch.start()
    cpu0 = {name: cpu_seconds(pid) for name, pid in pids.items()}
    me0 = self_cpu()
    res = await asyncio.wait_for(
        gen.closed_loop(target, clients, prof.tp_warmup, prof.tp_duration), prof.tp_duration + 120
    )
    me1 = self_cpu()
    cpu1 = {name: cpu_seconds(pid) for name, pid in pids.items()}
    machine = watch.stop()
    n_all = res["all_completed"]
    samples: list[Sample] = res["samples"]
    lat = [s.end - s.t0 for s in samples]
    cpu = {name: round((cpu1[name] - cpu0[name]) / n_all * 1000.0, 3) for name in pids}
    cpu["loadgen"] = round((me1 - me0) / n_all * 1000.0, 3)
    return {
        "clients": clients,
        "duration_s": prof.tp_duration,
        "completed": res["completed"],
        "failed": res["failed"],
        "rps": round(res["completed"] / prof.tp_duration, 1),
        "latency_ms": stats(lat),
        "cpu_ms_per_request": cpu,
        "machine": machine,
    }


def phase(msg: str) -> None:
    print(f"  .. {msg}", file=sys.stderr, flush=True)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def add_run_args(ap: argparse.ArgumentParser, results: Path) -> None:
    """The options every benchmark run takes: where results go, and waiting for a quiet machine."""
    ap.add_argument("--out", type=Path, default=results, help=f"JSON results (default {results})")
    ap.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="first wait up to SECONDS for other processes to leave the CPUs idle",
    )
