"""The two graph methods the `kg` ranker's relation-aware walk is compared with (#28), bench-only.

* `two_hop`: no graph store and no model: take hybrid search's best hit, follow the capitalised
  names it mentions to the documents titled so, then once more from those; then hybrid's own order.
  The product's `kg` ranker does the same on the graph (`gateway/knowledge_graph/expand.py`) and
  interleaves its pages with the walk's ranking (#28).
* `ppr`: personalised PageRank (HippoRAG-style) over the store's graph: entities and passages as
  nodes, typed relations, co-occurrence and mentions as edges, restarting at the question's
  entities; passages ranked by their mass. It loads the whole graph once (fine for a benchmark,
  which is exactly why the product does not do it per query).
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from gateway.knowledge_graph.extract import normalise

_NAME = re.compile(r"\b[A-Z][\w\-]*(?:\s+[A-Z0-9][\w\-]*)*")


def two_hop(hybrid_files: list[str], texts: dict[str, str], by_title: dict[str, str], k: int = 10) -> list[str]:
    """Documents: hybrid's best, those its names lead to, those theirs lead to, then hybrid's rest."""
    if not hybrid_files:
        return []
    out = [hybrid_files[0]]
    frontier = [hybrid_files[0]]
    for _hop in range(2):
        nxt: list[str] = []
        for doc in frontier:
            for m in _NAME.finditer(texts[doc]):
                target = by_title.get(normalise(m.group()))
                if target and target not in out:
                    out.append(target)
                    nxt.append(target)
        frontier = nxt
    out += [d for d in hybrid_files if d not in out]
    return out[:k]


class PPR:
    """Personalised PageRank over entities and passages of one store (loaded from SQLite once)."""

    def __init__(self, conn: Any, store_id: str) -> None:
        self.adj: dict[str, dict[str, float]] = defaultdict(dict)
        self.file_of: dict[str, str] = {}
        for src, dst, kind, w in conn.execute(
            "SELECT source, target, type, SUM(weight) FROM kg_relations WHERE store_id = ? GROUP BY 1, 2, 3",
            (store_id,),
        ):
            w = float(w) * (0.3 if kind == "co_occurs" else 1.0)
            for a, b in ((f"e:{src}", f"e:{dst}"), (f"e:{dst}", f"e:{src}")):
                self.adj[a][b] = self.adj[a].get(b, 0.0) + w
        for entity, file_id, chunk_id, subject in conn.execute(
            "SELECT entity, file_id, chunk_id, subject FROM kg_mentions WHERE store_id = ?", (store_id,)
        ):
            w = 1.0 if subject else 0.5
            self.adj[f"e:{entity}"][f"c:{chunk_id}"] = w
            self.adj[f"c:{chunk_id}"][f"e:{entity}"] = w
            self.file_of[f"c:{chunk_id}"] = file_id
        self.entities = {n[2:] for n in self.adj if n.startswith("e:")}

    def rank(self, seeds: list[str], k: int = 10, damping: float = 0.5, steps: int = 15) -> list[str]:
        """File ids by the PageRank mass of their passages, restarting at `seeds` (entity keys)."""
        start = {f"e:{s}": 1.0 / len(seeds) for s in seeds if s in self.entities} if seeds else {}
        if not start:
            return []
        mass = dict(start)
        for _ in range(steps):
            nxt: dict[str, float] = {n: (1 - damping) * v for n, v in start.items()}
            for node, m in mass.items():
                out = self.adj.get(node)
                if not out:
                    continue
                total = sum(out.values())
                for peer, w in out.items():
                    nxt[peer] = nxt.get(peer, 0.0) + damping * m * w / total
            mass = nxt
        files: dict[str, float] = {}
        for node, m in mass.items():
            if node.startswith("c:"):
                f = self.file_of[node]
                files[f] = max(files.get(f, 0.0), m)
        return sorted(files, key=lambda f: files[f], reverse=True)[:k]
