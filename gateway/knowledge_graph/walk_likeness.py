"""How like the question each relation a walk's hop could step along is (#28, `walk.py`): the tables
one hop of the walk reads its steps by (`walk_step.py`), built once per hop for all its frontier.

Per frontier entity and per relation's words: the likeness to what the question still asks after
the entity's path (`Likeness.rest`: the question's vector with the path's relations projected out)
and to each of its open relation words, as a share of the entity's likest (`like`); the phrase's
likeness to the path's own relations (`again`: a sibling's or the same relation again is no step)
and to the question's words no asked type stands for (`other`); its raw best likeness (`strength`);
each phrase's likeness to each pattern type (`kinds`) and to each hop's words (`fit`, `hops.own`).
Read per relation type, not per edge: a hop reads thousands of edges of a few dozen types.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gateway.knowledge_graph.extract import PHRASE
from gateway.knowledge_graph.phrases import Likeness as Relate
from gateway.knowledge_graph.walk_path import Reached
from storage.graph import Edge

REST_SHARE = 0.8  # a step by the likeness to the rest of the question counts this much of one by a word
WORD_MIN = 0.2  # a question word no relation at an entity is this like names none of them
SIBLING = 0.5  # a phrase out of an entity entered as a target this like the path's relations leads to a sibling

Likes = dict[str, dict[str, float]]  # per entity, per relation's words, a likeness


@dataclass(frozen=True, slots=True)
class Tables:
    """One hop's likeness tables (`likeness`); empty without a question's likeness to read."""

    like: Likes = field(default_factory=dict)  # a relation's share of the entity's likest, as a step
    kinds: dict[str, dict[str, float]] = field(default_factory=dict)  # per phrase, its likeness to each type
    again: Likes = field(default_factory=dict)  # a phrase's likeness to the relations on the entity's path
    strength: Likes = field(default_factory=dict)  # a phrase's best likeness to the question's rest or words
    other: Likes = field(default_factory=dict)  # a phrase's likeness to the question's words no asked type names
    fit: dict[str, np.ndarray] = field(default_factory=dict)  # per phrase, its likeness to each hop's words


def compared_words(kind: str, asked: set[str], hops: int) -> str | None:
    """The words a relation is compared with the question by: a phrase relation's own; a pattern
    type's name ("studied_at" -> "~studied at") when the question has more steps (`hops`, from its
    grammar) than relation types its wording named ("Where was the person who started the label
    that released X raised?" names one, founded_by, of three): those steps may be any relation like
    what the question still asks. When the wording named a type for every step, another type is no
    step of its chain (the firm's seat is no birthplace, however alike "located in" and "born in")."""
    if kind.startswith(PHRASE):
        return kind
    return None if kind == "co_occurs" or len(asked) >= hops else PHRASE + kind.replace("_", " ")


async def likeness(
    edges: list[Edge],
    inside: set[str],
    start: dict[str, Reached],
    asked: set[str],
    relate: Relate | None,
    hops: int,
    hop: int = 0,
) -> Tables:
    """The hop's tables (`Tables`) for the frontier `inside`, each entity judged by its path as the
    hop started (`start`): per entity, each relation it could step along by its words, as like what
    the question still asks after the path (`Likeness.rest`: the question with the path's relations
    projected out) or one of its open words, as a share of the entity's likest. Scored against the
    rest, not the whole question: a question is as a whole most like its first relation, which the
    path has used already. Relations back along the path, or used on it, are no option."""
    if relate is None:
        return Tables()
    # per relation type, not per edge: a hop reads thousands of edges of a few dozen types
    named = {t: w for t in {e.type for e in edges} if (w := compared_words(t, asked, hops)) is not None}
    if not named:
        return Tables()
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
            at = start.get(u)
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
        used = start[u].matched
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
    return Tables(out, kinds, again, strength, other, fit)
