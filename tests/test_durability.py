"""State survives what real deployments do to it: two processes on one file, disconnects, SIGKILL."""

from __future__ import annotations

import json
import signal
import sqlite3
import threading
import time
from pathlib import Path

import httpx2 as httpx  # the HTTP client the openai SDK ships with
import openai
import pytest
from openai import OpenAI

from tests.procs import Backend, gateway, start_gateway, stop

MODEL = "scripted-model"


def integrity(db: Path) -> str:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def test_two_processes_share_one_database(backend: Backend, tmp_path: Path) -> None:
    with gateway(backend.url, tmp_path) as a, gateway(backend.url, tmp_path) as b:
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


def test_client_disconnect_does_not_lose_a_stored_stream(
    client: OpenAI, backend: Backend, door: str, door_kind: str, marker: str
) -> None:
    backend.script(marker, {"content": "w1 w2 w3 w4 w5 w6", "chunk_delay": 0.15})
    body = {"model": MODEL, "input": f"bye {marker}", "stream": True}
    response_id = None
    with httpx.stream("POST", door + "/responses", json=body, timeout=30) as resp:
        for line in resp.iter_lines():
            if line.startswith("data:") and '"response.created"' in line:
                response_id = json.loads(line[5:])["response"]["id"]
                break
    assert response_id is not None
    deadline = time.monotonic() + 15
    while (stored := client.responses.retrieve(response_id)).status == "in_progress":
        assert time.monotonic() < deadline, "response stuck in_progress after the client left"
        time.sleep(0.1)
    assert stored.status in ("completed", "failed", "incomplete", "cancelled")
    if door_kind == "http":  # the HTTP server finishes a stored stream whose client left
        assert stored.status == "completed" and stored.output_text == "w1 w2 w3 w4 w5 w6"


@pytest.mark.parametrize("background", [False, True])
@pytest.mark.parametrize("sig", [signal.SIGKILL])
def test_sigkill_mid_stream_recovers(backend: Backend, tmp_path: Path, marker: str, sig: int, background: bool) -> None:
    backend.script(marker, {"content": " ".join(f"w{i}" for i in range(40)), "chunk_delay": 0.1})
    gw = start_gateway(backend.url, tmp_path)
    response_id = None
    try:
        body = {"model": MODEL, "input": f"crash {marker}", "stream": True, "background": background}
        with httpx.stream("POST", gw.url + "/responses", json=body, timeout=30) as resp:
            for line in resp.iter_lines():
                if line.startswith("data:") and '"response.output_text.delta"' in line:
                    break
                if line.startswith("data:") and '"response.created"' in line:
                    response_id = json.loads(line[5:])["response"]["id"]
            gw.proc.send_signal(sig)
            gw.proc.wait()
    finally:
        stop(gw.proc)
    assert response_id is not None
    assert integrity(tmp_path / "gateway.db") == "ok"
    with gateway(backend.url, tmp_path) as again:
        c = OpenAI(base_url=again.url, api_key="x", max_retries=0)
        stored = c.responses.retrieve(response_id)
        assert stored.status == "failed"
        assert stored.error is not None and "stopped" in stored.error.message
        if background:  # its stream died with the process: resuming gets the terminal event
            events = list(c.responses.retrieve(response_id, stream=True, starting_after=3))
            assert [(e.type, e.sequence_number) for e in events] == [("response.failed", 4)]
            assert events[0].response.status == "failed"  # type: ignore[union-attr]


def test_background_cancel_and_delete_reach_the_producing_process(backend: Backend, tmp_path: Path) -> None:
    with gateway(backend.url, tmp_path) as a, gateway(backend.url, tmp_path) as b:
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
