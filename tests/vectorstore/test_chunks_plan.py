"""The kg ranker's one read of the chunks only its graph found (`VectorBackend.chunks`, #28 speed)
searches sqlite-vec's (sid, chunk_id) index for each id asked: it runs on every kg search, so a
plan that scanned a store's chunks would grow with the store, not with the few ids the walk found.
Built as the gateway builds the backend (`build_vector_backend`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from gateway.config import Settings
from vectorstore.backends import build_vector_backend
from vectorstore.base import Chunk
from vectorstore.sqlite_vec import connect_vec

pytestmark = pytest.mark.asyncio
DIM = 4


async def test_sqlite_vec_chunks_search_by_chunk_id(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, vector_backend="sqlite-vec")
    backend: Any = build_vector_backend(settings, tmp_path / "gateway.db", checkpoint=True)
    await backend.open()
    seen: list[str] = []
    try:
        await backend.create_store("vs_plan", DIM)
        await backend.upsert(
            [
                Chunk(f"f{f}-{i}", "vs_plan", f"f{f}", f"f{f}.txt", i, f"file {f} part {i}", [1.0, 0.0, 0.0, float(i)])
                for f in range(40)
                for i in range(5)
            ]
        )
        for reader in backend._readers:
            await reader.run(lambda c: c.set_trace_callback(seen.append))
        got = await backend.chunks("vs_plan", [("f7", "f7-2"), ("f3", "f3-1")])
        assert [h.chunk_id for h in got] == ["f7-2", "f3-1"]
        for reader in backend._readers:
            await reader.run(lambda c: c.set_trace_callback(None))
    finally:
        await backend.close()
    reads = [s for s in seen if "FROM vs_chunks" in s and "chunk_id IN" in s]
    assert len(reads) == 1, seen
    plain = connect_vec(tmp_path / "gateway.db")
    try:
        plan = [row[-1] for row in plain.execute("EXPLAIN QUERY PLAN " + reads[0]).fetchall()]
    finally:
        plain.close()
    assert any(
        re.search(r"SEARCH vs_chunks USING .*INDEX vs_chunks_chunk \(sid=\? AND chunk_id=\?\)", d) for d in plan
    ), plan
    assert not [d for d in plan if re.match(r"SCAN vs_", d)], plan
