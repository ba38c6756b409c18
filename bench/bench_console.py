"""The console's pages with 10,000 stored responses (#32 target: each page loads in < 300 ms).

10,000 responses (an input and an output message each, four models, every status, a few research
runs and chains) are written straight into a fresh SQLite state through the store (group commit:
seconds, not the minutes 10,000 SDK calls would take), then a gateway serves them. For each page,
the exact requests the page makes (its HTML, its modules and stylesheet, then its API calls, as
main.js issues them) are timed end to end, the page's load being the HTML + assets fetched
concurrently followed by its API calls (concurrent where the page sends them together); p50 and
p90 over the repeats. With Chromium installed, the same pages are also timed in the real browser
(navigation to the console's `data-ready` mark).

    .venv/bin/python -m bench.bench_console [--responses 10000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

from bench.measure import cpu_seconds, descendants
from storage.scope import project_scope
from storage.sqlite.state import SQLiteStore
from tests.support.procs import gateway, scripted_backend

TARGET_MS = 300.0
ASSET = re.compile(rb'(?:href|src)="(/console/assets/[^"]+)"')
MODELS = ["scripted-model", "big-model", "small-model", "research"]
STATUSES = ["completed"] * 6 + ["failed", "incomplete", "cancelled", "in_progress"]


def _msg(i: str, role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"id": i, "type": "message", "role": role, "status": "completed", "content": [{"type": kind, "text": text}]}


async def fill(data_dir: Path, n: int) -> list[str]:
    """Write `n` responses into the data dir's state; their ids, oldest first."""
    store = SQLiteStore(data_dir / "gateway.db")
    await store.open()
    rng = random.Random(7)
    start = time.time() - n  # one a second up to now
    ids: list[str] = []
    try:
        with project_scope("default"):
            for base in range(0, n, 500):
                writes = []
                for k in range(base, min(n, base + 500)):
                    rid = f"resp_bench{k:06d}"
                    prev = ids[-1] if k % 10 and ids else None  # chains of ten
                    words = " ".join(rng.choice(["alpha", "beta", "gamma", "delta", "omega"]) for _ in range(12))
                    resp = {
                        "id": rid,
                        "object": "response",
                        "created_at": start + k,
                        "completed_at": start + k + 1,
                        "status": rng.choice(STATUSES),
                        "model": MODELS[k % len(MODELS)] if k % 97 else "research",
                        "previous_response_id": prev,
                        "instructions": "Answer briefly.",
                        "usage": {"input_tokens": 40, "output_tokens": 20, "total_tokens": 60},
                        "output": [],
                    }
                    writes.append(
                        store.write_response(
                            resp,
                            inputs=[_msg(f"msg_in{k:06d}", "user", f"question {k}: {words}")],
                            outputs=[_msg(f"msg_out{k:06d}", "assistant", f"answer {k}: {words}")],
                        )
                    )
                    ids.append(rid)
                await asyncio.gather(*writes)
    finally:
        await store.close()
    return ids


