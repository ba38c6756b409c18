"""What OpenTelemetry tracing costs the doors: CPU per non-streamed request and per streamed token,
tracing on vs off, through both doors (#31).

    .venv/bin/python -m bench.bench_tracing [--clients N] [--requests R] [--streams M] [--deltas K]
                                            [--rounds X] [--out PATH] [--wait-quiet SECONDS]

Two stacks (`tests.support.stack.envoy_stack`: ExtProc, HTTP door, Envoy) share one scripted vLLM stand-in:
one without OTEL_* variables (off), one exporting every span (sampler always on) over OTLP
http/protobuf to a local collector (`bench/otlp_sink.py`, a process of its own as a real collector
is: a receiver on a thread of this process took the GIL from the load generator in the "on" rounds
only, which slowed the clients and showed as tracing's cost). Kinds take turns in X rounds so drift hits
on and off alike. Per kind it prints the CPU of the door's processes (HTTP door; Envoy + ExtProc)
per non-streamed stored create and per streamed token, and the difference on - off.

Targets (issue #31), PASS/MISS, never enforced: on costs <= 5 % more CPU per non-streamed request
and <= 2 us more per streamed token. Off is the code path of every gateway without OTEL_*: one
module-global test per call site (measure it against the previous commit with `bench.bench_ab`).
Results go to bench/results/tracing.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench.bench_gateway import HOST, MODEL
from bench.bench_stream import GapClient
from bench.loadgen import RESPONSES_TOKEN, Target
from bench.measure import CpuWatch, add_run_args, descendants, phase, verdict, wait_quiet
from tests.support.procs import free_port, scripted_backend, stop, wait_http
from tests.support.stack import EnvoyStack, envoy_stack

RESULTS = Path(__file__).resolve().parent / "results" / "tracing.json"
TARGET_REQUEST_PCT = 5.0
TARGET_TOKEN_US = 2.0
DOORS = ("http", "envoy")
# The "on" stack's OTEL_BSP_SCHEDULE_DELAY: the SDK's default. A batch then goes when 512 spans
# wait, i.e. during an "on" round; each round's window stays open 1.4 s for a partial batch at most.
BSP_DELAY_MS = 5000


def door_targets(stack: EnvoyStack, deltas: int) -> dict[str, Target]:
    prompt = " ".join(["hi"] * deltas)
    done = b"event: response.completed"
    plain = {"model": MODEL, "input": "hi there", "store": True}
    streamed = {"model": MODEL, "input": prompt, "store": True, "stream": True}
    return {
        "http:request": Target("HTTP door, create", HOST, stack.http_port, "/v1/responses", plain),
        "envoy:request": Target("Envoy door, create", HOST, stack.envoy_port, "/v1/responses", plain),
        "http:stream": Target(
            "HTTP door, stream", HOST, stack.http_port, "/v1/responses", streamed, True, RESPONSES_TOKEN, done
        ),
        "envoy:stream": Target(
            "Envoy door, stream", HOST, stack.envoy_port, "/v1/responses", streamed, True, RESPONSES_TOKEN, done
        ),
    }


def door_pids(stack: EnvoyStack) -> dict[str, list[int]]:
    return {
        "http": descendants([stack.http.proc.pid]),
        "envoy": [stack.envoy.pid, *descendants([stack.extproc.pid])],
    }


def group_cpu(pids: int | Sequence[int]) -> float:
    """CPU seconds of the processes' live threads, to the nanosecond (`/proc/PID/task/*/schedstat`):
    `/proc/PID/stat` counts 10 ms ticks, too coarse for rounds short enough that the machine's
    drift (other sessions on the 2 cores) stays the same across a pair of rounds."""
    total = 0
    for pid in [pids] if isinstance(pids, int) else pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as fh:
                    total += int(fh.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue
    return total / 1e9


async def one_round(
    target: Target, clients: int, each: int, pids: Sequence[int], acc: dict[str, Any], settle: float = 0.0
) -> None:
    """``clients`` connections, ``each`` requests back to back on each; adds CPU, units and failures.

    The CPU window stays open ``settle`` seconds after the last reply: the batch processor exports a
    round's spans up to `OTEL_BSP_SCHEDULE_DELAY` later, and that export is the round's cost."""
    conns = [GapClient(target, []) for _ in range(clients)]
    failed = 0

    async def worker(c: GapClient) -> None:
        nonlocal failed
        for _ in range(each):
            sample, _ = await c.send()
            failed += 0 if sample.ok else 1

    cpu0 = group_cpu(list(pids))
    envoy0 = group_cpu(pids[0])  # the Envoy door's first pid is Envoy itself (its share printed apart)
    await asyncio.wait_for(asyncio.gather(*(worker(c) for c in conns)), 600)
    await asyncio.sleep(settle)
    cpu = group_cpu(list(pids)) - cpu0
    units = sum(c.total() for c in conns) if target.stream else clients * each
    acc["cpu"] += cpu
    acc["first_cpu"] = acc.get("first_cpu", 0.0) + group_cpu(pids[0]) - envoy0
    acc["units"] += units
    acc.setdefault("per_round", []).append(cpu / max(1, units))
    acc["failed"] += failed
    for c in conns:
        await c.close()


async def run(args: argparse.Namespace, stacks: dict[str, EnvoyStack]) -> dict[str, Any]:
    keys: tuple[str, ...] = ("http:request", "envoy:request", "http:stream", "envoy:stream")
    if args.no_streams:
        keys = keys[:2]
    kinds = [(state, key) for key in keys for state in stacks]
    targets = {state: door_targets(stack, args.deltas) for state, stack in stacks.items()}
    pids = {state: door_pids(stack) for state, stack in stacks.items()}
    acc: dict[tuple[str, str], dict[str, Any]] = {k: {"cpu": 0.0, "units": 0.0, "failed": 0.0} for k in kinds}
    for state, key in kinds:  # warm-up: connections, caches, the exporter's first batch
        await one_round(targets[state][key], 2, 3, pids[state][key.split(":")[0]], {"cpu": 0, "units": 0, "failed": 0})
    watch = CpuWatch([p for by_door in pids.values() for group in by_door.values() for p in group])
    watch.start()
    for r in range(args.rounds):
        # off, on in even rounds, on, off in odd ones (ABBA): a drift within a round hits both alike
        order = kinds if r % 2 == 0 else [(state, key) for key in keys for state in reversed(list(stacks))]
        for state, key in order:
            phase(f"round {r + 1}/{args.rounds}: tracing {state}, {targets[state][key].name}")
            each = args.requests if key.endswith("request") else args.streams
            group = pids[state][key.split(":")[0]]
            settle = min(args.bsp_delay_ms, 1000) / 1000 + 0.4
            await one_round(targets[state][key], args.clients, each, group, acc[(state, key)], settle)
    out: dict[str, Any] = {"machine": watch.stop()}
    no_streams = args.no_streams
    for door in DOORS:
        req = {s: acc[(s, f"{door}:request")] for s in stacks}
        tok = {s: acc.get((s, f"{door}:stream"), {"cpu": 0.0, "units": 0.0, "failed": 0.0}) for s in stacks}
        per_req = {s: req[s]["cpu"] / max(1.0, req[s]["units"]) * 1e3 for s in stacks}  # ms
        per_tok = {s: tok[s]["cpu"] / max(1.0, tok[s]["units"]) * 1e6 for s in stacks}  # us
        envoy_tok = {s: tok[s].get("first_cpu", 0.0) / max(1.0, tok[s]["units"]) * 1e6 for s in stacks}
        envoy_req = {s: req[s].get("first_cpu", 0.0) / max(1.0, req[s]["units"]) * 1e3 for s in stacks}
        rounds = [(on / off - 1) * 100 for on, off in zip(req["on"]["per_round"], req["off"]["per_round"], strict=True)]
        out[door] = {
            "request_cpu_ms": {s: round(v, 3) for s, v in per_req.items()},
            "request_overhead_pct": round((per_req["on"] / per_req["off"] - 1) * 100, 2),
            # each round's on/off ratio: their median and range say how far the machine's noise goes
            "request_overhead_pct_rounds": [round(v, 1) for v in rounds],
            "request_overhead_pct_median": round(statistics.median(rounds), 2),
            "request_cpu_ms_rounds": {s: [round(v * 1e3, 3) for v in req[s]["per_round"]] for s in stacks},
            "token_cpu_us": {s: round(v, 2) for s, v in per_tok.items()},
            "token_overhead_us": round(per_tok["on"] - per_tok["off"], 2) if not no_streams else None,
            # of which Envoy's own process (the Envoy door; the HTTP door has one process)
            "token_overhead_us_envoy": round(envoy_tok["on"] - envoy_tok["off"], 2) if door == "envoy" else None,
            "request_cpu_ms_envoy": {s: round(v, 3) for s, v in envoy_req.items()} if door == "envoy" else None,
            "failed": int(sum(a["failed"] for a in (*req.values(), *tok.values()))),
        }
    return out


def report(res: dict[str, Any]) -> str:
    lines = ["", "door    CPU/request off -> on (ms)   overhead   CPU/token off -> on (us)   overhead   failed"]
    for door in DOORS:
        d = res[door]
        lines.append(
            f"{door:7} {d['request_cpu_ms']['off']:8.3f} -> {d['request_cpu_ms']['on']:8.3f}"
            f"        {d['request_overhead_pct']:+6.1f} %   "
            f"{d['token_cpu_us']['off']:8.2f} -> {d['token_cpu_us']['on']:8.2f}"
            f"        {d['token_overhead_us'] or 0.0:+6.2f} us   {d['failed']}"
        )
    for door in DOORS:
        d = res[door]
        spread = d["request_overhead_pct_rounds"]
        lines.append(
            f"({door}: per-round request overhead median {d['request_overhead_pct_median']:+.1f} %, "
            f"range {min(spread):+.1f} .. {max(spread):+.1f} %)"
        )
    envoy = res["envoy"]["token_overhead_us_envoy"]
    lines.append(f"(Envoy door: of the per-token difference, Envoy's own process {envoy:+.2f} us)")
    split = res["envoy"]["request_cpu_ms_envoy"]
    lines.append(
        f"(Envoy door: of the CPU per request, Envoy's own process {split['off']:.3f} -> {split['on']:.3f} ms)"
    )
    lines.append("")
    for door in DOORS:
        d = res[door]
        ok = d["request_overhead_pct"] <= TARGET_REQUEST_PCT
        lines.append(f"{verdict(ok)} {door}: CPU per non-streamed request +{TARGET_REQUEST_PCT:g} % at most")
        if d["token_overhead_us"] is None:
            continue
        ok = d["token_overhead_us"] <= TARGET_TOKEN_US
        lines.append(f"{verdict(ok)} {door}: CPU per streamed token +{TARGET_TOKEN_US:g} us at most")
    machine = res.get("machine") or {}
    if machine:
        lines.append(f"machine: {json.dumps(machine)}")
    return "\n".join(lines)


@contextlib.contextmanager
def otlp_sink() -> Iterator[dict[str, str]]:
    """The collector process (`bench.otlp_sink`); yields the variables that point a stack at it."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "bench.otlp_sink", str(port)], cwd=Path(__file__).parent.parent)
    try:
        endpoint = f"http://127.0.0.1:{port}"
        wait_http(endpoint + "/count", proc=proc)
        yield {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}
    finally:
        stop(proc)


