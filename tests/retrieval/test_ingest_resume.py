"""Ingestion survives a crash: a gateway killed mid-ingestion finishes the work after a restart.

The embeddings server answers slowly (0.25 s a batch). One file is long enough for four embedding
batches, each upserted before the next is asked for: the gateway is SIGKILLed (no graceful shutdown)
once that file's second batch has been answered, so its first batch's chunks are in the store while the
file is still `in_progress`. Restarted on the same data directory, the gateway must complete every file
with each chunk exactly once (a re-run job first removes what the interrupted one had written).
"""

from __future__ import annotations

import io
import signal
from pathlib import Path
from typing import Any

from openai import OpenAI

from tests.support.procs import Backend, start_gateway, stop
from tests.support.retrieval_helpers import retrieval_env, threaded_backend, wait_ingested
from tests.support.waiting import until

# ~60 tokens a paragraph and chunks of at most 100 tokens: one chunk per paragraph, 120 chunks, 4 batches
LONG = "\n\n".join(f"Paragraph bulk{j}. " + "The harbour pump moves water past the gate. " * 6 for j in range(120))
SMALL = {"chunking_strategy": {"type": "static", "static": {"max_chunk_size_tokens": 100, "chunk_overlap_tokens": 0}}}


def _long_batches(requests: list[dict[str, Any]]) -> list[list[str]]:
    """The embedding requests for the long file's text (not the gateway's warm-up probe), in order."""
    inputs = [r["body"]["input"] for r in requests if r["path"].endswith("/embeddings")]
    return [i for i in inputs if any("bulk" in t for t in i)]


def test_ingestion_resumes_after_a_crash(backend: Backend, tmp_path: Path) -> None:
    with threaded_backend(delay=0.25) as slow:
        # the killed process's claims on its files run out after the lease: keep it short here
        env = {**retrieval_env(slow.url), "GATEWAY_RUN_LEASE_SECONDS": "2"}
        gw = start_gateway(backend.url, tmp_path, **env)
        try:
            client = OpenAI(base_url=gw.url, api_key="k", max_retries=0)
            long_id = client.files.create(file=("long.txt", io.BytesIO(LONG.encode())), purpose="assistants").id
            fids = [
                client.files.create(
                    file=(f"doc{i}.txt", io.BytesIO(f"topic{i} resume".encode())), purpose="assistants"
                ).id
                for i in range(8)
            ]
            store = client.vector_stores.create(name="resume", file_ids=[long_id, *fids], extra_body=SMALL)
            # the long file's second batch answered: its first batch is written, two more are to come
            until(lambda: len(_long_batches(list(slow.requests))) >= 2, timeout=30, what="the second batch")
            status = client.vector_stores.files.retrieve(long_id, vector_store_id=store.id).status
            assert status == "in_progress", status  # killed with part of the file written
        finally:
            stop(gw.proc, signal.SIGKILL)
        slow.requests.clear()
        gw = start_gateway(backend.url, tmp_path, **env)
        try:
            client = OpenAI(base_url=gw.url, api_key="k", max_retries=0)
            after = wait_ingested(client, store.id, timeout=30).file_counts
            assert after.model_dump() == {"in_progress": 0, "completed": 9, "failed": 0, "cancelled": 0, "total": 9}
            embedded = [t for batch in _long_batches(list(slow.requests)) for t in batch]  # the re-run's
            assert len(embedded) == 120, len(embedded)
            chunks = client.vector_stores.files.content(long_id, vector_store_id=store.id).data
            assert sorted(str(c.text) for c in chunks) == sorted(embedded)  # each chunk once, none left from the kill
            for i, fid in enumerate(fids):
                small = client.vector_stores.files.content(fid, vector_store_id=store.id).data
                assert [c.text for c in small] == [f"topic{i} resume"]  # once, not twice
            hits = client.vector_stores.search(store.id, query="topic7").data
            assert hits[0].file_id == fids[7]
        finally:
            stop(gw.proc)
