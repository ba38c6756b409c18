"""The relation-aware walk of the `kg` ranker (#28): follow the chain the question describes.

A question like "In which town was the founder of the maker of the Driork 90 born?" names one
entity (Driork 90) and three relation types (made_by, founded_by, born_in, from `patterns.cues`).
The walk starts at the question's entities and follows, hop by hop (at most `MAX_HOPS`), the edges
of the graph store's relation index, typed relations first (`GraphStore.edges` orders them so):

* an edge whose type the question asks for and the path has not used yet is a step of the chain:
  it decays the path's weight a little (`DECAY`) and adds its type to the path's `matched` set;
* any other typed edge decays it a lot (`UNASKED`), a co-occurrence edge more (`CO_OCCURS`), and
  only on the first hop: passing mentions (a directory table naming forty companies) lead nowhere;
* relations no pattern typed (`~words`) and, for steps the question's grammar has but its wording
  named no type for, pattern types the question did not name, are steps too when they are like
  what the question still asks after the path (`Likeness.rest`: the question's vector with the
  path's relations projected out), or when their words are nearly as like an asked type as their
  likest type ("owes its existence to" for "the person behind"), unless they are more like one of
  the question's relation words that no asked type's cue names ("was apprenticed to" is the
  "mentor" of "In which town was the mentor of X born?", not its birthplace);
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

Compared on bench/multihop_hard.py against two-hop entity expansion and personalised PageRank
(bench/graph_baselines.py): see docs/ARCHITECTURE.md's knowledge-graph section for the figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gateway.knowledge_graph.extract import PHRASE
from gateway.knowledge_graph.hops import own, own_type
from gateway.knowledge_graph.phrases import Likeness as Relate
from gateway.knowledge_graph.turns import passed
from storage.graph import Edge, GraphStore, MentionRow

DECAY = 0.85  # per hop along a relation the question asks for
UNASKED = 0.3  # per hop along a typed relation it does not ask for
CO_OCCURS = 0.15  # per hop along co-occurrence (times the edge's weight), first hop only
OBJECT = 0.5  # a chunk that mentions an entity counts half as much as one about it
STATED = 1.25  # a chunk stating an asked-for relation its entity's path has not matched
UNSUPPORTED = 0.85  # a step no file links to the path's previous entity (a namesake's relation)
PHRASE_STEP = 0.7  # per hop along a phrase relation the question is most like, of those at that entity
REST_SHARE = 0.8  # a step by the likeness to the rest of the question counts this much of one by a word
WORD_MIN = 0.2  # a question word no relation at an entity is this like names none of them
SIBLING = 0.5  # a phrase out of an entity entered as a target this like the path's relations leads to a sibling
KIND_MIN = 0.3  # a phrase at least this like a pattern type's words (and most like it) stands for that type
KIND_STEP = 0.8  # per hop along a phrase standing for a relation type the question asks for
KIND_NEAR = 0.7  # an asked type this like a phrase, relative to the phrase's likest type, is what it stands for
SAME = 0.8  # a phrase this like one already on the path is that relation again
PHRASE_NEAR = 0.75  # a phrase much less like the question than the entity's best one is no step of its chain
PARENT_MENTIONS = 500
MAX_HOPS = 3
STEP_GAIN = 3  # a path is worth this much more for each step of the chain it completes
MAX_FRONTIER = 24
UNSURE_FRONTIER = 8  # paths along relations that matched no step, widened after those that did
PER_ENTITY = 40  # edges read per frontier entity and direction (typed first)


Likes = dict[str, dict[str, float]]  # per entity, per relation's words, a likeness


@dataclass(frozen=True, slots=True)
class Reached:
    """An entity reached by the walk: its path weight, hops and the asked-for relations on the path."""

    base: float
    hops: int
    matched: frozenset[str]
    via: str | None = None  # the entity before this one on the path
    into: bool = False  # reached as the target of a phrase relation (the yard a vessel "left the slipway of")
    trail: frozenset[str] = frozenset()  # the entities before this one on its path, which it never revisits
    # the path this one extended: `via`'s path as the step left it, which need not be `via`'s best
    # path at the end (a hop extends the paths as they stood when it started, and the same hop or a
    # later one may give `via` a better path); read this, not the walk's result at `via`
    prior: Reached | None = field(default=None, repr=False)

    def potential(self) -> float:
        return self.base * (STEP_GAIN ** len(self.matched))


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
        like, kinds, again, strength, other, fit = await _likeness(edges, inside, start, asked, relate, hops, hop)
        files_of: dict[str, set[str]] = {}
        for m in rows:
            files_of.setdefault(m.entity, set()).add(m.file_id)
        improved: set[str] = set()
        linked: set[str] = set()  # reached along a stated relation, not a co-occurrence
        # per relation type, its words (`_words` is pure: read once per type, not per edge end; a
        # hop reads thousands of edges of a few dozen types)
        words_of = {t: _words(t, asked, hops) for t in {e.type for e in edges}} if relate is not None else {}
        for e in edges:
            for u, v in ((e.source, e.target), (e.target, e.source)):
                if u not in inside or v == u or v in seeds:
                    continue  # a path never comes back to the question's own entities
                at = start[u]
                if v in at.trail:
                    continue  # nor to any entity it passed: a chain's relations lead on, not round
                words = words_of.get(e.type)
                if words is not None and at.into and u == e.target and again.get(u, {}).get(words, 0.0) >= SIBLING:
                    # into the yard as a vessel's yard and out as another vessel's, by words like the
                    # path's own: a sibling, no chain (in other words, "the physician's pupil" after
                    # "the hospital's founder", it is the chain's next step)
                    words = None
                if words is not None and len(at.matched) >= hops:
                    words = None  # the chain is complete: a phrase beyond it is no step of it
                if e.type == "co_occurs":
                    if hop > 0:
                        continue
                    factor, matched = CO_OCCURS * min(1.0, e.weight), at.matched
                elif (
                    e.type in asked
                    and e.type not in at.matched
                    and own_type(relate, e.type, at.hops)
                    and not passed(relate, e.type, at.hops, len(at.matched))
                ):
                    factor, matched = DECAY, at.matched | {e.type}
                    # the step continues the path when a file stating it also names the entity
                    # before: of two people called the same, the one the company's founder is
                    if at.via is not None and not files_of.get(at.via, set()) & set(e.files):
                        factor *= UNSUPPORTED
                elif (
                    words is not None
                    and e.type not in at.matched
                    and e.type.startswith(PHRASE)
                    and (sure := _kind(kinds, words, asked - at.matched))[0] in asked - at.matched
                    and other.get(u, {}).get(words, 0.0) <= kinds[words][str(sure[0])]
                    and own_type(relate, str(sure[0]), at.hops, fit.get(words))
                    and not passed(relate, str(sure[0]), at.hops, len(at.matched))
                ):
                    # a phrase standing for a relation type the question asks for ("came into the world
                    # in" for "born"): that type's step, once per path like the type itself
                    kind, certainty = sure
                    factor, matched = KIND_STEP * certainty, at.matched | {str(kind)}
                    if at.via is not None and not files_of.get(at.via, set()) & set(e.files):
                        factor *= UNSUPPORTED
                elif (
                    relate is not None
                    and words is not None
                    and e.type not in at.matched
                    and _near(like, words, u)
                    and own(relate, fit.get(words), at.hops)
                    and not passed(relate, e.type, at.hops, len(at.matched))
                    # nor is a phrase standing for such a type (more like its words than like any
                    # open word of the question), unless it is that relation again onward: the path
                    # used the type already, or goes on through the entity it entered (`onward`)
                    and not (
                        (held := _kind(kinds, words)[0]) is not None
                        and held not in at.matched
                        and not (at.into and u == e.source and len(asked) < hops)
                        and passed(relate, held, at.hops, len(at.matched))
                        and kinds[words][held] >= strength.get(u, {}).get(words, 1.0)
                    )
                ):
                    kind = _kind(kinds, words)[0]
                    # standing for a type on the path only when more like that type's words than like
                    # a word of the question no relation on the path accounts for ("taught", a little
                    # like "founded by", is the "mentor" of "the mentor of X's founder")
                    typed_again = kind is not None and kind in at.matched and kinds[words][kind] >= strength[u][words]
                    # the same relation onward: the path entered u as its last step's target and
                    # leaves it as this one's source ("X is based in T", "T lies in the canton of
                    # R"), one relation twice in a chain, when the question's grammar has a step its
                    # wording named no type for ("the province the town where X is based belongs to")
                    onward = at.into and u == e.source and len(asked) < hops
                    # (only the typed half: a phrase this like the path's last relation's words is
                    # mostly that relation stated from the other side, "was trained at" / "trained",
                    # onward to a sibling: another pupil of the school)
                    if (typed_again and not onward) or again.get(u, {}).get(words, 0.0) >= SAME:
                        # the same relation again, in other words ("is a ferry that left the slipway
                        # of" back to the yard's other vessel, "a research vessel that left ...")
                        factor, matched = UNASKED, at.matched
                    else:
                        factor, matched = PHRASE_STEP * like[u][words], at.matched | {e.type}
                        if at.via is not None and not files_of.get(at.via, set()) & set(e.files):
                            factor *= UNSUPPORTED
                else:
                    factor, matched = UNASKED * (0.5 if e.type.startswith(PHRASE) else 1.0), at.matched
                into = len(matched) > len(at.matched) and v == e.target
                base = at.base * factor
                # as `Reached.potential`; the path (and its trail) is built only when it wins
                if v not in reached or base * (STEP_GAIN ** len(matched)) > reached[v].potential():
                    reached[v] = Reached(base, at.hops + 1, matched, u, into, at.trail | {u}, at)
                    improved.add(v)
                    if e.type == "co_occurs":
                        linked.discard(v)
                    else:
                        linked.add(v)
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


def _words(kind: str, asked: set[str], hops: int) -> str | None:
    """The words a relation is compared with the question by: a phrase relation's own; a pattern
    type's name ("studied_at" -> "~studied at") when the question has more steps (`hops`, from its
    grammar) than relation types its wording named ("Where was the person who started the label
    that released X raised?" names one, founded_by, of three): those steps may be any relation like
    what the question still asks. When the wording named a type for every step, another type is no
    step of its chain (the firm's seat is no birthplace, however alike "located in" and "born in")."""
    if kind.startswith(PHRASE):
        return kind
    return None if kind == "co_occurs" or len(asked) >= hops else PHRASE + kind.replace("_", " ")


def _kind(kinds: dict[str, dict[str, float]], words: str, wanted: set[str] | None = None) -> tuple[str | None, float]:
    """The pattern type a relation's words stand for, and how surely (its cosine over the best
    type's): with `wanted` (the asked types the path has not matched), the likest of those when it is
    nearly as like the words as their likest type overall (MiniLM puts "was launched by" nearer
    "founded by" than "made by", and a question asking for its maker means either), else the likest
    type when it is like enough."""
    sims = kinds.get(words)
    if not sims:
        return None, 0.0
    best = max(sims.values())
    if best < KIND_MIN:
        return None, 0.0
    for kind in sorted(wanted or (), key=lambda t: -sims.get(t, 0.0))[:1]:
        if sims.get(kind, 0.0) >= max(KIND_MIN, KIND_NEAR * best):
            return kind, sims[kind] / best
    return max(sims, key=lambda t: sims[t]), 1.0


def _near(like: Likes, words: str, u: str) -> bool:
    return like.get(u, {}).get(words, 0.0) >= PHRASE_NEAR


async def _likeness(
    edges: list[Edge],
    inside: set[str],
    reached: dict[str, Reached],
    asked: set[str],
    relate: Relate | None,
    hops: int,
    hop: int = 0,
) -> tuple[Likes, dict[str, dict[str, float]], Likes, Likes, Likes, dict[str, np.ndarray]]:
    """Per frontier entity, the likeness of the words of each relation it could step along to what
    the question still asks after the entity's path (`Likeness.rest`: the question with the path's
    relations projected out), with the best of them under the key "" ; each phrase's nearest
    pattern type. Scored against the rest, not the whole question: a question is as a whole most
    like its first relation, which the path has used already. Third, per frontier entity, each
    phrase's likeness to the relations on the entity's path (a sibling's or the same relation again
    is no step); edges back to the path's previous entity are no option."""
    if relate is None:
        return {}, {}, {}, {}, {}, {}
    # per relation type, not per edge: a hop reads thousands of edges of a few dozen types
    named = {t: w for t in {e.type for e in edges} if (w := _words(t, asked, hops)) is not None}
    if not named:
        return {}, {}, {}, {}, {}, {}
    phrases = sorted(set(named.values()))
    kinds = await relate.kinds(phrases)  # embeds the phrases not known yet
    known, table = relate.table(phrases)
    # each phrase's likeness to each hop's words; at the chain's last hop none is later (`hops.own`)
    fit = relate.fits(known, table) if hop < relate.hop_count - 1 else {}
    index = {p: i for i, p in enumerate(known)}
    by_path: dict[frozenset[str], np.ndarray] = {}  # the rest's cosines with every phrase, per path's relations
    on_path: dict[frozenset[str], np.ndarray] = {}  # every phrase's best cosine with the path's relations
    options: dict[str, set[str]] = {}
    into: dict[str, set[str]] = {}  # per entity entered as a target, phrases leading out as a target again
    onward: dict[str, set[str]] = {}  # per entity entered as a target, phrases leading out as a source
    for e in edges:
        w = named.get(e.type)
        if w is None:
            continue
        for u, v in ((e.source, e.target), (e.target, e.source)):
            at = reached.get(u)
            if at is None or u not in inside or e.type in at.matched or v in at.trail or v == u:
                continue  # not a step from u (used already, or back)
            options.setdefault(u, set()).add(w)
            if at.into and u == e.target:
                into.setdefault(u, set()).add(w)
            elif at.into:
                onward.setdefault(u, set()).add(w)
    out: Likes = {}
    again: Likes = {}
    strength: Likes = {}
    other: Likes = {}  # per entity, each phrase's likeness to the question's words no asked type stands for
    unasked: dict[frozenset[str], np.ndarray] = {}
    for u, words in options.items():
        used = reached[u].matched
        if used and used not in on_path:
            on_path[used] = relate.to_path(table, sorted(used))
        if used:
            again[u] = {w: float(on_path[used][index[w]]) for w in words if w in index}
        # a phrase leading to a sibling is no option (`SIBLING`)
        words = {w for w in words if not (w in into.get(u, ()) and again.get(u, {}).get(w, 0.0) >= SIBLING)}
        if used not in by_path:
            # columns: like what the question still asks as a whole, and like each of its relation
            # words the path has not accounted for ("mentor" for "~taught" in "where was the mentor
            # of X's founder raised?", whose vector is mostly "raised")
            rest = (table @ relate.rest(sorted(used)))[:, None]
            # a three-hop chain's words of a later hop are no reason to step at this one (two-hop
            # questions often name their first relation by a kind noun alone, "the place X was in",
            # and the second's words, "belongs to", were the only likeness it had)
            upto = len(used) if relate.hop_count >= 3 else None
            by_path[used] = np.hstack([rest, relate.words_like(known, table, sorted(used), upto=upto)])
        mine = sorted(w for w in words if w in index)
        if not mine:
            continue
        if asked:
            if used not in unasked:
                # the open relation words none of the asked types' cues names ("mentor" in "In which
                # town was the mentor of X born?", which asks for born_in; not "town", a kind of
                # entity): a phrase more like one of them than an asked type's words is their step
                beyond = relate.words_like(known, table, sorted(used | asked), relations_only=True)
                unasked[used] = beyond.max(axis=1) if beyond.shape[1] else np.zeros(len(known), np.float32)
            other[u] = {w: float(unasked[used][index[w]]) for w in mine}
        sims = by_path[used][[index[w] for w in mine]]
        # an entity entered as a relation's target goes on as the source of the next one ("the
        # canton of the town where X is based": the town's own statement about itself): when it
        # states any, how like the question a relation is, is judged among those, not against the
        # ones other entities state about it (which lead to X's siblings, all in the town too)
        ahead = [i for i, w in enumerate(mine) if w in onward.get(u, ())]
        best = sims[ahead].max(axis=0) if ahead else sims.max(axis=0)
        # a relation is a step when it is (nearly) the entity's likest to the rest of the question or
        # to one of its open relation words (that word's best here being like it at all)
        valid = best >= WORD_MIN
        # the question's relation words say more than its vector as a whole: the rest of it counts
        # only when no open word is like any relation here
        valid[0] = best[0] > 0
        if not valid.any():
            continue
        ratio = np.minimum(sims / np.where(best > 0, best, 1.0), 1.0)
        ratio[:, 0] *= REST_SHARE  # the rest of the question as a whole is vaguer than one of its words
        shares = ratio[:, valid].max(axis=1)
        out[u] = {w: float(x) for w, x in zip(mine, shares, strict=True)}
        strength[u] = {w: float(x) for w, x in zip(mine, sims.max(axis=1), strict=True)}
    return out, kinds, again, strength, other, fit


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
