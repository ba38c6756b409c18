"""The `kg` ranker: hybrid search re-ranked and widened by the store's knowledge graph.

Five phases, per (store, query):

1. query understanding: the question's entities (the extractor's spans and the question's word
   n-grams, looked up in the graph) and the relation types its wording asks for (`patterns.cues`);
2. retrieval, concurrently: vector search, keyword search and the question entities' graph rows;
3. the relation-aware walk (`walk.py`): from the question's entities (or, when it names none, the
   subjects of the best hybrid chunks) along the relations it asks for, one to three hops;
4. ranking: each candidate chunk gets normalised signals (vector similarity, graph relevance,
   keyword match, recency, title match) blended by weights that sum to 1 (`GATEWAY_KG_CHAIN_WEIGHTS` when the walk
   followed a step of the question's chain, `GATEWAY_KG_WEIGHTS` otherwise, hybrid's own blend
   when the graph knows nothing of the question); chunks only the graph found are read from the
   backend only if they make the top k;
5. results as search hits carrying `score_breakdown`, plus the question's and the expanded entities.

Graph relevance of a chunk is what makes multi-hop questions work: an entity reached through a chain
whose steps the question named ("the founder of the company that makes X") is worth more the more
of the chain it completes (`walk.py`). The answer document of a three-hop question shares no words
with it; this is the signal that finds it.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gateway.knowledge.extract import _STOP, Extractor, Gazetteer, normalise
from gateway.knowledge.patterns import cues
from gateway.knowledge.walk import MAX_HOPS, Reached, chained, chunk_scores, walk
from storage.graph import GraphStore, MentionRow
from vectorstore import filters as flt
from vectorstore.base import Hit, VectorBackend
from vectorstore.fusion import DEFAULT_FUSION

BEST_CHUNKS = 3  # hybrid's best chunks whose entities seed the walk when the question names none
MAX_FRONTIER = 40
MAX_ENTITIES = 40  # reached entities whose chunks become candidates
MAX_MENTIONS = 200
MAX_GRAPH_FILES = 30
MAX_GRAPH_CHUNKS = 60  # chunks only the graph found that are ranked (their text is read for the top k only)
# A question the graph knows nothing of is scored as hybrid search scores it (the backends' default
# blend of the same two signals), so the kg ranker never does worse than hybrid there.
UNINFORMED = {
    "vector": DEFAULT_FUSION.vector_weight,
    "graph": 0.0,
    "keyword": 1 - DEFAULT_FUSION.vector_weight,
    "recency": 0.0,
    "title": 0.0,
}
_WORDS = re.compile(r"\w+")


@dataclass(slots=True)
class RankedHit(Hit):
    score_breakdown: dict[str, float] = field(default_factory=dict)


@dataclass(slots=True)
class RankOutcome:
    hits: list[RankedHit]
    query_entities: list[str]
    expanded: dict[str, float]


def query_keys(extractor: Extractor, query: str) -> list[str]:
    """Candidate entity keys of a question: the extractor's spans and every 1-5 word n-gram."""
    keys = [normalise(s.text) for s in extractor.spans(query, Gazetteer(()))]
    words = normalise(query).split()
    for n in range(1, 6):
        for i in range(len(words) - n + 1):
            gram = words[i : i + n]
            if n == 1 and (gram[0] in _STOP or len(gram[0]) < 2):
                continue
            keys.append(" ".join(gram))
    return list(dict.fromkeys(k for k in keys if k))


def _hub(files: int) -> float:
    """Entities named in many files say little about any one of them."""
    return 1.0 / (1.0 + math.log(max(files, 1)))


