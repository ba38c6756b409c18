"""`expand.interleave`: the walk's ranking and two-hop expansion's merged without changing what a
score threshold means (#28). The walk's hits in their own order keep their own scores; a page
entering through the expansion's turn takes the score of the walk hit it displaced (the next below
it), even when the walk holds it lower down (hybrid's best hit, where the expansion starts, is
usually one of the walk's candidates), and never lowers the scores of the hits after it."""

from __future__ import annotations

from gateway.knowledge_graph.expand import interleave
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
    assert scores["c8"] == 0.9 and scores["c1"] == 0.9, scores  # not 0.2 for both (the old code), not c0's 1.0
    assert all(scores[h.chunk_id] == h.score for h in WALK if h.chunk_id in scores and h.chunk_id != "c8")
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert len(ids) == len(set(ids)) == 10
    # a threshold keeps every walk hit it kept before, and the expansion's pages above them
    kept = {h.chunk_id for h in _above(hits, 0.75)}
    assert {"c0", "c1", "c2"} <= kept and "c8" in kept and "x0" in kept, kept


def test_an_expansion_page_scores_no_higher_than_the_hit_it_displaced() -> None:
    """Hybrid's ranking of a chain question naming no entity (the `hybrid` path) with the expansion
    interleaved under a threshold: each expansion page is dropped with the hybrid hit it pushed down,
    no hybrid hit is scored above its own score except one pulled up, to the displaced hit's."""
    hybrid = _hits("h", [0.9, 0.6, 0.55, 0.4, 0.3])
    expansion = [hybrid[0], *_hits("x", [0.0, 0.0]), hybrid[4]]
    hits = interleave(hybrid, expansion, k=5, slots=(5 - 1) // 2)
    assert [(h.chunk_id, h.score) for h in hits] == [
        ("h0", 0.9),
        ("h1", 0.6),
        ("x0", 0.55),
        ("h2", 0.55),
        ("x1", 0.4),  # h3 left out, at 0.4
    ], hits
    assert {h.chunk_id for h in _above(hits, 0.58)} == {"h0", "h1"}
    # k smaller than the lead and the cap: hybrid's best alone, at its score
    assert [(h.chunk_id, h.score) for h in interleave(hybrid, expansion, k=1, slots=0)] == [("h0", 0.9)]
    # at the tail (every hybrid hit shown): an expansion page scores 0, any threshold drops it
    tail = interleave(hybrid[:1], expansion, k=3)
    assert [(h.chunk_id, h.score) for h in tail] == [("h0", 0.9), ("x0", 0.0), ("x1", 0.0)], tail


def test_expansion_slots_and_k() -> None:
    expansion = _hits("x", [0.0] * 10)
    capped = interleave(WALK, expansion, k=10, lead=2, slots=4)
    assert [h.chunk_id for h in capped][:4] == ["c0", "c1", "x0", "c2"]
    assert sum(h.chunk_id.startswith("x") for h in capped) == 4 and len(capped) == 10
    # k respected with short lists; no duplicates when both hold the same pages
    assert len(interleave(WALK[:2], WALK[:2], k=10)) == 2
    assert interleave([], expansion[:2], k=1)[0].chunk_id == "x0"
