"""The `kg` ranker's per-search inputs and small hit helpers (moved out of `ranker.py`, which
holds the phases): what every phase reads, and hits made for hybrid's and the graph's chunks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gateway.knowledge_graph.blend import RankedHit
from storage.graph import MentionRow
from vectorstore.base import Hit, VectorBackend


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
