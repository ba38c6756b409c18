"""Stated-link recall of the knowledge graph's extraction (#28) on the held-out multi-hop corpus.

Every link of a multi-hop question's chain (bench/multihop_heldout.py gives each question the files
of its chain) is stated by one of its two files; the link is recalled when extraction stores a typed
relation (a pattern type or a phrase relation, not co-occurrence) between its two entities from one
of those files. Extraction alone, as ingestion runs it (one chunk per page, the store's titles
growing file by file), so no embedder or store is needed: a few seconds.

    .venv/bin/python -m bench.kg_link_recall [--show]
"""

from __future__ import annotations

import argparse
import itertools
import time

from bench.multihop_heldout import heldout_paths
from gateway.knowledge_graph.extract import RuleExtractor, normalise
from gateway.knowledge_graph.index import build_file_graph, title_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print each link no typed relation states")
    args = parser.parse_args()
    docs, rows = heldout_paths(75, 4127)
    titles = [title_of(d.name, d.text) for d in docs]
    key_of = {d.name: normalise(t) for d, t in zip(docs, titles, strict=True)}
    extractor = RuleExtractor()
    started = time.perf_counter()
    typed: dict[str, set[frozenset[str]]] = {}
    for i, d in enumerate(docs):
        graph = build_file_graph(extractor, "bench", f"file_{i}", d.name, [("chunk", d.text)], titles[:i])
        typed[d.name] = {frozenset((r.source, r.target)) for r in graph.relations if r.type != "co_occurs"}
    elapsed = time.perf_counter() - started
    links: dict[tuple[str, str], tuple[str, str]] = {}
    for question, path in rows:
        if question.hops >= 2:
            for a, b in itertools.pairwise(path):
                links.setdefault((key_of[a], key_of[b]), (a, b))
    missed = [(a, b) for (a, b), files in links.items() if not any({a, b} in typed[f] for f in files)]
    found = len(links) - len(missed)
    share = found / len(links)
    print(f"held-out: {len(links)} unique chain links; stated-link recall {found}/{len(links)} = {share:.1%}")
    print(f"extraction {1000 * elapsed / len(docs):.2f} ms/file ({len(docs)} files, one thread)")
    if args.show:
        for a, b in missed:
            print(f"  missed: {a} -> {b}")


if __name__ == "__main__":
    main()
