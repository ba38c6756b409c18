"""The relation-aware walk of the `kg` ranker (#28): follow the chain the question describes.

A question like "In which town was the founder of the maker of the Driork 90 born?" names one
entity (Driork 90) and three relation types (made_by, founded_by, born_in, from `patterns.cues`).
The walk starts at the question's entities and follows, hop by hop (at most `MAX_HOPS`), the edges
of the graph store's relation index, typed relations first (`GraphStore.edges` orders them so):

* an edge whose type the question asks for and the path has not used yet is a step of the chain:
  it decays the path's weight a little (`DECAY`) and adds its type to the path's `matched` set;
* any other typed edge decays it a lot (`UNASKED`), a co-occurrence edge more (`CO_OCCURS`), and
  only on the first hop: passing mentions (a directory table naming forty companies) lead nowhere;
  a weak phrase link (`walk_step.weak`: the fallback's, `fallback.py`) that is no step is read as
  the co-occurrence it is, and is no stated relation for `UNSURE_FRONTIER`;
* relations no pattern typed (`~words`) and, for steps the question's grammar has but its wording
  named no type for, pattern types the question did not name, are steps too when they are like
  what the question still asks after the path (`Likeness.rest`: the question's vector with the
  path's relations projected out; also at least `walk_step.WEAK_MIN` like it or an open word in
  absolute terms: an entity's only phrase is always its own likest), or when their words are
  nearly as like an asked type as their likest type ("owes its existence to" for "the person
  behind"), unless they are more like one of the question's relation words that no asked type's
  cue names ("was apprenticed to" is the "mentor" of "In which town was the mentor of X born?",
  not its birthplace);
* an entity keeps its best path, ranked by `potential`: weight x 3^(relations matched), so a path
  that completes one more step of the chain beats a shorter one that does not (`specific.py`,
  after the walk, reorders only paths that matched as many steps); paths that matched
  a step are widened first, then a few along stated relations that matched none (`UNSURE_FRONTIER`);
* a relation counts only for its own hop of the chain (`hops.py`: the question's relation words
  and asked types by hop, innermost first): at the k-th hop from the question's entity, an asked
  type the question's grammar places in a later hop, or a phrase plainly like a later hop's words
  or type, is no step ("In which town was the mentor of X born?": X's own birthplace is no step
  from X; taking it there, a wrong path then "matched" the mentoring too, as many steps as the chain);
* a path never comes back to the question's own entities (a note on X repeating the question's
  relations about X would lead X back to itself with steps matched), nor to any entity it passed
  (`Reached.trail`: going round a cycle "completed" steps at the chain's first entity), and each hop
  extends the paths as they stood when it started (so an answer that is an entity seen earlier on
  the path in another role, a founder who also works at the company, or namesakes sharing a key, is
  not reached along that path); a path keeps the one it extended (`Reached.prior`), which need not
  be its `via` entity's best path at the end: the same hop or a later one may give that entity a
  better path, and read there the step described another path (`specific.py`, `chunk_scores`);
* an asked type the question places at hop k is no step of a path that matched more than k steps
  (`turns.py`; counted in matched steps, not hops walked; nor is a phrase standing for that type,
  unless it is that relation again onward); in a three-hop chain a relation after k matched steps is
  judged against the question's words of its first k + 1 hops only (`Likeness.words_like(upto=)`:
  "was laid down at", like "harbour", is no step for "the captain of X");
* one relation twice is two steps when the path goes on through the entity, entering it as the
  last step's target and leaving it as this one's source ("X is based in T", "T lies in the canton
  of R"), and the question's grammar has a step its wording named no type for; only when the phrase
  stands for the path's type, not when it is as like the path's last relation as `SAME` (mostly
  that relation from the other side: "was trained at", then "trained", reaches another pupil);
* a step is worth a little less (`UNSUPPORTED`) when no file stating it also names the entity
  before it on the path: of two people called the same (one entity, keys are names), the
  birthplace stated in the biography that names the company they founded wins.

A chunk then scores by the best entity it is about (its document's subject) or, at half weight,
mentions; a chunk that states a relation the question asks for beyond its entity's path (the
founder's biography saying where they were born) gets a smaller bonus. Each hop is one indexed
query for the few frontier entities: no scan of the store's graph, nothing built per call.

Here the frontier loop (`walk`: which paths each hop extends and which one each entity keeps) and
the chunks' scores; one path is `walk_path.Reached`, what one edge is to the chain (the rules above,
the step weights) is `walk_step.step`, and the likeness tables a hop judges phrases by are
`walk_likeness.likeness`.

Compared on bench/multihop_hard.py against two-hop entity expansion and personalised PageRank
(bench/graph_baselines.py): see docs/ARCHITECTURE.md's knowledge-graph section for the figures.
"""

