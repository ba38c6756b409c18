"""State survives what real deployments do to it: two processes on one file, disconnects, SIGKILL."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK ships with
import openai
import pytest
from openai import OpenAI

from storage.sqlite.conn import sqlite3
from tests.support.procs import AUTH, Backend, gateway, gateways, start_gateway, stop
from tests.support.stack import EnvoyStack, envoy_stack

MODEL = "scripted-model"


def integrity(db: Path) -> str:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def test_two_processes_share_one_database(backend: Backend, tmp_path: Path) -> None:
    with gateways(backend.url, [tmp_path, tmp_path]) as (a, b):  # started together
        ca = OpenAI(base_url=a.url, api_key="x", max_retries=0)
        cb = OpenAI(base_url=b.url, api_key="x", max_retries=0)
        # a chain whose turns alternate between the processes
        prev = None
        for turn in range(6):
            c = ca if turn % 2 == 0 else cb
            resp = c.responses.create(model=MODEL, input=f"turn {turn}", previous_response_id=prev)
            other = cb if c is ca else ca
            assert other.responses.retrieve(resp.id).output_text == f"Echo: turn {turn}"
            prev = resp.id
        items = list(ca.responses.input_items.list(prev))
        assert len(items) == 1
        # concurrent writers in both processes
        errors: list[BaseException] = []
        ids: list[str] = []

        def hammer(c: OpenAI, tag: str) -> None:
            try:
                for i in range(15):
                    ids.append(c.responses.create(model=MODEL, input=f"{tag}-{i}").id)
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=hammer, args=(c, f"{c.base_url}-{n}")) for n in range(3) for c in (ca, cb)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert len(ids) == 90
        for rid in ids[::9]:
            assert ca.responses.retrieve(rid).status == "completed"
            assert cb.responses.retrieve(rid).status == "completed"
        # A background response runs in one process; the other can watch it: it waits for the end,
        # then replays the stream the producer stored.
        backend.script("watch-me", {"content": "made in a", "chunk_delay": 0.1})
        bg = ca.responses.create(model=MODEL, input="watch-me", background=True)
        watched = list(cb.responses.retrieve(bg.id, stream=True, starting_after=1))
        assert watched[0].sequence_number == 2 and watched[-1].type == "response.completed"
        assert "".join(e.delta for e in watched if e.type == "response.output_text.delta") == "made in a"
        assert [e.model_dump() for e in watched] == [
            e.model_dump() for e in ca.responses.retrieve(bg.id, stream=True, starting_after=1)
        ]
    assert integrity(tmp_path / "gateway.db") == "ok"


def test_client_disconnect_stops_a_foreground_stream_on_both_doors(
    client: OpenAI, backend: Backend, door: str, marker: str
) -> None:
    """A foreground stream whose client leaves stops generating (no GPU time for nobody) and is
    stored `failed` (`stream_interrupted`) through either door; a background one runs on."""
    words = " ".join(f"w{i}" for i in range(120))  # 6 s of words
    backend.script(marker, *[{"content": words, "chunk_delay": 0.05}] * 2)
    ids = []
    for background in (False, True):
        body = {"model": MODEL, "input": f"bye {marker}", "stream": True, "background": background}
        with httpx.stream("POST", door + "/responses", json=body, headers=AUTH, timeout=30) as resp:
            for line in resp.iter_lines():
                if line.startswith("data:") and '"response.created"' in line:
                    ids.append(json.loads(line[5:])["response"]["id"])
                if line.startswith("data:") and '"response.output_text.delta"' in line:
                    break  # leave mid-stream
    foreground, background_id = ids
    deadline = time.monotonic() + 15
    while (stored := client.responses.retrieve(foreground)).status == "in_progress":
        assert time.monotonic() < deadline, "response stuck in_progress after the client left"
        time.sleep(0.05)
    assert stored.status == "failed" and stored.error is not None and stored.error.code == "stream_interrupted"
    assert time.monotonic() < deadline - 11  # stopped within 4 s, not run to the end (6 s of words)
    while (kept := client.responses.retrieve(background_id)).status in ("queued", "in_progress"):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert kept.status == "completed" and kept.output_text == words


LEASE = "1"  # seconds: GATEWAY_RUN_LEASE_SECONDS in the kill tests


def _wait_terminal(c: OpenAI, response_id: str, limit: float) -> tuple[str, float]:
    started = time.monotonic()
    while (found := c.responses.retrieve(response_id)).status in ("queued", "in_progress"):
        assert time.monotonic() - started < limit, f"{response_id} still {found.status} after {limit}s"
        time.sleep(0.05)
    return str(found.status), time.monotonic() - started


@pytest.mark.slow
def test_sigkill_owner_ten_times_sibling_ends_its_runs(backend: Backend, tmp_path: Path, marker: str) -> None:
    """The owner of a background run and of a stored stream is SIGKILLed, ten times; the sibling
    process on the same data dir (which never restarts) ends both runs within the lease time, a
    resumed stream of the background run gets its terminal event, and the database stays intact."""
    backend.script(marker, *[{"content": " ".join(f"w{i}" for i in range(60)), "chunk_delay": 0.05}] * 20)
    with gateway(backend.url, tmp_path, GATEWAY_RUN_LEASE_SECONDS=LEASE) as survivor:
        cb = OpenAI(base_url=survivor.url, api_key="x", max_retries=0)
        for round_ in range(10):
            owner = start_gateway(backend.url, tmp_path, GATEWAY_RUN_LEASE_SECONDS=LEASE)
            try:
                ca = OpenAI(base_url=owner.url, api_key="x", max_retries=0)
                bg = ca.responses.create(model=MODEL, input=f"bg {round_} {marker}", background=True)
                streamed = None
                body = {"model": MODEL, "input": f"fg {round_} {marker}", "stream": True}
                with httpx.stream("POST", owner.url + "/responses", json=body, timeout=30) as resp:
                    for line in resp.iter_lines():
                        if line.startswith("data:") and '"response.created"' in line:
                            streamed = json.loads(line[5:])["response"]["id"]
                        if line.startswith("data:") and '"response.output_text.delta"' in line:
                            break
                    owner.proc.send_signal(signal.SIGKILL)
                    owner.proc.wait()
            finally:
                stop(owner.proc)
            assert streamed is not None
            if round_ % 2 == 0:  # cancel from the sibling waits for the sweep, never answers in_progress
                assert cb.responses.cancel(bg.id).status == "failed"
            for rid in (bg.id, streamed):
                # lease 1 s, sweeps every 0.5 s: ended within ~1.5 s of the last heartbeat
                status, _ = _wait_terminal(cb, rid, limit=4 * float(LEASE))
                stored = cb.responses.retrieve(rid)
                assert status == "failed", (round_, rid, status)
                assert stored.error is not None and "lease expired" in stored.error.message
            events = list(cb.responses.retrieve(bg.id, stream=True, starting_after=3))
            assert [e.type for e in events][-1] == "response.failed"
            assert integrity(tmp_path / "gateway.db") == "ok"


def test_background_cancel_and_delete_reach_the_producing_process(backend: Backend, tmp_path: Path) -> None:
    with gateways(backend.url, [tmp_path, tmp_path]) as (a, b):  # started together
        ca = OpenAI(base_url=a.url, api_key="x", max_retries=0)
        cb = OpenAI(base_url=b.url, api_key="x", max_retries=0)
        backend.script("slow-elsewhere", {"content": "never finished", "delay": 5}, {"content": "gone", "delay": 1.5})
        running = ca.responses.create(model=MODEL, input="slow-elsewhere 1", background=True)
        started = time.monotonic()
        cancelled = cb.responses.cancel(running.id)  # b does not run it: a must stop it
        assert cancelled.status == "cancelled" and time.monotonic() - started < 3
        assert ca.responses.retrieve(running.id).status == "cancelled"

        doomed = ca.responses.create(model=MODEL, input="slow-elsewhere 2", background=True)
        cb.responses.delete(doomed.id)
        time.sleep(2.0)  # had a's run gone on, it would have finished by now and stored the response again
        with pytest.raises(openai.NotFoundError):
            ca.responses.retrieve(doomed.id)


REFUSE = """
CREATE TRIGGER refuse_insert BEFORE INSERT ON responses
WHEN NEW.status = 'completed' AND NEW.data LIKE '%refuse-me%'
BEGIN SELECT RAISE(ABORT, 'disk I/O error (injected)'); END;
CREATE TRIGGER refuse_update BEFORE UPDATE ON responses
WHEN NEW.status = 'completed' AND NEW.data LIKE '%refuse-me%'
BEGIN SELECT RAISE(ABORT, 'disk I/O error (injected)'); END;
"""


@pytest.mark.slow
def test_a_response_that_cannot_be_stored_is_never_reported_completed(backend: Backend, tmp_path: Path) -> None:
    """Storing the completed response fails (a real SQLite error, raised by a trigger): the client
    is told `failed` (never `completed`), and a retrieve finds it failed, not missing."""
    with envoy_stack(backend.url, tmp_path) as stack:
        with sqlite3.connect(tmp_path / "gateway.db") as db:
            db.executescript(REFUSE)
        for url in (stack.http_url, stack.url):
            c = OpenAI(base_url=url, api_key="x", max_retries=0)
            tag = {"tag": "refuse-me"}
            with pytest.raises(openai.InternalServerError) as info:
                c.responses.create(model=MODEL, input="store me", metadata=tag)
            assert info.value.body["code"] == "storage_failed"  # type: ignore[index]
            events = list(c.responses.create(model=MODEL, input="stream me", metadata=tag, stream=True))
            types = [e.type for e in events]
            assert types[-1] == "response.failed" and "response.completed" not in types, (url, types)
            failed = events[-1].response  # type: ignore[union-attr]
            assert failed.error is not None and failed.error.code == "storage_failed"
            assert c.responses.retrieve(failed.id).status == "failed"
            bg = c.responses.create(model=MODEL, input="background me", metadata=tag, background=True)
            status, _ = _wait_terminal(c, bg.id, limit=10)
            assert status == "failed"
            assert c.responses.create(model=MODEL, input="fine").status == "completed"  # others unaffected


def _stream_and(url: str, body: dict[str, object], action: Callable[[str], object]) -> tuple[str, list[str], float]:
    """Stream to the first text delta, run `action(response_id)`, then read the rest: the event types
    after the action and how long the rest took."""
    rid = ""
    with httpx.stream("POST", url + "/responses", json=body, headers=AUTH, timeout=30) as resp:
        lines = resp.iter_lines()
        for line in lines:
            if line.startswith("data:") and '"response.created"' in line:
                rid = json.loads(line[5:])["response"]["id"]
            if line.startswith("data:") and '"response.output_text.delta"' in line:
                break
        action(rid)
        started = time.monotonic()
        rest = [json.loads(line[5:])["type"] for line in lines if line.startswith("data:")]
    return rid, rest, time.monotonic() - started


@pytest.mark.slow
def test_delete_while_streaming(backend: Backend, tmp_path: Path, marker: str) -> None:
    """DELETE of a response being streamed deletes it at once, from the producing process or another
    one; the run stops, the stream ends without `response.completed`, and no later write brings the
    response back."""
    words = " ".join(f"w{i}" for i in range(80))
    backend.script(marker, *[{"content": words, "chunk_delay": 0.05}] * 2)
    with gateways(backend.url, [tmp_path, tmp_path]) as (a, b):  # started together
        ca, cb = (OpenAI(base_url=g.url, api_key="x", max_retries=0) for g in (a, b))
        for deleter in (ca, cb):  # the producing process itself, then the other one
            body = {"model": MODEL, "input": f"del {marker}", "stream": True}
            rid, rest, took = _stream_and(a.url, body, deleter.responses.delete)
            assert "response.completed" not in rest, rest
            assert took < 3.0  # stopped, not run to the end (4 s of words)
            time.sleep(0.3)
            for c in (ca, cb):
                with pytest.raises(openai.NotFoundError):
                    c.responses.retrieve(rid)
    assert integrity(tmp_path / "gateway.db") == "ok"


def test_delete_while_streaming_through_envoy(
    backend: Backend, envoy: EnvoyStack, http_gateway: Any, marker: str, session_key: str
) -> None:
    """The ExtProc's run is refused its final write: the stream ends failed, the response stays deleted."""
    backend.script(marker, {"content": " ".join(f"w{i}" for i in range(20)), "chunk_delay": 0.05})
    c = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0)
    body = {"model": MODEL, "input": f"edel {marker}", "stream": True}
    rid, rest, _ = _stream_and(envoy.url, body, c.responses.delete)
    assert "response.completed" not in rest and rest[-1] == "response.failed", rest
    with pytest.raises(openai.NotFoundError):
        c.responses.retrieve(rid)
