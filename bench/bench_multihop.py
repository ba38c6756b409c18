"""Multi-hop retrieval: the `kg` ranker against hybrid search and two graph baselines (#12, #28).

    .venv/bin/python -m bench.bench_multihop [--corpus easy hard unseen heldout sealed blind real] [--per-hops 60]
        [--repeat 1] [--methods hybrid kg two-hop ppr kg+2hop] [--paths] [--lower]

Two generated fictional corpora: the easy one (bench/multihop_corpus.py, #12) and the hard one
(bench/multihop_hard.py, #28: answers sharing no word with the question, varied relations,
distractors, colliding names, passing mentions) and, as the honest check, the unseen one
(bench/multihop_unseen.py: other entity kinds, phrasings and question templates, written and
committed before the ranker ran on it, no pattern added for it), and the held-out one
(bench/multihop_heldout.py: written by someone who never read the ranker, other domains, phrasings,
templates and traps; nobody tuning the ranker is to look at it), and the sealed one (bench/multihop_sealed.py:
written the same way a round later, kept for checking the round after; run it only on a finished round).
`--corpus real` adds this machine's manual pages
(bench/real_pages.py: single-hop, nDCG@10 and latency only).

Runs the gateway's real pipeline in-process: files and blobs in a temporary data directory, the
ingestion worker (extraction, chunking, the local MiniLM embedder, sqlite-vec, and the knowledge
graph when it is on), then, for every question: hybrid search, the `kg` ranker (`search_stores`
with `ranker="kg"`), two-hop entity expansion and personalised PageRank (bench/graph_baselines.py),
and the kg ranking fused with two-hop expansion's by reciprocal rank (`kg+2hop`).
Prints, per method: top-10 hit rate and MRR@10 for one-hop controls, two-hop and three-hop questions
and all multi-hop ones; search latency p50/p90; ingestion files per second with the graph off and on
(`--repeat` runs: min / median / max, because the machine is shared); after the hard corpus, the
labelled single-hop corpus (tests/retrieval/): nDCG@10, recall@10 and p50 of hybrid and kg.
`--lower` (#28) asks every question in lower case, names too, as users type them.
`--paths` (#28) also prints the multi-hop questions by the kg ranker's path (`RankOutcome.path`) and
by the number of entities completing the chain at the best weight, with each method's top-10 hit
rate on them.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.graph_baselines import PPR, two_hop
from bench.multihop_blind import build_blind
from bench.multihop_cloaked import build_cloaked
from bench.multihop_corpus import Doc, Question, build
from bench.multihop_draped import build_draped
from bench.multihop_fresh import build_fresh
from bench.multihop_hard import build_hard
from bench.multihop_heldout import build_heldout
from bench.multihop_hooded import build_hooded
from bench.multihop_hushed import build_hushed
from bench.multihop_masked import build_masked
from bench.multihop_muffled import build_muffled
from bench.multihop_sealed import build_sealed
from bench.multihop_shrouded import build_shrouded
from bench.multihop_swathed import build_swathed
from bench.multihop_unseen import build_unseen
from bench.multihop_veiled import build_veiled
from gateway.bootstrap import build_stores
from gateway.config import load_settings
from gateway.knowledge_graph.extract import RuleExtractor, normalise
from gateway.knowledge_graph.index import title_of
from gateway.knowledge_graph.keys import longest, query_keys
from gateway.retrieval.core import Retrieval
from gateway.retrieval.ingest import IngestionWorker
from gateway.retrieval.search import search_stores
from storage.sqlite.conn import connect

K = 10


async def _one(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def ingest(r: Retrieval, docs: list[Doc], name: str) -> tuple[str, float]:
    """A new store holding `docs`, through the ingestion worker; returns (store id, files per second)."""
    embedder, dimension = await r.embedder_identity()
    await r.embedder()
    store_id = f"vs_{name}_{time.monotonic_ns()}"
    await (await r.backend()).create_store(store_id, dimension)
    await r.stores.create_store(store_id, embedder=embedder, dimension=dimension, data={"name": name})
    entries: list[dict[str, Any]] = []
    for i, doc in enumerate(docs):
        file_id = f"file_{store_id}_{i}"
        data = doc.text.encode()
        await r.blobs.write(file_id, _one(data), max_bytes=1 << 20)
        await r.files.insert(
            {
                "id": file_id,
                "object": "file",
                "bytes": len(data),
                "created_at": int(time.time()),
                "expires_at": None,
                "filename": doc.name,
                "purpose": "assistants",
                "status": "processed",
                "status_details": None,
                "content_type": "text/markdown",
                "blob": file_id,
            }
        )
        strategy = {"type": "static", "static": {"max_chunk_size_tokens": 800, "chunk_overlap_tokens": 400}}
        entries.append({"file_id": file_id, "attributes": {}, "chunking_strategy": strategy})
    await r.stores.add_files(store_id, entries)
    worker = IngestionWorker(r, remove_file=_never, concurrency=2)
    start = time.perf_counter()
    for entry in entries:
        worker.enqueue(store_id, entry["file_id"])
    await worker.start()
    while (await r.stores.get_store(store_id) or {})["file_counts"]["in_progress"]:  # noqa: ASYNC110
        await asyncio.sleep(0.02)
    elapsed = time.perf_counter() - start
    await worker.stop()
    return store_id, len(docs) / elapsed


async def _never(_file_id: str) -> None:
    return None


Method = Callable[[str], Awaitable[list[str]]]


async def evaluate(questions: list[Question], method: Method) -> dict[Any, Any]:
    """Top-10 hit rate and MRR@10 per hop count (and over all multi-hop questions), p50/p90 latency."""
    by_hops: dict[int, list[tuple[bool, float]]] = {1: [], 2: [], 3: []}
    latencies: list[float] = []
    for q in questions:
        start = time.perf_counter()
        ranked = await method(q.text)
        latencies.append((time.perf_counter() - start) * 1000)
        rank = ranked.index(q.answer) + 1 if q.answer in ranked[:K] else 0
        by_hops[q.hops].append((rank > 0, 1 / rank if rank else 0.0))
    out: dict[Any, Any] = {}
    multi = by_hops[2] + by_hops[3]
    for key, rows in [*by_hops.items(), ("multi", multi)]:
        n = max(len(rows), 1)
        out[key] = (sum(h for h, _ in rows) / n, sum(m for _, m in rows) / n, len(rows))
    latencies.sort()
    out["p50"] = statistics.median(latencies)
    out["p90"] = latencies[int(0.9 * (len(latencies) - 1))]
    return out


async def interleaved(texts: list[str], first: Method, second: Method, repeat: int) -> tuple[float, float]:
    """p50 ms of two methods timed alternately on the same queries (`repeat` rounds, the order
    swapped every query), so the machine's drift (six other jobs on two cores) hits both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    pair = (first, second)
    for rnd in range(repeat):
        for i, text in enumerate(texts):
            order = (0, 1) if (i + rnd) % 2 == 0 else (1, 0)
            for j in order:
                start = time.perf_counter()
                await pair[j](text)
                times[j].append((time.perf_counter() - start) * 1000)
    return statistics.median(times[0]), statistics.median(times[1])


