"""MCP tool latency: three concurrent 200 ms MCP calls in one turn should cost about one call.

    .venv/bin/python -m bench.bench_mcp [--rounds N] [--out PATH]

Starts the scripted backend, `responses-gateway serve` and the test MCP servers (tests/support/mcp_servers.py,
whose `nap` tool sleeps 200 ms) as subprocesses, then streams responses through the SDK whose model
turn calls `nap` once, or three times in parallel. For each it records, from the client's side:

- tool phase: first `response.mcp_call.in_progress` to last `response.mcp_call.completed`;
- request: the whole streamed response (listing, two model turns, the calls).

One warm-up round first (connects and caches the MCP session). Prints p50/p90/min per case and the
ratio three-calls / one-call (about 1.0 when the calls run concurrently, 3.0 when serially), and
writes everything to bench/results/mcp.json (or `--out`). Reports only: the exit status is 0 unless
the setup broke.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from openai import OpenAI

from tests.support.mcp_servers import NAP_SECONDS, McpServers, mcp_servers
from tests.support.procs import Backend, scripted_backend, start_gateway, stop

MODEL = "scripted-model"
RESULTS = Path(__file__).resolve().parent / "results" / "mcp.json"


def one_round(client: OpenAI, backend: Backend, servers: McpServers, calls: int) -> tuple[float, float]:
    """(tool phase seconds, request seconds) of one streamed response making `calls` nap calls."""
    marker = f"bench-{uuid.uuid4().hex[:10]}"
    naps = [{"name": "slow__nap", "arguments": json.dumps({"n": n})} for n in range(calls)]
    backend.script(marker, {"tool_calls": naps}, {"content": "rested"})
    tool = {"type": "mcp", "server_label": "slow", "server_url": servers.url("slow"), "require_approval": "never"}
    seen: list[tuple[str, float]] = []
    started = time.monotonic()
    stream: Any = client.responses.create(model=MODEL, input=marker, tools=[tool], stream=True)  # type: ignore[list-item]
    for event in stream:
        seen.append((event.type, time.monotonic()))
    finished = time.monotonic()
    starts = [t for name, t in seen if name == "response.mcp_call.in_progress"]
    ends = [t for name, t in seen if name == "response.mcp_call.completed"]
    if len(starts) != calls or len(ends) != calls:
        raise RuntimeError(f"expected {calls} completed MCP calls, saw {[name for name, _ in seen]}")
    return max(ends) - min(starts), finished - started


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": statistics.median(ordered) * 1000,
        "p90_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))] * 1000,
        "min_ms": ordered[0] * 1000,
        "max_ms": ordered[-1] * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    results: dict[str, Any] = {"nap_ms": NAP_SECONDS * 1000, "rounds": args.rounds}
    with tempfile.TemporaryDirectory() as tmp, scripted_backend() as backend, mcp_servers() as servers:
        gateway = start_gateway(backend.url, Path(tmp))
        try:
            client = OpenAI(base_url=gateway.url, api_key="bench", max_retries=0, timeout=30)
            one_round(client, backend, servers, 3)  # warm-up: connect, list, cache the session
            for calls in (1, 3):
                rounds = [one_round(client, backend, servers, calls) for _ in range(args.rounds)]
                results[f"calls_{calls}"] = {
                    "tool_phase": summary([r[0] for r in rounds]),
                    "request": summary([r[1] for r in rounds]),
                }
        finally:
            stop(gateway.proc)
    one, three = results["calls_1"]["tool_phase"], results["calls_3"]["tool_phase"]
    results["ratio_3_over_1"] = three["p50_ms"] / one["p50_ms"]
    print(f"MCP tool latency, {args.rounds} rounds each, nap = {NAP_SECONDS * 1000:.0f} ms (p50 / p90 / min, ms)")
    for calls in (1, 3):
        for phase in ("tool_phase", "request"):
            s = results[f"calls_{calls}"][phase]
            print(f"  {calls} call(s)  {phase:<10}  {s['p50_ms']:7.1f} {s['p90_ms']:7.1f} {s['min_ms']:7.1f}")
    print(
        f"three concurrent 200 ms MCP calls in one turn: {three['p50_ms']:.0f} ms p50 "
        f"({results['ratio_3_over_1']:.2f}x one call; serial would be ~3x)"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
