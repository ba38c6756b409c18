"""Hybrid search must beat both single modes on the labelled corpus (tests/retrieval/).

Same code as `python -m bench.retrieval_quality`, which prints the numbers.
"""

from __future__ import annotations

from pathlib import Path

from bench.retrieval_quality import evaluate, load, report


async def test_hybrid_beats_vector_and_keyword(tmp_path: Path) -> None:
    docs, queries = load()
    assert len(docs) >= 60 and len(queries) >= 40
    assert len({d["id"] for d in docs}) == len(docs)
    assert all(set(q["relevance"]) <= {d["id"] for d in docs} for q in queries)
    results = await evaluate(tmp_path)
    shown = report(results)
    assert results["hybrid"].ndcg > results["vector"].ndcg, shown
    assert results["hybrid"].ndcg > results["keyword"].ndcg, shown
    assert results["hybrid"].recall >= max(results["vector"].recall, results["keyword"].recall), shown
