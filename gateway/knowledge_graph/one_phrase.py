"""The `one-phrase` path of the `kg` ranker: a one-relation question naming no relation type ("Who
supplies X?", "The chef at X?"). Hybrid search's ranking leads (the entity's own page, which states
the relation, is mostly its first hit), and the pages of the entities the walk reaches from the
question's entities in one phrase step (the relations likest the question's word for it:
"~skippered the" for "captain", "~trained" for "Under whom did X train?") are placed after hybrid's
first hit, in at most `SLOTS` places. The answer page is one link from the named entity and shares
no word with the question but the name, so hybrid ranked it 11th-20th, below the entity's
namesakes (all eight spent corpora's one-hop controls, #28 session 13).

Only when hybrid itself finds a seed's own page in its top `GATE` hits: a question about the
entity's relation is answered from that page, while a how-to question naming a product ("How do I
create a queue in Kestrel?") is answered by other pages, and the product's creator or cache, one
phrase step from it, pushed relevant pages down (no likeness floor on the phrase step told the two
apart: any phrase is likest to something). Kept apart from `ranker.py` so the ranker reads as its
phases."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from gateway.knowledge_graph.blend import RankedHit
from gateway.knowledge_graph.expand import interleave
from gateway.knowledge_graph.specific import share
from gateway.knowledge_graph.spread import shared_mentions
from gateway.knowledge_graph.walk import Reached, Relate, walk
from storage.graph import GraphStore, MentionRow
from vectorstore.base import Hit

SLOTS = 2  # pages placed after hybrid's first hit
GATE = 3  # a seed's own page must be among hybrid's first GATE hits
MENTIONS = 200  # a seed's mention rows read to find the chunk of an answer page that names it

Load = Callable[[Sequence[Hit]], Awaitable[dict[str, Hit]]]


async def paged(graph: GraphStore, store_id: str, keys: list[str]) -> dict[str, MentionRow]:
    """Those of `keys` that title a page of the store, each with its first subject row (an
    entity's first mention row is a subject row when it has one: subjects come first); one row
    read per key."""
    rows = await shared_mentions(graph, store_id, keys, len(keys), 1) if keys else []
    return {m.entity: m for m in rows if m.subject}


async def one_phrase(
    graph: GraphStore,
    store_id: str,
    hybrid: Awaitable[list[RankedHit]],
    load: Load,
    k: int,
    q_entities: list[str],
    spread: dict[str, int],
    relate: Relate,
    asked: set[str],
) -> tuple[list[RankedHit], dict[str, float]]:
    """Hybrid's ranking (`hybrid`) with the pages one phrase step from the question's entities
    after its first hit, and those entities' graph weights; hybrid's ranking and no entities when
    the path does not apply (no seed's page in hybrid's top `GATE`, or no page reached)."""

    async def stepped() -> tuple[dict[str, Reached], dict[str, MentionRow]]:
        # only from an entity some page is about (its title): the question's subject, not a word a
        # manual page's NAME line capitalises ("a PostgreSQL database", "ASCII output"), whose
        # neighbours pushed the page it describes down (bench_multihop --corpus real)
        own = await paged(graph, store_id, q_entities)
        seeds = {key: Reached(share(spread.get(key, 1)), 0, frozenset()) for key in q_entities if key in own}
        if not seeds:
            return {}, own
        return await walk(graph, store_id, seeds, asked, hops=1, relate=relate), own

    # hybrid search runs beside the page read and the walk
    plain, (reached, own) = await asyncio.gather(hybrid, stepped())
    if not {m.file_id for m in own.values()} & {h.file_id for h in plain[:GATE]}:
        return plain, {}
    led = sorted(
        (e for e, r in reached.items() if r.hops == 1 and r.matched and e not in own),
        key=lambda e: reached[e].potential(),
        reverse=True,
    )[: 4 * SLOTS]
    placed = await _pages(graph, store_id, plain, load, led, reached)
    if not placed:
        return plain, {}
    walked = [
        RankedHit(h.chunk_id, h.file_id, h.filename, h.text, 0.0, h.attributes, {"graph": round(p, 4), "hops": 1})
        for h, p in ((h, reached[e].potential()) for e, h in placed)
    ]
    entities = {e: round(reached[e].potential(), 4) for e, _h in placed}
    return interleave(plain, walked, k, slots=SLOTS), entities


async def _pages(
    graph: GraphStore,
    store_id: str,
    plain: list[RankedHit],
    load: Load,
    keys: list[str],
    reached: dict[str, Reached],
) -> list[tuple[str, Hit]]:
    """The page about each of `keys` that has one, in their order, each file once: hybrid's own
    chunk of it when hybrid found one (moved up, not a second chunk of the same file), else the
    chunk of it that names the entity it was reached from (the one stating the relation; on a long
    page its first chunk is about something else), else its first subject chunk; chunks hybrid did
    not find are read from the backend (attribute filters applied by `load`)."""
    if not keys:
        return []
    first = await paged(graph, store_id, keys)
    hybrids: dict[str, Hit] = {}
    for h in plain:
        hybrids.setdefault(h.file_id, h)  # hybrid's best chunk of each file
    # the chunks of each answer page that name the seed it was reached from (most mentions first)
    vias = sorted({v for e in keys if e in first and (v := reached[e].via) is not None})
    naming: dict[tuple[str, str], str] = {}
    for m in await shared_mentions(graph, store_id, vias, MENTIONS, MENTIONS // 4) if vias else []:
        naming.setdefault((m.entity, m.file_id), m.chunk_id)
    wanted: list[tuple[str, str, str]] = []  # entity, file, chunk to read
    for e in keys:
        if e not in first or first[e].file_id in hybrids:
            continue
        via = reached[e].via
        chunk = naming.get((via, first[e].file_id), first[e].chunk_id) if via else first[e].chunk_id
        wanted.append((e, first[e].file_id, chunk))
    read = await load([Hit(c, f, "", "", 0.0) for _e, f, c in wanted])
    out: list[tuple[str, Hit]] = []
    files: set[str] = set()
    for e in keys:
        if e not in first or first[e].file_id in files:
            continue
        f = first[e].file_id
        hit = hybrids.get(f) or next((read[c] for e2, _f, c in wanted if e2 == e and c in read), None)
        if hit is not None:
            files.add(f)
            out.append((e, hit))
    return out
