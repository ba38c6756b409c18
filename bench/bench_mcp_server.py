"""The knowledge-base MCP server (#14): what an MCP `search` costs over the direct vector-store search,
and 16 concurrent MCP clients doing search → fetch on 1,000 documents.

    .venv/bin/python -m bench.bench_mcp_server [--docs N] [--rounds R] [--clients C] [--calls K]
                                               [--out PATH] [--wait-quiet SECONDS]

Starts the scripted backend (deterministic bag-of-words embeddings) and `responses-gateway serve`,
uploads N documents (default 1,000) into one vector store and waits for ingestion. Then:

1. Overhead, interleaved in R rounds (so drift and other engineers' load hit both alike): the same
   query as (a) `POST /v1/vector_stores/{id}/search` (max_num_results 10, one keep-alive aiohttp
   session), (b) the MCP `search_knowledge` tool on that store (max_results 10: the same search),
   and (c) the MCP `search` tool (deep research's shape: every served store, 30 passages folded to
   10 documents), (b) and (c) through one official `mcp` client over streamable HTTP at /mcp.
   Reported per kind, client-side and server-side (the gateway's access-log duration of each
   request, so the client library's own CPU is not charged to the gateway): p50/p90/p99.
   Overhead = MCP p50 - direct p50 (target ≤ 2 ms, server-side).
2. Concurrency: C (default 16) official MCP clients, each its own session, each doing K
   search → fetch pairs; every error counted; p50/p95 per tool and the calls per second.

Reports only (PASS/MISS printed, exit 0 unless the setup broke); results in bench/results/mcp_server.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiohttp
from openai import OpenAI

from bench.loadgen import percentile
from bench.measure import add_run_args, ms, phase, stats, verdict, wait_quiet
from tests.support.procs import ROOT, VENV_BIN, free_port, gateway_env, scripted_backend, stop, wait_http
from tests.support.retrieval_helpers import retrieval_env, wait_ingested

RESULTS = Path(__file__).resolve().parent / "results" / "mcp_server.json"
TARGET_OVERHEAD_MS = 2.0
WORDS = (
    "amber basalt cedar delta ember fjord garnet harbor iris jasper kelp lagoon meadow nickel orchid "
    "pepper quartz raven saffron tundra umber violet walnut xenon yarrow zephyr anchor beacon canyon "
    "dune estuary falcon glacier heron island juniper kestrel lantern mesa nectar oasis prairie quarry "
    "reef summit thistle upland valley willow yucca zinnia"
).split()
SEARCH_ROUTE = "/v1/vector_stores/{vector_store_id}/search"
ACCESS = re.compile(r"(POST) (\S+) (\d{3}) ([\d.]+)ms")


def document(i: int, rng: random.Random) -> bytes:
    words = " ".join(rng.choice(WORDS) for _ in range(60))
    return f"Document {i} about {WORDS[i % len(WORDS)]} and {WORDS[(i * 7) % len(WORDS)]}. {words}\n".encode()


def upload(client: OpenAI, n: int) -> str:
    rng = random.Random(14)
    docs = [document(i, rng) for i in range(n)]
    with ThreadPoolExecutor(8) as pool:
        ids = list(
            pool.map(lambda i: client.files.create(file=(f"doc-{i}.txt", docs[i]), purpose="assistants").id, range(n))
        )
    store = client.vector_stores.create(name="bench-mcp")
    for start in range(0, n, 500):
        client.vector_stores.file_batches.create(vector_store_id=store.id, file_ids=ids[start : start + 500])
    wait_ingested(client, store.id, timeout=600)
    counts = client.vector_stores.retrieve(store.id).file_counts
    assert counts.completed == n, counts
    return store.id


def queries(rng: random.Random, n: int) -> list[str]:
    return [f"{rng.choice(WORDS)} {rng.choice(WORDS)}" for _ in range(n)]


def _with_p95(values: list[float]) -> dict[str, Any]:
    out = stats(values)
    if values:
        out["p95"] = ms(percentile(values, 95))
    return out


def _text(result: Any) -> str:
    return str(getattr(result.content[0], "text", result.content[0]))[:200]


class AccessLog:
    """Server-side durations from the gateway's access lines (stderr at INFO), in arrival order."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset = path, 0

    def take(self) -> list[tuple[str, float]]:
        with open(self.path, encoding="utf-8", errors="replace") as fh:
            fh.seek(self.offset)
            text = fh.read()
            self.offset = fh.tell()
        return [(m[2], float(m[4]) / 1000) for m in ACCESS.finditer(text) if m[3] == "200"]


