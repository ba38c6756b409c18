"""Searching vector stores: shared by `POST /v1/vector_stores/{id}/search` and the file_search tool.

The queries are embedded once (one embedder call for all of them) and every (store, query) pair is
searched concurrently; hits are merged per passage (file and text: a file in two stores is one
passage) keeping the best score, then thresholded and cut to k. A failure anywhere is an error for
the caller: an empty list always means "nothing matched".
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gateway.errors import APIError, BackendError, ServerError
from gateway.retrieval.core import Retrieval
from vectorstore.base import Hit
from vectorstore.fusion import Fusion

log = logging.getLogger(__name__)

DEFAULT_MAX_RESULTS = 10
MAX_QUERIES = 10


@contextmanager
def _failure_as(error: type[APIError], what: str, code: str) -> Iterator[None]:
    """Unexpected failures of `what` become `error` (logged, named); API errors pass unchanged."""
    try:
        yield
    except APIError:
        raise
    except Exception as exc:
        log.exception("%s failed", what.lower())
        raise error(f"{what} failed: {type(exc).__name__}: {exc}", code=code) from exc


async def search_stores(
    r: Retrieval,
    store_ids: list[str],
    queries: list[str],
    *,
    k: int = DEFAULT_MAX_RESULTS,
    filters: dict[str, Any] | None = None,
    score_threshold: float = 0.0,
    mode: str = "hybrid",
    vector_weight: float | None = None,
) -> list[Hit]:
    queries = [q for q in queries if q.strip()][:MAX_QUERIES]
    if not queries or not store_ids:
        return []
    vectors: list[list[float] | None] = [None] * len(queries)
    if mode != "keyword":
        embedder = await r.embedder()
        with _failure_as(BackendError, "Embedding the search query", "embedding_failed"):
            vectors = list(await embedder.embed(queries))
    backend = await r.backend()
    extra = {} if vector_weight is None else {"fusion": Fusion(method="weights", vector_weight=vector_weight)}
    jobs = [
        backend.search(sid, vector=vector, query=query, k=k, filters=filters, mode=mode, **extra)  # type: ignore[arg-type]
        for sid in store_ids
        for query, vector in zip(queries, vectors, strict=True)
    ]
    with _failure_as(ServerError, "The vector search", "vector_search_failed"):
        results = await asyncio.gather(*jobs)
    best: dict[tuple[str, str], Hit] = {}
    for hits in results:
        for hit in hits:
            key = (hit.file_id, hit.text)
            if key not in best or hit.score > best[key].score:
                best[key] = hit
    ranked = sorted(best.values(), key=lambda h: h.score, reverse=True)
    ranked = [h for h in ranked if h.score >= score_threshold][:k]
    try:
        await r.stores.touch(store_ids)
    except Exception:  # activity bookkeeping must not fail a search
        log.exception("could not update last_active_at")
    return ranked


def result_object(hit: Hit) -> dict[str, Any]:
    """One entry of OpenAI's `vector_store.search_results.page`."""
    return {
        "file_id": hit.file_id,
        "filename": hit.filename,
        "score": hit.score,
        "attributes": hit.attributes,
        "content": [{"type": "text", "text": hit.text}],
    }
