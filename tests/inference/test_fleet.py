"""A fleet behind one door (#27): pools routed by model, chains kept on one replica across doors
and gateway processes, bounded load, failover before the first byte, recovery, DNS pools.

Real doors (Envoy + ExtProc + HTTP server, and a second HTTP server on the same database as a second
gateway replica) in front of several scripted stand-in replicas; which replica served a request is
read from each replica's own request log.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import openai
import pytest
from openai import OpenAI

from tests.support.pg import truncate
from tests.support.procs import (
    ROOT,
    VENV_BIN,
    Backend,
    Gateway,
    free_port,
    gateway,
    gateway_env,
    http_json,
    scripted_backend,
    stop,
    wait_http,
)
from tests.support.stack import EnvoyStack, envoy_stack
from tests.support.waiting import until

pytestmark = pytest.mark.slow
CHAT, CODER = "chat-model", "coder-model"


@pytest.fixture(scope="module")
def replicas() -> Iterator[list[Backend]]:
    """Three replicas of the chat pool and one of the coder pool (the last)."""
    with ExitStack() as stack:
        yield [stack.enter_context(scripted_backend(CHAT)) for _ in range(3)] + [
            stack.enter_context(scripted_backend(CODER))
        ]


def pools(replicas: list[Backend]) -> str:
    return json.dumps(
        [
            {"name": "chat", "urls": [b.url for b in replicas[:3]], "models": [CHAT]},
            {"name": "coder", "urls": [replicas[3].url]},  # its models: from its /v1/models
        ]
    )


@pytest.fixture(scope="module")
def doors(replicas: list[Backend], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EnvoyStack, Gateway]]:
    """Envoy + ExtProc + HTTP server, and a second HTTP server on the same database (another
    gateway replica): every door and process must place a chain alike."""
    data = tmp_path_factory.mktemp("fleet")
    env = {"GATEWAY_BACKENDS": pools(replicas), "GATEWAY_BACKEND_DOWN_SECONDS": "30"}
    with envoy_stack(replicas[0].url, data, **env) as stack, gateway(replicas[0].url, data, **env) as second:
        yield stack, second


def client(base: str) -> OpenAI:
    return OpenAI(base_url=base, api_key="k", max_retries=0, timeout=30)


def served_by(replicas: list[Backend], marker: str) -> list[int]:
    """Which replicas received a model call carrying `marker`."""
    return [i for i, b in enumerate(replicas) if b.requests_matching(marker)]


def test_models_listed_once_and_calls_routed_by_model(
    doors: tuple[EnvoyStack, Gateway], replicas: list[Backend]
) -> None:
    stack, _ = doors
    for base in (stack.url, stack.http_url):
        c = client(base)
        ids = [m.id for m in c.models.list().data]
        assert ids[:2] == [CHAT, CODER] and ids.count(CHAT) == 1, ids
        m = f"mk-{uuid.uuid4().hex[:10]}"
        assert c.responses.create(model=CODER, input=f"code {m}").output_text == f"Echo: code {m}"
        assert served_by(replicas, m) == [3]
        m = f"mk-{uuid.uuid4().hex[:10]}"
        c.chat.completions.create(model=CODER, messages=[{"role": "user", "content": m}])
        c.completions.create(model=CODER, prompt=m)
        assert served_by(replicas, m) == [3]
        m = f"mk-{uuid.uuid4().hex[:10]}"
        c.embeddings.create(model=CHAT, input=[m])
        c.responses.create(model=CHAT, input=m)
        assert 3 not in served_by(replicas, m) and served_by(replicas, m)
        unknown = [{"role": "user", "content": "x"}]
        for call in (c.responses.create, c.chat.completions.create, c.embeddings.create):
            kwargs = {"input": "x"} if call != c.chat.completions.create else {"messages": unknown}
            with pytest.raises(openai.NotFoundError) as err:
                call(model="no-such-model", **kwargs)  # type: ignore[operator]
            assert err.value.body["code"] == "model_not_found"  # type: ignore[index]


def test_a_chain_stays_on_its_replica_through_every_door_and_process(
    doors: tuple[EnvoyStack, Gateway], replicas: list[Backend]
) -> None:
    stack, second = doors
    bases = [stack.url, second.url, stack.http_url]  # turns alternate doors and gateway processes
    homes = set()
    for n in range(6):
        m = f"mk-{uuid.uuid4().hex[:10]}"
        previous = None
        for turn in range(4):
            r = client(bases[turn % 3]).responses.create(
                model=CHAT, input=f"{m} turn {turn}", previous_response_id=previous
            )
            previous = r.id
        chain = served_by(replicas, m)
        assert len(chain) == 1, f"chain {n} was served by replicas {chain}"
        homes.add(chain[0])
        # a conversation, and a prompt_cache_key, likewise
        conv = client(stack.url).conversations.create()
        for turn in range(3):
            client(bases[turn % 3]).responses.create(model=CHAT, input=f"{m}c{turn}", conversation=conv.id)
        assert len(served_by(replicas, f"{m}c")) == 1
        key = f"key-{m}"
        for turn in range(3):
            client(bases[turn % 3]).chat.completions.create(
                model=CHAT, messages=[{"role": "user", "content": f"{m}k{turn}"}], extra_body={"prompt_cache_key": key}
            )
        assert len(served_by(replicas, f"{m}k")) == 1
    assert len(homes) > 1  # chains spread over the pool
    # the Envoy door sent its turns to the replicas itself (override_host), not through the HTTP server
    with urllib.request.urlopen(
        f"http://127.0.0.1:{stack.admin_port}/stats?filter=^cluster.inference.upstream_rq_total$"
    ) as resp:
        assert int(resp.read().decode().split(":")[1]) >= 6 * 4 // 3, "Envoy's inference cluster was not used"


@pytest.mark.parametrize("door", ["http", "envoy"])
def test_bounded_load_moves_a_hot_chain_and_light_traffic_never(
    doors: tuple[EnvoyStack, Gateway], replicas: list[Backend], door: str
) -> None:
    """Through the HTTP door (a passthrough with `prompt_cache_key`) and through Envoy (a Responses
    turn with it, which the ExtProc picks for)."""
    stack, _ = doors
    c = client(stack.http_url if door == "http" else stack.url)

    def call(text: str, key: str) -> None:
        if door == "http":
            c.chat.completions.create(
                model=CHAT, messages=[{"role": "user", "content": text}], extra_body={"prompt_cache_key": key}
            )
        else:
            c.responses.create(model=CHAT, input=text, prompt_cache_key=key)

    key = f"hot-{uuid.uuid4().hex[:8]}"
    m = f"mk-{uuid.uuid4().hex[:10]}"
    for turn in range(4):  # one at a time, nothing waiting anywhere: always the chain's replica
        call(f"{m} {turn}", key)
    (home,) = served_by(replicas, m)
    hot = f"mk-{uuid.uuid4().hex[:10]}"
    for b in replicas[:3]:
        b.script(hot, *([{"content": "slow", "delay": 1.0}] * 8))

    # the chain's replica reports a queue: past the bound, the chain's calls go to the next replica
    http_json("POST", replicas[home].base + "/_metrics", {"waiting": 1})
    try:
        time.sleep(2.5)  # a scrape or two
        threads = [threading.Thread(target=call, args=(f"{hot} {i}", key)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        http_json("POST", replicas[home].base + "/_metrics", {"waiting": 0})
    counts = [len(b.requests_matching(hot)) for b in replicas[:3]]
    # past the bound some leave its replica, all for one other (the next on the ring: they move once)
    moved_to = [i for i, n in enumerate(counts) if n and i != home]
    assert sum(counts) == 6 and counts[home] < 6 and len(moved_to) == 1, counts
    time.sleep(2.5)
    call(f"{m} back", key)
    # the queue gone, the chain stays where it moved: the key's replica is stored (a passthrough's too)
    assert served_by(replicas, f"{m} back") == moved_to


def test_a_replica_reporting_a_long_queue_gets_no_new_chains(
    doors: tuple[EnvoyStack, Gateway], replicas: list[Backend]
) -> None:
    """Its vLLM /metrics (read every second) say 40 requests wait: new chains and keyless calls go
    elsewhere, through both doors."""
    stack, _ = doors
    busy = replicas[1]
    http_json("POST", busy.base + "/_metrics", {"waiting": 40, "running": 16, "kv_cache": 0.95})
    try:
        time.sleep(2.5)  # a scrape or two
        m = f"mk-{uuid.uuid4().hex[:10]}"
        for i in range(12):
            base = (stack.url, stack.http_url)[i % 2]
            client(base).responses.create(model=CHAT, input=f"{m} new chain {i}")
            client(base).chat.completions.create(model=CHAT, messages=[{"role": "user", "content": f"{m} k{i}"}])
        assert busy.requests_matching(m) == []
        assert len(served_by(replicas, m)) == 2  # the other two share them
    finally:
        http_json("POST", busy.base + "/_metrics", {"waiting": 0, "running": 0, "kv_cache": 0.0})


def test_failover_before_the_first_byte_and_recovery(tmp_path: Path) -> None:
    with scripted_backend(CHAT) as a, scripted_backend(CHAT) as b:
        env = {
            "GATEWAY_BACKENDS": json.dumps([{"name": "chat", "urls": [a.url, b.url], "models": [CHAT]}]),
            "GATEWAY_BACKEND_DOWN_SECONDS": "30",  # only the /health probe can bring it back in time
        }
        with envoy_stack(a.url, tmp_path, **env) as stack:
            fleet = [a, b]
            # chains placed on both replicas, then b dies
            chains: dict[str, str] = {}
            c = client(stack.url)
            for _ in range(8):
                m = f"mk-{uuid.uuid4().hex[:10]}"
                chains[m] = c.responses.create(model=CHAT, input=m).id
            on_b = [m for m in chains if served_by(fleet, m) == [1]]
            assert on_b, "no chain was placed on the second replica"
            port = b.port
            stop(b.proc)
            for door in (stack.url, stack.http_url):  # nothing has reached the client: retried elsewhere
                for m, previous in chains.items():
                    r = client(door).responses.create(model=CHAT, input=f"{m} again", previous_response_id=previous)
                    assert r.status == "completed"
                    chains[m] = r.id
                for i in range(4):
                    assert (
                        client(door)
                        .chat.completions.create(model=CHAT, messages=[{"role": "user", "content": f"new {i}"}])
                        .choices[0]
                        .message.content
                    )
            with scripted_backend(CHAT, port=port) as back:  # b comes back on its address
                fresh = iter(range(1000))

                def back_in_use() -> bool:  # new chains go to the least-loaded replica: it, once up
                    m = f"fresh-{uuid.uuid4().hex[:8]}-{next(fresh)}"
                    client(stack.http_url).responses.create(model=CHAT, input=m)
                    return bool(back.requests_matching(m))

                started = time.monotonic()
                until(back_in_use, timeout=10, what="the replica back in use")
                assert time.monotonic() - started < 10
                m0 = on_b[0]  # a chain that moved stays where it moved (its replica is stored): once
                r = client(stack.http_url).responses.create(
                    model=CHAT, input=f"{m0} later", previous_response_id=chains[m0]
                )
                assert a.requests_matching(f"{m0} later") and not back.requests_matching(m0)


def test_dns_pool_and_the_replica_in_the_logs(tmp_path: Path) -> None:
    """A pool named by DNS: every address of the name is a replica ("localhost" may give ::1 as well,
    where nothing listens: that replica is marked down and the call retried). The access line names
    the replica that served the request; the client's body never reaches the log."""
    with scripted_backend(CHAT) as a:
        env = gateway_env(
            a.url,
            tmp_path,
            GATEWAY_HTTP_PORT=str(port := free_port()),
            GATEWAY_BACKENDS=json.dumps([{"name": "chat", "dns": f"localhost:{a.port}", "models": [CHAT]}]),
            GATEWAY_LOG_FORMAT="json",
            GATEWAY_LOG_LEVEL="INFO",
        )
        log = tmp_path / "gateway.log"
        with log.open("wb") as out:
            proc = subprocess.Popen([str(VENV_BIN / "responses-gateway"), "serve"], cwd=ROOT, env=env, stderr=out)
        try:
            wait_http(f"http://127.0.0.1:{port}/health", proc=proc)
            c = client(f"http://127.0.0.1:{port}/v1")
            for i in range(4):
                assert c.responses.create(model=CHAT, input=f"dns {i}").output_text == f"Echo: dns {i}"
            assert next(m.id for m in c.models.list().data) == CHAT
        finally:
            stop(proc)
        lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
        access = [x for x in lines if x.get("logger") == "gateway.access" and x.get("route") == "/v1/responses"]
        assert len(access) == 4 and {x.get("replica") for x in access} == {f"127.0.0.1:{a.port}"}, access
        assert "dns 1" not in log.read_text()