from __future__ import annotations

from gateway.knowledge_graph.extract import PHRASE
from gateway.knowledge_graph.phrases import Likeness as Relate
from gateway.knowledge_graph.walk_likeness import compared_words, likeness
from gateway.knowledge_graph.walk_path import STEP_GAIN, Reached
from gateway.knowledge_graph.walk_step import Hop, stated, step
from storage.graph import GraphStore, MentionRow

__all__ = ["MAX_HOPS", "Reached", "Relate", "chained", "chunk_scores", "walk"]

OBJECT = 0.5  # a chunk that mentions an entity counts half as much as one about it
STATED = 1.25  # a chunk stating an asked-for relation its entity's path has not matched
PARENT_MENTIONS = 500
MAX_HOPS = 3
MAX_FRONTIER = 24
UNSURE_FRONTIER = 8  # paths along relations that matched no step, widened after those that did
PER_ENTITY = 40  # edges read per frontier entity and direction (typed first)


async def walk(
    graph: GraphStore,
    store_id: str,
    seeds: dict[str, Reached],
    asked: set[str],
    hops: int = MAX_HOPS,
    relate: Relate | None = None,
) -> dict[str, Reached]:
    """The entities reachable from `seeds` in at most `hops` hops, each with its best path.

    With `relate`, relations no pattern typed (`~words`) are steps too when the question is like
    their words: among an entity's phrase relations, those nearly as like the question as the best
    one; a phrase, like a type, is used once per path (the label that issued an album does not lead
    on to the label's other albums by the same words) unless the path goes on through the entity in
    its direction (the town the school stands in, then the province the town lies in)."""
    reached = dict(seeds)
    frontier = list(seeds)
    if relate is not None:
        await relate.prepare()
    for hop in range(hops):
        if not frontier:
            break
        parents = list({p for u in frontier if (p := reached[u].via) is not None})
        edges, rows = await graph.hop(store_id, frontier, PER_ENTITY, parents, PARENT_MENTIONS)
        # in one order on every graph store (neither store's query orders its rows): of two paths
        # at the same potential the first is kept, and `specific.py` reads which
        edges = sorted(edges, key=lambda e: (e.source, e.target, e.type))
        inside = set(frontier)
        # each frontier entity's path as the hop starts: an entity a path reaches during this hop
        # goes on from the next one (read mid-hop, its new path took a fourth step in a three-hop
        # walk, or came back through the entity it had just left)
        start = {u: reached[u] for u in frontier}
        tables = await likeness(edges, inside, start, asked, relate, hops, hop)
        files_of: dict[str, set[str]] = {}
        for m in rows:
            files_of.setdefault(m.entity, set()).add(m.file_id)
        improved: set[str] = set()
        # per frontier entity, the entities its path stepped to, per step (`Reached.fan`)
        fans: dict[str, dict[frozenset[str], set[str]]] = {}
        linked: set[str] = set()  # reached along a stated relation, not a co-occurrence
        # per relation type, its words (`compared_words` is pure: read once per type, not per edge
        # end; a hop reads thousands of edges of a few dozen types)
        words_of = {t: compared_words(t, asked, hops) for t in {e.type for e in edges}} if relate is not None else {}
        judged = Hop(hop, asked, hops, relate, tables, files_of, words_of)
        for e in edges:
            for u, v in ((e.source, e.target), (e.target, e.source)):
                if u not in inside or v == u or v in seeds:
                    continue  # a path never comes back to the question's own entities
                at = start[u]
                if v in at.trail:
                    continue  # nor to any entity it passed: a chain's relations lead on, not round
                taken = step(e, u, v, at, judged)
                if taken is None:
                    continue
                factor, matched = taken
                fan = fans.setdefault(u, {})
                fan.setdefault(matched - at.matched, set()).add(v)
                into = len(matched) > len(at.matched) and v == e.target
                base = at.base * factor
                # as `Reached.potential`; the path (and its trail) is built only when it wins
                if v not in reached or base * (STEP_GAIN ** len(matched)) > reached[v].potential():
                    reached[v] = Reached(base, at.hops + 1, matched, u, into, at.trail | {u}, at, fan)
                    improved.add(v)
                    if stated(e, at, matched):
                        linked.add(v)
                    else:
                        linked.discard(v)
        # paths that still follow the chain are widened first; after them (at most MAX_FRONTIER in
        # all), paths along stated relations that matched no step yet, at their low weight: where the
        # question's words for a step match none of the text's (MiniLM sees nothing of founding in
        # "opened"), the chain's end is still reached, as two-hop expansion would, ranked below
        # every path that matched (or, with no relation asked, any)
        nxt = [x for x in improved if not (asked or relate) or reached[x].matched]
        frontier = sorted(sorted(nxt), key=lambda x: reached[x].potential(), reverse=True)[:MAX_FRONTIER]
        room = min(UNSURE_FRONTIER, MAX_FRONTIER - len(frontier))
        if room > 0:
            unsure = [x for x in improved & linked if not reached[x].matched and x not in frontier]
            frontier += sorted(sorted(unsure), key=lambda x: reached[x].potential(), reverse=True)[:room]
    return reached


