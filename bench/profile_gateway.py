"""Where the gateway's CPU goes per request, sampled with py-spy under closed-loop load.

    .venv/bin/pip install py-spy      # once
    .venv/bin/python -m bench.profile_gateway [--scenario store|nostore|stream] [--clients 32]
        [--duration 10] [--rate 250] [--native] [--raw PATH]

Starts the scripted backend and the gateway (fresh temp data dir), drives the chosen request kind
with the benchmark's load generator, and attaches `py-spy record` to the gateway process for the
measured window. Samples are folded into per-request CPU microseconds (samples / rate / requests):
by thread, by cost category (the innermost frame that matches a rule in `CATEGORIES`), and the top
functions by self and inclusive time. py-spy pauses the process to sample (unless --nonblocking), so
absolute throughput under profiling is lower than in bench_gateway; the split is what matters.
`--native` adds C frames (SQLite, orjson, pydantic-core) at a much higher sampling cost.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from bench.bench_gateway import HOST, MODEL, targets
from bench.loadgen import Generator, perf
from tests.support.procs import VENV_BIN, scripted_backend, start_gateway, stop

SCENARIOS = {"store": "gateway", "nostore": "gateway_nostore", "stream": "gateway_stream"}

# (category, test on a frame "func (path:line)"), innermost matching frame wins.
CATEGORIES: list[tuple[str, Any]] = [
    ("pydantic validation", lambda f: "pydantic" in f or "model_validate" in f),
    ("JSON encode/decode (orjson)", lambda f: "orjson" in f or "gateway/common/jsonutil.py" in f),
    ("SSE framing (gateway/engine/sse_writer.py)", lambda f: "sse_frame" in f),
    ("SSE parsing (backends/sse.py)", lambda f: "gateway/inference/sse_reader.py" in f),
    ("event building (engine/events.py, turn.py)", lambda f: "engine/events.py" in f or "engine/turn.py" in f),
    ("chat translation (chat_translate.py)", lambda f: "chat_translate.py" in f),
    ("context/prepare (engine/context.py, schema/)", lambda f: "engine/context.py" in f or "gateway/api_models/" in f),
    ("id generation (ids.py)", lambda f: "gateway/common/ids.py" in f),
    ("SQLite calls (storage/)", lambda f: "storage/" in f),
    (
        "thread hop (run_in_executor, futures)",
        lambda f: (
            "concurrent/futures" in f
            or "run_in_executor" in f
            or "call_soon_threadsafe" in f
            or "_chain_future" in f
            or "wrap_future" in f
        ),
    ),
    (
        "aiohttp client (backend call)",
        lambda f: any(
            m in f
            for m in (
                "aiohttp/client",
                "aiohttp/connector.py",
                "aiohttp/streams.py",
                "aiohttp/_http_parser",
                "aiohttp/http_parser.py",
                "aiohttp/helpers.py",
                "aiohttp/tracing.py",
                "aiohttp/cookiejar.py",
                "multidict",
                "yarl",
            )
        ),
    ),
    (
        "aiohttp server (web_*, http_writer)",
        lambda f: "aiohttp/web" in f or "aiohttp/http_writer.py" in f or "aiohttp/base_protocol.py" in f,
    ),
    (
        "engine loop (runner.py, run_lifecycle.py, service.py)",
        lambda f: "engine/runner.py" in f or "engine/run_lifecycle.py" in f or "engine/service.py" in f,
    ),
    ("other gateway code", lambda f: "gateway/" in f),
    ("asyncio event loop + socket I/O", lambda f: "asyncio/" in f or "selectors.py" in f or "socket" in f),
]


def fold(raw: str) -> tuple[Counter[str], list[tuple[str, list[str], int]]]:
    """py-spy raw (collapsed) output → samples per thread and (thread, frames, count) stacks."""
    threads: Counter[str] = Counter()
    stacks = []
    for line in raw.splitlines():
        if not line.strip():
            continue
        stack, _, count_s = line.rpartition(" ")
        frames = stack.split(";")
        thread = frames[0].split(": ", 1)[-1] if frames[0].startswith("thread") else "?"
        thread = thread.rstrip("_0123456789") or thread  # sqlite-writer_0 → sqlite-writer
        count = int(count_s)
        threads[thread] += count
        stacks.append((thread, frames[1:], count))
    return threads, stacks


def _key(frame: str) -> str:
    """`func (path:line)` → `func (path)` so a function's lines add up."""
    name, sep, where = frame.partition(" (")
    if not sep:
        return frame
    return f"{name} ({where.rsplit(':', 1)[0].rstrip(')')})"


