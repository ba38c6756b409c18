"""A chain turn's store work as the database grows: flat, not linear in the stored responses (#25, 9).

    .venv/bin/python -m bench.bench_history [--rows N] [--turns T] [--backend sqlite|postgres|both]

In-process, on the state store `gateway/bootstrap.py` builds (SQLite in a temporary data dir;
PostgreSQL on a throw-away embedded server). At each size (0, then N/100, N/10, N stored responses
of other clients, each with an input and an output item) it measures T turns of one 5-turn
`previous_response_id` chain: what the engine asks the store for on a turn, the history read
(`response_history`) and the stored turn (`write_response`). Reported: p50 and p90 in ms of the
turn's store work and of the history read alone, per size, and the ratio of the largest size's
p50 to the empty database's (flat is ~1; the scan this replaced made it ~10 at 20,000 responses).
Filling is concurrent (batches of writes) and is not measured.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from gateway.bootstrap import build_stores
from gateway.config import Settings

CHAIN = 5  # turns per chain: the history read walks 4 earlier responses


def _msg(i: str, role: str = "user") -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    content = [{"type": kind, "text": "x" * 40}]
    return {"id": i, "type": "message", "role": role, "content": content, "status": "completed"}


def _resp(i: str, prev: str | None = None) -> dict[str, Any]:
    return {"id": i, "object": "response", "created_at": 1, "status": "completed", "previous_response_id": prev,
            "conversation": None, "output": [], "model": "m"}  # fmt: skip


async def _fill(store: Any, start: int, stop: int, batch: int = 64) -> None:
    for base in range(start, stop, batch):
        await asyncio.gather(
            *(
                store.write_response(_resp(f"f{n}"), inputs=[_msg(f"fi{n}")], outputs=[_msg(f"fo{n}", "assistant")])
                for n in range(base, min(base + batch, stop))
            )
        )


async def _turns(store: Any, label: str, turns: int) -> tuple[list[float], list[float]]:
    """`turns` chain turns (chains of CHAIN): ms of each turn's store work and of its history read."""
    whole, history = [], []
    prev: str | None = None
    for t in range(turns):
        rid = f"{label}-{t}"
        if t % CHAIN == 0:
            prev = None
        start = time.perf_counter()
        if prev is not None:
            await store.response_history(prev)
        read = time.perf_counter()
        await store.write_response(_resp(rid, prev), inputs=[_msg(f"{rid}-i")], outputs=[_msg(f"{rid}-o", "assistant")])
        done = time.perf_counter()
        if prev is not None:
            whole.append((done - start) * 1000)
            history.append((read - start) * 1000)
        prev = rid
    return whole, history


def _pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


async def run(kind: str, rows: int, turns: int, url: str | None) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-history-") as tmp:
        store = build_stores(Settings(data_dir=Path(tmp), database_url=url)).state
        await store.open()
        try:
            sizes = [0, rows // 100, rows // 10, rows]
            filled, p50s = 0, []
            print(f"\n{kind}: chain turn (history read + stored turn), {turns} turns per size")
            print(f"{'stored':>10} {'turn p50':>9} {'turn p90':>9} {'history p50':>12} {'history p90':>12}  fill s")
            for size in sizes:
                began = time.perf_counter()
                await _fill(store, filled, size)
                fill_s = time.perf_counter() - began
                filled = size
                whole, history = await _turns(store, f"{kind}-{size}", turns)
                p50 = statistics.median(whole)
                p50s.append(p50)
                print(
                    f"{size:>10,} {p50:>9.3f} {_pct(whole, 90):>9.3f} {statistics.median(history):>12.3f} "
                    f"{_pct(history, 90):>12.3f}  {fill_s:6.1f}"
                )
            print(f"{kind}: turn p50 at {rows:,} / empty = {p50s[-1] / p50s[0]:.2f} (flat: ~1)")
        finally:
            await store.close()


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=100_000, help="stored responses at the largest size")
    ap.add_argument("--turns", type=int, default=300, help="measured chain turns per size")
    ap.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    a = ap.parse_args()
    if a.backend in ("sqlite", "both"):
        await run("sqlite", a.rows, a.turns, None)
    if a.backend in ("postgres", "both"):
        from tests.support.pg import postgres_server

        with postgres_server() as url:
            await run("postgres", a.rows, a.turns, url)


if __name__ == "__main__":
    asyncio.run(main())
