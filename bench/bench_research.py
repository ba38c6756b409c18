"""Research runs against local stand-ins (#13 target: the gateway busy ≤ 5 % of a run's wall time).

A scripted backend (planning answers and the streamed answer each take `--model-delay` seconds),
a SearXNG-style search server and web pages (each answering after `--web-delay` seconds) run in
this process; one gateway HTTP server runs research through chat completions, a standard and a
deep run per round. Printed per kind: wall time, the gateway process's CPU per run (from /proc,
its threads included: page extraction runs in threads), and that CPU's share of the wall time,
i.e. the share of the run the gateway spent working rather than waiting on the backend, search or
fetches.

    .venv/bin/python -m bench.bench_research [--rounds 3] [--model-delay 0.3] [--web-delay 0.1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from openai import OpenAI

from bench.measure import cpu_seconds
from tests.support.procs import gateway, scripted_backend
from tests.support.web_standins import Web

TARGET_SHARE = 0.05
PARAGRAPH = "The keeper of Skerry Light keeps a violin made in Cremona, and bees, and a logbook. " * 40


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--model-delay", type=float, default=0.3)
    ap.add_argument("--web-delay", type=float, default=0.1)
    args = ap.parse_args()
    with Web() as web, scripted_backend() as backend, tempfile.TemporaryDirectory() as tmp:
        for i in range(12):
            web.page(f"/p{i}", f"Page {i}", PARAGRAPH)
            web.delay[f"/p{i}"] = args.web_delay
        web.delay["/search"] = args.web_delay
        env = {"GATEWAY_WEB_SEARCH_PROVIDER": "searxng", "GATEWAY_WEB_SEARCH_URL": web.base}
        with gateway(backend.url, Path(tmp), **env) as gw:
            client = OpenAI(base_url=gw.url, api_key="k", max_retries=0, timeout=120)
            rows: dict[str, list[tuple[float, float]]] = {"standard": [], "deep": []}
            for r in range(args.rounds):
                for kind, rounds in (("standard", 2), ("deep", 4)):
                    marker = f"bench{r}{kind}"
                    web.results[marker] = [f"/p{(r * 5 + k) % 12}" for k in range(6)]
                    plans = [
                        {"content": json.dumps([f"{marker} more {k}"]), "delay": args.model_delay}
                        for k in range(rounds)
                    ]
                    backend.script(marker, *plans, {"content": "The keeper keeps bees [1].", "delay": args.model_delay})
                    prefix = "deep research" if kind == "deep" else "research"
                    before, started = cpu_seconds(gw.proc.pid), time.monotonic()
                    out = client.chat.completions.create(
                        model="scripted-model", messages=[{"role": "user", "content": f"{prefix} the keeper {marker}"}]
                    )
                    wall, cpu = time.monotonic() - started, cpu_seconds(gw.proc.pid) - before
                    assert (out.choices[0].message.content or "").startswith("The keeper keeps bees")
                    rows[kind].append((wall, cpu))
            for kind, samples in rows.items():
                walls = [w for w, _ in samples]
                cpus = [c for _, c in samples]
                shares = [c / w for w, c in samples]
                share = statistics.median(shares)
                verdict = "PASS" if share <= TARGET_SHARE else "MISS"
                print(
                    f"{kind:8s}: wall {statistics.median(walls):.2f} s (min {min(walls):.2f}, max {max(walls):.2f}); "
                    f"gateway CPU {statistics.median(cpus) * 1000:.0f} ms/run (min {min(cpus) * 1000:.0f}, max "
                    f"{max(cpus) * 1000:.0f}); busy share {share:.1%} (min {min(shares):.1%}, max {max(shares):.1%}) "
                    f"target ≤ {TARGET_SHARE:.0%} {verdict}"
                )


if __name__ == "__main__":
    main()
