"""Two gateway replicas on one PostgreSQL, driven through the OpenAI SDK.

Each replica has its own data directory (they share no disk, as on two hosts): everything a client
sees on one must come from the database. Covers: chains alternating replicas, concurrent creates
(no lost or duplicated items), a background run followed from the other replica, a cancel from the
other replica (LISTEN/NOTIFY: well within a second), and SIGKILL of the owner (its lease expires and
the surviving replica ends the run `failed`).
"""

from __future__ import annotations

import asyncio
import io
import json
import signal
import threading
import time
from pathlib import Path

import asyncpg
import httpx2 as httpx  # the HTTP client the openai SDK ships with
import openai
import pytest
from openai import OpenAI

from tests.support.pg import truncate
from tests.support.procs import Backend, gateway, gateways, start_gateway, stop
from tests.support.retrieval_helpers import retrieval_env

MODEL = "scripted-model"
LEASE = 2.0

pytestmark = pytest.mark.slow


def _sql(url: str, query: str) -> list[tuple[object, ...]]:
    async def run() -> list[tuple[object, ...]]:
        conn = await asyncpg.connect(url)
        try:
            return [tuple(r) for r in await conn.fetch(query)]
        finally:
            await conn.close()

    return asyncio.run(run())


@pytest.fixture
def pg_env(postgres_url: str, backend: Backend) -> dict[str, str]:
    asyncio.run(truncate(postgres_url))
    return {"GATEWAY_DATABASE_URL": postgres_url, "GATEWAY_RUN_LEASE_SECONDS": str(LEASE), **retrieval_env(backend.url)}


