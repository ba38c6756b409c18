"""The fleet's targets through each door with real stand-in replicas (#27), at a calibrated load.

K stand-in replicas (`bench/fleet_replicas.py`, one process) whose capacity is simulated time: a
serial prefill queue per replica at `--prefill` seconds per uncached prompt token, paced decoding,
an LRU prefix cache. So the fleet's capacity is known and the offered load is a share of it
(`--load`), while the doors' CPU stays a small part of the 2 shared cores (the earlier version
loaded the doors' CPU, not the replicas: its stand-in's prefill was cheap next to them).

Capacity: a turn whose history is cached prefills its new tokens (`--words` plus the previous
reply's `out_tokens`), so the fleet serves K / (that x `--prefill`) turns per second. The workload
is open-loop multi-turn agent traffic: conversations arrive at random (Poisson) at `--load` x
capacity / `--turns`, share a system prompt (instructions), and chain `--turns` streamed turns by
`previous_response_id` with random think time between them, so the context grows. Rows: the
gateway's fleet picker behind the HTTP door and behind Envoy, and through a one-backend gateway
the stand-ins' own round-robin, least-load (fewest queued + running) and oracle (unbounded
affinity: a chain always on one replica). Each row starts with empty caches. Reported: cached share
of prompt tokens, TTFT p50/p90 (turns of conversations that arrived after the first 10 %), output
tokens/s over the arrival window, turns, failures.

    .venv/bin/python -m bench.bench_fleet_doors --load 0.9 [--replicas 4 --seconds 20 --bound 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from openai import AsyncOpenAI

from tests.support.procs import ROOT, gateway, stop
from tests.support.stack import envoy_stack

MODEL = "bench-model"
OUT_TOKENS = 16  # the stand-ins' reply length
SYSTEM = " ".join(f"sys{i}" for i in range(400))  # the agents' shared system prompt (instructions)


@dataclass
class Tally:
    input: list[int] = field(default_factory=list)
    cached: list[int] = field(default_factory=list)
    output: int = 0
    ttft: list[float] = field(default_factory=list)
    failed: int = 0
    turns: int = 0


async def conversation(
    c: AsyncOpenAI, turns: int, words: int, think: float, measured: bool, out: Tally, rng: random.Random
) -> None:
    tag = uuid.uuid4().hex[:8]
    previous = None
    for t in range(turns):
        if t:
            await asyncio.sleep(rng.expovariate(1 / think))
        text = " ".join(f"{tag}w{t}x{i}" for i in range(words))
        started = time.perf_counter()
        first = None
        try:
            stream = await c.responses.create(
                model=MODEL, instructions=SYSTEM, input=text, previous_response_id=previous, stream=True
            )
            async for ev in stream:
                if ev.type == "response.output_text.delta" and first is None:
                    first = time.perf_counter() - started
                elif ev.type == "response.completed":
                    u = ev.response.usage
                    assert u is not None
                    out.input.append(u.input_tokens)
                    out.cached.append(u.input_tokens_details.cached_tokens)
                    out.output += u.output_tokens
                    previous = ev.response.id
                elif ev.type in ("response.failed", "error"):
                    out.failed += 1
                    return
        except Exception:
            out.failed += 1
            return
        out.turns += 1
        if first is not None and measured:
            out.ttft.append(first)


async def run(base: str, rate: float, seconds: float, turns: int, words: int, think: float) -> dict[str, float]:
    """Conversations arriving at `rate` per second for `seconds`, then every one finished."""
    out = Tally()
    rng = random.Random(7)  # arrivals: the same for every row
    think_rng = random.Random(11)
    c = AsyncOpenAI(base_url=base, api_key="k", max_retries=0, timeout=300)
    started = time.perf_counter()
    tasks = []
    at = 0.0
    while True:
        at += rng.expovariate(rate)
        if at > seconds:
            break
        await asyncio.sleep(max(0.0, started + at - time.perf_counter()))
        tasks.append(asyncio.create_task(conversation(c, turns, words, think, at > 0.1 * seconds, out, think_rng)))
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - started
    await c.close()
    ttft = sorted(out.ttft)
    return {
        "cached_share": sum(out.cached) / max(1, sum(out.input)),
        "ttft_p50_ms": 1000 * statistics.median(ttft) if ttft else float("nan"),
        "ttft_p90_ms": 1000 * ttft[int(0.9 * (len(ttft) - 1))] if ttft else float("nan"),
        "tokens_per_s": out.output / wall,
        "turns": out.turns,
        "failed": out.failed,
    }


def affinity_counts(base: str) -> tuple[float, float]:
    """The gateway's `gateway_backend_affinity_total` hits and misses (moves) so far, at `base`."""
    with urllib.request.urlopen(base.removesuffix("/v1") + "/metrics") as resp:
        text = resp.read().decode()
    found = {"hit": 0.0, "miss": 0.0}
    for line in text.splitlines():
        if line.startswith("gateway_backend_affinity_total{"):
            for result in found:
                if f'result="{result}"' in line:
                    found[result] += float(line.rsplit(" ", 1)[1])
    return found["hit"], found["miss"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicas", type=int, default=4)
    ap.add_argument("--load", type=float, default=0.9, help="offered load, a share of the fleet's capacity")
    ap.add_argument("--seconds", type=float, default=20.0, help="how long conversations arrive")
    ap.add_argument("--turns", type=int, default=6)
    ap.add_argument("--words", type=int, default=150, help="new prompt tokens per turn")
    ap.add_argument("--think", type=float, default=1.0, help="mean seconds between a reply and the next turn")
    ap.add_argument("--prefill", type=float, default=0.002, help="simulated seconds per uncached prompt token")
    ap.add_argument("--decode", type=float, default=0.02, help="simulated seconds per output token")
    ap.add_argument("--cache-blocks", type=int, default=600, help="prefix cache per replica, 16-token blocks")
    ap.add_argument("--bound", default="2", help="GATEWAY_BACKEND_LOAD_BOUND of the fleet")
    ap.add_argument("--only", default="", help="comma-separated row names to run (default: all)")
    args = ap.parse_args()
    capacity = args.replicas / ((args.words + OUT_TOKENS) * args.prefill)  # turns/s, histories cached
    rate = args.load * capacity / args.turns  # conversations per second
    with ExitStack() as ctx, tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "bench.fleet_replicas", "--replicas", str(args.replicas), "--model", MODEL]
        cmd += ["--prefill", str(args.prefill), "--decode", str(args.decode), "--cache-blocks", str(args.cache_blocks)]
        cmd += ["--out-tokens", str(OUT_TOKENS)]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        ctx.callback(stop, proc)
        assert proc.stdout is not None
        *ports, rr, oracle, least = (int(p) for p in proc.stdout.readline().split()[1:])
        urls = [f"http://127.0.0.1:{p}/v1" for p in ports]
        env = {
            "GATEWAY_BACKENDS": json.dumps([{"name": "chat", "urls": urls, "models": [MODEL]}]),
            "GATEWAY_BACKEND_LOAD_BOUND": args.bound,
        }
        stack = ctx.enter_context(envoy_stack(urls[0], Path(tmp) / "fleet", **env))
        one = {
            name: ctx.enter_context(gateway(f"http://127.0.0.1:{port}/v1", Path(tmp) / name))
            for name, port in (("rr", rr), ("oracle", oracle), ("least", least))
        }
        rows = [
            ("oracle", "oracle (unbounded affinity)", one["oracle"].url),
            ("round-robin", "round-robin", one["rr"].url),
            ("least-load", "least-load (queued + running)", one["least"].url),
            ("http", "fleet picker, HTTP door", stack.http_url),
            ("envoy", "fleet picker, Envoy door", stack.url),
        ]
        if args.only:
            rows = [r for r in rows if r[0] in args.only.split(",")]
        print(
            f"{args.replicas} replicas, serial prefill {args.prefill * 1000:g} ms/token, decode "
            f"{args.decode * 1000:g} ms/token, cache {args.cache_blocks * 16} tokens each; capacity "
            f"{capacity:.1f} turns/s; load {args.load:.0%}: {rate:.2f} conversations/s x {args.turns} turns "
            f"(+{args.words} tokens each, {len(SYSTEM.split())}-token shared system prompt) for {args.seconds:g} s; "
            f"bound {args.bound}; host load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        )
        print(
            f"{'picker':32} {'cached':>7} {'TTFT p50':>9} {'TTFT p90':>9} {'tok/s':>7} {'turns':>6} {'failed':>6} "
            f"{'moves':>6}"
        )
        for key, name, base in rows:
            asyncio.run(run(base, 4.0, 0.5, 1, 8, 0.1))  # warm: connections, the first request's imports
            urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{rr}/_reset", method="POST")).read()
            before = affinity_counts(stack.http_url) if key == "http" else (0.0, 0.0)
            r = asyncio.run(run(base, rate, args.seconds, args.turns, args.words, args.think))
            # moves: continued chains the HTTP door sent off their replica (the ExtProc counts its own)
            moves = f"{affinity_counts(stack.http_url)[1] - before[1]:6.0f}" if key == "http" else "     -"
            print(
                f"{name:32} {r['cached_share']:7.1%} {r['ttft_p50_ms']:7.0f}ms {r['ttft_p90_ms']:7.0f}ms "
                f"{r['tokens_per_s']:7.1f} {r['turns']:6.0f} {r['failed']:6.0f} {moves}  "
                f"(load avg {os.getloadavg()[0]:.1f})",
                flush=True,
            )


if __name__ == "__main__":
    main()