def pages(ids: list[str]) -> dict[str, list[list[str]]]:
    """Each page's API calls, in the rounds main.js sends them (calls within a round go together)."""
    mid = ids[len(ids) // 2]
    research = "model=research&model=deep-research"
    return {
        "/console/responses": [["/v1/responses?limit=50"]],
        "/console/responses?model=big-model&status=failed": [["/v1/responses?model=big-model&status=failed&limit=50"]],
        "/console/responses?search=answer+9999": [["/v1/responses?search=answer+9999&limit=50"]],
        f"/console/responses/{mid}": [
            [
                f"/v1/responses/{mid}",
                f"/v1/responses/{mid}/input_items?order=asc&limit=100",
                f"/v1/responses?previous_response_id={mid}&limit=10&order=asc",
            ]
        ],
        "/console/research": [
            [
                f"/v1/responses?{research}&status=queued&status=in_progress&limit=50",
                f"/v1/responses?{research}&limit=30",
            ]
        ],
    }


async def _get(s: aiohttp.ClientSession, url: str) -> None:
    async with s.get(url) as r:
        await r.read()
        if r.status != 200:
            raise RuntimeError(f"{url}: {r.status}")


async def _read(s: aiohttp.ClientSession, url: str) -> bytes:
    async with s.get(url) as r:
        if r.status != 200:
            raise RuntimeError(f"{url}: {r.status}")
        return await r.read()


async def load(s: aiohttp.ClientSession, base: str, page: str, rounds: list[list[str]]) -> float:
    """A first visit (nothing cached): the HTML, then its stylesheet and modules together, then the
    page's API calls."""
    t0 = time.perf_counter()
    html = await _read(s, base + page)
    await asyncio.gather(*(_get(s, base + a.decode()) for a in ASSET.findall(html)))
    for calls in rounds:
        await asyncio.gather(*(_get(s, base + c) for c in calls))
    return (time.perf_counter() - t0) * 1000


def browser_times(base: str, paths: list[str], repeat: int) -> dict[str, dict[str, list[float]]] | None:
    """Per page: a full load (a navigation: the HTML revalidated, the modules from the browser's
    cache) and an in-app move (a console link: the page's API calls and drawing only)."""
    try:
        from playwright.sync_api import sync_playwright

        from tests.support.browser import ARGS
    except ImportError:
        return None
    if not Path("/usr/bin/chromium").exists():
        return None
    out: dict[str, dict[str, list[float]]] = {"load": {p: [] for p in paths}, "in-app": {p: [] for p in paths}}
    out["floor"] = {"/health (a 15-byte JSON page: the browser's own cost)": []}
    move = "path => { history.pushState(null, '', path); dispatchEvent(new PopStateEvent('popstate')); }"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page()
        drawn = page.locator("body[data-ready='1']")
        page.goto(base + "/console/responses")  # warm
        drawn.wait_for(state="attached")
        for _ in range(repeat):
            t0 = time.perf_counter()
            page.goto(base + "/health")
            out["floor"]["/health (a 15-byte JSON page: the browser's own cost)"].append(
                (time.perf_counter() - t0) * 1000
            )
            for path in paths:
                t0 = time.perf_counter()
                page.goto(base + path)
                drawn.wait_for(state="attached")
                out["load"][path].append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                page.evaluate(move, path)
                drawn.wait_for(state="attached")
                out["in-app"][path].append((time.perf_counter() - t0) * 1000)
        browser.close()
    return out


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--responses", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, scripted_backend() as backend:
        data_dir = Path(tmp)
        t0 = time.perf_counter()
        ids = asyncio.run(fill(data_dir, args.responses))
        print(f"wrote {len(ids)} responses in {time.perf_counter() - t0:.1f} s")
        with gateway(backend.url, data_dir, GATEWAY_AUTH="none") as gw:
            plan = pages(ids)

            pids = descendants([gw.proc.pid])

            def cpu() -> float:
                return sum(cpu_seconds(p) for p in pids)

            async def run() -> tuple[dict[str, list[float]], dict[str, float]]:
                times: dict[str, list[float]] = {p: [] for p in plan}
                spent: dict[str, float] = {}
                async with aiohttp.ClientSession() as s:
                    for page, rounds in plan.items():  # warm
                        await load(s, gw.base, page, rounds)
                    for page, rounds in plan.items():
                        c0 = cpu()
                        for _ in range(args.repeat):
                            times[page].append(await load(s, gw.base, page, rounds))
                        spent[page] = (cpu() - c0) * 1000 / args.repeat
                return times, spent

            times, spent = asyncio.run(run())
            print(f"\nfirst visit over HTTP: HTML + its 12 assets + the page's API calls, {args.repeat} runs")
            print("(wall time depends on what else the 2 shared cores run; the gateway's CPU per load does not)")
            print(f"{'page':58} {'p50 ms':>8} {'p90 ms':>8} {'gw CPU ms':>10}")
            worst = 0.0
            for page, xs in times.items():
                worst = max(worst, _pct(xs, 0.9))
                print(f"{page:58} {statistics.median(xs):8.1f} {_pct(xs, 0.9):8.1f} {spent[page]:10.1f}")
            print(f"worst p90 {worst:.1f} ms: {'PASS' if worst < TARGET_MS else 'MISS'} (target < {TARGET_MS:.0f} ms)")
            seen = browser_times(gw.base, list(plan), max(3, args.repeat // 4))
            for kind, label in (
                ("floor", "the floor: navigating to a page with no script"),
                ("load", "a full load (reload)"),
                ("in-app", "moving to it in the console"),
            ):
                if seen is None:
                    break
                print(f"\nin Chromium, {label}: until the page is drawn (data-ready)")
                worst = 0.0
                for page, xs in seen[kind].items():
                    worst = max(worst, _pct(xs, 0.9))
                    print(f"{page:58} {statistics.median(xs):8.1f} {_pct(xs, 0.9):8.1f}")
                verdict = "PASS" if worst < TARGET_MS else "MISS"
                print(f"worst p90 {worst:.1f} ms: {verdict} (target < {TARGET_MS:.0f} ms)")


if __name__ == "__main__":
    main()