def print_ratio(label: str, kg_p50: float, hybrid_p50: float, n: int) -> None:
    print(
        f"{label}: kg p50 {kg_p50:.1f} ms / hybrid p50 {hybrid_p50:.1f} ms = {kg_p50 / hybrid_p50:.2f} "
        f"(interleaved, {n} timings each)"
    )


def methods(r: Retrieval, store_id: str, docs: list[Doc], db_path: Path) -> dict[str, Method]:
    """The rankers compared: hybrid, the product's kg ranker, and the bench-only graph baselines."""
    names = {f"file_{store_id}_{i}": d.name for i, d in enumerate(docs)}
    texts = {d.name: d.text for d in docs}
    by_title = {normalise(title_of(d.name, d.text)): d.name for d in docs}
    # the gateway's own SQLite build (pysqlite3): a second copy of SQLite in one process closing its
    # connection drops the other's POSIX locks on the file, and another process then corrupts it
    conn = connect(db_path)
    ppr = PPR(conn, store_id)
    conn.close()

    async def ranked(query: str, ranker: str | None) -> list[str]:
        hits = await search_stores(r, [store_id], [query], k=K, ranker=ranker)
        return list(dict.fromkeys(names[h.file_id] for h in hits))

    async def hybrid(query: str) -> list[str]:
        return await ranked(query, None)

    async def kg(query: str) -> list[str]:
        return await ranked(query, "kg")

    async def expand(query: str) -> list[str]:
        return two_hop(await ranked(query, None), texts, by_title, K)

    async def pagerank(query: str) -> list[str]:
        seeds = longest([key for key in query_keys(RuleExtractor(), query) if key in ppr.entities])
        found = [names[f] for f in ppr.rank(seeds, K)]
        return [*found, *(d for d in await ranked(query, None) if d not in found)][:K]

    async def kg_expand(query: str) -> list[str]:
        # the walk's ranking fused with two-hop expansion's (reciprocal rank, k=60): whether the
        # baseline's plain name-following adds what the walk misses where it is unsure (#28)
        lists = await asyncio.gather(kg(query), expand(query))
        fused: dict[str, float] = {}
        for ranked_list in lists:
            for i, doc in enumerate(ranked_list):
                fused[doc] = fused.get(doc, 0.0) + 1.0 / (60 + i + 1)
        return sorted(fused, key=lambda d: fused[d], reverse=True)[:K]

    return {"hybrid": hybrid, "kg": kg, "two-hop": expand, "ppr": pagerank, "kg+2hop": kg_expand}


