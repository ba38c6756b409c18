"""The fleet's targets through each door with real stand-in replicas (#27), lean: K replicas with a
prefix cache and a queue (`bench/fleet_replicas.py`, one process), the gateway's fleet behind the
HTTP door and behind Envoy, and two baselines through a one-backend gateway: round-robin over the
same replicas, and an oracle (a chain always on one replica, no load bound). A multi-turn workload
(concurrent conversations chained by `previous_response_id`, growing context, streamed) reports
cached prompt-token share, TTFT p50/p90, output tokens/s, and the requests that failed.

Everything shares the 2 cores of the benchmark host, so absolute times carry the doors' and the
load generator's CPU; compare the rows with each other. Load is set by `--conversations` (each
replica runs `--slots` sequences at once), not calibrated to a share of capacity.

    .venv/bin/python -m bench.bench_fleet_doors [--replicas 4 --conversations 24 --turns 6]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from pathlib import Path

from openai import AsyncOpenAI

from tests.procs import ROOT, gateway, stop
from tests.stack import envoy_stack

MODEL = "bench-model"


async def conversation(c: AsyncOpenAI, turns: int, words: int, out: dict[str, list[float]]) -> None:
    tag = uuid.uuid4().hex
    previous = None
    for t in range(turns):
        text = " ".join(f"{tag[:8]}w{t}x{i}" for i in range(words))
        started = time.perf_counter()
        first = None
        try:
            stream = await c.responses.create(model=MODEL, input=text, previous_response_id=previous, stream=True)
            async for ev in stream:
                if ev.type == "response.output_text.delta" and first is None:
                    first = time.perf_counter() - started
                elif ev.type == "response.completed":
                    u = ev.response.usage
                    assert u is not None
                    out["input"].append(u.input_tokens)
                    out["cached"].append(u.input_tokens_details.cached_tokens)
                    out["output"].append(u.output_tokens)
                    previous = ev.response.id
                elif ev.type in ("response.failed", "error"):
                    out["failed"].append(1)
        except Exception:
            out["failed"].append(1)
            return
        if first is not None:
            out["ttft"].append(first)


async def run(base: str, conversations: int, turns: int, words: int) -> dict[str, float]:
    out: dict[str, list[float]] = {"input": [], "cached": [], "output": [], "ttft": [], "failed": []}
    c = AsyncOpenAI(base_url=base, api_key="k", max_retries=0, timeout=120)
    started = time.perf_counter()
    await asyncio.gather(*(conversation(c, turns, words, out) for _ in range(conversations)))
    wall = time.perf_counter() - started
    await c.close()
    ttft = sorted(out["ttft"])
    return {
        "cached_share": sum(out["cached"]) / max(1, sum(out["input"])),
        "ttft_p50_ms": 1000 * statistics.median(ttft) if ttft else float("nan"),
        "ttft_p90_ms": 1000 * ttft[int(0.9 * (len(ttft) - 1))] if ttft else float("nan"),
        "tokens_per_s": sum(out["output"]) / wall,
        "turns": len(out["ttft"]),
        "failed": len(out["failed"]),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicas", type=int, default=4)
    ap.add_argument("--conversations", type=int, default=24)
    ap.add_argument("--turns", type=int, default=6)
    ap.add_argument("--words", type=int, default=150, help="new prompt tokens per turn")
    ap.add_argument("--bound", default="1.25", help="GATEWAY_BACKEND_LOAD_BOUND of the fleet")
    args = ap.parse_args()
    with ExitStack() as ctx, tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bench.fleet_replicas", "--replicas", str(args.replicas), "--model", MODEL],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        ctx.callback(stop, proc)
        assert proc.stdout is not None
        *ports, rr, oracle = (int(p) for p in proc.stdout.readline().split()[1:])
        urls = [f"http://127.0.0.1:{p}/v1" for p in ports]
        env = {
            "GATEWAY_BACKENDS": json.dumps([{"name": "chat", "urls": urls, "models": [MODEL]}]),
            "GATEWAY_BACKEND_LOAD_BOUND": args.bound,
        }
        stack = ctx.enter_context(envoy_stack(urls[0], Path(tmp) / "fleet", **env))
        rr_gw = ctx.enter_context(gateway(f"http://127.0.0.1:{rr}/v1", Path(tmp) / "rr"))
        oracle_gw = ctx.enter_context(gateway(f"http://127.0.0.1:{oracle}/v1", Path(tmp) / "oracle"))
        rows = [
            ("round-robin (HTTP door, one backend)", rr_gw.url),
            ("oracle (HTTP door, one backend)", oracle_gw.url),
            ("fleet picker, HTTP door", stack.http_url),
            ("fleet picker, Envoy door", stack.url),
        ]
        print(
            f"{args.replicas} replicas x 4 slots, {args.conversations} conversations x {args.turns} turns, "
            f"+{args.words} prompt tokens per turn, load bound {args.bound}"
        )
        print(f"{'picker':40} {'cached':>7} {'TTFT p50':>9} {'TTFT p90':>9} {'tok/s':>7} {'turns':>6} {'failed':>6}")
        for name, base in rows:
            asyncio.run(run(base, 2, 1, 8))  # warm: connections, the first request's imports
            r = asyncio.run(run(base, args.conversations, args.turns, args.words))
            print(
                f"{name:40} {r['cached_share']:7.1%} {r['ttft_p50_ms']:7.0f}ms {r['ttft_p90_ms']:7.0f}ms "
                f"{r['tokens_per_s']:7.0f} {r['turns']:6.0f} {r['failed']:6.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
