"""One step of the relation-aware walk (#28, `walk.py`): what an edge out of a path's entity is to the
question's chain, and what it leaves the path weighing.

`step` reads one edge end `u -> v` from the path `at` (u's path as the hop started) and returns the
factor the path's weight is multiplied by and the relations it has matched after the step: an asked
type (`DECAY`), a phrase standing for one (`KIND_STEP`), a phrase like what the question still asks
(`PHRASE_STEP`, when also at least `WEAK_MIN` like it), or no step of the chain (`UNASKED`,
`CO_OCCURS` on the first hop only, as a `weak` link that is no step); the rules
each kind of step is held to are `walk.py`'s docstring. The walk's frontier loop (`walk.walk`) keeps
each entity's best path; this module decides nothing about which paths go on.
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.knowledge_graph.extract import PHRASE
from gateway.knowledge_graph.hops import own, own_type
from gateway.knowledge_graph.phrases import Likeness as Relate
from gateway.knowledge_graph.turns import passed
from gateway.knowledge_graph.walk_likeness import SIBLING, Likes, Tables
from gateway.knowledge_graph.walk_path import Reached
from storage.graph import Edge

DECAY = 0.85  # per hop along a relation the question asks for
UNASKED = 0.3  # per hop along a typed relation it does not ask for
CO_OCCURS = 0.15  # per hop along co-occurrence (times the edge's weight), first hop only
UNSUPPORTED = 0.85  # a step no file links to the path's previous entity (a namesake's relation)
PHRASE_STEP = 0.7  # per hop along a phrase relation the question is most like, of those at that entity
KIND_MIN = 0.3  # a phrase at least this like a pattern type's words (and most like it) stands for that type
KIND_STEP = 0.8  # per hop along a phrase standing for a relation type the question asks for
KIND_NEAR = 0.7  # an asked type this like a phrase, relative to the phrase's likest type, is what it stands for
SAME = 0.8  # a phrase this like one already on the path is that relation again
PHRASE_NEAR = 0.75  # a phrase much less like the question than the entity's best one is no step of its chain
# a phrase is a step by its words only when at least this like what the question still asks or an
# open word of it (`Tables.strength`, its best cosine), not just for being its entity's likest (an
# entity's only phrase always is: "Travels: T" taken for "born"). At the spread MiniLM gives short
# labels unrelated to a question ("letters" 0.03, "travels" 0.05 to "Where was the composer of X
# born?"), not at `walk_likeness.WORD_MIN` (0.2), which says whether a word is named at an entity
# at all. A thin margin on the spent corpora (`ARCHITECTURE.md`): blind lost a step 0.094 like its
# question and gained two ranks from non-steps 0.02 and 0.08 like theirs; no other corpus lost any
WEAK_MIN = 0.1


@dataclass(frozen=True, slots=True)
class Hop:
    """What one hop of the walk judges its steps by: the question's asked types and hop count, its
    likeness (None: typed relations only), the hop's likeness tables, the files mentioning each
    frontier entity's previous entity (`UNSUPPORTED`), and each relation type's words (`compared_words`)."""

    index: int  # the hop, from 0
    asked: set[str]
    hops: int
    relate: Relate | None
    tables: Tables
    files_of: dict[str, set[str]]
    words_of: dict[str, str | None]


def step(e: Edge, u: str, v: str, at: Reached, hop: Hop) -> tuple[float, frozenset[str]] | None:
    """The factor of the step from `u` (its path `at`) to `v` along `e` and the relations the path
    has matched after it; None for no step at all (co-occurrence after the first hop)."""
    asked, hops, relate = hop.asked, hop.hops, hop.relate
    t = hop.tables
    like, kinds, again, strength, other, fit = t.like, t.kinds, t.again, t.strength, t.other, t.fit
    words = hop.words_of.get(e.type)
    if words is not None and at.into and u == e.target and again.get(u, {}).get(words, 0.0) >= SIBLING:
        # into the yard as a vessel's yard and out as another vessel's, by words like the
        # path's own: a sibling, no chain (in other words, "the physician's pupil" after
        # "the hospital's founder", it is the chain's next step)
        words = None
    if words is not None and len(at.matched) >= hops:
        words = None  # the chain is complete: a phrase beyond it is no step of it
    if e.type == "co_occurs":
        if hop.index > 0:
            return None
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
        if at.via is not None and not hop.files_of.get(at.via, set()) & set(e.files):
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
        if at.via is not None and not hop.files_of.get(at.via, set()) & set(e.files):
            factor *= UNSUPPORTED
    elif (
        relate is not None
        and words is not None
        and e.type not in at.matched
        and _near(like, words, u)
        and strength.get(u, {}).get(words, 0.0) >= WEAK_MIN
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
            if at.via is not None and not hop.files_of.get(at.via, set()) & set(e.files):
                factor *= UNSUPPORTED
    else:
        factor, matched = UNASKED * (0.5 if e.type.startswith(PHRASE) else 1.0), at.matched
    if matched == at.matched and weak(e):
        # a weak link that is no step of the chain says no more than that the two are named
        # together: weighed as a co-occurrence, first hop only, and no stated relation (`stated`)
        if hop.index > 0:
            return None
        factor = CO_OCCURS * e.weight
    return factor, matched


def weak(e: Edge) -> bool:
    """A phrase link no rule made: the fallback's (`fallback.WEIGHT` < 1 per statement, split among
    the names it links; every rule writes 1.0). The weight is the one the store sums over the chunks
    and files stating the link (`index.py`, `GraphStore.hop`), so a fallback link stated in 2 to 4
    places reaches 1.0 and reads as rule-made: a label repeated is taken as some evidence of the
    relation (which rule made a link is not stored)."""
    return e.type.startswith(PHRASE) and e.weight < 1.0


def stated(e: Edge, at: Reached, matched: frozenset[str]) -> bool:
    """Whether the step along `e` reached its entity by a stated relation (`walk.UNSURE_FRONTIER`):
    not along a co-occurrence, nor a weak link that is no step of the chain (read as one)."""
    return e.type != "co_occurs" and not (matched == at.matched and weak(e))


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