async def single_hop(r: Retrieval, repeat: int) -> dict[str, tuple[float, float, float]]:
    """The existing labelled single-hop corpus (tests/retrieval/): nDCG@10, recall@10 and p50 ms per ranker."""
    from bench.retrieval_quality import load, ndcg_at, recall_at

    corpus, queries = load()
    docs = [Doc(f"{d['id']}.md", f"# {d['title']}\n\n{d['text']}") for d in corpus]
    store_id, _rate = await ingest(r, docs, "single")
    names = {f"file_{store_id}_{i}": d["id"] for i, d in enumerate(corpus)}
    out: dict[str, tuple[float, float, float]] = {}
    for ranker in (None, "kg"):
        ndcgs, recalls, times = [], [], []
        for q in queries:
            start = time.perf_counter()
            hits = await search_stores(r, [store_id], [q["query"]], k=K, ranker=ranker)
            times.append((time.perf_counter() - start) * 1000)
            ranked = list(dict.fromkeys(names[h.file_id] for h in hits))
            ndcgs.append(ndcg_at(ranked, q["relevance"]))
            recalls.append(recall_at(ranked, q["relevance"]))
        out[ranker or "hybrid"] = (sum(ndcgs) / len(ndcgs), sum(recalls) / len(recalls), statistics.median(times))

    async def run(ranker: str | None, text: str) -> list[str]:
        return [h.file_id for h in await search_stores(r, [store_id], [text], k=K, ranker=ranker)]

    kg_p50, hy_p50 = await interleaved(
        [q["query"] for q in queries], lambda t: run("kg", t), lambda t: run(None, t), repeat
    )
    print_ratio("single-hop speed", kg_p50, hy_p50, len(queries) * repeat)
    return out


