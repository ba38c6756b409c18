"""K stand-in inference replicas with a prefix cache and a realistic capacity, in one process, for
`bench/bench_fleet_doors.py` (#27): what the doors' picking does to real HTTP traffic.

Each replica serves `/v1/chat/completions` (streamed or not), `/v1/models`, `/health` and vLLM's
`/metrics` gauges. Its capacity is simulated time, not the host's CPU: prefill runs one request at a
time per replica (a serial FIFO queue, as a GPU's prefill is the shared bottleneck), taking
`prefill` seconds per prompt token not in the replica's prefix cache (an LRU of 16-token blocks,
`cache_blocks` of them, keyed by the hash of the whole prefix, looked up when the prefill starts);
the first token follows the prefill, then `decode` seconds per output token, any number of
sequences decoding at once (continuous batching). So a request's time to first token is its wait in
the prefill queue plus its uncached prefill, and the fleet's capacity is known (`prefill` x the
uncached tokens of a turn): the benchmark offers a share of it while the doors' CPU stays light.
`cached_tokens` is reported as vLLM does; `/metrics` says `waiting` (queued for prefill) and
`running` (prefilling or decoding). Three more ports route over the same replicas without the
gateway's picker: `rr` (round-robin), `oracle` (a chain always on the replica its first user
message hashes to: unbounded affinity) and `least` (the replica with the fewest queued + running).

    python -m bench.fleet_replicas --replicas 4   # prints "READY port0 port1 ... rr oracle least"
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from aiohttp import web

BLOCK = 16


class Replica:
    def __init__(self, cache_blocks: int, prefill: float, decode: float, out_tokens: int) -> None:
        self.prefill_queue = asyncio.Lock()  # FIFO: one prefill at a time, in arrival order
        self.cache: OrderedDict[int, None] = OrderedDict()
        self.cache_blocks, self.prefill, self.decode, self.out_tokens = cache_blocks, prefill, decode, out_tokens
        self.waiting = self.running = 0

    def lookup(self, words: list[str]) -> int:
        """Cached prompt tokens (the longest cached prefix of whole blocks); caches the prompt's blocks."""
        h, hit, missed = 0, 0, False
        for i in range(0, len(words) - len(words) % BLOCK, BLOCK):
            h = zlib.crc32(" ".join(words[i : i + BLOCK]).encode(), h)
            if not missed and h in self.cache:
                self.cache.move_to_end(h)
                hit += BLOCK
            else:
                missed = True
                self.cache[h] = None
                if len(self.cache) > self.cache_blocks:
                    self.cache.popitem(last=False)
        return hit

    async def chat(self, request: web.Request, body: dict[str, Any]) -> web.StreamResponse:
        words = " ".join(str(m.get("content") or "") for m in body.get("messages", [])).split()
        self.waiting += 1
        queued = True
        try:
            async with self.prefill_queue:
                self.waiting -= 1
                queued = False
                self.running += 1
                cached = self.lookup(words)
                await asyncio.sleep((len(words) - cached) * self.prefill)
            usage = {
                "prompt_tokens": len(words),
                "completion_tokens": self.out_tokens,
                "total_tokens": len(words) + self.out_tokens,
                "prompt_tokens_details": {"cached_tokens": cached},
            }
            base = {"id": "chatcmpl-b", "created": int(time.time()), "model": body.get("model")}
            if not body.get("stream"):
                await asyncio.sleep(self.decode * self.out_tokens)
                text = " ".join(["tok"] * self.out_tokens)
                choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                return web.json_response({**base, "object": "chat.completion", "choices": [choice], "usage": usage})
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await resp.prepare(request)

            async def send(obj: dict[str, Any]) -> None:
                await resp.write(
                    b"data: " + json.dumps({**base, "object": "chat.completion.chunk", **obj}).encode() + b"\n\n"
                )

            for i in range(self.out_tokens):
                delta = {"role": "assistant", "content": "tok "} if i == 0 else {"content": "tok "}
                await send({"choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
                await asyncio.sleep(self.decode)
            await send({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            await send({"choices": [], "usage": usage})
            await resp.write(b"data: [DONE]\n\n")
            return resp
        finally:
            if queued:
                self.waiting -= 1
            else:
                self.running -= 1

    async def metrics(self, _: web.Request) -> web.Response:
        text = (
            f'vllm:num_requests_waiting{{engine="0"}} {self.waiting}\n'
            f'vllm:num_requests_running{{engine="0"}} {self.running}\n'
            f'vllm:kv_cache_usage_perc{{engine="0"}} {len(self.cache) / self.cache_blocks}\n'
        )
        return web.Response(text=text)


def app(pick: Any, model: str, replicas: list[Replica]) -> web.Application:
    a = web.Application()

    async def reset(_: web.Request) -> web.Response:  # every replica's cache emptied: runs start alike
        for r in replicas:
            r.cache.clear()
        return web.Response(text="ok")

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        return await pick(body).chat(request, body)

    async def models(_: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": model, "object": "model", "owned_by": "bench"}]})

    async def health(_: web.Request) -> web.Response:
        return web.Response(text="ok")

    a.router.add_post("/v1/chat/completions", chat)
    a.router.add_get("/v1/models", models)
    a.router.add_get("/health", health)
    a.router.add_post("/_reset", reset)
    return a


async def main(args: argparse.Namespace) -> None:
    replicas = [Replica(args.cache_blocks, args.prefill, args.decode, args.out_tokens) for _ in range(args.replicas)]
    turn = itertools.count()

    def first_user(body: dict[str, Any]) -> str:
        return next((str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user"), "")

    def fixed(r: Replica) -> Callable[[dict[str, Any]], Replica]:
        return lambda body: r

    def round_robin(body: dict[str, Any]) -> Replica:
        return replicas[next(turn) % len(replicas)]

    def oracle(body: dict[str, Any]) -> Replica:  # a chain on the replica its first message hashes to
        return replicas[zlib.crc32(first_user(body).encode()) % len(replicas)]

    def least(body: dict[str, Any]) -> Replica:  # the fewest queued + running, ties in turn
        base = next(turn)
        order = [replicas[(base + i) % len(replicas)] for i in range(len(replicas))]
        return min(order, key=lambda r: r.waiting + r.running)

    pickers = [*(fixed(r) for r in replicas), round_robin, oracle, least]
    ports = []
    for i, pick in enumerate(pickers):
        a = app(pick, args.model, replicas)
        if i < len(replicas):
            a.router.add_get("/metrics", replicas[i].metrics)
        runner = web.AppRunner(a, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        ports.append(runner.addresses[0][1])
    print("READY", *ports, flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicas", type=int, default=4)
    ap.add_argument("--cache-blocks", type=int, default=1000, help="prefix cache per replica, 16-token blocks")
    ap.add_argument("--prefill", type=float, default=0.002, help="seconds per uncached prompt token (serial)")
    ap.add_argument("--decode", type=float, default=0.02, help="seconds per output token")
    ap.add_argument("--out-tokens", type=int, default=16)
    ap.add_argument("--model", default="bench-model")
    asyncio.run(main(ap.parse_args()))