def test_two_replicas_share_state(backend: Backend, tmp_path: Path, postgres_url: str, pg_env: dict[str, str]) -> None:
    with gateways(backend.url, [tmp_path / "a", tmp_path / "b"], **pg_env) as (a, b):  # started together
        ca = OpenAI(base_url=a.url, api_key="x", max_retries=0)
        cb = OpenAI(base_url=b.url, api_key="x", max_retries=0)
        prev = None
        for turn in range(6):  # a chain whose turns alternate between the replicas
            c, other = (ca, cb) if turn % 2 == 0 else (cb, ca)
            resp = c.responses.create(model=MODEL, input=f"turn {turn}", previous_response_id=prev)
            assert other.responses.retrieve(resp.id).output_text == f"Echo: turn {turn}"
            prev = resp.id
        assert [i.id for i in cb.responses.input_items.list(prev)] == [
            i.id for i in ca.responses.input_items.list(prev)
        ]

        errors: list[BaseException] = []
        ids: list[str] = []

        def hammer(c: OpenAI, tag: str) -> None:
            try:
                for i in range(10):
                    ids.append(c.responses.create(model=MODEL, input=f"{tag}-{i}").id)
            except BaseException as exc:
                errors.append(exc)

        threads = [
            threading.Thread(target=hammer, args=(c, f"{n}-{k}")) for k, c in enumerate((ca, cb)) for n in range(3)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert len(set(ids)) == 60
        # every response has exactly its one input and one output, stored once
        links = _sql(postgres_url, "SELECT role, count(*), count(DISTINCT item_id) FROM response_items GROUP BY role")
        assert sorted(links) == [(0, 66, 66), (1, 66, 66)]
        assert _sql(postgres_url, "SELECT count(*) FROM items") == [(132,)]

        # a background run on a, followed from b while it runs
        backend.script("watch-me", {"content": "made in a", "chunk_delay": 0.1})
        bg = ca.responses.create(model=MODEL, input="watch-me", background=True)
        watched = list(cb.responses.retrieve(bg.id, stream=True, starting_after=1))
        assert watched[0].sequence_number == 2 and watched[-1].type == "response.completed"
        assert "".join(e.delta for e in watched if e.type == "response.output_text.delta") == "made in a"

        # a cancel asked on b reaches the run on a long before the run would end (by NOTIFY, or the
        # 0.5 s poll that backs it up)
        backend.script("slow-elsewhere", {"content": "never finished", "delay": 5})
        running = ca.responses.create(model=MODEL, input="slow-elsewhere", background=True)
        started = time.monotonic()
        cancelled = cb.responses.cancel(running.id)
        took = time.monotonic() - started
        assert cancelled.status == "cancelled" and took < 3.0, took  # not the run's 5 s (slow under load)
        assert ca.responses.retrieve(running.id).status == "cancelled"

        # prompts and connectors live in PostgreSQL too: made on a, used on b
        prompt = ca.post("/prompts", body={"name": "p", "instructions": "Say {{x}}."}, cast_to=dict)
        echoed = cb.responses.create(model=MODEL, input="hi", prompt={"id": prompt["id"], "variables": {"x": "yo"}})
        assert echoed.prompt is not None and echoed.prompt.version == "1" and echoed.instructions
        made = ca.post("/connectors", body={"name": "c", "server_url": "https://mcp.example.com/mcp"}, cast_to=dict)
        assert cb.get(f"/connectors/{made['id']}", cast_to=dict)["name"] == "c"

        # pgvector is the vector backend by default on PostgreSQL: the chunks land in the database
        text = b"The lighthouse keeper plays the violin."
        f = ca.files.create(file=("notes.txt", io.BytesIO(text)), purpose="assistants")
        assert cb.files.content(f.id).read() == text  # uploaded on a, bytes in PostgreSQL, read on b
        assert [x.id for x in cb.files.list()] == [f.id]
        store = ca.vector_stores.create(name="pg", file_ids=[f.id])
        deadline = time.monotonic() + 20
        while ca.vector_stores.retrieve(store.id).file_counts.completed < 1:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        hits = ca.vector_stores.search(store.id, query="violin lighthouse").data
        assert hits and hits[0].file_id == f.id
        assert _sql(postgres_url, f"SELECT count(*) FROM vs_dims WHERE store_id = '{store.id}'") == [(1,)]
        # the store itself (metadata, files, statuses) is shared too: replica b lists and searches it
        assert cb.vector_stores.retrieve(store.id).file_counts.completed == 1
        assert [v.id for v in cb.vector_stores.list()] == [store.id]
        assert [x.id for x in cb.vector_stores.files.list(store.id)] == [f.id]
        assert cb.vector_stores.search(store.id, query="violin lighthouse").data[0].file_id == f.id
        cb.vector_stores.delete(store.id)
        with pytest.raises(openai.NotFoundError):
            ca.vector_stores.retrieve(store.id)


def test_sigkill_of_the_owner_ends_its_runs(
    backend: Backend, tmp_path: Path, pg_env: dict[str, str], marker: str
) -> None:
    backend.script(marker, {"content": " ".join(f"w{i}" for i in range(60)), "chunk_delay": 0.1})
    with gateway(backend.url, tmp_path / "b", **pg_env) as b:
        cb = OpenAI(base_url=b.url, api_key="x", max_retries=0)
        a = start_gateway(backend.url, tmp_path / "a", **pg_env)
        try:
            body = {"model": MODEL, "input": f"crash {marker}", "stream": True, "background": True}
            response_id = None
            with httpx.stream("POST", a.url + "/responses", json=body, timeout=30) as resp:
                for line in resp.iter_lines():
                    if line.startswith("data:") and '"response.created"' in line:
                        response_id = json.loads(line[5:])["response"]["id"]
                    if line.startswith("data:") and '"response.output_text.delta"' in line:
                        break
                assert response_id is not None
                assert cb.responses.retrieve(response_id).status == "in_progress"
                a.proc.send_signal(signal.SIGKILL)
                a.proc.wait()
            killed = time.monotonic()
        finally:
            stop(a.proc)
        # b follows the orphaned run and sees its end within the lease (plus one sweep period)
        events = list(cb.responses.retrieve(response_id, stream=True, starting_after=0))
        ended = time.monotonic() - killed
        assert events[-1].type == "response.failed"
        assert ended < LEASE * 2 + 1.0, ended
        stored = cb.responses.retrieve(response_id)
        assert stored.status == "failed" and stored.error is not None and "stopped" in stored.error.message


def test_a_background_stream_is_followed_live_from_the_other_replica(
    backend: Backend, tmp_path: Path, pg_env: dict[str, str], marker: str
) -> None:
    """Replica b streams a background response that replica a produces: deltas arrive while it runs
    (relayed in batches, woken by NOTIFY), not all at the end; resuming after N skips what it saw."""
    words = [f"w{i}" for i in range(30)]
    backend.script(marker, {"content": " ".join(words), "chunk_delay": 0.05})  # ~1.5 s of stream
    with gateways(backend.url, [tmp_path / "a", tmp_path / "b"], **pg_env) as (a, b):  # started together
        ca = OpenAI(base_url=a.url, api_key="x", max_retries=0)
        cb = OpenAI(base_url=b.url, api_key="x", max_retries=0)
        bg = ca.responses.create(model=MODEL, input=f"follow {marker}", background=True)
        arrivals: list[tuple[float, str, int]] = []
        for event in cb.responses.retrieve(bg.id, stream=True, starting_after=0):
            arrivals.append((time.monotonic(), event.type, event.sequence_number))
        types = [t for _, t, _ in arrivals]
        assert types[-1] == "response.completed" and "response.output_text.delta" in types
        deltas = [at for at, t, _ in arrivals if t == "response.output_text.delta"]
        assert arrivals[-1][0] - deltas[0] > 0.5, "the deltas came only at the end"  # followed live
        seqs = [s for _, _, s in arrivals]
        assert seqs == sorted(seqs) and len(seqs) == len(set(seqs)) and seqs[0] == 1  # in order, no gaps repeated
        assert seqs == list(range(1, seqs[-1] + 1))
        text = "".join(
            e.delta
            for e in cb.responses.retrieve(bg.id, stream=True, starting_after=0)
            if e.type == "response.output_text.delta"
        )
        assert text.split() == words
        tail = list(cb.responses.retrieve(bg.id, stream=True, starting_after=seqs[-3]))
        assert [e.sequence_number for e in tail] == seqs[-2:]
