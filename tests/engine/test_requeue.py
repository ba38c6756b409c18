"""Background runs outlive a restart (#17): a stopping process hands them back, the next one runs them.

Through the real process: the HTTP door, SIGTERM with a drain shorter than the run, the SQLite file
the two lives share, and a second process that picks the run up at start.
"""

from __future__ import annotations

import signal
from pathlib import Path

from openai import OpenAI

from storage.sqlite.conn import sqlite3
from tests.support.procs import Backend, gateway
from tests.support.waiting import until

MODEL = "scripted-model"


def _row(db: Path, rid: str) -> tuple[str, str | None, int]:
    with sqlite3.connect(db) as c:
        status, owner = c.execute("SELECT status, owner FROM responses WHERE id = ?", (rid,)).fetchone()
        waiting = c.execute("SELECT COUNT(*) FROM response_requeue WHERE response_id = ?", (rid,)).fetchone()[0]
    return status, owner, waiting


def test_a_background_run_cut_by_shutdown_runs_again_on_the_next_start(
    backend: Backend, tmp_path: Path, marker: str
) -> None:
    words = " ".join(f"w{i}" for i in range(60))
    backend.script(marker, {"content": words, "chunk_delay": 0.1}, {"content": words})  # 6 s, then at once
    with gateway(backend.url, tmp_path, GATEWAY_DRAIN_SECONDS="0.5") as first:
        client = OpenAI(base_url=first.url, api_key="x", max_retries=0)
        created = client.responses.create(model=MODEL, input=f"long {marker}", background=True)
        assert created.status == "queued"
        inputs = [i.id for i in client.responses.input_items.list(created.id).data]
        until(lambda: backend.requests_matching(marker), what="the backend generating")
        first.proc.send_signal(signal.SIGTERM)
        assert first.proc.wait(20) == 0
    # handed back: waiting for a live process, with no owner whose lease the sweep could end
    assert _row(tmp_path / "gateway.db", created.id) == ("queued", None, 1)

    with gateway(backend.url, tmp_path) as second:
        client = OpenAI(base_url=second.url, api_key="x", max_retries=0)
        done = until(
            lambda: client.responses.retrieve(created.id),
            lambda r: r.status not in ("queued", "in_progress"),
            timeout=30,
            what="the requeued run finishing",
        )
        assert done.status == "completed" and done.output_text == words
        assert done.created_at == created.created_at and done.background
        assert [i.id for i in client.responses.input_items.list(created.id).data] == inputs  # linked once
        events = list(client.responses.retrieve(created.id, stream=True))
        assert [e.type for e in events][:3] == ["response.created", "response.queued", "response.in_progress"]
        assert events[-1].type == "response.completed"
    assert len(backend.requests_matching(marker)) == 2  # the second life ran it from its request
    assert _row(tmp_path / "gateway.db", created.id) == ("completed", None, 0)


def test_a_requeued_run_that_cannot_run_again_ends_failed(backend: Backend, tmp_path: Path, marker: str) -> None:
    """Its previous response was deleted while it waited: the claimant ends it with the reason."""
    backend.script(f"then {marker}", {"content": "slow " * 60, "chunk_delay": 0.1})
    with gateway(backend.url, tmp_path, GATEWAY_DRAIN_SECONDS="0.2") as first:
        client = OpenAI(base_url=first.url, api_key="x", max_retries=0)
        before = client.responses.create(model=MODEL, input=f"first {marker}")
        created = client.responses.create(
            model=MODEL, input=f"then {marker}", previous_response_id=before.id, background=True
        )
        until(lambda: backend.requests_matching(f"then {marker}"), what="the backend generating")
        first.proc.send_signal(signal.SIGTERM)
        assert first.proc.wait(20) == 0
    assert _row(tmp_path / "gateway.db", created.id) == ("queued", None, 1)
    with sqlite3.connect(tmp_path / "gateway.db") as c:  # gone while nobody ran it
        c.execute("DELETE FROM responses WHERE id = ?", (before.id,))
    with gateway(backend.url, tmp_path) as second:
        client = OpenAI(base_url=second.url, api_key="x", max_retries=0)
        ended = until(lambda: client.responses.retrieve(created.id), lambda r: r.status == "failed", timeout=20)
        assert ended.error is not None and before.id in ended.error.message
    assert _row(tmp_path / "gateway.db", created.id) == ("failed", None, 0)