def categorize(thread: str, frames: list[str]) -> str:
    if thread.startswith("sqlite"):
        return f"{thread} thread (SQLite, GIL released in C)"
    for frame in reversed(frames):
        for name, test in CATEGORIES:
            if test(frame):
                return name
    return "other (interpreter, C code)"


def summarize(raw: str, rate: float, requests: int, top: int = 25) -> str:
    threads, stacks = fold(raw)
    total = sum(threads.values())
    per_req = 1e6 / rate / max(1, requests)  # µs of CPU per sample per request
    cats: Counter[str] = Counter()
    self_t: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    for thread, frames, count in stacks:
        cats[categorize(thread, frames)] += count
        if frames:
            self_t[_key(frames[-1])] += count
        for k in {_key(f) for f in frames}:
            incl[k] += count
    out = [
        f"{requests} requests, {total} samples at {rate:g} Hz "
        f"= {total / rate / max(1, requests) * 1e6:.0f} µs CPU per request (all threads, while sampled)",
        "",
        "By thread                                           µs/req     %",
    ]
    out += [f"  {t:<48}{n * per_req:>8.1f} {100 * n / total:>5.1f}" for t, n in threads.most_common()]
    out += ["", "By category (innermost matching frame)              µs/req     %"]
    out += [f"  {c:<48}{n * per_req:>8.1f} {100 * n / total:>5.1f}" for c, n in cats.most_common()]
    out += ["", f"Top {top} functions by self time                   µs/req     %"]
    out += [f"  {f[:96]:<96}{n * per_req:>8.1f} {100 * n / total:>5.1f}" for f, n in self_t.most_common(top)]
    project = [(f, n) for f, n in incl.most_common() if "gateway/" in f or "storage/" in f]
    out += ["", f"Top {top} gateway/storage functions, inclusive     µs/req     %"]
    out += [f"  {f[:96]:<96}{n * per_req:>8.1f} {100 * n / total:>5.1f}" for f, n in project[:top]]
    return "\n".join(out)


async def profile(args: argparse.Namespace, backend_port: int, gw: Any, raw_path: Path) -> int:
    """Run the load, sample the gateway; return the number of requests completed while sampled."""
    target = targets(backend_port, gw.port)[SCENARIOS[args.scenario]]
    pyspy = shutil.which("py-spy", path=str(VENV_BIN)) or shutil.which("py-spy")
    if pyspy is None:
        raise SystemExit("py-spy not found: .venv/bin/pip install py-spy")
    cmd = [
        pyspy,
        "record",
        "--pid",
        str(gw.proc.pid),
        "--duration",
        str(int(args.duration)),
        "--rate",
        str(int(args.rate)),
        "--format",
        "raw",
        "--threads",
        "-o",
        str(raw_path),
    ]
    if args.native:
        cmd.append("--native")
    if args.nonblocking:
        cmd.append("--nonblocking")
    if args.gil:
        cmd.append("--gil")
    async with Generator() as gen:
        await gen.sequential(target, 300)  # warm up
        # Load runs before, during and after the sampling window; requests ending inside it count.
        load = asyncio.ensure_future(gen.closed_loop(target, args.clients, 0.0, float(args.duration) + 2.0))
        await asyncio.sleep(0.5)
        t_start = perf()
        spy = await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.DEVNULL, stderr=sys.stderr)
        code = await spy.wait()
        t_end = perf()
        res = await load
        if code != 0:
            raise SystemExit(f"py-spy failed ({code})")
    return sum(1 for s in res["samples"] if t_start <= s.end <= t_end)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--scenario", choices=sorted(SCENARIOS), default="store")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--rate", type=float, default=250.0)
    ap.add_argument("--native", action="store_true", help="include C frames (slow sampling)")
    ap.add_argument("--nonblocking", action="store_true", help="do not pause the gateway to sample")
    ap.add_argument(
        "--gil",
        action="store_true",
        help="only sample the thread holding the GIL (Python CPU; excludes time waiting for the GIL)",
    )
    ap.add_argument("--raw", type=Path, default=None, help="keep py-spy's collapsed stacks here")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gw-prof-") as tmp, scripted_backend(MODEL) as backend:
        gw = start_gateway(backend.url, Path(tmp), GATEWAY_LOG_LEVEL="WARNING")
        try:
            raw_path = args.raw or Path(tmp) / "pyspy.txt"
            requests = asyncio.run(profile(args, backend.port, gw, raw_path))
        finally:
            stop(gw.proc)
        raw = raw_path.read_text()
    print(
        f"gateway profile: scenario={args.scenario} ({SCENARIOS[args.scenario]}), {args.clients} clients, "
        f"{args.duration:g} s, host {HOST}"
    )
    print(summarize(raw, args.rate, requests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
