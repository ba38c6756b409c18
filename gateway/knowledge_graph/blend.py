"""The `kg` ranker's last step (moved out of `ranker.py`): each candidate chunk's normalised signals
(vector similarity, graph relevance, keyword match, recency, title match) blended by weights that
sum to 1, or, with no weights, PageRank's ranking and hybrid's fused by reciprocal rank (#12, #28).
Pure functions of what the ranker read: no graph or backend call here."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from gateway.knowledge_graph.lexicon import STOP, normalise
from vectorstore.base import Hit
from vectorstore.fusion import Fusion

# hybrid search's own order (vectorstore.fusion's default blend), where the fallback's hybrid side
# and two-hop expansion (`expand.py`) start
HYBRID_VECTOR = Fusion().vector_weight

# The PageRank fallback fuses two rankings by reciprocal rank, GRAPH_VOTE / (RRF_K + PageRank rank)
# + 1 / (RRF_K + hybrid rank), rather than blending its mass in at a high weight: a multi-hop answer
# (which shares no word with the question: PageRank's first, not in hybrid's list) still comes
# among the first, and a single-hop question the grammar miscounted as a chain keeps hybrid's
# first hits near the top (hybrid's first is behind at most the pages PageRank ranks far higher)
RRF_K = 5
GRAPH_VOTE = 2.0


@dataclass(slots=True)
class RankedHit(Hit):
    """A hit of the `kg` ranker: its signals (or how it was found) in `score_breakdown`."""

    score_breakdown: dict[str, float] = field(default_factory=dict)


def blend(
    query: str,
    hits: dict[str, Hit],
    vec_hits: list[Hit],
    kw_hits: list[Hit],
    graph_score: dict[str, float],
    times: dict[str, tuple[str, int]],
    weights: dict[str, float] | None,
    k: int,
) -> list[RankedHit]:
    """The top k of `hits` by their blended signals, each with its `score_breakdown`."""
    vec = {h.chunk_id: h.score for h in vec_hits}
    kw = {h.chunk_id: h.score for h in kw_hits}
    g_max = max(graph_score.values(), default=0.0) or 1.0
    stamps = [times[h.file_id][1] for h in hits.values() if h.file_id in times]
    oldest, newest = min(stamps, default=0), max(stamps, default=0)
    q_words = _words_of(query)
    names = ("vector", "graph", "keyword", "recency", "title")
    w = [weights[n] for n in names] if weights is not None else [0.0] * len(names)
    rows: list[tuple[float, str, tuple[float, ...]]] = []
    for cid, h in hits.items():
        title, stamp = times.get(h.file_id, (h.filename, oldest))
        t_words = _words_of(title)
        signals = (
            max(0.0, min(1.0, vec.get(cid, 0.0))),
            graph_score.get(cid, 0.0) / g_max,
            max(0.0, min(1.0, kw.get(cid, 0.0))),  # BM25 squashed by the backend, as hybrid
            (stamp - oldest) / (newest - oldest) if newest > oldest else 0.0,
            len(q_words & t_words) / len(t_words) if t_words else 0.0,
        )
        score = w[0] * signals[0] + w[1] * signals[1] + w[2] * signals[2] + w[3] * signals[3] + w[4] * signals[4]
        rows.append((round(score, 6), cid, signals))
    if weights is None:
        rows = _fused(rows)
    rows.sort(key=lambda r: r[0], reverse=True)
    out: list[RankedHit] = []
    for score, cid, values in rows[:k]:  # only the hits returned carry a breakdown
        h = hits[cid]
        breakdown = {n: round(v, 4) for n, v in zip(names, values, strict=True)}
        out.append(RankedHit(cid, h.file_id, h.filename, h.text, score, h.attributes, score_breakdown=breakdown))
    return out


@lru_cache(maxsize=16384)
def _words_of(text: str) -> frozenset[str]:
    """A title's (or question's) words without stop words; titles repeat from query to query."""
    return frozenset(normalise(text).split()) - STOP


def _fused(rows: list[tuple[float, str, tuple[float, ...]]]) -> list[tuple[float, str, tuple[float, ...]]]:
    """Each candidate scored by reciprocal rank in the PageRank ranking (graph signal) and in
    hybrid's (vector and keyword signals as hybrid blends them); a chunk absent from a ranking
    (no mass, or neither vector nor keyword match) gets nothing from it."""
    by_graph = sorted((r for r in rows if r[2][1] > 0), key=lambda r: r[2][1], reverse=True)
    by_hybrid = sorted(
        (r for r in rows if r[2][0] > 0 or r[2][2] > 0),
        key=lambda r: HYBRID_VECTOR * r[2][0] + (1 - HYBRID_VECTOR) * r[2][2],
        reverse=True,
    )
    score = dict.fromkeys((r[1] for r in rows), 0.0)
    for rank, r in enumerate(by_graph, 1):
        score[r[1]] += GRAPH_VOTE / (RRF_K + rank)
    for rank, r in enumerate(by_hybrid, 1):
        score[r[1]] += 1.0 / (RRF_K + rank)
    return [(round(score[cid], 6), cid, signals) for _, cid, signals in rows]
