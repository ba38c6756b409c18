"""Two-hop expansion on the store's graph: the `kg` ranker's answer when the walk is unsure (#28).

The relation-aware walk (`walk.py`) needs the question's relation words to be ones it can read and
find in the text; on corpora it was not tuned on it often cannot, and its fallback, personalised
PageRank fused with hybrid, put fewer multi-hop answers in the top 10 than a baseline that reads no
relation word at all (bench/graph_baselines.py `two_hop`, masked corpus: 34.8 % against 17.4 %).
That baseline is this module, done on the graph the store already has instead of on the documents'
text: hybrid search's best chunk -> the entities it mentions (`chunk_mentions`) -> the pages about
them (their `subject` rows: every chunk of a document carries its title's entity as subject) ->
once more from those pages. A multi-hop question names its first entity, hybrid search finds the
page about it, and the answer is the page about an entity that page names (or one more hop out):
no relation word is read, so none can be misread.

It runs only when the walk is unsure (`tied`: no entity completes the question's chain, or two tie
for it at the best weight) or fell back to PageRank: interleaved into a chain the walk completed at
one entity, it pushed walk answers ranked six to ten out of the top 10 (held-out 85.2 % -> 78.1 %).

Four indexed reads per question (two `chunk_mentions`, two `mentions`), bounded by `NAMES` and
`PAGES`; nothing is scanned or loaded whole, so the same on SQLite, PostgreSQL and Neo4j.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from typing import TypeVar

from gateway.knowledge_graph.walk import Reached
from storage.graph import GraphStore, MentionRow
from vectorstore.base import Hit

H = TypeVar("H", bound=Hit)

ROUNDS = 2  # hops out from the best hit's page (a three-hop answer is the second)
NAMES = 40  # names of a round's pages followed (most mentioned first)
PAGES = 12  # pages a round adds (the next round starts from them)
ROWS = 400  # mention rows read per round (subject rows come first, one per chunk of each page)
# The walk is unsure when no entity completes the chain (0) or two tie for it at the best path
# weight: then two-hop expansion joins its ranking. Three or more tied entities fill the top 10
# with the walk's own candidates (bench_multihop --paths: interleaving the expansion there lost
# blind 63.6 -> 50.0 % and held-out 75.0 -> 66.7 % of those questions, masked gained 21.7 -> 27.3 %)
UNSURE = frozenset({0, 2})


async def expand(graph: GraphStore, store_id: str, start: MentionRow) -> tuple[list[list[MentionRow]], frozenset[str]]:
    """The pages two-hop expansion reaches from `start` (a chunk's row: its chunk and file), one
    list per hop in the order found, each page once (its chunk naming its subject most), never
    `start`'s own file; second, what `start`'s page is about (its subjects)."""
    seen_files = {start.file_id}
    frontier = [start.chunk_id]
    rounds: list[list[MentionRow]] = []
    about: frozenset[str] = frozenset()
    for round_ in range(ROUNDS):
        named = await graph.chunk_mentions(store_id, frontier)
        # a page's own subject is where the hop starts, not where it goes
        own = {m.entity for m in named if m.subject}
        if round_ == 0:
            about = frozenset(own)
        names = _most_named([m for m in named if m.entity not in own], NAMES)
        if not names:
            break
        rows = await graph.mentions(store_id, names, limit=ROWS)
        pages = _pages(rows, names, seen_files)[:PAGES]
        if not pages:
            break
        rounds.append(pages)
        seen_files.update(m.file_id for m in pages)
        frontier = [m.chunk_id for m in pages]
    return rounds, about


async def pages(
    graph: GraphStore, store_id: str, best: Hit, own: Collection[str], k: int
) -> list[tuple[int, MentionRow]]:
    """The pages two-hop expansion reaches from hybrid's best hit `best`, with the hop each was
    found at, but not the pages about the question's own entities `own` (where a chain starts,
    never its answer: a path never returns to them either). `best` itself comes first, at hop 0,
    unless it is such a page: a single-hop question the graph misread keeps hybrid's first among
    the first two, and a multi-hop one (whose best hit is mostly its start's page) loses no slot."""
    start = MentionRow("", best.file_id, best.chunk_id, 0, True)
    rounds, about = await expand(graph, store_id, start)
    found = [(hop, m) for hop, row in enumerate(rounds, 1) for m in row if m.entity not in own][:k]
    return found if about & set(own) else [(0, start), *found]


def interleave(first: list[H], second: list[H], k: int, lead: int = 1) -> list[H]:
    """`first`'s first hit, then the two rankings taken in turn (second's next, first's next, ...),
    each chunk once: the top k holds the first k // 2 of each (less what they share). Scores stay
    `first`'s own (so a score threshold means what it meant), made non-increasing down the list;
    a page only `second` holds ties with the hit above it."""
    out: dict[str, H] = {h.chunk_id: h for h in first[:lead]}
    rest = first[lead:]
    for i in range(max(len(rest), len(second))):
        for ranking in (second, rest):
            if i < len(ranking) and ranking[i].chunk_id not in out:
                out[ranking[i].chunk_id] = ranking[i]
    own = {h.chunk_id: h.score for h in first}
    level = max(own.values(), default=0.0)
    hits: list[H] = []
    for h in list(out.values())[:k]:
        level = min(level, own.get(h.chunk_id, level))
        hits.append(dataclasses.replace(h, score=level))
    return hits


def _most_named(rows: list[MentionRow], limit: int) -> list[str]:
    """Entity keys of `rows`, the most mentioned first (summed over the chunks)."""
    count: dict[str, int] = {}
    for m in rows:
        count[m.entity] = count.get(m.entity, 0) + max(m.count, 1)
    return sorted(count, key=lambda e: count[e], reverse=True)[:limit]


def _pages(rows: list[MentionRow], names: list[str], seen: Collection[str]) -> list[MentionRow]:
    """One chunk per page about one of `names` (subject rows; its chunk naming it most), the pages
    in the order of `names`; files in `seen` are skipped."""
    best: dict[str, MentionRow] = {}
    for m in rows:
        if m.subject and m.file_id not in seen:
            held = best.get(m.file_id)
            if held is None or m.count > held.count:
                best[m.file_id] = m
    order = {name: i for i, name in enumerate(names)}
    return sorted(best.values(), key=lambda m: order.get(m.entity, len(order)))


def tied(reached: dict[str, Reached], hops: int) -> int:
    """How many entities complete the question's chain (all `hops` of it matched) at the best
    path weight: 1 when the walk singles out an answer, 0 when nothing completes the chain."""
    completed = [r.potential() for r in reached.values() if len(r.matched) >= hops]
    top = max(completed, default=0.0)
    return sum(1 for p in completed if p >= 0.999 * top)
