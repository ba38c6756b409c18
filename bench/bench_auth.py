"""Added CPU per authenticated request (#16 target: at most 50 µs).

Two gateways on one scripted backend, one with `GATEWAY_AUTH=none` and one with `GATEWAY_AUTH=keys`
(a key minted by the real CLI), each driven with the same keep-alive requests; the gateway process's
own CPU (from /proc) per request is compared, in interleaved rounds. Two routes: `GET /v1/models`
(the cheapest: the difference is nearly all authentication) and a stored `POST /v1/responses`.
Also printed: the authenticator alone in-process (a warm key: SHA-256, cache hit, limits, scope).

    .venv/bin/python -m bench.bench_auth [--requests 2000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import aiohttp

from bench.measure import cpu_seconds
from gateway.auth import limits
from gateway.auth.authenticator import Authenticator
from gateway.config import load_settings
from storage.api_keys import KeyRecord
from storage.scope import project_scope
from tests.support.procs import create_key, gateway, scripted_backend

TARGET_US = 50.0


async def _drive(url: str, key: str | None, route: str, n: int) -> None:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    body = {"model": "scripted-model", "input": "hello", "store": True}
    async with aiohttp.ClientSession(headers=headers) as s:
        for _ in range(n):
            if route == "models":
                async with s.get(url + "/models") as r:
                    await r.read()
            else:
                async with s.post(url + "/responses", json=body) as r:
                    await r.read()
            assert r.status == 200, r.status


def _cpu_per_request(pid: int, url: str, key: str | None, route: str, n: int) -> float:
    asyncio.run(_drive(url, key, route, 50))  # warm up (connections, caches)
    before = cpu_seconds(pid)
    asyncio.run(_drive(url, key, route, n))
    return (cpu_seconds(pid) - before) / n * 1e6


class _Keys:
    async def lookup(self, digest: str) -> KeyRecord | None:
        return KeyRecord("key_x", "bench", None, None)

    async def mark_used(self, key_id: str, now: int) -> None:
        return None


async def _in_process(n: int) -> float:
    auth = Authenticator(load_settings({"GATEWAY_AUTH": "keys"}), _Keys())  # type: ignore[arg-type]
    token = "Bearer sk-gw-" + "x" * 43
    await auth.project(token, None, peer_trusted=False)
    started = time.process_time()
    for _ in range(n):
        project = await auth.project(token, None, peer_trusted=False)
        await limits.LIMITS.admit(project)
        with project_scope(project):
            pass
    return (time.process_time() - started) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"authenticator alone (warm key, in-process): {asyncio.run(_in_process(200_000)):.2f} µs per request")
    with tempfile.TemporaryDirectory() as tmp, scripted_backend() as backend:
        open_dir, keyed_dir = Path(tmp, "none"), Path(tmp, "keys")
        key = str(create_key(backend.url, keyed_dir, "bench")["value"])
        with gateway(backend.url, open_dir) as plain, gateway(backend.url, keyed_dir, GATEWAY_AUTH="keys") as keyed:
            for route in ("models", "responses"):
                added: list[float] = []
                for _ in range(args.rounds):
                    off = _cpu_per_request(plain.proc.pid, plain.url, None, route, args.requests)
                    on = _cpu_per_request(keyed.proc.pid, keyed.url, key, route, args.requests)
                    added.append(on - off)
                    print(
                        f"  {route:9s} round: auth off {off:7.1f} µs/req, keys {on:7.1f} µs/req, added {on - off:+6.1f}"
                    )
                med = statistics.median(added)
                verdict = "PASS" if med <= TARGET_US else "MISS"
                print(
                    f"{route}: added CPU per authenticated request: median {med:+.1f} µs "
                    f"(min {min(added):+.1f}, max {max(added):+.1f}) target ≤ {TARGET_US:.0f} µs {verdict}"
                )


if __name__ == "__main__":
    main()
