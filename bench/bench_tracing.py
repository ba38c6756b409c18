"""What OpenTelemetry tracing costs the doors: CPU per non-streamed request and per streamed token,
tracing on vs off, through both doors, beside an off/off control that shows the noise floor (#31).

    .venv/bin/python -m bench.bench_tracing [--clients N] [--requests R] [--streams M] [--deltas K]
                                            [--rounds X] [--bsp-delay-ms D] [--compare-src DIR] [--out PATH]

Four stacks (`tests.support.stack.envoy_stack`: ExtProc, HTTP door, Envoy) share one scripted vLLM
stand-in and one local OTLP collector (`bench/otlp_sink.py`, a process of its own as a real collector
is):

    off      no OTEL_* variables (what every gateway without tracing runs)
    off2     the same again: the control. off2 - off is what two identical stacks differ by, the noise
             floor a tracing figure must stand above to mean anything
    on       every span exported (sampler always_on), the doors' spans and Envoy's own tracer
    envoy    Envoy's tracer alone (the doors without OTEL_*): Envoy's native cost apart from our spans

The HTTP door is measured on off, off2 and on; the Envoy door on all four. The figure is CPU time of
the door's processes (the HTTP server; Envoy + the ExtProc), to the nanosecond from
`/proc/PID/task/*/schedstat`, not latency, per unit: a non-streamed stored create, or one streamed
text token (long streams of `--deltas` tokens, so a fraction of a microsecond per token resolves).
A door's stacks take their load side by side (the same clients on each, at once), so other
sessions' load on the machine, which changes within seconds, is the same for all of them; taking
turns left identical stacks -44..+61 % apart round by round. One phase per unit (requests, then
streams) of `--rounds` rounds; a round charges each group all the CPU it used from the round's
start to its end, because a batch of spans is exported up to OTEL_BSP_SCHEDULE_DELAY (the SDK's 5 s
by default) after the requests that made it, and the phase's last round stays open until it has
gone. Printed: on - off pooled over the phase (all CPU / all units), and the median [interquartile
range] of the per-round paired differences; the same for the control off2 - off; for the Envoy
door, envoy - off (Envoy's native tracer) and on - envoy (our spans beside it); beside each, the
share of the Python processes' event-loop threads (and of Envoy's process). Every process gets
PYTHONHASHSEED=0: with random seeds, identical stacks measured a few % apart.

Targets (issue #31), PASS/MISS, never enforced: on costs <= 5 % more CPU per non-streamed request
and <= 2 us more per streamed token, both doors; a verdict is "within noise" when the control's IQR
reaches the target. Results go to bench/results/tracing.json.

`--compare-src DIR` makes `off2` trace as `on` does, with the code of another source tree (say main's,
`git archive`d): `off2 - off` is then the baseline's tracing cost beside this code's, in the same
rounds. Runs apart differ by several points on a shared machine, so a change is judged this way.
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
KINDS = ("request", "token")
STACKS = {"http": ("off", "off2", "on"), "envoy": ("off", "off2", "on", "envoy")}
BSP_DELAY_MS = 5000  # the SDK's default (and Envoy's flush interval, which follows it)


def door_targets(stack: EnvoyStack, deltas: int) -> dict[str, Target]:
    prompt = " ".join(["hi"] * deltas)  # the stand-in replies "Echo: hi hi ..." one word per delta
    # the stream's end: only `response.completed` carries the usage (a long stream's completed event
    # outgrows the tail the client checks, so its name is not there)
    done = b'"total_tokens"'
    plain = {"model": MODEL, "input": "hi there", "store": True}
    streamed = {"model": MODEL, "input": prompt, "store": True, "stream": True}
    ports = {"http": stack.http_port, "envoy": stack.envoy_port}
    out: dict[str, Target] = {}
    for door, port in ports.items():
        out[f"{door}:request"] = Target(f"{door} door, create", HOST, port, "/v1/responses", plain)
        out[f"{door}:token"] = Target(
            f"{door} door, stream", HOST, port, "/v1/responses", streamed, True, RESPONSES_TOKEN, done
        )
    return out


def door_pids(stack: EnvoyStack) -> dict[str, list[int]]:
    return {
        "http": descendants([stack.http.proc.pid]),
        "envoy": [stack.envoy.pid, *descendants([stack.extproc.pid])],  # Envoy first: its share apart
    }


def group_cpu(pids: int | Sequence[int]) -> float:
    """CPU seconds of the processes' threads, to the nanosecond (`/proc/PID/task/*/schedstat`):
    `/proc/PID/stat` counts 10 ms ticks, too coarse for windows of a second."""
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


def loop_cpu(pids: Sequence[int]) -> float:
    """CPU seconds of the Python processes' main threads (each runs its event loop; thread id =
    pid). The rest of a door's CPU is Envoy's, the export thread's, SQLite's and gRPC's threads'."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/task/{pid}/schedstat", "rb") as fh:
                total += int(fh.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total / 1e9


async def window(target: Target, clients: int, each: int) -> tuple[int, int]:
    """``clients`` connections, ``each`` requests back to back on each: the units (requests, or
    streamed tokens) and the failures."""
    conns = [GapClient(target, []) for _ in range(clients)]
    failed: list[int] = []

    async def worker(c: GapClient) -> None:
        for _ in range(each):
            sample, _ = await c.send()
            if not sample.ok:
                failed.append(sample.status)

    await asyncio.wait_for(asyncio.gather(*(worker(c) for c in conns)), 600)
    units = sum(c.total() for c in conns) if target.stream else clients * each
    for c in conns:
        await c.close()
    if failed:
        phase(f"{target.name}: {len(failed)} failed (statuses {sorted(set(failed))})")
    return units, len(failed)


async def run(args: argparse.Namespace, stacks: dict[str, EnvoyStack]) -> dict[str, Any]:
    """One phase per kind (requests, then streams), each of ``--rounds`` rounds. A round charges each
    (door, stack) group all the CPU it used from the round's start to its end, not only while its
    own clients were served: a batch of spans is exported up to OTEL_BSP_SCHEDULE_DELAY after the
    requests that made it, often during the other door's turn or a later round, and that export is
    tracing's cost. Whatever a group burns idle is charged alike to every stack (the control shows
    it). The last round of a phase stays open until the last batch has gone."""
    kinds = KINDS[:1] if args.no_streams else KINDS
    targets = {name: door_targets(stack, args.deltas) for name, stack in stacks.items()}
    pids = {name: door_pids(stack) for name, stack in stacks.items()}
    loops = {name: {"http": by_door["http"], "envoy": by_door["envoy"][1:]} for name, by_door in pids.items()}
    groups = [(door, name) for door in DOORS for name in STACKS[door]]
    per: dict[tuple[str, str, str], list[dict[str, float]]] = {}
    failed = 0
    phase("warm-up: connections, caches, each exporter's first batch")
    for door, name in groups:
        for kind in kinds:
            await window(targets[name][f"{door}:{kind}"], 2, 2)
    await asyncio.sleep(args.bsp_delay_ms / 1000 + 0.5)
    watch = CpuWatch([p for by_door in pids.values() for group in by_door.values() for p in group])
    watch.start()
    t0 = time.monotonic()
    for kind in kinds:
        each = args.requests if kind == "request" else args.streams
        for r in range(args.rounds):
            phase(f"{kind}s, round {r + 1}/{args.rounds} ({time.monotonic() - t0:.0f} s)")
            before = {
                (door, name): (group_cpu(pids[name][door]), group_cpu(pids[name][door][0]), loop_cpu(loops[name][door]))
                for door, name in groups
            }
            units: dict[tuple[str, str], int] = {}
            for door in DOORS:  # the door's stacks side by side: the machine's moment is the same for all
                # ... and each in every position in turn: the first stack's clients are started (and
                # served by the one load generator) first; "off" measured above "off2" in every run
                # before the order rotated (#31)
                shift = r % len(STACKS[door])
                names = STACKS[door][shift:] + STACKS[door][:shift]
                done = await asyncio.gather(
                    *(window(targets[name][f"{door}:{kind}"], args.clients, each) for name in names)
                )
                for name, (n, bad) in zip(names, done, strict=True):
                    units[(door, name)] = n
                    failed += bad
            if r == args.rounds - 1:
                await asyncio.sleep(args.bsp_delay_ms / 1000 + 0.5)
            for door, name in groups:
                cpu0, first0, loop0 = before[(door, name)]
                n = max(1, units[(door, name)])
                cpu, first = group_cpu(pids[name][door]) - cpu0, group_cpu(pids[name][door][0]) - first0
                loop = loop_cpu(loops[name][door]) - loop0
                per.setdefault((door, kind, name), []).append(
                    {"cpu_s": cpu, "first_s": first, "loop_s": loop, "units": n}
                    | {"cpu_us": cpu * 1e6 / n, "first_us": first * 1e6 / n}
                )
    out: dict[str, Any] = {"machine": watch.stop(), "rounds": {}, "failed": failed}
    for (door, kind, name), windows in per.items():
        out["rounds"][f"{door}:{kind}:{name}"] = [round(w["cpu_us"], 3) for w in windows]
    for door in DOORS:
        for kind in kinds:
            out[f"{door}:{kind}"] = figures(door, kind, per)
    return out


def _summary(values: list[float]) -> dict[str, float]:
    """Median and interquartile range of per-round values."""
    if len(values) < 4:
        lo, hi = min(values), max(values)
    else:
        q = statistics.quantiles(values, n=4)
        lo, hi = q[0], q[2]
    return {"median": round(statistics.median(values), 3), "q1": round(lo, 3), "q3": round(hi, 3)}


def figures(door: str, kind: str, per: dict[tuple[str, str, str], list[dict[str, float]]]) -> dict[str, Any]:
    """Per-unit CPU of each stack, and the paired per-round differences against `off`: absolute
    (us per unit) and relative (%), for on, the control off2 and (Envoy door) Envoy's tracer alone;
    on - envoy (paired) is what the doors' spans add beside Envoy's tracer."""
    got = {name: [w["cpu_us"] for w in per[(door, kind, name)]] for name in STACKS[door]}
    envoy_share = {name: [w["first_us"] for w in per[(door, kind, name)]] for name in STACKS[door]}
    base = got["off"]
    res: dict[str, Any] = {"cpu_us": {name: round(statistics.median(v), 3) for name, v in got.items()}}
    # pooled over the phase (all CPU / all units): exact about exports, which lag across rounds
    pooled = {
        name: sum(w["cpu_s"] for w in per[(door, kind, name)]) * 1e6 / sum(w["units"] for w in per[(door, kind, name)])
        for name in STACKS[door]
    }
    res["pooled_us"] = {name: round(v, 3) for name, v in pooled.items()}
    res["loop_pooled_us"] = {  # of which the Python processes' event-loop threads
        name: round(
            sum(w["loop_s"] for w in per[(door, kind, name)]) * 1e6 / sum(w["units"] for w in per[(door, kind, name)]),
            3,
        )
        for name in STACKS[door]
    }
    res["pooled_pct"] = {name: round((v / pooled["off"] - 1) * 100, 2) for name, v in pooled.items()}

    def paired(a: list[float], b: list[float]) -> tuple[dict[str, float], dict[str, float]]:
        diff = [x - y for x, y in zip(a, b, strict=True)]
        pct = [(x / y - 1) * 100 for x, y in zip(a, b, strict=True)]
        return _summary(diff), _summary(pct)

    for name in STACKS[door]:
        if name != "off":
            res[f"{name}-off_us"], res[f"{name}-off_pct"] = paired(got[name], base)
    if door == "envoy":
        res["on-envoy_us"], res["on-envoy_pct"] = paired(got["on"], got["envoy"])
        res["envoy_process_us"] = {name: round(statistics.median(v), 3) for name, v in envoy_share.items()}
        res["envoy_process_on-off_us"] = _summary(
            [x - y for x, y in zip(envoy_share["on"], envoy_share["off"], strict=True)]
        )
    return res


def _fmt(s: dict[str, float], unit: str) -> str:
    return f"{s['median']:+8.2f} {unit} [IQR {s['q1']:+.2f} .. {s['q3']:+.2f}]"


def _pooled(d: dict[str, Any], name: str, base: str, kind: str) -> float:
    """``name`` - ``base`` pooled over the phase: % for requests, us for tokens."""
    if kind == "request":
        return float((d["pooled_us"][name] / d["pooled_us"][base] - 1) * 100)
    return float(d["pooled_us"][name] - d["pooled_us"][base])


def report(res: dict[str, Any]) -> str:
    lines = ["", "pooled = all CPU / all units of the phase; per round = median [interquartile range] of paired rounds"]
    baseline = res.get("meta", {}).get("compare_src")
    control_label = "baseline on - off" if baseline else "control off2 - off"
    if baseline:
        lines.append(f"off2 = tracing on with the code of {baseline} (no off/off control in this run)")
    for door in DOORS:
        for kind in KINDS:
            d = res.get(f"{door}:{kind}")
            if d is None:
                continue
            unit, what = ("%", "per non-streamed request") if kind == "request" else ("us", "per streamed token")
            key = "pct" if kind == "request" else "us"
            cpu = ", ".join(f"{n} {v:.2f}" for n, v in d["pooled_us"].items())
            lines.append(f"{door} door, CPU {what}, pooled (us): {cpu}")
            rows = [("tracing on - off", "on", "off"), (control_label, "off2", "off")]
            if door == "envoy":
                rows += [("Envoy's tracer alone", "envoy", "off"), ("our spans beside it", "on", "envoy")]
            for label, a, b in rows:
                per_round = d[f"{a}-{b}_{key}"]
                lines.append(
                    f"  {label:22} pooled {_pooled(d, a, b, kind):+7.2f} {unit}   per round {_fmt(per_round, unit)}"
                )
            if kind == "request":
                lines.append(f"  (on - off per round in us {_fmt(d['on-off_us'], 'us')})")
            loop = d["loop_pooled_us"]
            lines.append(
                "  of the group, the Python event-loop thread(s), pooled (us): "
                + ", ".join(f"{n} {v:.2f}" for n, v in loop.items())
                + f"  (on - off {loop['on'] - loop['off']:+.2f}, off2 - off {loop['off2'] - loop['off']:+.2f})"
            )
            if door == "envoy":
                share = d["envoy_process_us"]
                lines.append(
                    f"  of the group, Envoy's own process (median of rounds, us): off {share['off']:.2f}, "
                    f"on {share['on']:.2f}, envoy {share['envoy']:.2f}"
                )
    lines.append("")
    for door in DOORS:
        for kind in KINDS:
            d = res.get(f"{door}:{kind}")
            if d is None:
                continue
            key = "pct" if kind == "request" else "us"
            target = TARGET_REQUEST_PCT if kind == "request" else TARGET_TOKEN_US
            effect, control = _pooled(d, "on", "off", kind), _pooled(d, "off2", "off", kind)
            iqr = d[f"off2-off_{key}"]
            noisy = max(abs(control), abs(iqr["q1"]), abs(iqr["q3"])) >= target
            note = "   (the control reaches the target: within noise)" if noisy else ""
            unit = "%" if kind == "request" else "us"
            what = "per non-streamed request" if kind == "request" else "per streamed token"
            lines.append(
                f"{verdict(effect <= target)} {door}: CPU {what} +{target:g} {unit} at most: "
                f"on - off {effect:+.2f} {unit}, control off2 - off {control:+.2f} {unit}{note}"
            )
    lines.append(f"failed requests: {res['failed']}")
    if machine := res.get("machine"):
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
    """The tracing stacks' sampler, and batches every ``--bsp-delay-ms`` (or 512 spans)."""
    env = {"OTEL_TRACES_SAMPLER": args.sampler, "OTEL_BSP_SCHEDULE_DELAY": str(args.bsp_delay_ms)}
    if args.sampler_arg is not None:
        env["OTEL_TRACES_SAMPLER_ARG"] = str(args.sampler_arg)
    return env


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=4, help="concurrent connections per window")
    ap.add_argument("--requests", type=int, default=33, help="non-streamed creates per connection per window")
    ap.add_argument("--streams", type=int, default=2, help="streams per connection per window")
    ap.add_argument("--deltas", type=int, default=1000, help="text tokens per stream")
    ap.add_argument(
        "--rounds",
        type=int,
        default=12,
        help="rounds (each runs every stack's windows once; a multiple of 12 puts every stack in every position alike)",
    )
    ap.add_argument("--bsp-delay-ms", type=int, default=BSP_DELAY_MS, help="OTEL_BSP_SCHEDULE_DELAY when tracing")
    ap.add_argument("--no-streams", action="store_true", help="non-streamed requests only (the per-request figure)")
    ap.add_argument("--sampler", default="always_on", help="OTEL_TRACES_SAMPLER of the stacks that trace")
    ap.add_argument("--sampler-arg", type=float, default=None, help="OTEL_TRACES_SAMPLER_ARG (a ratio sampler's ratio)")
    ap.add_argument(
        "--compare-src",
        default=None,
        metavar="DIR",
        help="run the off2 stacks with tracing on from another source tree (e.g. `git archive main gateway extproc "
        "storage vectorstore | tar -x -C DIR`): off2 - off is then that code's tracing cost beside this code's, in "
        "the same rounds (runs apart differ by several points on a shared machine)",
    )
    add_run_args(ap, RESULTS)
    args = ap.parse_args(argv)
    if args.wait_quiet:
        print(f"other processes: {wait_quiet(args.wait_quiet):.2f} cores", file=sys.stderr)
    print("starting the backend, a local OTLP collector and four stacks ...", file=sys.stderr)
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-tracing-") as tmp:
        collector = stack.enter_context(otlp_sink())
        backend = stack.enter_context(scripted_backend(MODEL))
        tracing = {**collector, **otel_env(args)}
        # One hash seed for every process: with random ones, dict and set layouts differ from process
        # to process, and so does their speed (identical stacks measured a few % apart).
        same: dict[str, Any] = {"PYTHONHASHSEED": "0"}
        doors_env: dict[str, Any] = {**tracing, **same}  # (keyword arguments: the processes' variables)
        stacks = {
            "off": stack.enter_context(envoy_stack(backend.url, Path(tmp) / "off", None, **same)),
            "off2": stack.enter_context(
                envoy_stack(backend.url, Path(tmp) / "off2", None, **same)
                if args.compare_src is None
                else envoy_stack(backend.url, Path(tmp) / "off2", None, **doors_env, PYTHONPATH=args.compare_src)
            ),
            "on": stack.enter_context(envoy_stack(backend.url, Path(tmp) / "on", None, **doors_env)),
            "envoy": stack.enter_context(
                envoy_stack(backend.url, Path(tmp) / "envoy", None, envoy_otel_env=tracing, **same)
            ),
        }
        res = asyncio.run(run(args, stacks))
        time.sleep(args.bsp_delay_ms / 1000 + 0.3)
        with urllib.request.urlopen(collector["OTEL_EXPORTER_OTLP_ENDPOINT"] + "/count", timeout=10) as reply:
            received = json.loads(reply.read())
            res["spans_received"], res["exports_received"] = received["spans"], received["exports"]
    res["meta"] = {k: v for k, v in vars(args).items() if k not in ("out", "wait_quiet")}
    res["meta"].update(cpus=os.cpu_count(), when=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    print(report(res))
    exports = res["exports_received"]
    print(f"spans received by the collector: {res['spans_received']} in {exports} exports (the doors' and Envoy's),"
          f" {res['spans_received'] / max(1, exports):.0f} a batch on average")  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
