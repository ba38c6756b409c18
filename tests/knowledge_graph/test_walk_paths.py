"""The walk's paths on hand-built graphs, in process (#28, session 12): a path never comes back to an
entity it passed (a cycle completed "steps" by going round, and the entity it came back to then
ranked as the chain's answer), and each hop extends the paths as they stood when it started (an
entity a path reached during a hop went on within that same hop, one hop more than the walk takes).
"""

from __future__ import annotations

import asyncio

from gateway.knowledge_graph.walk import Reached, walk
from storage.graph import Edge, MentionRow

SEED = Reached(1.0, 0, frozenset())


class _Graph:
    """A fixed set of edges, read as the store reads them: both ends of each frontier entity."""

    def __init__(self, edges: list[Edge]) -> None:
        self._edges = edges

    async def edges(self, store_id: str, keys: list[str], per_entity: int = 50) -> list[Edge]:
        return [e for e in self._edges if e.source in keys or e.target in keys]

    async def mentions(self, store_id: str, keys: list[str], limit: int = 200) -> list[MentionRow]:
        return []


def _edge(source: str, target: str, kind: str) -> Edge:
    return Edge(source, target, kind, 1.0, ("f",))


def _walk(edges: list[Edge], asked: set[str], hops: int) -> dict[str, Reached]:
    return asyncio.run(walk(_Graph(edges), "st", {"S": SEED}, asked, hops=hops))  # type: ignore[arg-type]


def test_a_path_never_comes_back_to_an_entity_it_passed() -> None:
    """S -a-> X -b-> Y, and Y states relation c with X as well as with the answer Z: going back to X
    along c "completes" the three asked relations at X, the chain's first entity."""
    edges = [_edge("S", "X", "a"), _edge("X", "Y", "b"), _edge("Y", "X", "c"), _edge("Y", "Z", "c")]
    reached = _walk(edges, {"a", "b", "c"}, 3)
    assert reached["X"].hops == 1 and reached["X"].matched == {"a"}, reached["X"]
    assert reached["Z"].matched == {"a", "b", "c"}
    best = max(reached, key=lambda e: reached[e].potential())
    assert best == "Z"


def test_a_hop_extends_the_paths_as_they_stood_when_it_started() -> None:
    """A and B are both one hop out; A also leads to B by b. B's edge to C is read in the same hop
    as A's to B: C is two hops from S, by B's one-hop path, not three by the path B took mid-hop."""
    edges = [_edge("S", "A", "a"), _edge("S", "B", "a"), _edge("A", "B", "b"), _edge("B", "C", "c")]
    reached = _walk(edges, {"a", "b", "c"}, 2)
    assert reached["C"].hops == 2 and reached["C"].matched == {"a", "c"}, reached["C"]
    assert reached["B"].matched == {"a", "b"}  # B's own better path stands; the walk ends there
    assert all(r.hops <= 2 for r in reached.values())
