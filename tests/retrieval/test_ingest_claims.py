"""Two gateway processes on one database share the ingestion backlog (#15): each file is ingested
once, by one of them, and when one is SIGKILLed mid-way the other finishes its files once their
claims run out (no restart needed)."""

from __future__ import annotations

import io
import signal
import time
from pathlib import Path

import pytest
from openai import OpenAI

from tests.support.procs import Backend, start_gateway, stop
from tests.support.retrieval_helpers import retrieval_env, threaded_backend, wait_ingested

pytestmark = pytest.mark.slow
LEASE = "1.5"


def test_a_killed_process_loses_no_file(backend: Backend, tmp_path: Path) -> None:
    with threaded_backend(delay=0.3) as slow:
        env = {**retrieval_env(slow.url), "GATEWAY_RUN_LEASE_SECONDS": LEASE}
        a = start_gateway(backend.url, tmp_path, **env)
        b = start_gateway(backend.url, tmp_path, **env)
        try:
            ca = OpenAI(base_url=a.url, api_key="k", max_retries=0)
            cb = OpenAI(base_url=b.url, api_key="k", max_retries=0)
            fids = [
                ca.files.create(
                    file=(f"doc{i}.txt", io.BytesIO(f"claimtopic{i} words".encode())), purpose="assistants"
                ).id
                for i in range(10)
            ]
            store = ca.vector_stores.create(name="claims", file_ids=fids)
            time.sleep(0.5)
            assert ca.vector_stores.retrieve(store.id).file_counts.in_progress > 0
            stop(a.proc, signal.SIGKILL)  # a held claims; b must take them over when they run out
            done = wait_ingested(cb, store.id, timeout=30).file_counts
            assert done.completed == 10 and done.failed == 0, done
            for i, fid in enumerate(fids):
                chunks = cb.vector_stores.files.content(fid, vector_store_id=store.id).data
                assert [c.text for c in chunks] == [f"claimtopic{i} words"]
            # both processes worked: the embeddings of the files came from two callers' batches, and
            # no file's text was embedded by both while both lived (only a killed one's may repeat)
            texts = [t for r in slow.requests if r["path"].endswith("/embeddings") for t in _inputs(r["body"])]
            texts = [t for t in texts if t.startswith("claimtopic")]  # not the embedder's dimension probe
            assert sorted(set(texts)) == sorted(f"claimtopic{i} words" for i in range(10))
            assert len(texts) <= 10 + 2 * 2  # at most the killed process's in-flight files again
        finally:
            stop(a.proc, signal.SIGKILL)
            stop(b.proc)


def _inputs(body: object) -> list[str]:
    raw = body.get("input") if isinstance(body, dict) else None
    return [raw] if isinstance(raw, str) else [t for t in raw or [] if isinstance(t, str)]
