"""The `kg` ranker's per-search inputs and small hit helpers (moved out of `ranker.py`, which
holds the phases): what every phase reads, and hits made for hybrid's and the graph's chunks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gateway.knowledge_graph.blend import RankedHit
from storage.graph import MentionRow
from vectorstore import filters as flt
from vectorstore.base import Hit, VectorBackend

MAX_GRAPH_FILES = 30  # files whose chunks only the graph found are read in one search's read


@dataclass(frozen=True, slots=True)
class Search:
    """One search's fixed inputs, which every phase reads."""

    backend: VectorBackend
    store_id: str
    query: str
    vector: list[float] | None
    k: int
    filters: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class Found:
    """What retrieval found: the hits by chunk id (the graph's chunks are added as they are read)
    and the vector and keyword lists, whose ranks the blend reads."""

    hits: dict[str, Hit]
    vec_hits: list[Hit]
    kw_hits: list[Hit]

    def copy(self) -> Found:
        """The same with its own `hits`: a concurrent phase reads the chunks only it found."""
        return Found(dict(self.hits), self.vec_hits, self.kw_hits)


# a chain's early two-hop expansion (`Ranker._early`): its pages (None: not read, hybrid's best is
# not the chain's start) and the best hit's mention rows (None: not read, no hits)
Early = tuple[list[RankedHit] | None, list[MentionRow] | None]


async def no_early() -> Early:
    return None, None


async def nothing() -> list[Hit]:
    return []


def hybrid_hit(h: Hit) -> RankedHit:
    """A hit of hybrid search, for a question the graph does not steer: its breakdown says so."""
    breakdown = {"hybrid": round(h.score, 4), "graph": 0.0}
    return RankedHit(h.chunk_id, h.file_id, h.filename, h.text, h.score, h.attributes, score_breakdown=breakdown)


def pending(row: MentionRow) -> Hit:
    """A chunk the graph found, before its text is read: ranked on its graph, recency and title."""
    return Hit(row.chunk_id, row.file_id, "", "", 0.0)


async def hybrid(search: Search) -> list[RankedHit]:
    """Hybrid search's own top k (keyword search's when the question has no vector)."""
    mode: Any = "hybrid" if search.vector is not None else "keyword"
    plain = await search.backend.search(
        search.store_id, vector=search.vector, query=search.query, k=search.k, filters=search.filters, mode=mode
    )
    return [hybrid_hit(h) for h in plain]


async def load_chunks(search: Search, rows: Sequence[Hit], hits: dict[str, Hit]) -> None:
    """The text of chunks only the graph found (one read by chunk id, attribute filters applied),
    added to `hits`."""
    filters = search.filters
    files = set(list(dict.fromkeys(m.file_id for m in rows))[:MAX_GRAPH_FILES])
    wanted = [(m.file_id, m.chunk_id) for m in rows if m.file_id in files]
    for h in await search.backend.chunks(search.store_id, wanted):
        if filters is None or flt.matches(filters, h.attributes):
            hits[h.chunk_id] = h
