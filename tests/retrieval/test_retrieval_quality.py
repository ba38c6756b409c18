"""Hybrid search must beat both single modes on the labelled corpus (tests/retrieval/).

Same code as `python -m bench.retrieval_quality`, which prints the numbers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.retrieval_quality import evaluate, load, report


@pytest.mark.parametrize("backend", ["sqlite-vec", "pgvector"])
async def test_hybrid_beats_vector_and_keyword(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> None:
    docs, queries = load()
    assert len(docs) >= 60 and len(queries) >= 40
    assert len({d["id"] for d in docs}) == len(docs)
    assert all(set(q["relevance"]) <= {d["id"] for d in docs} for q in queries)
    url = request.getfixturevalue("postgres_url") if backend == "pgvector" else None
    results = await evaluate(tmp_path, backend_kind=backend, database_url=url)
    shown = report(results)
    assert results["hybrid"].ndcg > results["vector"].ndcg, shown
    assert results["hybrid"].ndcg > results["keyword"].ndcg, shown
    assert results["hybrid"].recall >= max(results["vector"].recall, results["keyword"].recall), shown
