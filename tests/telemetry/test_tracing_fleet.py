"""The `chat` span names the replica that served the call (#31: `server.address`/`server.port` are
the pool replica's), through both doors of a fleet of two pools.

The spans start with the settings' first replica (the first pool's first URL, what a single backend
is), so a call routed to another pool's replica is where a wrong replica would show.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from openai import OpenAI

from tests.support.otlp_receiver import Receiver, receiver
from tests.support.procs import Backend, scripted_backend
from tests.support.stack import envoy_stack

pytestmark = pytest.mark.slow
CHAT, CODER = "chat-model", "coder-model"


@pytest.fixture(scope="module")
def replicas() -> Iterator[list[Backend]]:
    with ExitStack() as stack:
        yield [stack.enter_context(scripted_backend(CHAT)), stack.enter_context(scripted_backend(CODER))]


@pytest.fixture(scope="module")
def otlp() -> Iterator[Receiver]:
    with receiver("http/protobuf") as r:
        yield r


def test_the_chat_span_names_the_replica_that_served_through_both_doors(
    replicas: list[Backend], otlp: Receiver, tmp_path: Path
) -> None:
    chat, coder = replicas
    pools = json.dumps(
        [
            {"name": "chat", "urls": [chat.url], "models": [CHAT]},
            {"name": "coder", "urls": [coder.url], "models": [CODER]},
        ]
    )
    with envoy_stack(chat.url, tmp_path, GATEWAY_BACKENDS=pools, **otlp.env()) as stack:
        for door, url in (("http", stack.http_url), ("envoy", stack.url)):
            client = OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=30)
            for model, served in ((CODER, coder), (CHAT, chat)):
                resp = client.responses.create(model=model, input=f"which replica {door} {model}")
                assert resp.status == "completed"
                name = f"chat {model}"

                def arrived(got: list, resp_id: str = resp.id, name: str = name) -> bool:
                    runs = {s.trace_id for s in got if s.attributes.get("gen_ai.response.id") == resp_id}
                    return any(s.name == name and s.trace_id in runs for s in got)

                spans = otlp.wait(arrived)
                run = next(s for s in spans if s.attributes.get("gen_ai.response.id") == resp.id)
                (call,) = [s for s in spans if s.name == name and s.trace_id == run.trace_id]
                port = int(served.url.rstrip("/").removesuffix("/v1").rsplit(":", 1)[1])
                assert (call.attributes["server.address"], call.attributes["server.port"]) == ("127.0.0.1", port), door
