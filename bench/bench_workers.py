"""Throughput with 1 and with N workers per door (`GATEWAY_WORKERS`).

    .venv/bin/python -m bench.bench_workers [--workers 2] [--rounds 3] [--duration 8] [--clients 32]
                                           [--door http|envoy|both] [--out PATH]

For each door and each round, the stack is started with 1 worker and then with N (alternating, so
drift on a shared machine hits both), and a closed loop of `--clients` connections sends
non-streamed `POST /v1/responses` (store=true) for `--duration` seconds after a warm-up:

- door `http`: straight to the HTTP server (N processes on one port, SO_REUSEPORT);
- door `envoy`: through Envoy, so the ExtProc answers (N ExtProc processes behind Envoy's cluster)
  and the HTTP server serves nothing on this path.

The scripted vLLM stand-in, Envoy and the load generator (this process) share the machine's cores
with the gateway, so the gain is bounded by what they leave free. Printed: requests/s per round,
the median and the range over rounds, the ratio N/1 per round and its median, the CPU the rest of
the machine used meanwhile (other people's work makes the figures noisy). Writes
bench/results/workers.json. The target (≥ 1.6x on 2 cores) is reported, not enforced.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.loadgen import Generator, Target
from bench.measure import CpuWatch, cpu_seconds, descendants
from tests.support.procs import Backend, gateway, scripted_backend
from tests.support.stack import envoy_stack

MODEL = "scripted-model"
RESULTS = Path(__file__).resolve().parent / "results" / "workers.json"
TARGET_RATIO = 1.6


@contextmanager
def door_url(door: str, backend: Backend, data: Path, workers: int) -> Iterator[tuple[str, int, list[int]]]:
    """(host, port, pids to watch) of a fresh stack with ``workers`` processes per door."""
    if door == "http":
        with gateway(backend.url, data, GATEWAY_WORKERS=str(workers), GATEWAY_LOG_LEVEL="WARNING") as gw:
            yield "127.0.0.1", gw.port, [gw.proc.pid]
    else:
        with envoy_stack(backend.url, data, GATEWAY_WORKERS=str(workers), GATEWAY_LOG_LEVEL="WARNING") as stack:
            yield "127.0.0.1", stack.envoy_port, [stack.extproc.pid, stack.http.proc.pid, stack.envoy.pid]


async def measure(host: str, port: int, clients: int, warmup: float, duration: float) -> dict[str, Any]:
    target = Target(
        "create",
        host,
        port,
        "/v1/responses",
        {"model": MODEL, "input": "Say something short.", "store": True},
    )
    async with Generator("raw") as gen:
        result = await gen.closed_loop(target, clients, warmup, duration)
    seconds = result["window_end"] - result["window_start"]
    return {
        "rps": result["completed"] / seconds,
        "failed": result["failed"],
        "completed": result["completed"],
        "all_completed": result["all_completed"],
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    doors = ["http", "envoy"] if args.door == "both" else [args.door]
    out: dict[str, Any] = {
        "cores": len(os.sched_getaffinity(0)),
        "workers": args.workers,
        "clients": args.clients,
        "duration_s": args.duration,
        "rounds": args.rounds,
        "doors": {},
    }
    with scripted_backend(MODEL) as backend, tempfile.TemporaryDirectory() as tmp:
        for door in doors:
            rows: dict[int, list[float]] = {1: [], args.workers: []}
            other: list[float] = []
            stack_cores_one: list[float] = []
            gw_ms: dict[int, list[float]] = {1: [], args.workers: []}
            for r in range(args.rounds):
                for w in (1, args.workers):
                    data = Path(tmp) / f"{door}-{r}-{w}"
                    with door_url(door, backend, data, w) as (host, port, pids):
                        time.sleep(0.5)  # let start-up work (model list, recovery) settle
                        gateway_pids = [p for p in descendants(pids) if p != backend.proc.pid]
                        watch = CpuWatch([backend.proc.pid, *gateway_pids])
                        watch.start()
                        g0 = sum(cpu_seconds(p) for p in gateway_pids)
                        res = asyncio.run(measure(host, port, args.clients, args.warmup, args.duration))
                        cpu = watch.stop()
                        g1 = sum(cpu_seconds(p) for p in gateway_pids)
                    # gateway CPU (every door process, Envoy too) per request, warm-up included
                    gw_ms[w].append(1000 * (g1 - g0) / max(1, res["all_completed"]))
                    rows[w].append(res["rps"])
                    other.append(cpu["foreign_cores"])
                    if w == 1:
                        stack_cores_one.append(cpu["ours_cores"])
                    print(
                        f"{door:6s} round {r + 1}: {w} worker(s) {res['rps']:7.1f} req/s "
                        f"({res['failed']} failed; the stack used {cpu['ours_cores']:.2f} cores, "
                        f"other processes {cpu['foreign_cores']:.2f})",
                        flush=True,
                    )
            ratios = [n / one for one, n in zip(rows[1], rows[args.workers], strict=True) if one > 0]
            out["doors"][door] = {
                "rps": {str(w): v for w, v in rows.items()},
                "median_rps": {str(w): statistics.median(v) for w, v in rows.items()},
                "range_rps": {str(w): [min(v), max(v)] for w, v in rows.items()},
                "ratios": ratios,
                "median_ratio": statistics.median(ratios) if ratios else None,
                "gateway_cpu_ms_per_request": {str(w): v for w, v in gw_ms.items()},
                "other_cores_mean": statistics.fmean(other) if other else None,
                # With 1 worker the stack (gateway + backend + Envoy + generator) used this many
                # cores; with the machine's cores all busy, N workers can give at most cores / that.
                "ceiling_ratio": out["cores"] / statistics.median(stack_cores_one) if stack_cores_one else None,
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--door", choices=["http", "envoy", "both"], default="both")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    result = run(args)
    print()
    for door, d in result["doors"].items():
        one, n = d["median_rps"]["1"], d["median_rps"][str(args.workers)]
        lo1, hi1 = d["range_rps"]["1"]
        lon, hin = d["range_rps"][str(args.workers)]
        ratio = d["median_ratio"]
        cpu_ms = {w: statistics.median(v) for w, v in d["gateway_cpu_ms_per_request"].items()}
        verdict = "PASS" if ratio is not None and ratio >= TARGET_RATIO else "MISS"
        print(
            f"{door:6s} 1 worker {one:.0f} req/s [{lo1:.0f}-{hi1:.0f}]  {args.workers} workers {n:.0f} req/s "
            f"[{lon:.0f}-{hin:.0f}]  ratio median {ratio:.2f}x (rounds {', '.join(f'{x:.2f}' for x in d['ratios'])})"
            f"  target >= {TARGET_RATIO}x: {verdict}\n"
            f"       ceiling on this machine (its cores / cores the 1-worker stack used): {d['ceiling_ratio']:.2f}x; "
            f"other processes used {d['other_cores_mean']:.2f} cores on average\n"
            f"       gateway CPU per request: 1 worker {cpu_ms['1']:.3f} ms, {args.workers} workers "
            f"{cpu_ms[str(args.workers)]:.3f} ms (equal = workers scale freely)"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
