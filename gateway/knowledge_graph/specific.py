"""How specific each step of the walk's paths is: a step an entity takes to many others at once
says less about each of them (#28, the `kg` ranker's tied completions).

The walk (`walk.py`) weighs a path by its steps' kinds alone, so every path that takes the same
kinds of step scores the same: "Who set up the owner of X?" read along "X ~publisher Y" reaches
every book X published, each one's founder then completing the chain at exactly the weight of the
one path through X's parent company. Ties like these (draped: 45 of 109 walked questions with two
or more entities completing the chain at the best weight, kg 11 to 22 % against two-hop expansion's
22 to 33 % on them) are decided by the vector and keyword signals, which know nothing of the chain.

The graph already says which step is the specific one: a question asks for *the* owner, *the*
agent; an entity from which one phrase step leads to one other entity names it, while one from
which the same phrase leads to twelve ("about ~the author" of every book a page lists) names none
of them in particular. So each phrase step's weight is divided as the question entities' are by
their spread (`share`, the ranker's seed weight): times 1 / (1 + ln n), n the entities the path
the step extended stepped to by the same phrase (`Reached.fan`, recorded by the walk as it takes
each step, whether the step won its entity or lost it to a better path): what that path did, not
what the walk still holds at the end. Counted over the paths the walk kept (each entity's best and
the paths those extended), an edge far from an entity changed its factor: a sibling reached by the
same phrase and later given a better path counted only while a child of its old path survived (#28
session 13 review); counted as the walk steps, kg multi-hop muffled 0.408 -> 0.411, draped 0.297 -> 0.301,
blind 77.8 % / 0.355 -> 78.5 % / 0.357, the five other spent corpora unchanged. A path's factor
is the product over its steps, read back along `prior`, the
path each step extended: not the parent's best path when the walk ends, which can be another (the
walk may give the parent a better path later, in the same hop even; read through `via`, such a
child got no factor at all). Only phrase relations (`~words`, taken by likeness): a step that
matched a type (a pattern type, or a phrase standing for an asked one: "the founder" ->
`founded_by`) is the question's own relation, and a hospital's two founders are
both its founders; divided for typed steps too, the rule cost held-out a multi-hop answer and
MRR@10 0.419 -> 0.398 (the founders of one infirmary fell below a wrong phrase path), phrase
steps alone raised it to 0.446 (docs/ARCHITECTURE.md). Nor is a phrase that shares a stem with one
of the question's own relation words for the hop it is taken at (`hops.hop_plan`, innermost first;
compared by `phrases.stem`): it is the relation the question names, as an asked type is. "Where was
the pupil of Hedda Moor raised?" read along her list "Pupils:" reaches each pupil, and every one is
a pupil the question asks for; divided by two, the path along "Moor studied under Aksel Brun", a
phrase only *like* "pupil" (her teacher, the wrong way round), ranked first. Fan-out says a phrase
is vague about which entity it leads to only when the phrase is not the question's own word there.
Only the hop's own words, and only forward, from the phrase's subject to its object (as
"Pupils:" leads from Moor to each pupil): a word of another hop ("director" for the region of a
director's hometown) or of a name typed in lower case says nothing of this step, and the phrase
taken backwards (from the island where many "spent her childhood" to each of them, for "where did
the mentor spend their childhood?") leads to the many its object is the one of. Read from the
walk's result and the question's words only: no graph read, no constant tuned on a corpus (the
form is the seeds' own hub weight).

Not on one-hop questions (their one step is the question's own relation), and only among paths
that matched as many steps: the walk promises that a path completing one more step beats a
shorter one, so only a path's gain over the best potential of the paths that matched fewer steps
is divided (divided whole, S -p1-> M -p2-> A1, A2, A3 put M above every Ai). Applied after the
walk, not inside it: an entity reached at the same potential two ways keeps the first (the walk
reads its edges sorted, the same on every graph store), and one reached by a typed and a phrase
path keeps whichever won before the division (left: #28 session 11 review; deciding that inside
the walk, by each path's product of shares, was tried in session 12 and measured no better:
docs/ARCHITECTURE.md, "Three-hop chains").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from gateway.knowledge_graph.extract import PHRASE
from gateway.knowledge_graph.phrases import stem
from gateway.knowledge_graph.walk import Reached


def share(n: int) -> float:
    """One of `n` (a step to one of `n` entities by the same phrase; a question entity named in `n`
    files, `ranker`'s seed weight): 1 / (1 + ln n)."""
    return 1.0 / (1.0 + math.log(max(n, 1)))


def specific(reached: dict[str, Reached], hop_words: Sequence[Sequence[str]], hops: int) -> dict[str, Reached]:
    """`reached` with each entity's path weight times its phrase steps' shares (`share`); a step of
    an asked type, a phrase sharing a stem with one of the question's relation words for its hop
    (`hop_words`, innermost first), or a hop that matched no step (an unasked relation, a
    co-occurrence), passes its parent's factor on unchanged, and the question's own entities (no
    parent) are unchanged. A one-hop question (`hops` 1) is unchanged: its one step is the
    question's own relation, and two entities it leads to are both answers.

    Only entities that matched the same number of steps are reordered: a path above the best
    potential of the paths that matched fewer steps (`floor`) has only what it gains over that
    floor divided, so a chain completing one more step still beats its unfinished prefix, as the
    walk promises (`walk.py`: S -p1-> M, M -p2-> A1, A2, A3 divided whole put M above every Ai)."""
    if hops < 2:
        return reached
    own = [{stem(w) for w in words} for words in hop_words]
    # every path the result rests on: each entity's best one and the paths they extended (`prior`:
    # an entity's best path can change after a child took it, and the child's factor is its own
    # prefix's)
    kept: dict[int, Reached] = {}
    for r in reached.values():
        at: Reached | None = r
        while at is not None and id(at) not in kept:
            kept[id(at)] = at
            at = at.prior
    factors: dict[int, float] = {}
    for i in sorted(kept, key=lambda i: kept[i].hops):  # a prior path (one hop fewer) comes first
        r, key = kept[i], _step(kept[i], own)
        up = factors[id(r.prior)] if r.prior is not None else 1.0
        factors[i] = up * (share(len(r.fan.get(key, ()))) if key is not None else 1.0)
    out: dict[str, Reached] = {}
    floor = 0.0
    for tier in sorted({len(r.matched) for r in reached.values()}):
        members = [e for e, r in reached.items() if len(r.matched) == tier]
        for e in members:
            r, f = reached[e], factors[id(reached[e])]
            was = r.potential()
            now = was * f if was <= floor else floor + (was - floor) * f
            out[e] = (
                r
                if now == was
                else Reached(r.base * now / was, r.hops, r.matched, r.via, r.into, r.trail, r.prior, r.fan)
            )
        floor = max([floor, *(out[e].potential() for e in members)])
    return out


def _step(r: Reached, own: list[set[str]]) -> frozenset[str] | None:
    """The phrase of `r`'s last step (what it matched beyond its `prior` path) when it is one a
    fan-out divides (`_phrase`)."""
    parent = r.prior
    if parent is None or not _phrase(step := r.matched - parent.matched, own, parent.hops, r.into):
        return None
    return step


def _phrase(step: frozenset[str], own: list[set[str]], hop: int, into: bool) -> bool:
    """A step along a phrase relation (`~words`, matched by likeness), not a type the wording asked
    for nor a phrase naming one of the question's relation words for hop `hop` (`own`: their stems)
    taken forward, from the phrase's subject to its object (`into`)."""
    words = own[hop] if into and hop < len(own) else set()
    return bool(step) and all(m.startswith(PHRASE) and not words & {stem(t) for t in m[1:].split()} for m in step)
