"""A failing search is an error, never an empty page: the embedder's and the backend's failures
surface as OpenAI errors, and results from several stores and queries merge per chunk."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.common.errors import BackendError, ServerError
from gateway.retrieval.search import search_stores
from vectorstore.base import Hit


class _Embedder:
    name, dimension = "stub", 2

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    async def embed(self, texts: list[str]) -> list[list[float]]:
        if self.fail:
            raise RuntimeError("embedding server down")
        return [[1.0, 0.0] for _ in texts]


class _Backend:
    def __init__(self, hits: dict[str, list[Hit]] | None = None) -> None:
        self.hits = hits

    async def search(self, store_id: str, **kwargs: Any) -> list[Hit]:
        if self.hits is None:
            raise RuntimeError("index corrupted")
        return self.hits.get(store_id, [])


class _Stores:
    async def touch(self, store_ids: list[str]) -> None:
        return None


class _Retrieval:
    def __init__(self, embedder: _Embedder, backend: _Backend) -> None:
        self._embedder, self._backend, self.stores = embedder, backend, _Stores()

    async def embedder(self) -> _Embedder:
        return self._embedder

    async def backend(self) -> _Backend:
        return self._backend


def _hit(chunk: str, score: float) -> Hit:
    return Hit(chunk_id=chunk, file_id="f-" + chunk, filename=chunk + ".txt", text=chunk, score=score)


async def test_failures_are_errors_not_empty_pages() -> None:
    with pytest.raises(BackendError) as err:
        await search_stores(_Retrieval(_Embedder(fail=True), _Backend({})), ["vs_1"], ["q"])  # type: ignore[arg-type]
    assert err.value.status == 502 and err.value.code == "embedding_failed"
    with pytest.raises(ServerError) as failed:
        await search_stores(_Retrieval(_Embedder(), _Backend(None)), ["vs_1"], ["q"])  # type: ignore[arg-type]
    assert failed.value.code == "vector_search_failed"


async def test_hits_merge_per_chunk_then_threshold_and_k() -> None:
    backend = _Backend({"vs_1": [_hit("a", 0.9), _hit("b", 0.4)], "vs_2": [_hit("a", 0.7), _hit("c", 0.6)]})
    r = _Retrieval(_Embedder(), backend)
    hits = await search_stores(r, ["vs_1", "vs_2"], ["q1", "q2"], k=2, score_threshold=0.5)  # type: ignore[arg-type]
    assert [(h.chunk_id, h.score) for h in hits] == [("a", 0.9), ("c", 0.6)]