async def run_corpus(
    label: str, docs: list[Doc], questions: list[Question], args: argparse.Namespace, tmp: Path
) -> dict[str, Any]:
    """Ingest `docs` with the graph off and on (`--repeat` times), then every method on the questions."""
    print(
        f"\n== {label} corpus: {len(docs)} documents; questions: "
        + ", ".join(f"{h}-hop {sum(q.hops == h for q in questions)}" for h in (1, 2, 3))
    )
    rates: dict[bool, list[float]] = {False: [], True: []}
    results: dict[str, dict[Any, Any]] = {}
    speed = (0.0, 1.0)
    single: dict[str, tuple[float, float, float]] = {}
    for graph_on in (False, True):
        settings = load_settings(
            {}, data_dir=tmp / f"{label}{int(graph_on)}", kg_enabled=graph_on, kg_weights=args.weights
        )
        settings.data_dir.mkdir(parents=True)
        sqlite = build_stores(settings)
        await sqlite.open()
        r = Retrieval(settings, sqlite)
        try:
            for _ in range(args.repeat):
                store_id, rate = await ingest(r, docs, f"g{int(graph_on)}")
                rates[graph_on].append(rate)
            if graph_on:
                compared = methods(r, store_id, docs, settings.db_path)
                compared = {name: m for name, m in compared.items() if name in (args.methods or compared)}
                for _ in range(2):  # warm every path (embedder, caches) before measuring
                    for method in compared.values():
                        await method(questions[0].text)
                results = {name: await evaluate(questions, method) for name, method in compared.items()}
                if args.paths:
                    await print_paths(r, store_id, questions, compared, args.show_path)
                texts = [q.text for q in questions]
                if {"kg", "hybrid"} <= compared.keys():
                    speed = await interleaved(texts, compared["kg"], compared["hybrid"], args.speed_repeat)
                if label == "hard" and args.single and "kg" in compared:
                    single = await single_hop(r, args.speed_repeat)
        finally:
            await r.stop()
            await sqlite.close()
    print(
        f"{'method':8} {'1-hop hit/MRR':>15} {'2-hop hit/MRR':>15} {'3-hop hit/MRR':>15} "
        f"{'multi hit/MRR':>15} {'p50 ms':>8} {'p90 ms':>8}"
    )
    for name, res in results.items():
        cells = [f"{res[h][0]:6.1%} / {res[h][1]:.3f}" for h in (1, 2, 3, "multi")]
        print(f"{name:8} " + " ".join(f"{c:>15}" for c in cells) + f" {res['p50']:8.1f} {res['p90']:8.1f}")
    if {"kg", "hybrid"} <= results.keys():
        print_ratio(f"{label} speed", *speed, len(questions) * args.speed_repeat)
    for graph_on, values in rates.items():
        print(
            f"ingestion, graph {'on ' if graph_on else 'off'}: files/s min {min(values):.1f} "
            f"median {statistics.median(values):.1f} max {max(values):.1f} ({len(values)} runs of {len(docs)} files)"
        )
    if single:
        print("single-hop corpus (tests/retrieval, 70 documents, 54 queries):")
        for ranker, (ndcg, recall, p50) in single.items():
            print(f"{ranker:8} nDCG@10 {ndcg:.3f}  recall@10 {recall:.3f}  p50 {p50:.1f} ms")
    return results


async def print_paths(
    r: Retrieval, store_id: str, questions: list[Question], compared: dict[str, Method], show: Sequence[str] = ()
) -> None:
    """Per phase of the kg ranker that answered (`RankOutcome.path`: "hybrid" only, the PageRank
    "fallback", the walk "unsure" with two-hop expansion interleaved, a completed "chain", a
    "one-step" walk, a "one-phrase" one: hybrid's ranking with the pages one phrase step away),
    how many multi-hop questions took it and each method's top-10 hit rate on them; then the same
    by the number of entities completing the chain at the best weight
    (`RankOutcome.tied`, walk paths only; counted after `specific.py`'s division since #28 session
    11 and after `evidence.py`'s reweighing since session 14, which spreads ties apart, so groups
    from before either hold other questions): where the kg ranker loses to two-hop expansion (#28).
    The questions of the paths in `show` are printed with their hop count, the entities the ranker
    read and each method's hit (`--show-path`, spent corpora only)."""
    knowledge = await r.knowledge()
    backend = await r.backend()
    embedder = await r.embedder()
    rows: dict[str, list[dict[str, bool]]] = {}
    by_ties: dict[int, list[dict[str, bool]]] = {}
    for q in questions:
        if q.hops < 2:
            continue
        vector = next(iter(await embedder.embed([q.text])))
        outcome = await knowledge.rank(backend, store_id, q.text, vector, k=K, filters=None)
        hit = {name: q.answer in (await method(q.text))[:K] for name, method in compared.items()}
        rows.setdefault(outcome.path, []).append(hit)
        if outcome.path in show:
            marks = " ".join(f"{name}={int(h)}" for name, h in hit.items())
            print(f"    [{outcome.path}] {q.hops}-hop {q.text!r} entities={outcome.query_entities} {marks}")
        if outcome.path in ("unsure", "chain", "one-step"):
            by_ties.setdefault(min(outcome.tied, 3), []).append(hit)
    print("multi-hop questions by the kg ranker's path (top-10 hit rate per method):")
    for path, hits in sorted(rows.items()):
        print(f"  {path:10} {len(hits):4} questions  {_rates(hits, compared)}")
    print("walked multi-hop questions by entities completing the chain at the best weight (3: 3 or more):")
    for ties, hits in sorted(by_ties.items()):
        print(f"  tied {ties}    {len(hits):4} questions  {_rates(hits, compared)}")


