"""Personalised PageRank around a question's entities: the `kg` ranker's fallback when the walk is unsure (#28).

The relation-aware walk (`walk.py`) is precise when it reads the question's relations and finds them
in the text; when no path completes the chain the question describes (a relation stated in words
like none of the question's, or a link the extraction stored as co-occurrence only), it used to
hand the question to plain hybrid search, which never finds a multi-hop answer (its page shares no
word with the question). Personalised PageRank (HippoRAG-style) needs no relation words: mass
restarts at the question's entities and flows along every relation, co-occurrence and mention, so
the pages a few links away get some of it whatever the words. On a blind corpus the whole-graph
version (bench/graph_baselines.py) put 44 % of multi-hop answers in the top 10 where the walk put
31 %.

It stays local, through the `GraphStore` interface (so the same on SQLite, PostgreSQL and Neo4j):
the seeds' edges, the chunks naming them and the other names of those chunks, then the same for the
`WIDTH` entities holding the most mass, `ROUNDS` times, then the chunks of the last ones reached: a
few hundred nodes read in five indexed rounds, never the whole graph. Mass is iterated on that
subgraph with numpy (a millisecond).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from storage.graph import Edge, GraphStore, MentionRow

T = TypeVar("T")

ROUNDS = 2  # entity hops read beyond the seeds (a three-relation chain's last page is the third)
WIDTH = 24  # entities whose edges and mentions are read per round (those holding the most mass)
PER_ENTITY = 30  # edges per entity and direction (typed first)
MENTIONS = 240  # mention rows per round (subjects first)
MAX_CHUNKS = 120  # chunks per round whose other names are read
NAMES_PER_CHUNK = 40  # a chunk's names linked (subjects first): a register naming hundreds adds no more
SEED_SHARE = 20  # mention rows each seed is sure of, whatever the others' pages (a long manual's name)
LARGE = 3000  # links above which ranking runs in a worker thread, off the event loop
CO_OCCURS = 0.3  # a co-occurrence edge weighs this much of a stated relation
OBJECT = 0.5  # a chunk mentioning an entity links to it this much of one about it
DAMPING = 0.85  # share of mass that moves on per step (the rest restarts at the seeds)
STEPS = 15
GAIN = 4.0  # per hop up to the question's count (sealed corpus: 4-32 gave the same hits, MRR 0.27 vs 0.26 with none)


class _Graph:
    """The subgraph read so far: node ids and undirected weighted edges (merged per pair)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.weights: dict[tuple[int, int], float] = {}
        # what was linked already: a relation or a mention read twice (a seed's edge read again as
        # a frontier entity's, a chunk's names read again) counts once
        self.seen_edges: set[tuple[str, str, str]] = set()
        self.seen_mentions: set[tuple[str, str]] = set()

    def node(self, name: str) -> int:
        return self.index.setdefault(name, len(self.index))

    def link(self, a: str, b: str, w: float) -> None:
        if a == b or w <= 0:
            return
        i, j = self.node(a), self.node(b)
        pair = (i, j) if i < j else (j, i)
        self.weights[pair] = self.weights.get(pair, 0.0) + w

    def add_edges(self, edges: list[Edge]) -> None:
        for e in edges:
            if (e.source, e.target, e.type) in self.seen_edges:
                continue
            self.seen_edges.add((e.source, e.target, e.type))
            # a relation is a node of its own, so that every hop between two entities takes two
            # steps, through the relation or through a chunk naming both (`hops` counts them alike)
            w = e.weight * (CO_OCCURS if e.type == "co_occurs" else 1.0)
            pair = sorted((e.source, e.target))
            mid = f"r:{pair[0]}\x1f{pair[1]}"
            self.link("e:" + e.source, mid, w)
            self.link(mid, "e:" + e.target, w)

    def add_mentions(self, rows: list[MentionRow], chunks: dict[str, MentionRow]) -> None:
        for m in rows:
            if (m.entity, m.chunk_id) in self.seen_mentions:
                continue
            self.seen_mentions.add((m.entity, m.chunk_id))
            self.link("e:" + m.entity, "c:" + m.chunk_id, 1.0 if m.subject else OBJECT)
            chunks.setdefault(m.chunk_id, m)

    def hops(self, seeds: dict[str, float]) -> np.ndarray:
        """Entity hops from the seeds to each node (a chunk counts as its nearest entity's)."""
        n = len(self.index)
        adj: list[list[int]] = [[] for _ in range(n)]
        for i, j in self.weights:
            adj[i].append(j)
            adj[j].append(i)
        steps = np.full(n, -1)  # breadth first: the first visit is the nearest
        todo = [self.index["e:" + key] for key in seeds if "e:" + key in self.index]
        for i in todo:
            steps[i] = 0
        while todo:
            nxt = []
            for i in todo:
                for j in adj[i]:
                    if steps[j] < 0:
                        steps[j] = steps[i] + 1
                        nxt.append(j)
            todo = nxt
        # a node no path reaches (none: all of it was read from the seeds) gains nothing
        return np.maximum(steps, 0) // 2

    def rank(self, seeds: dict[str, float]) -> np.ndarray:
        """Personalised PageRank mass of every node, restarting at `seeds` (entity key -> weight)."""
        n = len(self.index)
        restart = np.zeros(n)
        for key, w in seeds.items():
            if (i := self.index.get("e:" + key)) is not None:
                restart[i] += w
        if not restart.any() or not self.weights:
            return restart
        restart /= restart.sum()
        pairs = np.array(list(self.weights), dtype=np.int64)
        weights = np.array(list(self.weights.values()))
        src = np.concatenate([pairs[:, 0], pairs[:, 1]])
        dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
        ww = np.concatenate([weights, weights])
        degree = np.bincount(src, weights=ww, minlength=n)
        share = ww / degree[src]
        mass = restart.copy()
        for _ in range(STEPS):
            mass = (1 - DAMPING) * restart + DAMPING * np.bincount(dst, weights=mass[src] * share, minlength=n)
        return mass


