"""The relation-aware walk of the `kg` ranker (#28): follow the chain the question describes.

A question like "In which town was the founder of the maker of the Driork 90 born?" names one
entity (Driork 90) and three relation types (made_by, founded_by, born_in, from `patterns.cues`).
The walk starts at the question's entities and follows, hop by hop (at most `MAX_HOPS`), the edges
of the graph store's relation index, typed relations first (`GraphStore.edges` orders them so):

* an edge whose type the question asks for and the path has not used yet is a step of the chain:
  it decays the path's weight a little (`DECAY`) and adds its type to the path's `matched` set;
* any other typed edge decays it a lot (`UNASKED`), a co-occurrence edge more (`CO_OCCURS`), and
  only on the first hop: passing mentions (a directory table naming forty companies) lead nowhere;
* an entity keeps its best path, ranked by `potential`: weight x 2^(relations matched), so a path
  that completes one more step of the chain beats a shorter one that does not;
* a step is worth a little less (`UNSUPPORTED`) when no file stating it also names the entity
  before it on the path: of two people called the same (one entity, keys are names), the
  birthplace stated in the biography that names the company they founded wins.

A chunk then scores by the best entity it is about (its document's subject) or, at half weight,
mentions; a chunk that states a relation the question asks for beyond its entity's path (the
founder's biography saying where they were born) gets a smaller bonus. Each hop is one indexed
query for the few frontier entities: no scan of the store's graph, nothing built per call.

Compared on bench/multihop_hard.py against two-hop entity expansion and personalised PageRank
(bench/graph_baselines.py): see docs/ARCHITECTURE.md's knowledge-graph section for the figures.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from storage.graph import GraphStore, MentionRow

DECAY = 0.85  # per hop along a relation the question asks for
UNASKED = 0.3  # per hop along a typed relation it does not ask for
CO_OCCURS = 0.15  # per hop along co-occurrence (times the edge's weight), first hop only
OBJECT = 0.5  # a chunk that mentions an entity counts half as much as one about it
STATED = 1.25  # a chunk stating an asked-for relation its entity's path has not matched
UNSUPPORTED = 0.85  # a step no file links to the path's previous entity (a namesake's relation)
PARENT_MENTIONS = 500
MAX_HOPS = 3
MAX_FRONTIER = 24
PER_ENTITY = 40  # edges read per frontier entity and direction (typed first)


@dataclass(frozen=True, slots=True)
class Reached:
    """An entity reached by the walk: its path weight, hops and the asked-for relations on the path."""

    base: float
    hops: int
    matched: frozenset[str]
    via: str | None = None  # the entity before this one on the path

    def potential(self) -> float:
        return self.base * (2 ** len(self.matched))


async def walk(
    graph: GraphStore, store_id: str, seeds: dict[str, Reached], asked: set[str], hops: int = MAX_HOPS
) -> dict[str, Reached]:
    """The entities reachable from `seeds` in at most `hops` hops, each with its best path."""
    reached = dict(seeds)
    frontier = list(seeds)
    for hop in range(hops):
        if not frontier:
            break
        parents = list({p for u in frontier if (p := reached[u].via) is not None})
        edges, rows = await asyncio.gather(
            graph.edges(store_id, frontier, per_entity=PER_ENTITY),
            graph.mentions(store_id, parents, limit=PARENT_MENTIONS) if parents else _no_rows(),
        )
        files_of: dict[str, set[str]] = {}
        for m in rows:
            files_of.setdefault(m.entity, set()).add(m.file_id)
        inside = set(frontier)
        improved: set[str] = set()
        for e in edges:
            for u, v in ((e.source, e.target), (e.target, e.source)):
                if u not in inside or v == u:
                    continue
                at = reached[u]
                if e.type == "co_occurs":
                    if hop > 0:
                        continue
                    factor, matched = CO_OCCURS * min(1.0, e.weight), at.matched
                elif e.type in asked and e.type not in at.matched:
                    factor, matched = DECAY, at.matched | {e.type}
                    # the step continues the path when a file stating it also names the entity
                    # before: of two people called the same, the one the company's founder is
                    if at.via is not None and not files_of.get(at.via, set()) & set(e.files):
                        factor *= UNSUPPORTED
                else:
                    factor, matched = UNASKED, at.matched
                cand = Reached(at.base * factor, at.hops + 1, matched, u)
                if v not in reached or cand.potential() > reached[v].potential():
                    reached[v] = cand
                    improved.add(v)
        # only paths that still follow the chain are worth widening (or, with no relation asked, any)
        nxt = [x for x in improved if not asked or reached[x].matched]
        frontier = sorted(nxt, key=lambda x: reached[x].potential(), reverse=True)[:MAX_FRONTIER]
    return reached


async def _no_rows() -> list[MentionRow]:
    return []


def chunk_scores(
    rows: list[MentionRow], stated: dict[str, set[str]], reached: dict[str, Reached], asked: set[str]
) -> dict[str, float]:
    """Per chunk: the best potential of an entity it is about (or, halved, mentions), with a bonus
    when the chunk states an asked-for relation beyond that entity's path."""
    out: dict[str, float] = {}
    for m in rows:
        at = reached.get(m.entity)
        if at is None:
            continue
        value = at.potential() * (1.0 if m.subject else OBJECT)
        if (stated.get(m.chunk_id, set()) & asked) - at.matched:
            value *= STATED
        if value > out.get(m.chunk_id, 0.0):
            out[m.chunk_id] = value
    return out


def chained(reached: dict[str, Reached]) -> bool:
    """Whether the walk followed at least one relation the question asked for."""
    return any(r.hops and r.matched for r in reached.values())