def test_dns_pool_through_envoy(tmp_path: Path) -> None:
    """Envoy's cluster resolves the pool's name itself (STRICT_DNS); the ExtProc names an address
    its own resolution found: the turns are served, by Envoy's cluster."""
    with scripted_backend(CHAT) as a:
        pools = json.dumps([{"name": "chat", "dns": f"localhost:{a.port}", "models": [CHAT]}])
        with envoy_stack(a.url, tmp_path, GATEWAY_BACKENDS=pools) as stack:
            c = client(stack.url)
            until(lambda: CHAT in [m.id for m in c.models.list().data], what="the pool's model listed")
            for i in range(4):
                assert c.responses.create(model=CHAT, input=f"dns {i}").output_text == f"Echo: dns {i}"
            assert len(a.requests_matching("dns ")) == 4


def envoy_stat(stack: EnvoyStack, name: str) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{stack.admin_port}/stats?filter=^{name}$") as resp:
        text = resp.read().decode()
    return int(text.split(":")[1]) if ":" in text else 0


def test_the_envoy_door_marks_a_refusing_replica_down_and_brings_it_back(tmp_path: Path) -> None:
    """Through Envoy alone: the first turn sent to a dead replica is retried by Envoy on the
    fallback, and the ExtProc (told which replica answered) marks the dead one down, so later turns
    of its chains are not sent there at all (one refused connection, not one per turn); when it
    comes back, the ExtProc's /health probe returns it to use (new chains), while the chains that
    moved stay where they moved (stored)."""
    with scripted_backend(CHAT) as a, scripted_backend(CHAT) as b:
        env = {
            "GATEWAY_BACKENDS": json.dumps([{"name": "chat", "urls": [a.url, b.url], "models": [CHAT]}]),
            "GATEWAY_BACKEND_DOWN_SECONDS": "60",  # only the probe can bring it back in time
        }
        with envoy_stack(a.url, tmp_path, **env) as stack:
            c = client(stack.url)
            chains: dict[str, str] = {}
            for _ in range(10):
                m = f"mk-{uuid.uuid4().hex[:10]}"
                chains[m] = c.responses.create(model=CHAT, input=m).id
            on_b = [m for m in chains if served_by([a, b], m) == [1]]
            assert len(on_b) >= 2, "too few chains were placed on the second replica"
            port = b.port
            stop(b.proc)
            refused = envoy_stat(stack, "cluster.inference.upstream_cx_connect_fail")
            for turn in range(3):
                for m in on_b:
                    r = c.responses.create(model=CHAT, input=f"{m} after {turn}", previous_response_id=chains[m])
                    assert r.status == "completed" and r.output_text == f"Echo: {m} after {turn}"
                    chains[m] = r.id
            assert len(a.requests_matching(" after ")) >= 3 * len(on_b)
            # marked down at the first refusal: Envoy was not sent there again (3 x chains without it)
            assert envoy_stat(stack, "cluster.inference.upstream_cx_connect_fail") - refused == 1
            with scripted_backend(CHAT, port=port) as back:
                fresh = iter(range(1000))

                def back_in_use() -> bool:  # new chains go to the least-loaded replica: it, once up
                    m = f"fresh-{uuid.uuid4().hex[:8]}-{next(fresh)}"
                    c.responses.create(model=CHAT, input=m)
                    return bool(back.requests_matching(m))

                until(back_in_use, timeout=10, what="the replica back in use through Envoy")
                m0 = on_b[0]  # a chain that moved stays where it moved (its replica is stored)
                c.responses.create(model=CHAT, input=f"{m0} later", previous_response_id=chains[m0])
                assert a.requests_matching(f"{m0} later") and not back.requests_matching(m0)