def _rates(hits: list[dict[str, bool]], compared: dict[str, Method]) -> str:
    return "  ".join(f"{name} {sum(h[name] for h in hits) / len(hits):6.1%}" for name in compared)


def sample(questions: list[Question], per_hops: int) -> list[Question]:
    """At most `per_hops` questions of each hop count, spread evenly over the list (deterministic)."""
    out: list[Question] = []
    for hops in (1, 2, 3):
        group = [q for q in questions if q.hops == hops]
        step = max(1, len(group) // per_hops) if per_hops else 1
        out += group[::step][: per_hops or None]
    return out


async def run_real(args: argparse.Namespace, tmp: Path) -> None:
    """This machine's manual pages (bench/real_pages.py): nDCG@10 and p50 of hybrid and kg, and
    ingestion with the graph off and on."""
    from bench.real_pages import load
    from bench.retrieval_quality import ndcg_at

    docs, questions = load(args.real)
    if not docs:
        print("\n== real pages: none on this machine (/usr/share/man/man1)")
        return
    print(f"\n== real pages: {len(docs)} manual pages, {len(questions)} questions (their NAME lines)")
    for graph_on in (False, True):
        settings = load_settings({}, data_dir=tmp / f"real{int(graph_on)}", kg_enabled=graph_on)
        settings.data_dir.mkdir(parents=True)
        sqlite = build_stores(settings)
        await sqlite.open()
        r = Retrieval(settings, sqlite)
        try:
            store_id, rate = await ingest(r, docs, f"real{int(graph_on)}")
            print(f"ingestion, graph {'on ' if graph_on else 'off'}: {rate:.1f} files/s")
            if not graph_on:
                continue
            names = {f"file_{store_id}_{i}": d.name for i, d in enumerate(docs)}
            for ranker in (None, "kg"):
                await search_stores(r, [store_id], [questions[0][0]], k=K, ranker=ranker)
            for ranker in (None, "kg"):
                ndcgs, times = [], []
                for text, answer in questions:
                    start = time.perf_counter()
                    hits = await search_stores(r, [store_id], [text], k=K, ranker=ranker)
                    times.append((time.perf_counter() - start) * 1000)
                    ndcgs.append(ndcg_at(list(dict.fromkeys(names[h.file_id] for h in hits)), {answer: 2}))
                print(
                    f"{ranker or 'hybrid':8} nDCG@10 {sum(ndcgs) / len(ndcgs):.3f}  "
                    f"p50 {statistics.median(times):.1f} ms  p90 {sorted(times)[int(0.9 * (len(times) - 1))]:.1f} ms"
                )

            await doc_control(r, store_id, names, {d.name for d in docs})

            async def run(ranker: str | None, text: str, r: Retrieval = r, store_id: str = store_id) -> list[str]:
                return [h.file_id for h in await search_stores(r, [store_id], [text], k=K, ranker=ranker)]

            texts = [text for text, _answer in questions]
            kg_p50, hy_p50 = await interleaved(texts, lambda t: run("kg", t), lambda t: run(None, t), args.speed_repeat)
            print_ratio("real pages speed", kg_p50, hy_p50, len(texts) * args.speed_repeat)
        finally:
            await r.stop()
            await sqlite.close()


async def doc_control(r: Retrieval, store_id: str, names: dict[str, str], pages: set[str]) -> None:
    """The labelled how-to questions over the same pages (bench/doc_questions.py): most read as
    chains (`question.steps` >= 2), so they reach the kg ranker's chain rules; nDCG@10, hit@1 and
    how many questions kg ranks a different first page for than hybrid."""
    from bench.doc_questions import doc_questions
    from bench.retrieval_quality import ndcg_at
    from gateway.knowledge_graph.question import steps

    questions = doc_questions(pages)
    chains = sum(steps(text) >= 2 for text, _labels in questions)
    print(f"doc questions: {len(questions)} how-to questions, {chains} read as chains (steps >= 2)")
    firsts: dict[str | None, list[str]] = {}
    for ranker in (None, "kg"):
        ndcgs, ones = [], []
        for text, labels in questions:
            hits = await search_stores(r, [store_id], [text], k=K, ranker=ranker)
            ranked = list(dict.fromkeys(names[h.file_id] for h in hits))
            ndcgs.append(ndcg_at(ranked, labels))
            ones.append(bool(ranked) and ranked[0] in labels)
            firsts.setdefault(ranker, []).append(ranked[0] if ranked else "")
        print(f"{ranker or 'hybrid':8} doc nDCG@10 {sum(ndcgs) / len(ndcgs):.3f}  hit@1 {sum(ones) / len(ones):.3f}")
    moved = sum(a != b for a, b in zip(firsts[None], firsts["kg"], strict=True))
    print(f"doc questions whose first page kg changes: {moved} of {len(questions)}")


async def main(args: argparse.Namespace) -> None:
    # line by line even into a pipe or file: a run takes minutes on a loaded machine, and a silent
    # block-buffered one looked hung (#28)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    corpora = {
        "easy": build(args.companies, args.fillers),
        "hard": build_hard(args.hard_companies),
        "unseen": build_unseen(args.unseen_groups),
        "heldout": build_heldout(args.heldout_groups),
        "sealed": build_sealed(args.sealed_groups),
        "fresh": build_fresh(),
        "blind": build_blind(),
        "veiled": build_veiled(),
        "masked": build_masked(),
        "cloaked": build_cloaked(),
        "draped": build_draped(),
        "muffled": build_muffled(),
        "hushed": build_hushed(),
        "shrouded": build_shrouded(),
        "swathed": build_swathed(),
        "hooded": build_hooded(),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for label in args.corpus:
            if label == "real":
                await run_real(args, Path(tmp))
                continue
            docs, questions = corpora[label]
            if args.lower:  # as users type them (#28: the cloaked corpus's lower-case questions)
                questions = [replace(q, text=q.text.lower()) for q in questions]
            await run_corpus(label, docs, sample(questions, args.per_hops), args, Path(tmp))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--companies", type=int, default=40)
    parser.add_argument("--fillers", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--hard-companies", type=int, default=60)
    parser.add_argument("--unseen-groups", type=int, default=50)
    parser.add_argument("--heldout-groups", type=int, default=75)
    parser.add_argument("--sealed-groups", type=int, default=36)
    parser.add_argument("--per-hops", type=int, default=60, help="questions of each hop count (0: all)")
    parser.add_argument(
        "--corpus",
        nargs="+",
        choices=[
            "easy",
            "hard",
            "unseen",
            "heldout",
            "sealed",
            "fresh",
            "blind",
            "veiled",
            "masked",
            "cloaked",
            "draped",
            "muffled",
            "hushed",
            "shrouded",
            "swathed",
            "hooded",
            "real",
        ],
        default=["easy", "hard"],
    )
    parser.add_argument(
        "--methods",
        nargs="+",
        choices=["hybrid", "kg", "two-hop", "ppr", "kg+2hop"],
        default=None,
        help="rank with these methods only (default: all); the kg/hybrid timing needs both",
    )
    parser.add_argument("--real", type=int, default=200, help="manual pages of the 'real' corpus")
    parser.add_argument(
        "--speed-repeat", type=int, default=3, help="rounds of the interleaved kg/hybrid timing (per question)"
    )
    parser.add_argument(
        "--paths",
        action="store_true",
        help="multi-hop questions per kg ranker path (hybrid / fallback / unsure / chain / one-step) and per "
        "number of entities tied for the chain, with each method's top-10 hit rate",
    )
    parser.add_argument(
        "--show-path",
        nargs="*",
        default=[],
        help="with --paths, print the multi-hop questions taking these kg paths (e.g. one-phrase one-step; "
        "spent corpora only: never on a blind one)",
    )
    parser.add_argument(
        "--lower", action="store_true", help="ask every question of the corpora in lower case, names too (#28)"
    )
    parser.add_argument("--no-single", dest="single", action="store_false", help="skip the single-hop corpus")
    parser.add_argument("--weights", default=None, help="GATEWAY_KG_WEIGHTS for the kg ranker (default: the setting's)")
    asyncio.run(main(parser.parse_args()))
