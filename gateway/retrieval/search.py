"""Searching vector stores: shared by `POST /v1/vector_stores/{id}/search` and the file_search tool.

The queries are embedded once (one embedder call for all of them) and every (store, query) pair is
searched concurrently; hits are merged per passage (file and text: a file in two stores is one
passage) keeping the best score, then thresholded and cut to k. A failure anywhere is an error for
the caller: an empty list always means "nothing matched".

`ranker="kg"` (`ranking_options.ranker` on vector-store search and file_search) goes through each
store's knowledge graph instead (`gateway/knowledge_graph/ranker.py`); its hits carry `score_breakdown`.
Research mode and the MCP server search only through here, so they get the graph too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from gateway.common.errors import APIError, BackendError, ServerError
from gateway.retrieval.core import Retrieval
from vectorstore.base import Hit
from vectorstore.fusion import Fusion

log = logging.getLogger(__name__)

DEFAULT_MAX_RESULTS = 10
MAX_QUERIES = 10
EXPANDED_SHOWN = 10


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


@dataclass(slots=True)
class SearchOutcome:
    hits: list[Hit]
    entities: dict[str, Any] | None = None  # kg only: the question's and the expanded entities


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
    ranker: str | None = None,
) -> list[Hit]:
    """The passages of `store_ids` best matching `queries`. `ranker="kg"` re-ranks with each store's
    knowledge graph (gateway/knowledge_graph/ranker.py); anything else is the hybrid search."""
    outcome = await search_stores_detailed(
        r,
        store_ids,
        queries,
        k=k,
        filters=filters,
        score_threshold=score_threshold,
        mode=mode,
        vector_weight=vector_weight,
        ranker=ranker,
    )
    return outcome.hits


async def search_stores_detailed(
    r: Retrieval,
    store_ids: list[str],
    queries: list[str],
    *,
    k: int = DEFAULT_MAX_RESULTS,
    filters: dict[str, Any] | None = None,
    score_threshold: float = 0.0,
    mode: str = "hybrid",
    vector_weight: float | None = None,
    ranker: str | None = None,
) -> SearchOutcome:
    queries = [q for q in queries if q.strip()][:MAX_QUERIES]
    if not queries or not store_ids:
        return SearchOutcome([])
    vectors: list[list[float] | None] = [None] * len(queries)
    if mode != "keyword":
        embedder = await r.embedder()
        with _failure_as(BackendError, "Embedding the search query", "embedding_failed"):
            vectors = list(await embedder.embed(queries))
    backend = await r.backend()
    entities: dict[str, Any] | None = None
    if ranker == "kg":
        knowledge = await r.knowledge()
        pairs = [(sid, q, v) for sid in store_ids for q, v in zip(queries, vectors, strict=True)]
        with _failure_as(ServerError, "The knowledge-graph search", "kg_search_failed"):
            outcomes = await asyncio.gather(
                *(knowledge.rank(backend, sid, q, v, k=k, filters=filters) for sid, q, v in pairs)
            )
            entities = await _entities(knowledge, [(sid, o) for (sid, _q, _v), o in zip(pairs, outcomes, strict=True)])
        results: list[list[Hit]] = [list(o.hits) for o in outcomes]
    else:
        extra = {} if vector_weight is None else {"fusion": Fusion(method="weights", vector_weight=vector_weight)}
        jobs = [
            backend.search(sid, vector=vector, query=query, k=k, filters=filters, mode=mode, **extra)  # type: ignore[arg-type]
            for sid in store_ids
            for query, vector in zip(queries, vectors, strict=True)
        ]
        with _failure_as(ServerError, "The vector search", "vector_search_failed"):
            results = list(await asyncio.gather(*jobs))
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
    return SearchOutcome(ranked, entities)


async def _entities(knowledge: Any, outcomes: list[tuple[str, Any]]) -> dict[str, Any]:
    """The question's and the expanded entities of every (store, query), by name, best first."""
    query: dict[str, dict[str, Any]] = {}
    expanded: dict[str, dict[str, Any]] = {}
    for sid, o in outcomes:
        names = await knowledge.names(sid, [*o.query_entities, *list(o.expanded)[:EXPANDED_SHOWN]])
        for key in o.query_entities:
            if key in names:
                query.setdefault(key, names[key])
        for key, weight in list(o.expanded.items())[:EXPANDED_SHOWN]:
            if key in names and key not in query:
                found = expanded.setdefault(key, {**names[key], "weight": weight})
                found["weight"] = max(found["weight"], weight)
    ranked = sorted(expanded.values(), key=lambda e: e["weight"], reverse=True)[:EXPANDED_SHOWN]
    return {"query": list(query.values()), "expanded": ranked}


def result_object(hit: Hit) -> dict[str, Any]:
    """One entry of OpenAI's `vector_store.search_results.page`."""
    return {
        "file_id": hit.file_id,
        "filename": hit.filename,
        "score": hit.score,
        "attributes": hit.attributes,
        "content": [{"type": "text", "text": hit.text}],
        **breakdown_of(hit),
    }


def breakdown_of(hit: Hit) -> dict[str, Any]:
    """`{"score_breakdown": {...}}` for a hit the kg ranker scored, else nothing."""
    breakdown = getattr(hit, "score_breakdown", None)
    return {} if breakdown is None else {"score_breakdown": breakdown}
