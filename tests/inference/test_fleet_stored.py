"""Stored affinity (#27): a chain's turns follow the replica stored with it, through both doors and
two gateway replicas on one PostgreSQL; past the load bound or when that replica is down the chain
moves once, the new replica is stored, and the chain stays there (it does not return when the old
replica recovers, as hashing alone would send it). By `previous_response_id`, by conversation and
by `prompt_cache_key`. The replica is internal: no client body names it.

Which replica served a turn is read from the stand-ins' own request logs.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

from tests.support.pg import truncate
from tests.support.procs import Backend, gateway, http_json, scripted_backend, stop
from tests.support.stack import envoy_stack

pytestmark = pytest.mark.slow
CHAT = "chat-model"


def client(base: str) -> OpenAI:
    return OpenAI(base_url=base, api_key="k", max_retries=0, timeout=30)


def no_replica_in(fleet: list[Backend], *bodies: Any) -> None:
    """No client body names a replica (its port, as `host:port`)."""
    for body in bodies:
        text = body if isinstance(body, str) else json.dumps(body, default=str)
        for b in fleet:
            assert f":{b.port}" not in text and "chat/" not in text, text[:300]


class Chain:
    """One chain of a kind, whose turns alternate the doors and the gateway replicas."""

    def __init__(self, kind: str, bases: list[str]) -> None:
        self.kind, self.bases, self.m = kind, bases, f"mk-{uuid.uuid4().hex[:10]}"
        self.previous: str | None = None
        self.conversation = client(bases[0]).conversations.create().id if kind == "conversation" else None
        self.n = 0

    def turn(self, fleet: list[Backend]) -> int:
        """One turn; the index of the replica that served it (exactly one)."""
        base = self.bases[self.n % len(self.bases)]
        text = f"{self.m} t{self.n}."
        self.n += 1
        kwargs: dict[str, Any] = {"model": CHAT, "input": text}
        if self.kind == "previous":
            kwargs["previous_response_id"] = self.previous
        elif self.kind == "conversation":
            kwargs["conversation"] = self.conversation
        else:
            kwargs["prompt_cache_key"] = f"key-{self.m}"
        r = client(base).responses.create(**kwargs)
        assert r.status == "completed", r.error
        self.previous = r.id
        no_replica_in(fleet, r.model_dump(), client(self.bases[1]).responses.retrieve(r.id).model_dump())
        served = [i for i, b in enumerate(fleet) if b.requests_matching(text)]
        assert len(served) == 1, served
        return served[0]


def set_queue(b: Backend, waiting: int, running: int) -> None:
    http_json("POST", b.base + "/_metrics", {"waiting": waiting, "running": running})


def test_chains_follow_their_stored_replica_and_move_once(tmp_path: Path, postgres_url: str) -> None:
    asyncio.run(truncate(postgres_url))
    with ExitStack() as ctx:
        fleet = [ctx.enter_context(scripted_backend(CHAT)) for _ in range(3)]
        env = {
            "GATEWAY_BACKENDS": json.dumps([{"name": "chat", "urls": [b.url for b in fleet], "models": [CHAT]}]),
            "GATEWAY_DATABASE_URL": postgres_url,
            "GATEWAY_BACKEND_DOWN_SECONDS": "30",
        }
        stack = ctx.enter_context(envoy_stack(fleet[0].url, tmp_path / "one", **env))
        other = ctx.enter_context(gateway(fleet[0].url, tmp_path / "two", **env))
        bases = [stack.url, other.url, stack.http_url]  # Envoy, a second gateway replica, the HTTP door
        chains = [Chain(kind, bases) for kind in ("previous", "conversation", "cache_key")]
        homes = []
        for chain in chains:
            served = {chain.turn(fleet) for _ in range(3)}
            assert len(served) == 1, (chain.kind, served)
            homes.append(served.pop())

        # the home replica reports a queue far above the pool's mean: the chain moves, once
        for chain, home in zip(chains, homes, strict=True):
            set_queue(fleet[home], 5, 10)
            try:
                time.sleep(2.5)  # every process scrapes /metrics every second
                moved = chain.turn(fleet)
                assert moved != home, chain.kind
                assert {chain.turn(fleet) for _ in range(2)} == {moved}, chain.kind
            finally:
                set_queue(fleet[home], 0, 0)
            time.sleep(2.5)  # the queue is gone everywhere: the chain stays where it was stored
            assert {chain.turn(fleet) for _ in range(3)} == {moved}, chain.kind

        # the replica a chain is stored on dies: the chain moves once (retried before any byte) and
        # stays on its new replica after the old one is back
        chain = chains[0]
        now = chain.turn(fleet)
        port = fleet[now].port
        stop(fleet[now].proc)
        alive = [b for i, b in enumerate(fleet) if i != now]
        after: Callable[[], int] = lambda: chain.turn(alive)  # noqa: E731
        new = after()
        assert {after() for _ in range(3)} == {new}
        back = ctx.enter_context(scripted_backend(CHAT, port=port))
        fleet = [back if i == now else b for i, b in enumerate(fleet)]
        time.sleep(2.5)  # the /health probes bring it back
        assert {chain.turn(fleet) for _ in range(3)} == {fleet.index(alive[new])}

        # listings and conversation items name no replica either
        c = client(stack.http_url)
        no_replica_in(fleet, c.responses.input_items.list(chain.previous or "").model_dump())
        conv = chains[1].conversation or ""
        no_replica_in(fleet, c.conversations.retrieve(conv).model_dump(), c.conversations.items.list(conv).model_dump())
