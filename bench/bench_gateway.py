"""Gateway overhead benchmark: the scripted backend alone vs the gateway in front of it.

    .venv/bin/python -m bench.bench_gateway [--quick] [--client raw|aiohttp] [--out PATH]

One run starts the scripted vLLM stand-in and `responses-gateway serve` as subprocesses (fresh temp
data dir), then, with the load generator in this process (see bench/loadgen.py):

1. storage growth: a 100-turn `previous_response_id` chain; SQLite bytes per turn (file + -wal after
   `wal_checkpoint(TRUNCATE)`, and bytes in use per `dbstat`), turns 1-10 vs 91-100;
2. latency at concurrency 1: backend POST /v1/chat/completions (stream=false) vs gateway
   POST /v1/responses (store=true, non-stream), interleaved in rounds;
3. streaming: time to the first `data:` chunk (backend) vs the first SSE event (gateway, store=true),
   plus time to the first model text and to the end of the stream (informational);
4. throughput: closed-loop requests/s at 1 and 32 clients, backend alone vs gateway (store=true),
   plus the gateway with store=false (informational: the SQLite share of the cost) and, as the
   floor of the stack, a bare aiohttp forwarder (bench/bare_proxy.py) in front of the same backend.

It prints a table, PASS/MISS per target, and writes bench/results/gateway.json. Targets are
reported, never enforced: the exit status is 0 unless the benchmark itself broke.

The machine has 2 cores; backend, gateway and load generator share them, so at 32 clients the
numbers are CPU-bound and the generator's own cost (printed as CPU ms/request) is part of the
picture. The gateway's per-request CPU (also printed) is the figure to drive down.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from bench.loadgen import CHAT_TOKEN, RESPONSES_TOKEN, Generator, Target
from bench.measure import (
    CpuWatch,
    add_run_args,
    failures,
    latency_interleaved,
    phase,
    stats,
    throughput,
    verdict,
    wait_quiet,
)
from tests.support.procs import Backend, free_port, scripted_backend, start_gateway, stop, wait_http

MODEL = "scripted-model"
HOST = "127.0.0.1"
RESULTS = Path(__file__).resolve().parent / "results" / "gateway.json"

TARGET_ADDED_P50_MS = 2.0
TARGET_ADDED_TTFE_MS = 2.0
TARGET_THROUGHPUT_RATIO = 0.5


class Profile:
    """Sizes of one run."""

    def __init__(self, quick: bool) -> None:
        self.name = "quick" if quick else "full"
        self.warmup_requests = 100 if quick else 300
        self.rounds = 2 if quick else 6
        self.per_round = 250 if quick else 500
        self.tp_warmup = 0.5 if quick else 1.0
        self.tp_duration = 3.0 if quick else 10.0
        self.chain_turns = 100


# -- targets ---------------------------------------------------------------------------------------
def targets(backend_port: int, gateway_port: int, proxy_port: int = 0, proxy2_port: int = 0) -> dict[str, Target]:
    messages = [{"role": "user", "content": "hi"}]
    return {
        "bare_proxy": Target(
            "bare aiohttp forwarder chat.completions stream=false",
            HOST,
            proxy_port,
            "/v1/chat/completions",
            {"model": MODEL, "messages": messages, "stream": False},
        ),
        "bare_proxy2": Target(
            "two bare aiohttp forwarders on one port",
            HOST,
            proxy2_port,
            "/v1/chat/completions",
            {"model": MODEL, "messages": messages, "stream": False},
        ),
        "backend": Target(
            "backend chat.completions stream=false",
            HOST,
            backend_port,
            "/v1/chat/completions",
            {"model": MODEL, "messages": messages, "stream": False},
        ),
        "gateway": Target(
            "gateway responses store=true",
            HOST,
            gateway_port,
            "/v1/responses",
            {"model": MODEL, "input": "hi", "store": True},
        ),
        "gateway_nostore": Target(
            "gateway responses store=false",
            HOST,
            gateway_port,
            "/v1/responses",
            {"model": MODEL, "input": "hi", "store": False},
        ),
        # What the gateway itself asks the backend for (stream + include_usage), so "complete" is
        # exactly the backend's share of a gateway request.
        "backend_stream": Target(
            "backend chat.completions stream=true",
            HOST,
            backend_port,
            "/v1/chat/completions",
            {"model": MODEL, "messages": messages, "stream": True, "stream_options": {"include_usage": True}},
            stream=True,
            token_marker=CHAT_TOKEN,
            done_marker=b"data: [DONE]",
        ),
        "gateway_stream": Target(
            "gateway responses stream=true store=true",
            HOST,
            gateway_port,
            "/v1/responses",
            {"model": MODEL, "input": "hi", "store": True, "stream": True},
            stream=True,
            token_marker=RESPONSES_TOKEN,
            done_marker=b"event: response.completed",
        ),
    }


async def check_replies(gen: Generator, t: dict[str, Target]) -> None:
    """One request of each kind, checked for content, so a broken setup fails loudly before timing."""
    for key, target in t.items():
        client = gen.client(target)
        sample, body = await client.send(keep_body=True)
        await client.close()
        if not sample.ok:
            raise RuntimeError(f"{target.name}: HTTP {sample.status} {body[:500]!r}")
        if target.stream:
            continue
        parsed = orjson.loads(body)
        if key.startswith("gateway"):
            text = parsed["output"][0]["content"][0]["text"]
            assert parsed["status"] == "completed", parsed
        else:
            text = parsed["choices"][0]["message"]["content"]
        if text != "Echo: hi":
            raise RuntimeError(f"{target.name}: unexpected reply {text!r}")


# -- phases ----------------------------------------------------------------------------------------
def _file_bytes(db: Path) -> int:
    """The database file plus its -wal (the -shm index is a fixed 32 KiB and not counted)."""
    wal = Path(str(db) + "-wal")
    return db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def _db_sizes(db: Path, ckpt: Any) -> tuple[int, int]:
    """(file bytes incl. -wal after a TRUNCATE checkpoint, bytes in use per dbstat)."""
    ckpt.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    size = _file_bytes(db)
    # The stdlib sqlite3 is built with dbstat (pysqlite3-binary is not). It reads in a process of its
    # own: two SQLite copies in one process drop each other's POSIX locks when one closes the file.
    used = subprocess.run([sys.executable, "-c", _DBSTAT, str(db)], capture_output=True, text=True, check=True)
    return size, int(used.stdout)


_DBSTAT = """
import sqlite3, sys
ro = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
print(ro.execute("SELECT COALESCE(SUM(pgsize - unused), 0) FROM dbstat").fetchone()[0])
ro.close()
"""


async def storage_chain(gen: Generator, gateway_port: int, db: Path, backend: Backend, turns: int) -> dict[str, Any]:
    from storage.sqlite.conn import connect  # pysqlite3, as the gateway uses

    ckpt = connect(db)
    client = None
    try:
        sizes = [_db_sizes(db, ckpt)]
        latencies: list[float] = []
        prev: str | None = None
        for i in range(1, turns + 1):
            body: dict[str, Any] = {"model": MODEL, "input": f"turn {i:03d} of the storage chain", "store": True}
            if prev:
                body["previous_response_id"] = prev
            target = Target(f"chain turn {i}", HOST, gateway_port, "/v1/responses", body)
            client = client or gen.client(target)
            sample, raw = await client.send(keep_body=True, target=target)
            if not sample.ok:
                raise RuntimeError(f"chain turn {i}: HTTP {sample.status} {raw[:300]!r}")
            prev = orjson.loads(raw)["id"]
            latencies.append(sample.end - sample.t0)
            sizes.append(_db_sizes(db, ckpt))
    finally:
        ckpt.close()
        if client is not None:
            await client.close()
    # The last backend call must have carried the whole chain: 99 user+assistant pairs + 1 input.
    last = backend.requests()[-1]["body"]["messages"]
    if len(last) != 2 * turns - 1:
        raise RuntimeError(f"chain history not replayed: last backend call had {len(last)} messages")

    def per_turn(col: int, lo: int, hi: int) -> float:
        return (sizes[hi][col] - sizes[lo - 1][col]) / (hi - lo + 1)

    return {
        "turns": turns,
        "baseline_file_bytes": sizes[0][0],
        "file_bytes_after_turn": [s[0] for s in sizes[1:]],
        "used_bytes_after_turn": [s[1] for s in sizes[1:]],
        "file_bytes_per_turn_1_10": round(per_turn(0, 1, 10), 1),
        "file_bytes_per_turn_91_100": round(per_turn(0, turns - 9, turns), 1),
        "file_bytes_per_turn_all": round(per_turn(0, 1, turns), 1),
        "used_bytes_per_turn_1_10": round(per_turn(1, 1, 10), 1),
        "used_bytes_per_turn_91_100": round(per_turn(1, turns - 9, turns), 1),
        "used_bytes_per_turn_all": round(per_turn(1, 1, turns), 1),
        "request_ms_turns_1_10": stats(latencies[:10]),
        "request_ms_turns_91_100": stats(latencies[-10:]),
        "backend_messages_last_turn": len(last),
    }


# -- the run ---------------------------------------------------------------------------------------
async def run(
    args: argparse.Namespace, prof: Profile, backend: Backend, gw: Any, db: Path, proxy: Any, proxy2: Any
) -> dict[str, Any]:
    t = targets(backend.port, gw.port, proxy.port, proxy2.port)
    pids = {"gateway": gw.proc.pid, "backend": backend.proc.pid, "proxy": proxy.procs[0].pid}
    pids.update({f"proxy2_{i}": p.pid for i, p in enumerate(proxy2.procs)})
    out: dict[str, Any] = {}
    watch = CpuWatch(list(pids.values()))
    watch.start()
    async with Generator(args.client) as gen:
        # Nothing stored before the chain, so it starts on a fresh database file.
        await check_replies(
            gen, {k: t[k] for k in ("backend", "backend_stream", "gateway_nostore", "bare_proxy", "bare_proxy2")}
        )
        # Warm the gateway's code paths without touching the database.
        await gen.sequential(t["gateway_nostore"], 50)
        phase("storage growth: 100-turn previous_response_id chain")
        out["storage"] = await storage_chain(gen, gw.port, db, backend, prof.chain_turns)
        await check_replies(gen, {k: t[k] for k in ("gateway", "gateway_stream")})

        phase("latency, non-streaming, concurrency 1")
        b, g, gn = await latency_interleaved(gen, [t["backend"], t["gateway"], t["gateway_nostore"]], prof)
        lb, lg, lgn = (stats([s.end - s.t0 for s in x]) for x in (b, g, gn))
        out["latency"] = {
            "backend": lb,
            "gateway": lg,
            "gateway_nostore": lgn,
            "added_p50": round(lg["p50"] - lb["p50"], 3),
            "added_p99": round(lg["p99"] - lb["p99"], 3),
            "added_p50_nostore": round(lgn["p50"] - lb["p50"], 3),
            "added_p99_nostore": round(lgn["p99"] - lb["p99"], 3),
            "failed": {"backend": failures(b), "gateway": failures(g), "gateway_nostore": failures(gn)},
        }

        phase("streaming time to first event, concurrency 1")
        b, g = await latency_interleaved(gen, [t["backend_stream"], t["gateway_stream"]], prof)
        sb = {k: stats([getattr(s, k) - s.t0 for s in b]) for k in ("first", "token", "end")}
        sg = {k: stats([getattr(s, k) - s.t0 for s in g]) for k in ("first", "token", "end")}
        out["stream"] = {
            "backend": sb,
            "gateway": sg,
            "added": {
                k: {"p50": round(sg[k]["p50"] - sb[k]["p50"], 3), "p99": round(sg[k]["p99"] - sb[k]["p99"], 3)}
                for k in ("first", "token", "end")
            },
            "failed": {"backend": failures(b), "gateway": failures(g)},
        }

        out["throughput"] = {}
        for key, clients in (
            ("backend", 1),
            ("backend", 32),
            ("gateway", 1),
            ("gateway", 32),
            ("gateway_nostore", 32),
            ("backend_stream", 32),
            ("bare_proxy", 32),
            ("bare_proxy2", 32),
        ):
            phase(f"throughput: {t[key].name}, {clients} client(s), {prof.tp_duration:g} s")
            out["throughput"][f"{key}@{clients}"] = await throughput(gen, t[key], clients, prof, pids)
        tp = out["throughput"]
        tp["ratio_gateway_backend@32"] = round(tp["gateway@32"]["rps"] / tp["backend@32"]["rps"], 3)
        tp["ratio_gateway_backend@1"] = round(tp["gateway@1"]["rps"] / tp["backend@1"]["rps"], 3)
        tp["ratio_gateway_backend_stream@32"] = round(tp["gateway@32"]["rps"] / tp["backend_stream@32"]["rps"], 3)
        tp["ratio_gateway_nostore_backend@32"] = round(tp["gateway_nostore@32"]["rps"] / tp["backend@32"]["rps"], 3)
        tp["ratio_bare_proxy_backend@32"] = round(tp["bare_proxy@32"]["rps"] / tp["backend@32"]["rps"], 3)
        tp["ratio_bare_proxy2_backend@32"] = round(tp["bare_proxy2@32"]["rps"] / tp["backend@32"]["rps"], 3)
    out["machine"] = watch.stop()
    out["db_bytes_at_end"] = _file_bytes(db)
    return out


def report(res: dict[str, Any]) -> str:
    lat, st, tp, sto = res["latency"], res["stream"], res["throughput"], res["storage"]
    meta = res["meta"]
    lines = [
        f"Responses Gateway benchmark ({meta['profile']}; client={meta['client']}; {meta['cpus']} CPUs shared by "
        "backend, gateway and load generator)",
        "",
        "Latency, concurrency 1 (ms)                           n     p50     p99",
    ]

    def row(label: str, s: dict[str, Any], key: str | None = None) -> str:
        return f"  {label:<48}{s['n']:>6} {s['p50']:>7.3f} {s['p99']:>7.3f}"

    lines += [
        row("backend  POST /v1/chat/completions stream=false", lat["backend"]),
        row("gateway  POST /v1/responses store=true", lat["gateway"]),
        f"  {'added (gateway - backend)':<48}{'':>6} {lat['added_p50']:>7.3f} {lat['added_p99']:>7.3f}",
        row("(info) gateway  POST /v1/responses store=false", lat["gateway_nostore"]),
        f"  {'(info) added, store=false':<48}{'':>6} {lat['added_p50_nostore']:>7.3f} {lat['added_p99_nostore']:>7.3f}",
        "",
        "Streaming, concurrency 1 (ms)                         n     p50     p99",
        row("backend  first data: chunk", st["backend"]["first"]),
        row("gateway  first SSE event (response.created)", st["gateway"]["first"]),
        f"  {'added time to first event':<48}{'':>6} {st['added']['first']['p50']:>7.3f} "
        f"{st['added']['first']['p99']:>7.3f}",
        row("(info) backend  first content chunk", st["backend"]["token"]),
        row("(info) gateway  first response.output_text.delta", st["gateway"]["token"]),
        f"  {'(info) added time to first text':<48}{'':>6} {st['added']['token']['p50']:>7.3f} "
        f"{st['added']['token']['p99']:>7.3f}",
        row("(info) backend  stream complete (data: [DONE])", st["backend"]["end"]),
        row("(info) gateway  stream complete (response.completed)", st["gateway"]["end"]),
        "",
        f"Throughput, closed loop, {tp['backend@1']['duration_s']:g} s        req/s   p50 ms  p99 ms   "
        "CPU ms/req: gateway backend loadgen   cores: ours other",
        "  (the gateway column is the forwarder's own CPU on the bare-forwarder row)",
    ]
    for key, label in (
        ("backend@1", "backend alone, 1 client"),
        ("backend@32", "backend alone, 32 clients"),
        ("gateway@1", "gateway store=true, 1 client"),
        ("gateway@32", "gateway store=true, 32 clients"),
        ("gateway_nostore@32", "(info) gateway store=false, 32 clients"),
        ("backend_stream@32", "(info) backend streamed, 32 clients"),
        ("bare_proxy@32", "(info) bare aiohttp forwarder, 32 clients"),
        ("bare_proxy2@32", "(info) 2 bare forwarders (2 processes)"),
    ):
        r = tp[key]
        c = r["cpu_ms_per_request"]
        if key.startswith("bare_proxy2"):
            front = round(sum(v for k, v in c.items() if k.startswith("proxy2_")), 3)
        elif key.startswith("bare_proxy"):
            front = c["proxy"]
        else:
            front = c["gateway"]
        fail = f"  FAILED {r['failed']}" if r["failed"] else ""
        lines.append(
            f"  {label:<38}{r['rps']:>8.1f} {r['latency_ms']['p50']:>8.3f} {r['latency_ms']['p99']:>7.3f}   "
            f"{front:>19.3f} {c['backend']:>7.3f} {c['loadgen']:>7.3f}"
            f"{r['machine']['ours_cores']:>13.2f} {r['machine']['foreign_cores']:>5.2f}{fail}"
        )
    lines += [
        f"  ratio gateway/backend: {tp['ratio_gateway_backend@1']:.3f} at 1 client, "
        f"{tp['ratio_gateway_backend@32']:.3f} at 32 clients "
        f"(info at 32: store=false {tp['ratio_gateway_nostore_backend@32']:.3f}; "
        f"vs backend streamed {tp['ratio_gateway_backend_stream@32']:.3f})",
        f"  (info) floor of the stack: a bare aiohttp forwarder reaches {tp['ratio_bare_proxy_backend@32']:.3f} of "
        f"the backend at 32 clients, two of them {tp['ratio_bare_proxy2_backend@32']:.3f} (no aiohttp gateway can",
        "  exceed these; the gap between them and the gateway is the engine's own cost)",
    ]
    lines += [
        "",
        f"Storage growth, {sto['turns']}-turn previous_response_id chain (bytes per turn)",
        f"  {'':<34}{'turns 1-10':>12}{'turns 91-100':>14}{'all turns':>12}",
        f"  {'SQLite file + -wal (checkpointed)':<34}{sto['file_bytes_per_turn_1_10']:>12.0f}"
        f"{sto['file_bytes_per_turn_91_100']:>14.0f}{sto['file_bytes_per_turn_all']:>12.0f}",
        f"  {'bytes in use (dbstat)':<34}{sto['used_bytes_per_turn_1_10']:>12.0f}"
        f"{sto['used_bytes_per_turn_91_100']:>14.0f}{sto['used_bytes_per_turn_all']:>12.0f}",
        f"  {'(info) request p50 ms':<34}{sto['request_ms_turns_1_10']['p50']:>12.3f}"
        f"{sto['request_ms_turns_91_100']['p50']:>14.3f}",
        "  file bytes after turn 10,20,..,100: "
        + " ".join(str(sto["file_bytes_after_turn"][i - 1]) for i in range(10, sto["turns"] + 1, 10)),
        "",
    ]
    failed = {f"{part}/{k}": n for part in ("latency", "stream") for k, n in res[part]["failed"].items() if n}
    if failed:
        lines.append(f"FAILED requests at concurrency 1: {failed}")
    m = res["machine"]
    lines.append(
        f"Machine during the run: our processes {m['ours_cores']:.2f} cores, other processes "
        f"{m['foreign_cores']:.2f} cores, steal {m['steal_cores']:.2f} cores"
    )
    if (
        m["foreign_cores"] > 0.1
        or max(tp[k]["machine"]["foreign_cores"] for k in tp if "@" in k and isinstance(tp[k], dict)) > 0.1
    ):
        lines.append("  WARNING: other processes used CPU during the run; the numbers are not reliable.")
    lines += ["", "Targets"]
    for tgt in res["targets"]:
        lines.append(f"  {tgt['verdict']}  {tgt['name']}: {tgt['measured']} (target {tgt['target']})")
    return "\n".join(lines)


def evaluate(res: dict[str, Any]) -> list[dict[str, Any]]:
    lat, st, tp, sto = res["latency"], res["stream"], res["throughput"], res["storage"]
    flat_ratio = sto["used_bytes_per_turn_91_100"] / max(1.0, sto["used_bytes_per_turn_1_10"])
    items = [
        (
            "added p50 latency, non-streaming",
            f"{lat['added_p50']:.3f} ms",
            f"<= {TARGET_ADDED_P50_MS:g} ms",
            lat["added_p50"] <= TARGET_ADDED_P50_MS,
        ),
        (
            "added p50 time to first event, streaming",
            f"{st['added']['first']['p50']:.3f} ms",
            f"<= {TARGET_ADDED_TTFE_MS:g} ms",
            st["added"]["first"]["p50"] <= TARGET_ADDED_TTFE_MS,
        ),
        (
            "gateway/backend throughput at 32 clients",
            f"{tp['ratio_gateway_backend@32']:.3f}",
            f">= {TARGET_THROUGHPUT_RATIO:g}",
            tp["ratio_gateway_backend@32"] >= TARGET_THROUGHPUT_RATIO,
        ),
        ("storage O(N): bytes/turn 91-100 over 1-10 (in use)", f"{flat_ratio:.2f}", "<= 1.25", flat_ratio <= 1.25),
    ]
    return [{"name": n, "measured": m, "target": t, "verdict": verdict(ok)} for n, m, t, ok in items]


class BareProxy:
    def __init__(self, procs: list[subprocess.Popen[Any]], port: int) -> None:
        self.procs, self.port = procs, port


def start_bare_proxy(backend_url: str, processes: int = 1) -> BareProxy:
    port = free_port()
    cmd = [sys.executable, "-m", "bench.bare_proxy", "--port", str(port), "--backend", backend_url]
    if processes > 1:
        cmd.append("--reuse-port")
    procs = [subprocess.Popen(cmd, cwd=Path(__file__).resolve().parent.parent) for _ in range(processes)]
    for proc in procs:
        wait_http(f"http://{HOST}:{port}/health", proc=proc)
    return BareProxy(procs, port)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short run (~40 s): 3 s throughput windows, fewer samples")
    ap.add_argument("--client", choices=("raw", "aiohttp"), default="raw", help="load generator's HTTP client")
    add_run_args(ap, RESULTS)
    args = ap.parse_args(argv)
    prof = Profile(args.quick)
    if args.wait_quiet > 0:
        wait_quiet(args.wait_quiet)
    started = time.time()
    print(f"starting backend and gateway ({prof.name} run) ...", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="gw-bench-") as tmp, scripted_backend(MODEL) as backend:
        data_dir = Path(tmp)
        gw = start_gateway(backend.url, data_dir, GATEWAY_LOG_LEVEL="WARNING")
        proxy = start_bare_proxy(backend.url)
        proxy2 = start_bare_proxy(backend.url, processes=2)
        try:
            res = asyncio.run(run(args, prof, backend, gw, data_dir / "gateway.db", proxy, proxy2))
        finally:
            stop(gw.proc)
            for proc in proxy.procs + proxy2.procs:
                stop(proc)
    res["meta"] = {
        "profile": prof.name,
        "client": args.client,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "wall_seconds": round(time.time() - started, 1),
        "latency_samples_per_side": prof.rounds * prof.per_round,
        "note": "backend, gateway and load generator share the CPUs; CPU ms/req is per completed request",
    }
    res["targets"] = evaluate(res)
    print(report(res))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2) + "\n")
    print(f"\nresults: {args.out}  ({res['meta']['wall_seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
