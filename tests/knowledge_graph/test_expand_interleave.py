"""`expand.interleave`: the walk's ranking and two-hop expansion's merged without changing what a
score threshold means (#28). The walk's hits keep their own scores; a page entering through the
expansion's turn ties with the hit above it, even when the walk holds it lower down (hybrid's best
hit, where the expansion starts, is usually one of the walk's candidates), and never lowers the
scores of the hits after it."""

from __future__ import annotations

from gateway.knowledge_graph.expand import ahead, interleave
from vectorstore.base import Hit


def _hits(prefix: str, scores: list[float]) -> list[Hit]:
    return [Hit(f"{prefix}{i}", f"f-{prefix}{i}", "", "", s) for i, s in enumerate(scores)]


WALK = _hits("c", [1.0 - i / 10 for i in range(10)])  # c0 1.0 ... c9 0.1


def _above(hits: list[Hit], threshold: float) -> list[Hit]:
    return [h for h in hits if h.score >= threshold]  # as search.py applies score_threshold


def test_a_walk_hit_pulled_up_by_the_expansion_lowers_no_other_score() -> None:
    expansion = [WALK[8], *_hits("x", [0.0, 0.0, 0.0])]  # the expansion starts at the walk's c8
    hits = interleave(WALK, expansion, k=10)
    ids = [h.chunk_id for h in hits]
    scores = {h.chunk_id: h.score for h in hits}
    assert ids[:3] == ["c0", "c8", "c1"], ids
    assert scores["c8"] == 1.0 and scores["c1"] == 0.9, scores  # not 0.2 for both (the old code)
    assert all(scores[h.chunk_id] == h.score for h in WALK if h.chunk_id in scores and h.chunk_id != "c8")
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert len(ids) == len(set(ids)) == 10
    # a threshold keeps every walk hit it kept before, and the expansion's pages above them
    kept = {h.chunk_id for h in _above(hits, 0.75)}
    assert {"c0", "c1", "c2"} <= kept and "c8" in kept and "x0" in kept, kept


def test_expansion_slots_and_k() -> None:
    expansion = _hits("x", [0.0] * 10)
    capped = interleave(WALK, expansion, k=10, lead=2, slots=4)
    assert [h.chunk_id for h in capped][:4] == ["c0", "c1", "x0", "c2"]
    assert sum(h.chunk_id.startswith("x") for h in capped) == 4 and len(capped) == 10
    # k respected with short lists; no duplicates when both hold the same pages
    assert len(interleave(WALK[:2], WALK[:2], k=10)) == 2
    assert interleave([], expansion[:2], k=1)[0].chunk_id == "x0"


def test_ahead_puts_the_expansion_first_and_keeps_scores_non_increasing() -> None:
    """`expand.ahead` (the hybrid path of a chain question): the expansion's pages, hybrid's first
    among them, then hybrid's other hits; each chunk once, k at most, no score rising."""
    expansion = [WALK[0], *_hits("x", [0.0, 0.0]), WALK[5]]
    hits = ahead(WALK, expansion, k=8)
    ids = [h.chunk_id for h in hits]
    assert ids == ["c0", "x0", "x1", "c5", "c1", "c2", "c3", "c4"], ids
    assert [h.score for h in hits] == [1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.6], hits
    assert [h.chunk_id for h in ahead(WALK, [], k=10)] == [h.chunk_id for h in WALK]