def test_chains_keep_their_replica_across_workers_and_gateway_replicas_on_postgresql(
    tmp_path: Path, postgres_url: str
) -> None:
    """Two gateway replicas (one behind Envoy) on one PostgreSQL, each with two workers per door: a
    chain's turns, whichever replica, door and worker receives them, reach one inference replica."""
    asyncio.run(truncate(postgres_url))
    with ExitStack() as ctx:
        fleet = [ctx.enter_context(scripted_backend(CHAT)) for _ in range(3)]
        env = {
            "GATEWAY_BACKENDS": json.dumps([{"name": "chat", "urls": [b.url for b in fleet], "models": [CHAT]}]),
            "GATEWAY_DATABASE_URL": postgres_url,
            "GATEWAY_WORKERS": "2",
        }
        stack = ctx.enter_context(envoy_stack(fleet[0].url, tmp_path / "one", **env))
        other = ctx.enter_context(gateway(fleet[0].url, tmp_path / "two", **env))
        bases = [stack.url, other.url, stack.http_url, other.url]
        homes = set()
        for n in range(8):
            m = f"mk-{uuid.uuid4().hex[:10]}"
            previous = None
            for turn in range(4):
                r = client(bases[(n + turn) % 4]).responses.create(
                    model=CHAT, input=f"{m} turn {turn}", previous_response_id=previous
                )
                previous = r.id
            chain = served_by(fleet, m)
            assert len(chain) == 1 and len(fleet[chain[0]].requests_matching(m)) == 4, chain
            homes.add(chain[0])
        assert len(homes) > 1  # chains spread over the pool