def chunk_scores(
    rows: list[MentionRow],
    stated: dict[str, set[str]],
    reached: dict[str, Reached],
    asked: set[str],
    one_step: bool = False,
    paged: frozenset[str] = frozenset(),
) -> dict[str, float]:
    """Per chunk: the best potential of an entity it is about (or, halved, mentions), with a bonus
    when the chunk states an asked-for relation beyond that entity's path. A chunk about an entity
    naming the entity the walk's next step led to from it states that step: for a one-step question
    ("Who founded X?") it is the answer as much as the page of the entity the step leads to, and
    when that entity has no page of its own (`paged`: entities some document is about; "the
    hometown of the founder of X" where the town has none) it is the answer: either way it scores
    as that entity does."""
    # (a step's own `prior` path, not `reached[via]`: the entity before may have a better path since)
    led = {
        r.via
        for e, r in reached.items()
        if r.via is not None and r.prior is not None and e in paged and r.matched - r.prior.matched
    }
    # entity -> the entities a step of the chain led to from it, whose page (or lack of one) it speaks for
    leads: dict[str, list[str]] = {}
    for x, r in reached.items():
        if r.via is not None and r.prior is not None and len(r.matched) > len(r.prior.matched):
            if (one_step and r.prior.hops == 0) or x not in paged:
                leads.setdefault(r.via, []).append(x)
    named: dict[str, set[str]] = {}  # chunk -> the entities it mentions
    if leads:
        for m in rows:
            named.setdefault(m.chunk_id, set()).add(m.entity)
    out: dict[str, float] = {}
    for m in rows:
        at = reached.get(m.entity)
        if at is None:
            continue
        value = at.potential() * (1.0 if m.subject else OBJECT)
        said = stated.get(m.chunk_id, set())
        if (said & asked) - at.matched and m.entity not in led:
            value *= STATED
        if m.subject and m.entity in leads:  # X's page naming the entity X's step led to
            here = named.get(m.chunk_id, set())
            for x in leads[m.entity]:
                if x in here:
                    value = max(value, reached[x].potential())
        if value > out.get(m.chunk_id, 0.0):
            out[m.chunk_id] = value
    return out


def chained(reached: dict[str, Reached], hops: int = 1) -> bool:
    """Whether the walk followed the question's chain: a step of a relation type it asked for (or a
    phrase standing for one), or phrases alone completing all `hops` of it. The best phrase of any
    entity is always some step, so a partial chain of phrases says little (manual pages are full of
    them)."""
    return any(
        r.hops and (any(not m.startswith(PHRASE) for m in r.matched) or len(r.matched) >= hops)
        for r in reached.values()
    )
