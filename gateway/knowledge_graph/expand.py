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

It runs only when the walk is unsure, when no entity completes the question's chain (`completing`:
steps followed, no answer reached), or when the walk fell back to PageRank; interleaved after the
walk's first hit, in at most half the places after it (`interleave`). A completed chain keeps the
walk's ranking: interleaved there, the expansion pushed walk answers ranked six to ten out of the
top 10 (held-out's multi-hop top-10 hit rate 85.2 -> 78.1 %), and interleaved wherever the entities
completing the chain tie (two or more) it lost blind 2.2 points (docs/ARCHITECTURE.md, step 3c).
A chain question that names no entity the graph knows (the walk has no start) keeps hybrid's
ranking: most how-to questions read as chains too, their answers are hybrid's later hits, and the
expansion from hybrid's best hit, interleaved even after hybrid's first half, pushed one out of
the top 10 for one cloaked answer gained (bench/doc_questions.py; docs/ARCHITECTURE.md, step 3c).

Indexed reads only (a `chunk_mentions` and one `mentions` per name followed, each round), bounded
by `NAMES`, `ROWS` and `PAGES`; nothing is scanned or loaded whole, so the same on SQLite,
PostgreSQL and Neo4j.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Collection
from typing import TypeVar

from gateway.knowledge_graph.blend import HYBRID_VECTOR
from gateway.knowledge_graph.extract import PHRASE
from gateway.knowledge_graph.spread import shared_mentions
from gateway.knowledge_graph.walk import Reached
from storage.graph import GraphStore, MentionRow
from vectorstore.base import Hit

H = TypeVar("H", bound=Hit)

ROUNDS = 2  # hops out from the best hit's page (a three-hop answer is the second)
NAMES = 40  # names of a round's pages followed (most mentioned first)
PAGES = 12  # pages a round adds (the next round starts from them)
# mention rows read per round, each name followed its share (subject rows first, one per chunk of
# a page): 10 a name at 40 names, more when fewer, 400 for one. Fewer (two a name, session 16)
# halved the read but lost a name's second page (a namesake) behind the first page's chunks
ROWS = 400


async def expand(
    graph: GraphStore, store_id: str, start: MentionRow, first: list[MentionRow] | None = None
) -> tuple[list[list[MentionRow]], frozenset[str]]:
    """The pages two-hop expansion reaches from `start` (a chunk's row: its chunk and file), one
    list per hop in the order found, each page once (its chunk naming its subject most), never
    `start`'s own file; second, what `start`'s page is about (its subjects). `first`: `start`'s
    mention rows when already read (`opening`), else read here."""
    seen_files = {start.file_id}
    frontier = [start.chunk_id]
    rounds: list[list[MentionRow]] = []
    about: frozenset[str] = frozenset()
    for round_ in range(ROUNDS):
        named = first if round_ == 0 and first is not None else await graph.chunk_mentions(store_id, frontier)
        # a page's own subject is where the hop starts, not where it goes
        own = {m.entity for m in named if m.subject}
        if round_ == 0:
            about = frozenset(own)
        names = _most_named([m for m in named if m.entity not in own], NAMES)
        if not names:
            break
        rows = await shared_mentions(graph, store_id, names, ROWS, 1)
        found = _pages(rows, names, seen_files)[:PAGES]
        if not found:
            break
        rounds.append(found)
        seen_files.update(m.file_id for m in found)
        frontier = [m.chunk_id for m in found]
    return rounds, about


async def pages(
    graph: GraphStore,
    store_id: str,
    best: Hit,
    own: Collection[str],
    k: int,
    steps: int = 0,
    first: list[MentionRow] | None = None,
) -> list[tuple[int, MentionRow]]:
    """The pages two-hop expansion reaches from hybrid's best hit `best`, with the hop each was
    found at, but not the pages about the question's own entities `own` (where a chain starts,
    never its answer: a path never returns to them either). `best` itself comes first, at hop 0,
    unless it is such a page: a single-hop question the graph misread keeps hybrid's first among
    the first two, and a multi-hop one (whose best hit is mostly its start's page) loses no slot.

    Hop by hop, nearest first; but for a question whose grammar reads a chain of `steps` >= 2
    relations (`question.steps`), the farthest hop first when `best` is the page of an entity the
    question names (its start: a two-relation chain ends two pages out; a three-relation one
    further, out of reach, two being the nearer guess), and else the two hops alternating, the
    farthest's first: nothing says `best` is the start, and when it is already the answer (a how-to
    question miscounted as a chain) the pages it names are the related ones. Each hop is cut to k
    before they are merged, so the nearer one is never cut out whole."""
    start = MentionRow("", best.file_id, best.chunk_id, 0, True)
    rounds, about = await expand(graph, store_id, start, first)
    hops = [[(hop, m) for m in row if m.entity not in own][:k] for hop, row in enumerate(rounds, 1)]
    started = bool(about & set(own))  # hybrid's best is the page of an entity the question names
    if steps >= 2 and len(hops) == 2 and started:
        merged = [*hops[1], *hops[0]]
    elif steps >= 2 and len(hops) == 2:
        far, near = hops[1], hops[0]
        merged = [pair for i in range(max(len(far), len(near))) for pair in (far[i : i + 1] + near[i : i + 1])]
    else:
        merged = [pair for hop in hops for pair in hop]
    found = merged[:k]
    return found if started else [(0, start), *found]


async def expansion(
    graph: GraphStore,
    store_id: str,
    hits: dict[str, Hit],
    vec: dict[str, float],
    kw: dict[str, float],
    own: Collection[str],
    k: int,
    load: Callable[[list[Hit]], Awaitable[None]],
    steps: int = 0,
    first: list[MentionRow] | None = None,
) -> list[tuple[Hit, dict[str, float]]]:
    """The pages two-hop expansion reaches from hybrid's best hit among `hits` (`pages`), each with
    the signals every kg hit carries (no walk or PageRank relevance; `hops` says how it was found,
    0 for hybrid's best). Pages not in `hits` are read by `load` (the ranker's chunk loader: it
    applies the attribute filters and adds what passes to `hits`); a page it drops is left out.
    `first`: the best hit's mention rows when already read (`opening`)."""
    if not hits:
        return []
    found = await pages(graph, store_id, best_hit(hits, vec, kw), own, k, steps, first)
    unread = [Hit(m.chunk_id, m.file_id, "", "", 0.0) for _hop, m in found if m.chunk_id not in hits]
    if unread:
        await load(unread)
    out: list[tuple[Hit, dict[str, float]]] = []
    for hop, m in found:
        if (h := hits.get(m.chunk_id)) is not None:  # not dropped by the filters, still there
            breakdown = {
                "vector": round(max(0.0, vec.get(h.chunk_id, 0.0)), 4),
                "graph": 0.0,
                "keyword": round(max(0.0, kw.get(h.chunk_id, 0.0)), 4),
                "hops": float(hop),
            }
            out.append((h, breakdown))
    return out


def best_hit(hits: dict[str, Hit], vec: dict[str, float], kw: dict[str, float]) -> Hit:
    """Hybrid's best hit among `hits` (non-empty): where the expansion starts."""
    return hits[max(hits, key=lambda c: HYBRID_VECTOR * vec.get(c, 0.0) + (1 - HYBRID_VECTOR) * kw.get(c, 0.0))]


async def opening(
    graph: GraphStore,
    store_id: str,
    hits: dict[str, Hit],
    vec: dict[str, float],
    kw: dict[str, float],
    own: Collection[str],
) -> tuple[list[MentionRow], bool]:
    """The expansion's first read, the mention rows of hybrid's best hit among `hits` (non-empty),
    and whether that is the page of an entity the question names (`own`: its subject): the start
    `pages` lists the far hop first from and the ranker fuses a completed chain from (step 3d), known
    before the walk ends, so a completed chain pays for the rest of the expansion only when the
    fusion can use it."""
    rows = await graph.chunk_mentions(store_id, [best_hit(hits, vec, kw).chunk_id])
    return rows, bool({m.entity for m in rows if m.subject} & set(own))


def interleave(first: list[H], second: list[H], k: int, lead: int = 1, slots: int | None = None) -> list[H]:
    """`first`'s first `lead` hits, then the two rankings taken in turn (second's next, first's
    next, ...), each chunk once, `second` adding at most `slots` hits (None: no cap).

    Scores (`levelled`): a hit of `first` in its own order keeps its score (so a score threshold
    means what it meant; its breakdown is `first`'s); a hit placed by `second`'s turn takes the
    score of the hit of `first` it displaced (the next below it), never lowering the scores of
    the hits after it."""
    own = {h.chunk_id: h for h in first}
    order: list[tuple[H, bool]] = [(h, False) for h in first[:lead]]
    seen = {h.chunk_id for h in first[:lead]}
    rest = first[lead:]
    taken = 0
    for i in range(max(len(rest), len(second))):
        for ranking, expanded in ((second, True), (rest, False)):
            if i >= len(ranking) or ranking[i].chunk_id in seen:
                continue
            if expanded and slots is not None and taken >= slots:
                continue
            seen.add(ranking[i].chunk_id)
            taken += expanded
            order.append((own.get(ranking[i].chunk_id, ranking[i]), expanded))
    return levelled(order, first, k)


def levelled(order: list[tuple[H, bool]], first: list[H], k: int) -> list[H]:
    """The first k of `order`, scored from the bottom up: each hit at the score of the hit of
    `first` it displaces (the next one below it; below the last, the best of `first`'s hits left
    out, else 0), a hit of `first` at its own score if that is higher. So no page scores above a
    hybrid (or walk) hit that its place pushed down, a score threshold drops an expansion page
    with the hit it displaced, `first`'s hits in their own order keep their scores, and the list
    is non-increasing. A kg score here preserves the ranking; it is not a similarity of its own."""
    own = {h.chunk_id: h.score for h in first}
    shown = order[:k]
    ids = {h.chunk_id for h, _x in shown}
    floor = max((h.score for h in first if h.chunk_id not in ids), default=0.0)
    scored: list[H] = []
    for h, _expanded in reversed(shown):
        floor = max(floor, own.get(h.chunk_id, floor))
        scored.append(dataclasses.replace(h, score=floor))
    return scored[::-1]


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


def completing(reached: dict[str, Reached], hops: int) -> list[str]:
    """The entities that complete the question's chain (all `hops` of it matched) at the best path
    weight: one when the walk singles out an answer, several tied, none when nothing completes it."""
    done = {e: r.potential() for e, r in reached.items() if len(r.matched) >= hops}
    top = max(done.values(), default=0.0)
    return [e for e, p in done.items() if p >= 0.999 * top]


def phrased(reached: dict[str, Reached], best: list[str]) -> bool:
    """Whether every entity completing the chain got there by phrase relations alone (`~words`: no
    relation type the question's wording asked for, and no phrase standing for one). Some phrase at
    most entities is the likest to what the question still asks (and `WEAK_MIN` like it), so a chain
    of them completes wherever the graph has phrases: a how-to question naming a product ("find the
    version of the installed PostgreSQL") walks one to a page that answers nothing it asked."""
    return bool(best) and all(all(m.startswith(PHRASE) for m in reached[e].matched) for e in best)