def otel_env(args: argparse.Namespace) -> dict[str, str]:
    """The "on" stack's sampler, and batches every ``--bsp-delay-ms`` (or 512 spans, the SDK's default)."""
    env = {"OTEL_TRACES_SAMPLER": args.sampler, "OTEL_BSP_SCHEDULE_DELAY": str(args.bsp_delay_ms)}
    if args.sampler_arg is not None:
        env["OTEL_TRACES_SAMPLER_ARG"] = str(args.sampler_arg)
    return env


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=4, help="concurrent connections per round")
    ap.add_argument("--requests", type=int, default=60, help="non-streamed creates per connection per round")
    ap.add_argument("--streams", type=int, default=3, help="streams per connection per round")
    ap.add_argument("--deltas", type=int, default=300, help="text deltas per stream")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    ap.add_argument(
        "--bsp-delay-ms",
        type=int,
        default=BSP_DELAY_MS,
        help="OTEL_BSP_SCHEDULE_DELAY of the stack with tracing on (default: the SDK's)",
    )
    ap.add_argument("--no-streams", action="store_true", help="non-streamed requests only (the per-request figure)")
    ap.add_argument("--sampler", default="always_on", help="OTEL_TRACES_SAMPLER of the stack with tracing on")
    ap.add_argument("--sampler-arg", type=float, default=None, help="OTEL_TRACES_SAMPLER_ARG (a ratio sampler's ratio)")
    add_run_args(ap, RESULTS)
    args = ap.parse_args(argv)
    if args.wait_quiet:
        print(f"other processes: {wait_quiet(args.wait_quiet):.2f} cores", file=sys.stderr)
    print("starting the backend, a local OTLP collector and two stacks (tracing off, on) ...", file=sys.stderr)
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-tracing-") as tmp:
        collector = stack.enter_context(otlp_sink())
        backend = stack.enter_context(scripted_backend(MODEL))
        stacks = {
            "off": stack.enter_context(envoy_stack(backend.url, Path(tmp) / "off")),
            "on": stack.enter_context(envoy_stack(backend.url, Path(tmp) / "on", None, **collector, **otel_env(args))),
        }
        res = asyncio.run(run(args, stacks))
        time.sleep(0.5)
        with urllib.request.urlopen(collector["OTEL_EXPORTER_OTLP_ENDPOINT"] + "/count", timeout=10) as reply:
            res["spans_received"] = json.loads(reply.read())["spans"]
    res["meta"] = {
        "clients": args.clients,
        "requests": args.requests,
        "streams": args.streams,
        "deltas": args.deltas,
        "rounds": args.rounds,
        "no_streams": args.no_streams,
        "sampler": args.sampler,
        "bsp_delay_ms": args.bsp_delay_ms,
        "sampler_arg": args.sampler_arg,
        "cpus": os.cpu_count(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    print(report(res))
    print(f"spans received by the collector: {res['spans_received']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
