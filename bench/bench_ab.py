"""Two versions of the gateway, same moment: CPU per streamed token of each, rounds alternated.

    .venv/bin/python -m bench.bench_ab A_TREE B_TREE [--door http|envoy] [--rounds R] [--pace-ms P]

Why: this machine's speed drifts by 1.5x over minutes, more than most changes to a door's cost per
token, so two runs of `bench.bench_stream` minutes apart cannot tell a 5 % change from drift. Here
two stacks (A's code and B's code: each tree is put first on the gateway processes' PYTHONPATH, e.g.
a `git worktree` of main and one of a branch) run against one stand-in, and their rounds alternate
(A, B, B, A, ...), so drift hits both alike. `--door http` measures the HTTP server, `envoy` the
ExtProc (and its Envoy) behind an Envoy of its own. Printed per side: the door process's CPU µs
per token over all rounds, the median and minimum of the rounds, tokens/s; B/A at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.bench_gateway import HOST, MODEL
from bench.bench_stream import PACED, one_round
from bench.loadgen import RESPONSES_TOKEN, Target
from tests.support.procs import gateway, scripted_backend
from tests.support.stack import envoy_stack


@contextlib.contextmanager
def side(door: str, backend_url: str, data_dir: Path, tree: str) -> Iterator[tuple[int, dict[str, int]]]:
    """One version's door: its port and the pids whose CPU is charged to it."""
    if door == "http":
        with gateway(backend_url, data_dir, PYTHONPATH=tree) as gw:
            yield gw.port, {"door": gw.proc.pid}
    else:
        with envoy_stack(backend_url, data_dir, PYTHONPATH=tree) as stack:
            yield stack.envoy_port, {"door": stack.extproc.pid, "envoy": stack.envoy.pid}


def _acc() -> dict[str, Any]:
    return {"wall": 0.0, "tokens": 0, "cpu": {}, "gaps": [], "samples": []}


async def alternate(targets: dict[str, Target], pids: dict[str, dict[str, int]], args: argparse.Namespace) -> str:
    for name, target in targets.items():  # warm-up
        await one_round(target, 2, 2, _acc(), pids[name])
    rounds: dict[str, list[float]] = {n: [] for n in targets}
    totals: dict[str, dict[str, float]] = {n: {"cpu": 0.0, "envoy": 0.0, "tokens": 0, "wall": 0.0} for n in targets}
    for r in range(args.rounds):
        for name in ("A", "B") if r % 2 == 0 else ("B", "A"):
            acc = _acc()
            await one_round(targets[name], args.clients, args.streams, acc, pids[name])
            bad = sum(1 for s in acc["samples"] if not s.ok)
            if bad:
                raise RuntimeError(f"{name}: {bad} streams failed")
            rounds[name].append(acc["cpu"]["door"] / acc["tokens"] * 1e6)
            t = totals[name]
            t["cpu"] += acc["cpu"]["door"]
            t["envoy"] += acc["cpu"].get("envoy", 0.0)
            t["tokens"] += acc["tokens"]
            t["wall"] += acc["wall"]
    lines = []
    per = {}
    for name in targets:
        t, s = totals[name], sorted(rounds[name])
        per[name] = t["cpu"] / t["tokens"] * 1e6
        envoy = f", Envoy {t['envoy'] / t['tokens'] * 1e6:.2f}" if args.door == "envoy" else ""
        lines.append(
            f"  {name}: {per[name]:.2f} us/token (median {s[len(s) // 2]:.2f}, min {s[0]:.2f}{envoy}),"
            f" {t['tokens'] / t['wall']:.0f} tokens/s"
        )
    lines.append(f"  B/A: {per['B'] / per['A']:.3f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", help="source tree of version A (put first on the gateway's PYTHONPATH)")
    ap.add_argument("b", help="source tree of version B")
    ap.add_argument("--door", choices=("http", "envoy"), default="http")
    ap.add_argument("--rounds", type=int, default=12, help="rounds per side, alternated")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--streams", type=int, default=8, help="streams per client per round")
    ap.add_argument("--deltas", type=int, default=400, help="text deltas per stream - 1")
    ap.add_argument("--pace-ms", type=float, default=0.0, help="the stand-in's pause between deltas (0: flat out)")
    args = ap.parse_args(argv)
    args.a, args.b = str(Path(args.a).resolve()), str(Path(args.b).resolve())  # the gateways run elsewhere
    prompt = " ".join(["hi"] * args.deltas)
    with tempfile.TemporaryDirectory(prefix="bench-ab-") as tmp, scripted_backend(MODEL) as backend:
        if args.pace_ms:
            prompt = f"{PACED} {prompt}"
            reply = {"content": " ".join(["hi"] * (args.deltas + 1)), "chunk_delay": args.pace_ms / 1000}
            backend.script(PACED, *[reply] * (2 * (2 * 2 + args.rounds * args.clients * args.streams)))
        create = {"model": MODEL, "input": prompt, "store": True, "stream": True}
        done = b"event: response.completed"
        with (
            side(args.door, backend.url, Path(tmp) / "a", args.a) as (port_a, pids_a),
            side(args.door, backend.url, Path(tmp) / "b", args.b) as (port_b, pids_b),
        ):
            targets = {
                name: Target(name, HOST, port, "/v1/responses", create, True, RESPONSES_TOKEN, done)
                for name, port in (("A", port_a), ("B", port_b))
            }
            pace = f"paced {args.pace_ms:g} ms" if args.pace_ms else "flat out"
            print(
                f"A/B, {args.door} door, {args.clients} clients x {args.streams} streams, {pace}, {args.rounds} rounds"
            )
            print(asyncio.run(alternate(targets, {"A": pids_a, "B": pids_b}, args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
