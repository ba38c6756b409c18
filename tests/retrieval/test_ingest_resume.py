"""Ingestion survives a crash: a gateway killed mid-ingestion finishes the work after a restart.

The embeddings server answers slowly, so the gateway is surely caught with files in progress; it is
SIGKILLed (no graceful shutdown), restarted on the same data directory, and must complete every
file exactly once (a re-run job first removes what the interrupted one had written).
"""

from __future__ import annotations

import io
import signal
from pathlib import Path

from openai import OpenAI

from tests.support.procs import Backend, start_gateway, stop
from tests.support.retrieval_helpers import retrieval_env, threaded_backend, wait_ingested
from tests.support.waiting import until


def test_ingestion_resumes_after_a_crash(backend: Backend, tmp_path: Path) -> None:
    with threaded_backend(delay=0.25) as slow:
        # the killed process's claims on its files run out after the lease: keep it short here
        env = {**retrieval_env(slow.url), "GATEWAY_RUN_LEASE_SECONDS": "2"}
        gw = start_gateway(backend.url, tmp_path, **env)
        try:
            client = OpenAI(base_url=gw.url, api_key="k", max_retries=0)
            fids = [
                client.files.create(
                    file=(f"doc{i}.txt", io.BytesIO(f"topic{i} resume".encode())), purpose="assistants"
                ).id
                for i in range(8)
            ]
            store = client.vector_stores.create(name="resume", file_ids=fids)
            # killed once ingestion is under way (one embedding answered), not after a fixed wait
            until(lambda: any(r["path"].endswith("/embeddings") for r in list(slow.requests)), what="an embedding")
            before = client.vector_stores.retrieve(store.id).file_counts
            assert before.in_progress > 0, before
        finally:
            stop(gw.proc, signal.SIGKILL)
        gw = start_gateway(backend.url, tmp_path, **env)
        try:
            client = OpenAI(base_url=gw.url, api_key="k", max_retries=0)
            after = wait_ingested(client, store.id, timeout=20).file_counts
            assert after.model_dump() == {"in_progress": 0, "completed": 8, "failed": 0, "cancelled": 0, "total": 8}
            for i, fid in enumerate(fids):
                chunks = client.vector_stores.files.content(fid, vector_store_id=store.id).data
                assert [c.text for c in chunks] == [f"topic{i} resume"]  # once, not twice
            hits = client.vector_stores.search(store.id, query="topic7").data
            assert hits[0].file_id == fids[7]
        finally:
            stop(gw.proc)
