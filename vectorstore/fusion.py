"""Hybrid search: fuse a vector ranking and a keyword ranking into one list with scores in [0, 1].

What each score means (these are the `Hit.score` values the file_search tool reports):

* vector:  cosine similarity of the query and chunk vectors, clamped at 0 (1 = same direction).
* keyword: BM25 squashed monotonically into [0, 1) as s / (1 + s); 0 means no query term matched.
  BM25 has no upper bound, so this is a rank-preserving scale, not a probability.
* hybrid, `weights` (default, vector_weight 0.75): vector_weight x vector score +
  (1 - vector_weight) x keyword score, both as above. The backends compute both components for
  every candidate (a chunk found by one mode gets its real score in the other), so the score is a
  true blend; 1.0 would be an identical vector that also matches every term overwhelmingly.
* hybrid, `rrf`: weighted reciprocal rank fusion, vector_weight / (rrf_k + vector rank) +
  (1 - vector_weight) / (rrf_k + keyword rank), divided by its maximum 1 / (rrf_k + 1): 1.0 means
  "ranked first by both". This is what OpenAI's `ranking_options.hybrid_search`
  (embedding_weight, text_weight) describes; `Fusion.openai()` maps those weights.

Why the score blend is the default and not RRF (measured, bench/retrieval_quality.py, 70 documents,
54 queries, nDCG@10): vector 0.951, keyword 0.814; RRF at equal weights 0.930 and at 0.75 0.939,
both below vector alone; the blend at 0.75 0.960, at 0.8 0.967. For a question in natural language
the keyword side's best hit is often a chunk sharing one common word, and RRF credits that rank #1
exactly like a strong match; the blend sees that its BM25 is weak. 0.75 is the conventional
vector-leaning default (Weaviate's alpha), not a value fitted to the corpus; lower weights lose to
vector-only here (0.7: 0.947).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeVar

K = TypeVar("K", str, int)

# How many candidates each mode contributes before fusion, as a multiple of k (at least MIN).
CANDIDATE_FACTOR = 4
MIN_CANDIDATES = 40


@dataclass(frozen=True, slots=True)
class Fusion:
    method: Literal["rrf", "weights"] = "weights"
    vector_weight: float = 0.75  # the keyword side gets 1 - vector_weight
    rrf_k: int = 60

    def __post_init__(self) -> None:
        if not 0.0 <= self.vector_weight <= 1.0:
            raise ValueError("vector_weight must be within [0, 1]")
        if self.rrf_k < 1:
            raise ValueError("rrf_k must be >= 1")

    @classmethod
    def openai(cls, embedding_weight: float, text_weight: float) -> Fusion:
        """OpenAI's `ranking_options.hybrid_search` weights (reciprocal rank fusion)."""
        total = embedding_weight + text_weight
        if embedding_weight < 0 or text_weight < 0 or total <= 0:
            raise ValueError("embedding_weight and text_weight must be >= 0 and not both 0")
        return cls("rrf", embedding_weight / total)


DEFAULT_FUSION = Fusion()


def candidates(k: int) -> int:
    return max(k * CANDIDATE_FACTOR, MIN_CANDIDATES)


def vector_score(cosine_distance: float) -> float:
    """Score from a cosine *distance* (1 - cosine similarity), as sqlite-vec reports it."""
    return min(1.0, max(0.0, 1.0 - cosine_distance))


def keyword_score(bm25: float) -> float:
    """Score from a BM25 relevance (positive, larger is better)."""
    s = max(0.0, bm25)
    return s / (1.0 + s)


def fuse(
    vector: dict[K, float],
    keyword: dict[K, float],
    k: int,
    fusion: Fusion = DEFAULT_FUSION,
) -> list[tuple[K, float]]:
    """Top k (id, score) from per-mode scores (each already in [0, 1]; absent = no match).

    Ranks for RRF come from sorting each mode's scores, so callers pass every candidate's score in
    each mode they could compute it for. Ties break by id, for stable results.
    """
    ids = set(vector) | set(keyword)
    if fusion.method == "weights":
        w = fusion.vector_weight
        fused = {i: w * vector.get(i, 0.0) + (1.0 - w) * keyword.get(i, 0.0) for i in ids}
    else:
        fused = dict.fromkeys(ids, 0.0)
        for scores, weight in ((vector, fusion.vector_weight), (keyword, 1.0 - fusion.vector_weight)):
            ranked = sorted((i for i, s in scores.items() if s > 0.0), key=lambda i: (-scores[i], i))
            for rank, i in enumerate(ranked, start=1):
                fused[i] += weight / (fusion.rrf_k + rank)
        top = 1.0 / (fusion.rrf_k + 1)
        fused = {i: s / top for i, s in fused.items()}
    best = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
    return [(i, min(1.0, s)) for i, s in best[:k] if s > 0.0]