class Ranker:
    def __init__(
        self,
        graph: GraphStore,
        extractor: Extractor,
        weights: dict[str, float],
        chain_weights: dict[str, float] | None = None,
    ) -> None:
        self.graph = graph
        self.extractor = extractor
        self.weights = weights
        # a question whose chain the walk could follow (one of its relations matched along a path):
        # the graph carries the ranking, since the answer shares no word with the question
        self.chain_weights = chain_weights or weights

    async def rank(
        self,
        backend: VectorBackend,
        store_id: str,
        query: str,
        vector: list[float] | None,
        *,
        k: int,
        filters: dict[str, Any] | None,
    ) -> RankOutcome:
        n = max(3 * k, 30)
        asked = cues(query)
        keys = await asyncio.to_thread(query_keys, self.extractor, query)
        # phase 2: retrieval, concurrently
        vec_job = (
            backend.search(store_id, vector=vector, query=query, k=n, filters=filters, mode="vector")
            if vector is not None
            else _nothing()
        )
        kw_job = backend.search(store_id, vector=None, query=query, k=n, filters=filters, mode="keyword")
        vec_hits, kw_hits, found = await asyncio.gather(vec_job, kw_job, self.graph.entities(store_id, keys))
        q_entities = _longest(list(found))
        hybrid = _fuse(vec_hits, kw_hits)
        best_ids = [h.chunk_id for h in hybrid[:BEST_CHUNKS]]
        # the best chunks' entities seed the walk only when the question names none
        spread, best_mentions = await asyncio.gather(
            self.graph.mention_counts(store_id, q_entities),
            self.graph.chunk_mentions(store_id, best_ids) if not q_entities else _no_rows(),
        )
        # phase 3: the relation-aware walk from the question's entities (gateway/knowledge/walk.py)
        seeds = {key: Reached(_hub(spread.get(key, 1)), 0, frozenset()) for key in q_entities}
        # a question the graph knows nothing of (no entity of it, no relation asked for) is left to
        # hybrid search: seeding from its best chunks alone only adds their neighbours' noise
        informed = bool(q_entities or asked)
        for m in best_mentions if informed and not q_entities else []:
            if m.subject or m.count > 1:
                weight = 0.4 * (1.0 if m.subject else 0.5)
                if m.entity not in seeds or seeds[m.entity].base < weight:
                    seeds[m.entity] = Reached(weight, 0, frozenset())
        reached = await walk(self.graph, store_id, seeds, asked, hops=min(MAX_HOPS, max(1, len(asked))))
        # phase 4: candidates and their signals
        ranked_entities = sorted(reached, key=lambda e: reached[e].potential(), reverse=True)[:MAX_FRONTIER]
        graph_rows = await self.graph.mentions(store_id, ranked_entities[:MAX_ENTITIES], limit=MAX_MENTIONS)
        hits: dict[str, Hit] = {h.chunk_id: h for h in [*kw_hits, *vec_hits]}
        ids = list(dict.fromkeys([*hits, *(m.chunk_id for m in graph_rows)]))
        chunk_rows, stated = await asyncio.gather(
            self.graph.chunk_mentions(store_id, ids), self.graph.chunk_relation_types(store_id, ids)
        )
        graph_score = chunk_scores(chunk_rows, stated, reached, asked)
        # chunks only the graph found have no text yet: rank them with what is known (their graph,
        # recency and title signals) and read from the backend only those that make the top k
        only_graph = sorted((c for c in graph_score if c not in hits), key=lambda c: graph_score[c], reverse=True)
        rows_by_chunk = {m.chunk_id: m for m in chunk_rows}
        pending = {c: _pending(rows_by_chunk[c]) for c in only_graph[:MAX_GRAPH_CHUNKS]}
        files = {h.file_id for h in hits.values()} | {h.file_id for h in pending.values()}
        times = await self.graph.file_times(store_id, list(files))
        weights = (self.chain_weights if chained(reached) else self.weights) if informed else UNINFORMED
        for _round in range(3):  # a chunk the filters drop makes room for the next one
            scored = self._blend(query, {**pending, **hits}, vec_hits, kw_hits, graph_score, times, weights)
            wanted = [pending.pop(r.chunk_id) for r in scored[:k] if r.chunk_id in pending]
            if not wanted:
                break
            await self._load_chunks(backend, store_id, wanted, hits, filters)
        expanded = {e: round(reached[e].potential(), 4) for e in ranked_entities if e not in q_entities}
        return RankOutcome(scored[:k], q_entities, expanded)

    async def _load_chunks(
        self,
        backend: VectorBackend,
        store_id: str,
        rows: Sequence[Hit],
        hits: dict[str, Hit],
        filters: dict[str, Any] | None,
    ) -> None:
        """The text of chunks only the graph found (read per file, attribute filters applied)."""
        wanted = {m.chunk_id for m in rows}
        files = list(dict.fromkeys(m.file_id for m in rows))[:MAX_GRAPH_FILES]
        for chunks in await asyncio.gather(*(backend.file_chunks(store_id, f) for f in files)):
            for h in chunks:
                if h.chunk_id in wanted and (filters is None or flt.matches(filters, h.attributes)):
                    hits[h.chunk_id] = h

    def _blend(
        self,
        query: str,
        hits: dict[str, Hit],
        vec_hits: list[Hit],
        kw_hits: list[Hit],
        graph_score: dict[str, float],
        times: dict[str, tuple[str, int]],
        weights: dict[str, float],
    ) -> list[RankedHit]:
        vec = {h.chunk_id: h.score for h in vec_hits}
        kw = {h.chunk_id: h.score for h in kw_hits}
        g_max = max(graph_score.values(), default=0.0) or 1.0
        stamps = [times[h.file_id][1] for h in hits.values() if h.file_id in times]
        oldest, newest = min(stamps, default=0), max(stamps, default=0)
        q_words = set(normalise(query).split()) - _STOP
        out: list[RankedHit] = []
        for cid, h in hits.items():
            title = times[h.file_id][0] if h.file_id in times else h.filename
            t_words = set(normalise(title).split()) - _STOP
            stamp = times[h.file_id][1] if h.file_id in times else oldest
            signals = {
                "vector": max(0.0, min(1.0, vec.get(cid, 0.0))),
                "graph": graph_score.get(cid, 0.0) / g_max,
                "keyword": max(0.0, min(1.0, kw.get(cid, 0.0))),  # BM25 squashed by the backend, as hybrid
                "recency": (stamp - oldest) / (newest - oldest) if newest > oldest else 0.0,
                "title": len(q_words & t_words) / len(t_words) if t_words else 0.0,
            }
            score = sum(weights[s] * v for s, v in signals.items())
            breakdown = {s: round(v, 4) for s, v in signals.items()}
            out.append(
                RankedHit(cid, h.file_id, h.filename, h.text, round(score, 6), h.attributes, score_breakdown=breakdown)
            )
        out.sort(key=lambda r: r.score, reverse=True)
        return out


async def _nothing() -> list[Hit]:
    return []


async def _no_rows() -> list[MentionRow]:
    return []


def _pending(row: MentionRow) -> Hit:
    """A chunk the graph found, before its text is read: ranked on its graph, recency and title."""
    return Hit(row.chunk_id, row.file_id, "", "", 0.0)


def _longest(keys: list[str]) -> list[str]:
    """Question entities, without those inside a longer one found too ("orbis" inside "orbis 9")."""
    keep: list[str] = []
    for key in sorted(keys, key=len, reverse=True):
        if not any(f" {key} " in f" {other} " for other in keep):
            keep.append(key)
    return keep


def _fuse(vec_hits: list[Hit], kw_hits: list[Hit]) -> list[Hit]:
    """Reciprocal-rank fusion of the two lists: only to pick the best chunks that seed the expansion."""
    score: dict[str, float] = {}
    by_id: dict[str, Hit] = {}
    for hits in (vec_hits, kw_hits):
        for rank, h in enumerate(hits):
            score[h.chunk_id] = score.get(h.chunk_id, 0.0) + 1.0 / (60 + rank)
            by_id[h.chunk_id] = h
    return sorted(by_id.values(), key=lambda h: score[h.chunk_id], reverse=True)