async def spread(
    graph: GraphStore, store_id: str, seeds: dict[str, float], hops: int = 2
) -> tuple[dict[str, float], dict[str, MentionRow]]:
    """Per chunk, the personalised PageRank mass of its node on the subgraph around `seeds`
    (entity key -> restart weight), read round by round: each round the edges and mentions of the
    entities holding the most mass not read yet, then the mentions of the next ones. Second, a
    mention row of each chunk (its file)."""
    g = _Graph()
    chunks: dict[str, MentionRow] = {}
    for key in seeds:
        g.node("e:" + key)
    done: set[str] = set()
    frontier = list(seeds)[:WIDTH]
    for round_ in range(ROUNDS):
        if round_ == 0:
            edges, rows = await asyncio.gather(
                graph.edges(store_id, frontier, per_entity=PER_ENTITY), _seed_mentions(graph, store_id, frontier)
            )
        else:
            edges, rows = await graph.hop(store_id, frontier, PER_ENTITY, frontier, MENTIONS)
        done.update(frontier)
        g.add_edges(edges)
        fresh = list(dict.fromkeys(m.chunk_id for m in rows if m.chunk_id not in chunks))
        g.add_mentions(rows, chunks)
        # the other names of those chunks (a page's subject, the names beside it): a link the
        # extraction stored as no relation between two names still joins them through the page
        g.add_mentions(_per_chunk(await graph.chunk_mentions(store_id, fresh[:MAX_CHUNKS])), chunks)
        frontier = await _run(g, _next, g, seeds, done)
        if not frontier:
            break
    if frontier:  # the last entities reached: their pages, not their edges
        g.add_mentions(await graph.mentions(store_id, frontier, limit=MENTIONS), chunks)
    # the question says how far its answer is: a page up to `hops` hops out gains `GAIN` a hop
    # (PageRank's mass falls with every step, so the seeds' own pages would always lead)
    mass = await _run(g, _final, g, seeds, hops)
    return {c: float(mass[g.index["c:" + c]]) for c in chunks}, chunks


def _final(g: _Graph, seeds: dict[str, float], hops: int) -> np.ndarray:
    return g.rank(seeds) * np.power(GAIN, np.minimum(g.hops(seeds), hops))


async def _run(g: _Graph, fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` on the event loop for a small subgraph (a millisecond), in a thread for a large one."""
    return await asyncio.to_thread(fn, *args) if len(g.weights) > LARGE else fn(*args)


async def _seed_mentions(graph: GraphStore, store_id: str, seeds: list[str]) -> list[MentionRow]:
    """The seeds' mention rows: each seed its own share of `MENTIONS`, so that one named on a long
    document's every chunk does not leave the others' pages unread."""
    return await shared_mentions(graph, store_id, seeds, MENTIONS, SEED_SHARE)


async def shared_mentions(
    graph: GraphStore, store_id: str, keys: list[str], total: int, least: int
) -> list[MentionRow]:
    """The mention rows of `keys`, each key its own share of `total` (at least `least`), read
    concurrently: one LIMIT over them all lets a key named on a long page's every chunk (its
    title) use it up, and the others' pages go unread (also `expand.py`'s read)."""
    if len(keys) <= 1:
        return await graph.mentions(store_id, keys, total)
    share = max(least, total // len(keys))
    return await graph.mentions_each(store_id, keys, share)


def _per_chunk(rows: list[MentionRow]) -> list[MentionRow]:
    """At most `NAMES_PER_CHUNK` names of each chunk, its subjects first."""
    count: dict[str, int] = {}
    out = []
    for m in sorted(rows, key=lambda m: not m.subject):
        if count.get(m.chunk_id, 0) < NAMES_PER_CHUNK:
            count[m.chunk_id] = count.get(m.chunk_id, 0) + 1
            out.append(m)
    return out


def _next(g: _Graph, seeds: dict[str, float], done: set[str]) -> list[str]:
    """The `WIDTH` entities not read yet that hold the most mass on the subgraph read so far."""
    mass = g.rank(seeds)
    names = [(name[2:], mass[i]) for name, i in g.index.items() if name.startswith("e:") and name[2:] not in done]
    names.sort(key=lambda x: x[1], reverse=True)
    return [name for name, m in names[:WIDTH] if m > 0]