def test_a_dns_name_with_several_addresses_is_a_pool_of_several_replicas(tmp_path: Path) -> None:
    """A name resolving to two loopback addresses (tests.support.fake_dns answers `getaddrinfo` for it, the
    gateway's resolution code unchanged), a stand-in replica on each, on the same port: both are
    replicas, chains spread over them and each stays on one, and when one dies its chains move."""
    with scripted_backend(CHAT) as a, scripted_backend(CHAT, port=a.port, host="127.0.0.3") as b:
        fleet = [a, b]
        env = gateway_env(
            a.url,
            tmp_path,
            GATEWAY_HTTP_PORT=str(port := free_port()),
            GATEWAY_BACKENDS=json.dumps([{"name": "chat", "dns": f"pool.test:{a.port}", "models": [CHAT]}]),
            GATEWAY_EVENT_LOOP="asyncio",  # uvloop resolves in C, past socket.getaddrinfo
        )
        cmd = [str(VENV_BIN / "python"), "-m", "tests.support.fake_dns", "pool.test=127.0.0.1,127.0.0.3", "--", "serve"]
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
        try:
            wait_http(f"http://127.0.0.1:{port}/health", proc=proc)
            c = client(f"http://127.0.0.1:{port}/v1")
            chains: dict[str, str] = {}
            homes = set()
            for _ in range(8):
                m = f"mk-{uuid.uuid4().hex[:10]}"
                for turn in range(3):
                    r = c.responses.create(model=CHAT, input=f"{m} {turn}", previous_response_id=chains.get(m))
                    chains[m] = r.id
                (home,) = served_by(fleet, m)
                homes.add(home)
            assert homes == {0, 1}  # both addresses are replicas
            stop(b.proc)
            for m, previous in chains.items():
                r = c.responses.create(model=CHAT, input=f"{m} after", previous_response_id=previous)
                assert r.status == "completed"
            assert len(a.requests_matching(" after")) == len(chains)
        finally:
            stop(proc)
