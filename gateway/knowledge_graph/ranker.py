"""The `kg` ranker: hybrid search re-ranked and widened by the store's knowledge graph.

Five phases, per (store, query):

1. query understanding: the question's entities (the extractor's spans and the question's word
   n-grams, looked up in the graph) and the relation types its wording asks for (`patterns.cues`);
2. retrieval, concurrently: vector search, keyword search and the question entities' graph rows;
3. the relation-aware walk (`walk.py`): from the question's entities (or, when it names none, the
   subjects of the best hybrid chunks) along the relations it asks for, one to three hops; a
   phrase step taken from one entity to many by the same phrase is worth less to each (`specific.py`);
4. ranking: each candidate chunk gets normalised signals (vector similarity, graph relevance,
   keyword match, recency, title match) blended by weights that sum to 1 (`GATEWAY_KG_CHAIN_WEIGHTS` when the walk
   followed a step of the question's chain, `GATEWAY_KG_WEIGHTS` otherwise, hybrid's own blend
   when the graph knows nothing of the question); chunks only the graph found are read from the
   backend only if they make the top k. A chain the walk does not complete (or takes no step of)
   is ranked by personalised PageRank around the question's entities (`spread.py`) fused with
   hybrid's ranking by reciprocal rank. When the walk is unsure of its answer (steps of the chain
   followed, no entity completing it) or fell back to PageRank, two-hop expansion from hybrid's
   best hit (`expand.py`: the pages about the names its page mentions, then once more; no relation
   word read) is interleaved after the graph's first hit, so that a chain the walk cannot complete
   still gets the pages its names lead to. A completed chain of two or three relations, when
   hybrid's best hit is its start's page, gets the walk's ranking fused with the expansion's by
   weighted reciprocal rank, the walk's first two pages kept (`fuse.py`); unless it was completed
   by phrase relations alone from a start no page is about (or a lower-case title) in a question
   naming no relation type: then hybrid's ranking leads, the walk's interleaved;
5. results as search hits carrying `score_breakdown`, plus the question's and the expanded entities.

Graph relevance of a chunk is what makes multi-hop questions work: an entity reached through a chain
whose steps the question named ("the founder of the company that makes X") is worth more the more
of the chain it completes (`walk.py`). The answer document of a three-hop question shares no words
with it; this is the signal that finds it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gateway.knowledge_graph import spread as pagerank
from gateway.knowledge_graph.blend import RankedHit, blend
from gateway.knowledge_graph.evidence import evidenced
from gateway.knowledge_graph.expand import completing, expansion, interleave, opening, phrased
from gateway.knowledge_graph.extract import Extractor
from gateway.knowledge_graph.fuse import fuse, vote
from gateway.knowledge_graph.hops import hop_plan
from gateway.knowledge_graph.keys import longest, lower_keys, numeric, query_keys, rare_lower
from gateway.knowledge_graph.one_phrase import one_phrase
from gateway.knowledge_graph.one_phrase import paged as titled_pages
from gateway.knowledge_graph.parts import Early as _Early
from gateway.knowledge_graph.parts import Found as _Found
from gateway.knowledge_graph.parts import Search as _Search
from gateway.knowledge_graph.parts import hybrid as _hybrid
from gateway.knowledge_graph.parts import load_chunks as _load_chunks
from gateway.knowledge_graph.parts import no_early as _early_none
from gateway.knowledge_graph.parts import nothing as _nothing
from gateway.knowledge_graph.parts import pending as _pending
from gateway.knowledge_graph.patterns import cues
from gateway.knowledge_graph.question import steps
from gateway.knowledge_graph.specific import share, specific
from gateway.knowledge_graph.walk import MAX_HOPS, Reached, Relate, chained, chunk_scores, walk
from storage.graph import GraphStore, MentionRow
from vectorstore.base import Hit, VectorBackend

MAX_FRONTIER = 40
MAX_ENTITIES = 24  # reached entities whose chunks become candidates
MAX_MENTIONS = 150
MAX_GRAPH_CHUNKS = 60  # chunks only the graph found that are ranked (their text is read for the top k only)


@dataclass(slots=True)
class RankOutcome:
    hits: list[RankedHit]
    query_entities: list[str]
    expanded: dict[str, float]
    # which phase ranked (read by bench_multihop --paths): "hybrid" (the graph does not steer the
    # question: hybrid search's own hits), "fallback" (the walk followed no step of the chain, or
    # completed none when no relation type was asked: PageRank fused with hybrid, two-hop expansion
    # interleaved), "unsure" (the walk followed steps of the chain but no entity completes it: its
    # ranking with two-hop expansion interleaved), "chain" (entities complete a two- or
    # three-relation chain: the walk's ranking, fused with the expansion's from the chain's start,
    # `fuse.py`), "one-step" (the walk's ranking for a one-relation question walked one hop), or
    # "one-phrase" (a one-relation question naming no relation type: hybrid's ranking with the
    # pages one phrase step away after its first hit)
    path: Literal["hybrid", "fallback", "unsure", "chain", "one-step", "one-phrase"]
    tied: int = 0  # entities completing the chain at the best weight (the walk's paths; else 0)


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
        relate: Relate | None = None,
    ) -> RankOutcome:
        n = max(3 * k, 30)
        search = _Search(backend, store_id, query, vector, k, filters)
        asked = cues(query)
        # the rule extractor's keys are a few regexes over a short question: no thread hop for them
        if self.extractor.name == "rules":
            keys = query_keys(self.extractor, query)
        else:
            keys = await asyncio.to_thread(query_keys, self.extractor, query)
        chain = steps(query)  # relations in the question's chain, by its grammar alone
        # the question's entities are lower-case runs (page titles): a chain's, or (placing only the
        # pages one phrase step away after hybrid's first hit, `_one_phrase`) a one-relation question's
        # (a key opening on a number, "2012 documentary", names nothing: a year before a title)
        lowered = all(map(numeric, keys)) and (chain >= 2 or (chain == 1 and relate is not None))
        # entities and their spread in one round (keys the graph does not know count nothing); a
        # lower-case question's keys are looked up with its runs below, in that one round
        known, spread = await self.graph.entity_counts(store_id, keys) if keys and not lowered else ({}, {})
        if lowered:
            # a chain question typed in lower case names nothing capitalised: its plain word runs
            # are looked up instead (one batch), the longest known kept, a single word only if rare;
            # a one-relation one only for `_one_phrase` (hybrid's ranking leads: ranked by the walk,
            # 200 manual pages' NAME lines and the single-hop corpus lost 0.009 and 0.007 nDCG@10;
            # this way neither lost any, #28 session 13)
            lower = list(dict.fromkeys([*lower_keys(query), *keys]))  # `keys`: numbers alone here
            known, spread = await self.graph.entity_counts(store_id, lower) if lower else ({}, {})
            rare = rare_lower(longest(list(known)), spread)
            # the question's own number keys too, whatever their spread, as capitalised keys are
            # taken: a number may title a page ("the author of 1984"), and a year is in many files
            rare += [k for k in keys if k in known and k not in rare]
            # and only a run the store has a page about (the title of one of its documents: their
            # subject rows come first): a name typed in lower case is a page's title ("winter in
            # jolkova"), while a common word the text capitalised somewhere ("Remove", "Directory":
            # a sentence's first word, a heading) titles no page; taken as the question's entity,
            # the walk ranked how-to questions' answers out (bench/doc_questions.py)
            paged = await titled_pages(self.graph, store_id, rare)
            known = {key: known[key] for key in rare if key in paged}
        q_entities = longest(list(known))
        # A question that names nothing the graph knows is answered by hybrid search itself; so is
        # one that asks for no relation the patterns know (relation words alone, "create", "run",
        # "part of", are too common to steer by: on 80 manual pages letting the graph rank those cost
        # 0.035 nDCG@10) unless the walk finds a chain of phrase relations the question is like
        hops = min(MAX_HOPS, max(len(asked), chain if relate is not None else 0))
        # with no relation type asked for, only a question whose grammar says it is a chain (two or
        # more relations) is walked, and answered by the walk only if a path completes it: a
        # one-relation question, or a manual page's NAME line, is what hybrid search answers (walked
        # one hop and fused with hybrid's ranking, every page about the entity or a neighbour tied
        # with the answer page, and "Where does Nginx write its access log?" lost its logging page)
        if q_entities and (not asked or lowered) and relate is not None and chain == 1:
            return await self._one_phrase(search, q_entities, spread, relate, asked)
        if not q_entities or not (asked or (relate is not None and hops >= 2)):
            plain = await _hybrid(search)
            # a chain question (by its grammar) naming no entity the graph knows keeps hybrid's
            # ranking too: two-hop expansion from hybrid's best hit put cloaked answers in the top
            # 10 (ahead of hybrid's later hits 12.1 % of this path's questions, after its first
            # half 2.9 %), but most how-to questions read as chains, their answers are hybrid's
            # later hits, and nothing tells the two apart: even after hybrid's first half the
            # expansion pushed one out (bench/doc_questions.py; docs/ARCHITECTURE.md, step 3c)
            return RankOutcome(plain, q_entities, {}, path="hybrid")
        # phase 2: retrieval and (phase 3) the relation-aware walk from the question's entities, concurrently
        # entities named in many files say little about any one of them
        seeds = {key: Reached(share(spread.get(key, 1)), 0, frozenset()) for key in q_entities}

        async def searched() -> _Found:  # the searches made here: a task cancelled unstarted leaves none unawaited
            vec_job = (
                backend.search(store_id, vector=vector, query=query, k=n, filters=filters, mode="vector")
                if vector is not None
                else _nothing()
            )
            kw_job = backend.search(store_id, vector=None, query=query, k=n, filters=filters, mode="keyword")
            vec_hits, kw_hits = await asyncio.gather(vec_job, kw_job)
            return _Found({h.chunk_id: h for h in [*kw_hits, *vec_hits]}, vec_hits, kw_hits)

        async def expanded() -> _Early:  # on a copy of the hits, before any phase adds to them
            return await self._early(search, (await retrieval).copy(), q_entities, chain)

        retrieval = asyncio.ensure_future(searched())
        # a chain's two-hop expansion (`expand.py`) needs only hybrid's best hit: it starts once
        # retrieval is in, beside the walk, when hybrid's best is the chain's start (`_early`)
        early = asyncio.ensure_future(expanded()) if hops >= 2 else None
        try:
            return await self._rank_walked(
                search, retrieval, early, q_entities, seeds, asked, hops, chain, lowered, relate
            )
        finally:
            # every task the search started ends with it: on a path that does not read it, an
            # error, or the search cancelled (the backend's searches stop, no exception goes unread)
            for task in (early, retrieval):
                if task is not None:
                    task.cancel()

    async def _rank_walked(
        self,
        search: _Search,
        retrieval: Awaitable[_Found],
        early: Awaitable[_Early] | None,
        q_entities: list[str],
        seeds: dict[str, Reached],
        asked: set[str],
        hops: int,
        chain: int,
        lowered: bool,
        relate: Relate | None,
    ) -> RankOutcome:
        """Phases 3 to 5 for a question the graph steers: the walk, then the ranking its outcome
        picks (`RankOutcome.path`)."""
        store_id, query, k = search.store_id, search.query, search.k
        reached = await walk(self.graph, store_id, seeds, asked, hops=hops, relate=relate)
        found = await retrieval

        def expansion_pages() -> Awaitable[list[RankedHit]]:
            """Two-hop expansion's pages: the early one when it ran, else read now (on a copy of the
            hits taken now, before a phase adds to them: each reads the chunks only it found)."""
            return self._expansion(search, found.copy(), early, q_entities, chain)

        # a phrase step taken from one entity to many by the same phrase is worth less to each, unless
        # it is the question's own relation word for that hop (a name's words are none: `specific.py`)
        named = {t for key in q_entities for t in key.split()}
        reached = specific(reached, [[w for w in hop if w not in named] for hop in hop_plan(query).words], hops)
        reached = evidenced(reached, relate, hops)  # completers by how well each step states its hop
        if (not asked and not any(len(r.matched) >= hops for r in reached.values())) or (
            hops >= 2 and not chained(reached, hops)
        ):
            # a chain no path completes (asking for no relation type), or one the walk followed no
            # step of: personalised PageRank around the question's entities (`spread.py`), which
            # needs no relation words, fused with hybrid's ranking; beside it, two-hop expansion
            # (`expand.py`), which reads none either, and the two interleaved
            scored, expanded = await asyncio.gather(self._spread(search, found, seeds, hops), expansion_pages())
            return RankOutcome(interleave(scored, expanded, k), q_entities, {}, path="fallback")
        # phase 4: candidates and their signals. The walk's ranking stands when an entity completes
        # the chain; when none does (steps followed, no answer reached), two-hop expansion from
        # hybrid's best hit joins it (a copy of the hits: each reads the chunks only it found),
        # after the walk's first hit and in at most half the places after it (`expand.interleave`)
        walked = self._walked(search, found, reached, asked, hops)
        best = completing(reached, hops)
        untitled = lowered or not await titled_pages(self.graph, store_id, q_entities) if best and not asked else False
        if best and not asked and phrased(reached, best) and untitled:
            # a chain completed by phrase relations alone, in a question naming no relation type,
            # from a start that is no page's title (a product the pages only mention, "SHA256") or a
            # lower-case word that happens to title one ("groups"): some phrase at every entity is
            # the likest to the rest of the question, so nothing says this is the chain's start and
            # a chain at all: hybrid's ranking leads, the walk's interleaved after its first hit in
            # at most half the places (bench/doc_questions.py)
            (scored, ranked_entities), plain = await asyncio.gather(walked, _hybrid(search))
            scored = interleave(plain, scored, k, slots=(k - 1) // 2)
        elif best and hops >= 2:
            # a completed chain: when hybrid's best hit is the page of the question's own entity
            # (the chain's start), the walk's ranking fused with two-hop expansion's from there by
            # page, the walk's first pages kept, the expansion's vote growing with the ties (`fuse.py`)
            # (`far`: None unless hybrid's best is the chain's start, `expand.opening` says so)
            (scored, ranked_entities), (far, _first) = await asyncio.gather(walked, early or _early_none())
            if far:
                scored = fuse(scored, far, k, vote(len(best)))
        elif best:
            scored, ranked_entities = await walked
        else:
            (scored, ranked_entities), expanded = await asyncio.gather(walked, expansion_pages())
            scored = interleave(scored, expanded, k, slots=(k - 1) // 2)
        entities = {e: round(reached[e].potential(), 4) for e in ranked_entities if e not in q_entities}
        if not best:
            return RankOutcome(scored, q_entities, entities, path="unsure", tied=0)
        path: Literal["chain", "one-step"] = "chain" if hops >= 2 else "one-step"
        return RankOutcome(scored, q_entities, entities, path=path, tied=len(best))

    async def _one_phrase(
        self, search: _Search, q_entities: list[str], spread: dict[str, int], relate: Relate, asked: set[str]
    ) -> RankOutcome:
        """A one-relation question naming no relation type, or one typed in lower case
        (`one_phrase.py`): hybrid's ranking with the pages one phrase step away after its first hit;
        hybrid's own ranking when that path does not apply."""

        async def load(rows: Sequence[Hit]) -> dict[str, Hit]:
            hits: dict[str, Hit] = {}
            await _load_chunks(search, rows, hits)
            return hits

        hybrid = _hybrid(search)
        ranked, entities = await one_phrase(
            self.graph, search.store_id, hybrid, load, search.k, q_entities, spread, relate, asked
        )
        return RankOutcome(ranked, q_entities, entities, path="one-phrase" if entities else "hybrid")

    async def _spread(self, search: _Search, found: _Found, seeds: dict[str, Reached], hops: int) -> list[RankedHit]:
        """The candidates ranked by PageRank mass around the seeds fused with hybrid's order."""
        store_id = search.store_id
        mass, rows_of = await pagerank.spread(self.graph, store_id, {key: s.base for key, s in seeds.items()}, hops)
        times = await self.graph.file_times(
            store_id, list({h.file_id for h in found.hits.values()} | {m.file_id for m in rows_of.values()})
        )
        return await self._finish(search, found, mass, rows_of, times, None)

    async def _walked(
        self, search: _Search, found: _Found, reached: dict[str, Reached], asked: set[str], hops: int
    ) -> tuple[list[RankedHit], list[str]]:
        """The candidates ranked by their blended signals, graph relevance from the walk's
        entities; second, the entities reached, best first."""
        store_id, hits = search.store_id, found.hits
        ranked_entities = sorted(reached, key=lambda e: reached[e].potential(), reverse=True)[:MAX_FRONTIER]
        # the reached entities' chunks join the candidates; a chunk scores by the entities the walk
        # reached and the asked relations it states: only those rows are read (a long page names
        # hundreds of others, and states co-occurrences); all in one read (`chunk_signals`)
        signals = await self.graph.chunk_signals(
            store_id,
            ranked_entities[:MAX_ENTITIES],
            MAX_MENTIONS,
            chunk_ids=list(hits),
            file_ids={h.file_id for h in hits.values()},
            entities=list(reached),
            types=asked,
        )
        graph_rows, chunk_rows, stated, times = signals.rows, signals.chunk_rows, signals.stated, signals.times
        paged = frozenset(m.entity for m in graph_rows if m.subject)
        graph_score = chunk_scores(chunk_rows, stated, reached, asked, one_step=hops == 1, paged=paged)
        weights = self.chain_weights if chained(reached, hops) else self.weights
        rows_by_chunk = {m.chunk_id: m for m in chunk_rows}
        scored = await self._finish(search, found, graph_score, rows_by_chunk, times, weights)
        return scored, ranked_entities

    async def _finish(
        self,
        search: _Search,
        found: _Found,
        graph_score: dict[str, float],
        rows_by_chunk: dict[str, MentionRow],
        times: dict[str, tuple[str, int]],
        weights: dict[str, float] | None,
    ) -> list[RankedHit]:
        """The top k of the candidates by their blended signals (`weights`; None: PageRank and
        hybrid fused by rank). Chunks only the graph found have no text yet: they are ranked with
        what is known (their graph, recency and title signals) and read from the backend only if
        they make the top k; one the filters drop, or no longer there (its file deleted since the
        graph was read), is never returned: the ranking is redone without it."""
        query, k, hits, vec_hits, kw_hits = search.query, search.k, found.hits, found.vec_hits, found.kw_hits
        only_graph = sorted((c for c in graph_score if c not in hits), key=lambda c: graph_score[c], reverse=True)
        pending = {c: _pending(rows_by_chunk[c]) for c in only_graph[:MAX_GRAPH_CHUNKS] if c in rows_by_chunk}
        for _round in range(3):  # a chunk the filters drop makes room for the next one
            scored = blend(query, {**pending, **hits}, vec_hits, kw_hits, graph_score, times, weights, k)
            wanted = [pending.pop(r.chunk_id) for r in scored[:k] if r.chunk_id in pending]
            if not wanted:
                return scored[:k]
            await _load_chunks(search, wanted, hits)
        # the last chunks read are in `hits` (those the filters passed); the rest are never read
        return blend(query, hits, vec_hits, kw_hits, graph_score, times, weights, k)

    async def _early(self, search: _Search, found: _Found, q_entities: list[str], steps: int) -> _Early:
        """A chain's two-hop expansion begun beside the walk: its first read (`expand.opening`),
        then the rest only when hybrid's best hit is the chain's start's page, the one case a
        completed chain fuses it (`expand.opening` tells); else None and that read, which the fallback and
        unsure paths, reading the expansion after the walk as they did before, do not repeat."""
        if not found.hits:
            return [], None
        vec = {h.chunk_id: h.score for h in found.vec_hits}
        kw = {h.chunk_id: h.score for h in found.kw_hits}
        first, opens = await opening(self.graph, search.store_id, found.hits, vec, kw, q_entities)
        return (await self._expanded(search, found, q_entities, steps, first) if opens else None), first

    async def _expansion(
        self, search: _Search, found: _Found, early: Awaitable[_Early] | None, q_entities: list[str], steps: int
    ) -> list[RankedHit]:
        """Two-hop expansion's pages for the fallback and unsure paths: the early ones when they were
        read, else read now on `found` (its first read shared with `_early`'s)."""
        expanded, first = await early if early is not None else (None, None)
        return expanded if expanded is not None else await self._expanded(search, found, q_entities, steps, first)

    async def _expanded(
        self, search: _Search, found: _Found, q_entities: list[str], steps: int, first: list[MentionRow] | None = None
    ) -> list[RankedHit]:
        """The pages two-hop expansion reaches from hybrid's best hit (`expand.expansion`), as kg
        hits; pages hybrid did not find are read from the backend (filters applied). `first`: the
        best hit's mention rows when already read."""

        hits = found.hits

        async def load(rows: list[Hit]) -> None:
            await _load_chunks(search, rows, hits)

        vec = {h.chunk_id: h.score for h in found.vec_hits}
        kw = {h.chunk_id: h.score for h in found.kw_hits}
        pages = await expansion(self.graph, search.store_id, hits, vec, kw, q_entities, search.k, load, steps, first)
        return [RankedHit(h.chunk_id, h.file_id, h.filename, h.text, 0.0, h.attributes, b) for h, b in pages]
