"""What tracing costs the doors, resolved to a point or two: a paired, interleaved design with an
A/A control and bootstrap confidence intervals (#31).

    .venv/bin/python -m bench.tracing_paired [--blocks B] [--seconds S] [--requests R] [--clients N]
                                             [--streams M] [--deltas K] [--no-streams] [--seed X]
                                             [--gc-probe] [--off2-env KEY=VALUE ...] [--off2-src DIR]
                                             [--restarts N] [--env KEY=VALUE ...]

Why not `bench.bench_tracing`: it loads a door's stacks side by side, so they compete for the two
cores (and their caches) with each other and with the machine's other load, and two runs of the same
code read the HTTP door's cost +2.7 and +12.2 %. Here the stacks take turns, never at once:

    off      no OTEL_* variables
    off2     the same again, started the same way: the A/A control, which must read ~0
    on       every span exported (always_on) to a local collector (`bench/otlp_sink.py`), SDK batching

A *block* is one short phase per stack (``--requests`` creates, or ``--streams`` streams of
``--deltas`` tokens, on ``--clients`` kept-alive connections), in a random order drawn for every
block, for one door; each round runs a block of each door, the doors in a random order. Blocks are
many and short (well under a second a phase) so that a stack's phase and its partners' see the same
moment of the shared machine.

CPU is process CPU time (`/proc/PID/task/*/schedstat`, ns) of the door's processes (the HTTP
server; or Envoy + the ExtProc), not wall time, and it is counted *continuously*: a block charges
each stack everything its door's processes used from the start of that block to the start of the
door's next block (the last one: until the batch exporter's delay has passed). So a batch of spans
exported seconds after the requests that made it (OTEL_BSP_SCHEDULE_DELAY, or 512 spans) is never
lost, only charged to a later block.

The figures, per door and unit, for on - off and for the control off2 - off:
- ratio: all CPU / all units of one stack against the other, over the blocks (for a request in %,
  for a token in us), with a 95 % bootstrap interval (blocks resampled with replacement, the same
  blocks for both stacks: paired). This is the figure: exports are lumpy (one batch every few
  blocks), and only a sum charges each its whole cost.
- median: the median of the blocks' paired differences, with its bootstrap interval (a median drops
  the lumpy exports: it reads the per-request cost on the event loop without them).
``--gc-probe``: every door process counts its garbage collections (`bench/gc_probe/sitecustomize.py`,
through `gc.callbacks`), reported per 1,000 requests (1,000,000 tokens) with the collector's CPU a unit.
``--off2-env KEY=VALUE ...``: `off2` is traced too, with these variables over `on`'s, so off2 - off
reads what a variant costs (e.g. ``OTEL_TRACES_SAMPLER=always_off``: every call site runs, nothing is
recorded or exported), in the same blocks as on - off; there is then no A/A control in the run.
``--off2-src DIR``: `off2` traces as `on` does, with the code of another source tree (main's:
``git -C /work/main archive main gateway extproc storage vectorstore | tar -x -C DIR``) first on its
door processes' PYTHONPATH (before the inherited one): off2 - off is then that code's cost beside
this code's on - off, in the same blocks (an A/B; runs apart spread by +-3-4 points, more than most
changes). off2 runs all of the code DIR holds, not only its tracing.
(`bench.tracing_variants DIR noqueue|drop` writes probe trees of this checkout: spans never queued,
or batches never encoded nor sent.)
``--off2-envoy-only``: `off2`'s doors untraced, its Envoy tracing as `on`'s: off2 - off at the Envoy
door is Envoy's tracer alone (its process, and what its spans' metadata cost the ExtProc), on - off2
our spans beside it; at the HTTP door (no Envoy on the way) it is the A/A control.
``--restarts N``: the three stacks are started afresh N times within the run (``--blocks`` split
exactly and ``--seconds`` evenly among the N + 1 lives, each block pairing stacks of one life): a
process keeps its speed for its life (hash layout, memory placement), which made one A/B spread +-3
points from run to run while its interval covered block noise only. The interval is then a
hierarchical bootstrap (the lives resampled, then blocks within each), so it covers the
life-to-life spread as far as N + 1 lives sample it (coarsely with two or three), and each life's
ratio is printed beside the pooled one.
``--requests`` sets a phase's length (its creates per client): longer phases test whether tracing's
cost reads higher when each stack's phase starts on caches its partners filled (#31).
Targets (PASS/MISS, never enforced): <= 5 % a request, <= 2 us a token; "resolved" when the control's
interval is inside +-2 points (a request) or +-0.5 us (a token). Results: bench/results/tracing_paired.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench.bench_gateway import MODEL
from bench.bench_stream import GapClient
from bench.bench_tracing import door_pids, door_targets, group_cpu, loop_cpu, otel_env, otlp_sink
from bench.measure import CpuWatch, add_run_args, phase, verdict, wait_quiet
from tests.support.procs import scripted_backend
from tests.support.stack import EnvoyStack, envoy_stack

RESULTS = Path(__file__).resolve().parent / "results" / "tracing_paired.json"
NAMES = ("off", "off2", "on")
DOORS = ("http", "envoy")
TARGET = {"request": 5.0, "token": 2.0}
RESOLVED = {"request": 2.0, "token": 0.5}  # the control's interval must lie within +- this
BOOT = 2000  # bootstrap resamples


class Door:
    """One door of one stack: its processes and kept-alive clients (new connections per phase cost the
    server an accept and a protocol setup each, noise that tells nothing about tracing)."""

    def __init__(self, stack: EnvoyStack, door: str, kind: str, clients: int, deltas: int) -> None:
        self.pids = door_pids(stack)[door]
        self.loops = self.pids if door == "http" else self.pids[1:]  # (Envoy's process is pids[0])
        self.target = door_targets(stack, deltas)[f"{door}:{kind}"]
        self.clients = [GapClient(self.target, []) for _ in range(clients)]

    def cpu(self) -> tuple[float, float, float]:
        """CPU seconds: the whole door, its first process (Envoy's at the Envoy door), the event loops."""
        return group_cpu(self.pids), group_cpu(self.pids[0]), loop_cpu(self.loops)

    async def load(self, each: int) -> int:
        """``each`` requests on every client, back to back: the units served (requests or tokens)."""
        before = sum(c.total() for c in self.clients)
        failed: list[int] = []

        async def worker(c: GapClient) -> None:
            for _ in range(each):
                sample, _ = await c.send()
                if not sample.ok:
                    failed.append(sample.status)

        await asyncio.wait_for(asyncio.gather(*(worker(c) for c in self.clients)), 120)
        if failed:
            raise RuntimeError(f"{self.target.name}: {len(failed)} failed (statuses {sorted(set(failed))})")
        return sum(c.total() for c in self.clients) - before if self.target.stream else len(self.clients) * each

    async def close(self) -> None:
        for c in self.clients:
            await c.close()


def gc_counts(probe_dir: Path, doors: dict[str, dict[str, Door]]) -> dict[str, dict[str, list[float]]]:
    """Per door and stack: collections of generation 0, 1, 2 and seconds in the collector so far,
    summed over the door's processes (written by `bench/gc_probe/sitecustomize.py`)."""
    out: dict[str, dict[str, list[float]]] = {}
    for d, by_name in doors.items():
        out[d] = {}
        for n, door in by_name.items():
            total = [0.0, 0.0, 0.0, 0.0]
            for pid in door.pids:
                try:
                    got = json.loads((probe_dir / f"{pid}.json").read_text())
                except (OSError, ValueError):
                    continue  # (Envoy's process: no Python)
                total = [a + b for a, b in zip(total, [*got["collections"], got["seconds"]], strict=True)]
            out[d][n] = total
    return out


async def section(args: argparse.Namespace, stacks: dict[str, EnvoyStack], kind: str, rng: random.Random) -> dict:
    """The blocks of one unit (requests or tokens) for both doors, interleaved; per door and stack the
    CPU charged to each block (see the module's doc) and the units it served."""
    doors = {d: {n: Door(stacks[n], d, kind, args.clients, args.deltas) for n in NAMES} for d in DOORS}
    each = args.requests if kind == "request" else args.streams
    for _ in range(args.warmup):  # connections, caches, SQLite's pages, each exporter's first batches
        for by_name in doors.values():
            for door in by_name.values():
                await door.load(each)
    await asyncio.sleep(args.bsp_delay_ms / 1000 + 0.5)
    probe_before = gc_counts(args.gc_probe, doors) if args.gc_probe else None
    marks: dict[str, list[dict[str, tuple[float, float, float]]]] = {d: [] for d in DOORS}
    units: dict[str, list[dict[str, int]]] = {d: [] for d in DOORS}
    t0 = time.monotonic()
    blocks = 0
    while blocks < args.blocks and time.monotonic() - t0 < args.seconds:
        for d in rng.sample(DOORS, len(DOORS)):
            marks[d].append({n: door.cpu() for n, door in doors[d].items()})
            served: dict[str, int] = {}
            for n in rng.sample(NAMES, len(NAMES)):
                served[n] = await doors[d][n].load(each)
            units[d].append(served)
        blocks += 1
        if blocks % 20 == 0:
            phase(f"{kind}s: {blocks} blocks ({time.monotonic() - t0:.0f} s)")
    await asyncio.sleep(args.bsp_delay_ms / 1000 + 0.5)  # the last batches exported, then charged
    out: dict[str, Any] = {}
    if probe_before is not None:
        await asyncio.sleep(0.6)  # the probes' last writes
        after = gc_counts(args.gc_probe, doors)
        out["gc"] = {
            d: {
                n: [a - b for a, b in zip(after[d][n], probe_before[d][n], strict=True)]
                + [sum(units[d][k][n] for k in range(blocks))]
                for n in NAMES
            }
            for d in DOORS
        }
    for d in DOORS:
        marks[d].append({n: door.cpu() for n, door in doors[d].items()})
        rows = []
        for k in range(blocks):
            a, b = marks[d][k], marks[d][k + 1]
            rows.append({n: [b[n][i] - a[n][i] for i in range(3)] + [units[d][k][n]] for n in NAMES})
        out[d] = rows
        for door in doors[d].values():
            await door.close()
    return out


def _ratio(rows: list[dict[str, list[float]]], a: str, b: str, kind: str, col: int = 0) -> float:
    """``a`` against ``b`` over ``rows``: CPU per unit, % more for a request, us more for a token."""
    per_a = sum(r[a][col] for r in rows) / sum(r[a][3] for r in rows)
    per_b = sum(r[b][col] for r in rows) / sum(r[b][3] for r in rows)
    return (per_a / per_b - 1) * 100 if kind == "request" else (per_a - per_b) * 1e6


def _block(r: dict[str, list[float]], a: str, b: str, kind: str) -> float:
    per_a, per_b = r[a][0] / max(1, r[a][3]), r[b][0] / max(1, r[b][3])
    return (per_a / per_b - 1) * 100 if kind == "request" else (per_a - per_b) * 1e6


def compare(
    groups: list[list[dict[str, list[float]]]], a: str, b: str, kind: str, rng: random.Random
) -> dict[str, Any]:
    """``a`` - ``b`` over the blocks of ``groups`` (one group per life of the stacks): the ratio of
    sums and the median of paired block differences, each with a 95 % bootstrap interval. The
    bootstrap is hierarchical: it resamples the lives first, then blocks within each life drawn
    (a block's stacks together, so the pairing is kept): a process keeps its speed for its life,
    so blocks of one life are not independent of each other, and pooling them as if they were
    would leave the life-to-life spread out of the interval. With one life it is the blocks'
    bootstrap alone (block noise only); with few lives the interval is coarse. Each life's own
    ratio is given too (``lives``)."""
    groups = [g for g in groups if g]
    rows = [r for g in groups for r in g]
    diffs = [[_block(r, a, b, kind) for r in g] for g in groups]
    boot_ratio, boot_median = [], []
    for _ in range(BOOT):
        chosen = [rng.randrange(len(groups)) for _ in groups] if len(groups) > 1 else [0]
        picked, picked_diffs = [], []
        for k in chosen:
            g, dg = groups[k], diffs[k]
            for _ in g:
                i = rng.randrange(len(g))
                picked.append(g[i])
                picked_diffs.append(dg[i])
        boot_ratio.append(_ratio(picked, a, b, kind))
        boot_median.append(statistics.median(picked_diffs))
    boot_ratio.sort()
    boot_median.sort()
    lo, hi = int(BOOT * 0.025), int(BOOT * 0.975) - 1
    return {
        "ratio": round(_ratio(rows, a, b, kind), 3),
        "ratio_ci": [round(boot_ratio[lo], 3), round(boot_ratio[hi], 3)],
        "median": round(statistics.median(d for dg in diffs for d in dg), 3),
        "median_ci": [round(boot_median[lo], 3), round(boot_median[hi], 3)],
        "loop": round(_ratio(rows, a, b, kind, 2), 3),  # the same ratio, event-loop threads only
        "first": round(_ratio(rows, a, b, kind, 1), 3),  # ... the door's first process (Envoy's)
        "lives": [round(_ratio(g, a, b, kind), 3) for g in groups],  # each life's ratio (of sums)
    }


def figures(lives: list[dict[str, dict[str, list[dict[str, list[float]]]]]], seed: int) -> dict[str, Any]:
    """Per door and unit: CPU a unit per stack and the comparisons, over the blocks of every life
    (``lives``: each life's blocks by unit and door)."""
    rng = random.Random(seed)
    out: dict[str, Any] = {}
    for kind, by_door in lives[0].items():
        for d in by_door:
            groups = [life[kind][d] for life in lives]
            rows = [r for g in groups for r in g]
            per = {n: sum(r[n][0] for r in rows) * 1e6 / max(1, sum(r[n][3] for r in rows)) for n in NAMES}
            out[f"{d}:{kind}"] = {
                "blocks": len(rows),
                "blocks_per_life": [len(g) for g in groups],
                "cpu_us_per_unit": {n: round(v, 3) for n, v in per.items()},
                "on-off": compare(groups, "on", "off", kind, rng),
                "off2-off": compare(groups, "off2", "off", kind, rng),
                "on-off2": compare(groups, "on", "off2", kind, rng),  # the A/B itself under --off2-src
            }
    return out


def _lives(c: dict[str, Any]) -> str:
    """Each life's ratio, when the stacks had several (``--restarts``)."""
    return "   lives: " + " ".join(f"{v:+.2f}" for v in c["lives"]) if len(c.get("lives", ())) > 1 else ""


def report(res: dict[str, Any]) -> str:
    lives = res.get("lives", 1)
    over = f"lives, then blocks within each (hierarchical; {lives} lives)" if lives > 1 else "blocks"
    lines = ["", f"ratio = all CPU / all units, on against off; [95 % bootstrap interval over {over}]"]
    verdicts = []
    for key, f in res["figures"].items():
        d, kind = key.split(":")
        unit = "%" if kind == "request" else "us"
        cpu = ", ".join(f"{n} {v:.2f}" for n, v in f["cpu_us_per_unit"].items())
        per_life = f.get("blocks_per_life", [])
        of = f" in {len(per_life)} lives: {'+'.join(map(str, per_life))}" if len(per_life) > 1 else ""
        lines.append(f"{d} door, CPU per {'non-streamed request' if kind == 'request' else 'streamed token'}"
                     f" ({f['blocks']} blocks{of}), us: {cpu}")  # fmt: skip
        meta = res.get("meta", {})
        variant = bool(meta.get("off2_env") or meta.get("off2_src") or meta.get("off2_envoy_only"))
        second = f"{Path(meta['off2_src']).name} off2 - off" if meta.get("off2_src") else "variant off2 - off"
        second = second if variant else "A/A control off2 - off"
        for label, name in (("tracing on - off", "on-off"), (second[:23], "off2-off")):
            c = f[name]
            lines.append(
                f"  {label:23} ratio {c['ratio']:+7.2f} {unit} [{c['ratio_ci'][0]:+.2f} .. {c['ratio_ci'][1]:+.2f}]"
                f"   median of blocks {c['median']:+7.2f} {unit} [{c['median_ci'][0]:+.2f} .. {c['median_ci'][1]:+.2f}]"
                f"   (event loops {c['loop']:+.2f}, {'Envoy' if d == 'envoy' else 'process'} {c['first']:+.2f})"
                + _lives(c)
            )
        if meta.get("off2_src") or meta.get("off2_envoy_only"):
            c = f["on-off2"]
            lines.append(
                f"  {'A/B on - off2' if meta.get('off2_src') else 'doors on - off2':23} ratio {c['ratio']:+7.2f} {unit}"
                f" [{c['ratio_ci'][0]:+.2f} .. {c['ratio_ci'][1]:+.2f}]"
                f"   median of blocks {c['median']:+7.2f} {unit} [{c['median_ci'][0]:+.2f} .. {c['median_ci'][1]:+.2f}]"
                f"   (event loops {c['loop']:+.2f})" + _lives(c)
            )
        on, aa = f["on-off"], f["off2-off"]
        resolved = -RESOLVED[kind] <= aa["ratio_ci"][0] and aa["ratio_ci"][1] <= RESOLVED[kind]
        verdicts.append(
            f"{verdict(on['ratio'] <= TARGET[kind])} {d}: CPU per {kind} +{TARGET[kind]:g} {unit} at most: on - off "
            f"{on['ratio']:+.2f} {unit} [{on['ratio_ci'][0]:+.2f} .. {on['ratio_ci'][1]:+.2f}]; "
            f"{'variant' if variant else 'A/A'} {aa['ratio']:+.2f} "
            f"[{aa['ratio_ci'][0]:+.2f} .. {aa['ratio_ci'][1]:+.2f}]"
            + ("" if resolved or variant else f"  (A/A interval wider than +-{RESOLVED[kind]:g} {unit}: not resolved)")
        )
    for kind, by_door in res.get("gc", {}).items():
        per = "1,000 requests" if kind == "request" else "1,000,000 tokens"
        scale = 1e3 if kind == "request" else 1e6
        for d, by_name in by_door.items():
            lines.append(f"gc, {d} door, {kind}s: collections of generations 0/1/2 per {per}; us a unit in gc")
            for n, (g0, g1, g2, seconds, served) in by_name.items():
                u = max(1, served)
                lines.append(f"  {n:5} {g0 * scale / u:8.2f} {g1 * scale / u:7.2f} {g2 * scale / u:7.3f}"
                             f"   {seconds * 1e6 / u:7.3f} us")  # fmt: skip
    if rss := res.get("rss_mb"):  # each life's end: the HTTP server; Envoy + the ExtProc
        for d in DOORS:
            each = "; ".join(f"{n} " + " ".join(f"{life[n][d]:.0f}" for life in rss) for n in NAMES)
            lines.append(f"RSS at each life's end, {d} door, MB: {each}")
    lines += ["", *verdicts]
    if machine := res.get("machine"):
        lines.append(f"machine: {json.dumps(machine)}")
    return "\n".join(lines)


def rss_mb(pids: list[int]) -> float:
    """Resident memory of these processes (`VmRSS`), MB: what a life's traffic left them holding."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as fh:
                total += next((int(line.split()[1]) for line in fh if line.startswith("VmRSS:")), 0)
        except OSError:
            continue
    return round(total / 1024, 1)


async def run(args: argparse.Namespace, stacks: dict[str, EnvoyStack], rng: random.Random) -> dict[str, Any]:
    """One life of the stacks: each unit's blocks (a share of them with ``--restarts``)."""
    pids = [p for s in stacks.values() for group in door_pids(s).values() for p in group]
    watch = CpuWatch(pids)
    watch.start()
    t0 = time.monotonic()
    data, collected = {}, {}
    for kind in ("request",) if args.no_streams else ("request", "token"):
        data[kind] = await section(args, stacks, kind, rng)
        if "gc" in data[kind]:
            collected[kind] = data[kind].pop("gc")
    res = {"machine": watch.stop(), "blocks": data, "seconds": time.monotonic() - t0}
    res["rss_mb"] = {n: {d: rss_mb(p) for d, p in door_pids(s).items()} for n, s in stacks.items()}
    if collected:
        res["gc"] = collected
    return res


def merged(lives: list[dict[str, Any]], seed: int) -> dict[str, Any]:
    """The lives of ``--restarts`` as one run: the figures over every life's blocks (bootstrapped
    life by life, see `compare`), blocks kept per life, collections summed, the machine's figures
    averaged weighted by each life's length."""
    gcs: dict[str, Any] = {}
    for life in lives:
        for kind, by_door in life.get("gc", {}).items():
            for d, by_name in by_door.items():
                for n, counts in by_name.items():
                    got = gcs.setdefault(kind, {}).setdefault(d, {}).setdefault(n, [0.0] * len(counts))
                    gcs[kind][d][n] = [a + b for a, b in zip(got, counts, strict=True)]
    timed = [(life["machine"], life["seconds"]) for life in lives if life.get("machine")]
    total = sum(t for _, t in timed) or 1.0
    machine = {k: round(sum(m[k] * t for m, t in timed) / total, 2) for k in timed[0][0]} if timed else {}
    blocks = [life["blocks"] for life in lives]
    res = {"figures": figures(blocks, seed), "machine": machine, "lives": len(lives)}
    res["rss_mb"] = [life["rss_mb"] for life in lives if "rss_mb" in life]
    res["blocks"] = blocks[0] if len(lives) == 1 else blocks  # (one life: as before `--restarts`)
    if gcs:
        res["gc"] = gcs
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blocks", type=int, default=150, help="blocks per unit (each: one phase per stack, per door)")
    ap.add_argument("--seconds", type=float, default=110, help="at most this long per unit's blocks")
    ap.add_argument("--requests", type=int, default=8, help="non-streamed creates per client per phase")
    ap.add_argument("--clients", type=int, default=4, help="kept-alive connections per phase")
    ap.add_argument("--streams", type=int, default=1, help="streams per client per phase")
    ap.add_argument("--deltas", type=int, default=500, help="text tokens per stream")
    ap.add_argument("--warmup", type=int, default=4, help="blocks run first and not counted")
    ap.add_argument("--no-streams", action="store_true", help="non-streamed requests only")
    ap.add_argument("--seed", type=int, default=31, help="the phases' order and the bootstrap")
    ap.add_argument("--bsp-delay-ms", type=int, default=5000, help="OTEL_BSP_SCHEDULE_DELAY of the `on` stack")
    ap.add_argument("--sampler", default="always_on", help="OTEL_TRACES_SAMPLER of the `on` stack")
    ap.add_argument("--sampler-arg", type=float, default=None, help="OTEL_TRACES_SAMPLER_ARG")
    variant = "trace `off2` too, with these variables over the `on` stack's (e.g. OTEL_TRACES_SAMPLER=always_off)"
    ap.add_argument("--off2-env", nargs="+", default=None, metavar="KEY=VALUE",
                    help=variant + ": off2 - off is then that variant's cost, not the A/A control")  # fmt: skip
    ap.add_argument("--env", nargs="+", default=None, metavar="KEY=VALUE",
                    help="variables of every stack's doors (e.g. GATEWAY_GC_THRESHOLDS=...; "
                    "off2's variant over them)")  # fmt: skip
    ap.add_argument("--off2-src", default=None, metavar="DIR",
                    help="trace `off2` as `on`, with the code of this source tree first on its PYTHONPATH (before "
                    "the inherited one): an A/B of two trees in the same blocks; off2 runs all of DIR's code, not "
                    "only its tracing (see the module's doc)")  # fmt: skip
    ap.add_argument("--restarts", type=int, default=0,
                    help="start the three stacks afresh this many times within the run (blocks and seconds "
                    "shared among the lives): a process keeps its speed for its life, so one life's stacks "
                    "read apart by a few points; more lives put that in the interval")  # fmt: skip
    ap.add_argument("--off2-envoy-only", action="store_true",
                    help="`off2`'s doors untraced, its Envoy tracing as `on`'s: off2 - off is Envoy's tracer alone "
                    "(at the HTTP door an A/A control), on - off2 the doors' spans beside it")  # fmt: skip
    ap.add_argument("--gc-probe", action="store_true",
                    help="count the doors' garbage collections (bench/gc_probe) and report them per unit")  # fmt: skip
    add_run_args(ap, RESULTS)
    args = ap.parse_args(argv)
    if args.off2_envoy_only and (args.off2_env is not None or args.off2_src is not None):
        ap.error("--off2-envoy-only is a variant of its own: not with --off2-env or --off2-src")
    if args.wait_quiet:
        print(f"other processes: {wait_quiet(args.wait_quiet):.2f} cores", file=sys.stderr)
    print("starting the backend, a local OTLP collector and three stacks ...", file=sys.stderr)
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-tracing-") as tmp:
        collector = stack.enter_context(otlp_sink())
        backend = stack.enter_context(scripted_backend(MODEL))
        same: dict[str, Any] = {"PYTHONHASHSEED": "0"}  # (see `bench.bench_tracing`)
        args.gc_probe = Path(tmp) / "gc" if args.gc_probe else None
        if args.gc_probe is not None:  # every door process imports the probe at start-up
            args.gc_probe.mkdir()
            site = str(Path(__file__).resolve().parent / "gc_probe")
            same["PYTHONPATH"] = os.pathsep.join(p for p in (site, os.environ.get("PYTHONPATH", "")) if p)
            same["BENCH_GC_PROBE"] = str(args.gc_probe)
        same.update(dict(kv.split("=", 1) for kv in args.env or ()))  # every stack's, e.g. GATEWAY_GC_THRESHOLDS
        traced: dict[str, Any] = {**collector, **otel_env(args), **same}
        envs = {"off": same, "off2": same, "on": traced}
        if args.off2_env is not None:  # a variant of `on` in the control's place
            envs["off2"] = {**traced, **dict(kv.split("=", 1) for kv in args.off2_env)}
        if args.off2_src is not None:  # another tree's tracing in the control's place (an A/B)
            src = str(Path(args.off2_src).resolve())
            if not (Path(src) / "gateway" / "telemetry" / "tracing.py").is_file():
                ap.error(f"--off2-src {src}: no gateway/telemetry/tracing.py there")
            inherited = envs["off2"].get("PYTHONPATH", os.environ.get("PYTHONPATH", ""))  # (as on's doors get it)
            path = os.pathsep.join(p for p in (src, inherited) if p)
            envs["off2"] = {**envs["off2"], **(traced if args.off2_env is None else {}), "PYTHONPATH": path}
        lives = max(1, args.restarts + 1)
        total_blocks, total_seconds = args.blocks, args.seconds
        args.seconds = total_seconds / lives
        rng = random.Random(args.seed)
        done = []
        for life in range(lives):
            # ``--blocks`` shared exactly: the first lives take one more when it does not divide
            args.blocks = total_blocks // lives + (life < total_blocks % lives)
            if lives > 1:
                phase(f"stacks' life {life + 1} of {lives}: {args.blocks} blocks, {args.seconds:.0f} s a unit at most")
            with ExitStack() as alive:
                where = Path(tmp) / f"life{life}"
                envoys = {"off2": traced} if args.off2_envoy_only else {}  # what Envoy's tracer is rendered from
                stacks = {
                    n: alive.enter_context(
                        envoy_stack(backend.url, where / n, None, envoy_otel_env=envoys.get(n), **envs[n])
                    )
                    for n in NAMES
                }
                done.append(asyncio.run(run(args, stacks, rng)))
        args.blocks, args.seconds = total_blocks, total_seconds
        res = merged(done, args.seed)
        with urllib.request.urlopen(collector["OTEL_EXPORTER_OTLP_ENDPOINT"] + "/count", timeout=10) as reply:
            res["collector"] = json.loads(reply.read())
    res["meta"] = {k: v for k, v in vars(args).items() if k not in ("out", "wait_quiet", "gc_probe")}
    res["meta"]["gc_probe"] = args.gc_probe is not None
    res["meta"].update(cpus=os.cpu_count(), when=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    print(report(res))
    print(f"spans received by the collector: {res['collector']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