async def overhead(base: str, store: str, rounds: int, log: AccessLog) -> dict[str, Any]:
    """The three kinds interleaved (shuffled order every round), timed by the client and, from the
    access log, by the gateway: calls are sequential, so the n-th access line is the n-th call."""
    from mcp import Client

    rng = random.Random(7)
    kinds_done: list[str] = []
    client_side: dict[str, list[float]] = {"direct": [], "search_knowledge": [], "search": []}
    async with aiohttp.ClientSession() as http, Client(base + "/mcp") as mcp:

        async def direct(q: str) -> None:
            body = {"query": q, "max_num_results": 10}
            async with http.post(f"{base}/v1/vector_stores/{store}/search", json=body) as r:
                assert r.status == 200, await r.text()
                assert (await r.json())["data"]

        async def knowledge(q: str) -> None:
            res = await mcp.call_tool("search_knowledge", {"query": q, "vector_store_ids": [store], "max_results": 10})
            assert not res.is_error and res.structured_content["results"], res.content

        async def search(q: str) -> None:
            res = await mcp.call_tool("search", {"query": q})
            assert not res.is_error and res.structured_content["results"], res.content

        kinds = {"direct": direct, "search_knowledge": knowledge, "search": search}
        for q in queries(rng, 20):  # warm-up: connections, embedder, caches
            for fn in kinds.values():
                await fn(q)
        await asyncio.sleep(0.5)
        log.take()
        for q in queries(rng, rounds):
            order = list(kinds)
            rng.shuffle(order)
            for kind in order:
                started = time.perf_counter()
                await kinds[kind](q)
                client_side[kind].append(time.perf_counter() - started)
                kinds_done.append(kind)
    await asyncio.sleep(0.5)
    lines = [(route, d) for route, d in log.take() if route in (SEARCH_ROUTE, "/mcp")]
    assert len(lines) == len(kinds_done), (len(lines), len(kinds_done))
    server_side: dict[str, list[float]] = {k: [] for k in client_side}
    for kind, (route, d) in zip(kinds_done, lines, strict=True):
        assert (route == SEARCH_ROUTE) == (kind == "direct"), (kind, route)
        server_side[kind].append(d)
    return {
        "client": {k: stats(v) for k, v in client_side.items()},
        "server": {k: stats(v) for k, v in server_side.items()},
    }


async def concurrent(base: str, clients: int, calls: int) -> dict[str, Any]:
    from mcp import Client

    durations: dict[str, list[float]] = {"search": [], "fetch": []}
    errors: list[str] = []

    async def one(i: int) -> None:
        rng = random.Random(100 + i)
        try:
            async with Client(base + "/mcp") as mcp:
                for q in queries(rng, calls):
                    started = time.perf_counter()
                    res = await mcp.call_tool("search", {"query": q})
                    durations["search"].append(time.perf_counter() - started)
                    if res.is_error or not res.structured_content["results"]:
                        errors.append(f"search: {_text(res)}")
                        continue
                    doc_id = res.structured_content["results"][0]["id"]
                    started = time.perf_counter()
                    got = await mcp.call_tool("fetch", {"id": doc_id})
                    durations["fetch"].append(time.perf_counter() - started)
                    if got.is_error or not got.structured_content["text"]:
                        errors.append(f"fetch: {_text(got)}")
        except Exception as exc:
            errors.append(f"client {i}: {type(exc).__name__}: {exc}")

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(clients)))
    wall = time.perf_counter() - started
    total = len(durations["search"]) + len(durations["fetch"])
    return {
        "clients": clients,
        "pairs_per_client": calls,
        "errors": len(errors),
        "error_samples": errors[:5],
        "calls": total,
        "calls_per_second": round(total / wall, 1),
        "search": _with_p95(durations["search"]),
        "fetch": _with_p95(durations["fetch"]),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--calls", type=int, default=20, help="search → fetch pairs per concurrent client")
    add_run_args(ap, RESULTS)
    args = ap.parse_args()
    if args.wait_quiet:
        wait_quiet(args.wait_quiet)
    with scripted_backend() as backend, tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = gateway_env(
            backend.url, Path(tmp), GATEWAY_HTTP_PORT=str(port), GATEWAY_LOG_LEVEL="INFO", **retrieval_env(backend.url)
        )
        env["GATEWAY_MAX_FILE_BYTES"] = str(1 << 20)
        stderr_path = Path(tmp) / "gateway.log"
        with open(stderr_path, "wb") as err:
            proc = subprocess.Popen([str(VENV_BIN / "responses-gateway"), "serve"], cwd=ROOT, env=env, stderr=err)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_http(base + "/health", proc=proc)
            api = OpenAI(base_url=base + "/v1", api_key="k", max_retries=2)
            phase(f"uploading and ingesting {args.docs} documents")
            t0 = time.perf_counter()
            store = upload(api, args.docs)
            phase(f"ingested in {time.perf_counter() - t0:.1f}s; overhead, {args.rounds} rounds")
            log = AccessLog(stderr_path)
            measured = asyncio.run(overhead(base, store, args.rounds, log))
            client, server = measured["client"], measured["server"]
            phase(f"{args.clients} concurrent clients x {args.calls} search+fetch")
            conc = asyncio.run(concurrent(base, args.clients, args.calls))
        finally:
            stop(proc)
    over_server = server["search_knowledge"]["p50"] - server["direct"]["p50"]
    over_client = client["search_knowledge"]["p50"] - client["direct"]["p50"]
    result = {
        "docs": args.docs,
        "rounds": args.rounds,
        "client_side_ms": client,
        "server_side_ms": server,
        "overhead_p50_ms": {
            "server_side_search_knowledge": round(over_server, 3),
            "server_side_search": round(server["search"]["p50"] - server["direct"]["p50"], 3),
            "client_side_search_knowledge": round(over_client, 3),
            "client_side_search": round(client["search"]["p50"] - client["direct"]["p50"], 3),
        },
        "concurrent": conc,
        "target_overhead_ms": TARGET_OVERHEAD_MS,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    ok = verdict(over_server <= TARGET_OVERHEAD_MS)
    print(f"search_knowledge overhead p50 (server side) {over_server:.2f} ms: {ok}")
    print(f"concurrent errors {conc['errors']}: {verdict(conc['errors'] == 0)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
