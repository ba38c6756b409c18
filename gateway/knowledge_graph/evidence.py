"""How well each step of a completed chain states its own hop of the question (#28, the `kg`
ranker's tied completions).

The walk (`walk.py`) takes a phrase relation as a step when it is the likest, *at its entity*, to
what the question still asks (`walk_step.PHRASE_STEP` times its share of that entity's best, and at
least `walk_step.WEAK_MIN` like it since session 14): most entities have some likest phrase, so a
chain of passing mentions ("~ran on the", "~stampa by", a listing's caption) completes as surely as
the chain the question describes, and three-hop questions end with several entities completing at
the same or nearly the same weight. On the spent corpora most three-hop misses with tied completions
had the answer completing the chain below (or level with) a wrong completer whose steps were each
the best of a poor lot (docs/ARCHITECTURE.md "Step evidence").

What tells them apart is read from the question, not from the entity: each step's relation words
against the question's relation words *for that hop* (`Likeness.fits`, innermost first; 1 for a
shared stem, the asked type's words for a hop whose cue placed it). A completed path's weight gain
is multiplied by the product of its steps' fits (each `FLOOR` at least, a negative cosine too: it is
the least like, not no measure); a step at a hop the question names no word or type for
(`Likeness.named`: the same for every completer) passes unchanged. If a step's words have no vector
(evicted from the cache mid-query) the completers cannot be compared fairly, and the question is left
as `specific.py` left it: counted 1 that step would be the best fit there is, counted `FLOOR` the
worst, both for no reason in the text. Only entities that complete the chain are touched, and only
their gain over the best potential of the paths completing fewer steps (as `specific.py` does), so a
completer above the best unfinished path stays above it. Read from the walk's result and the vectors
the walk embedded already: no graph read, no embedding.

Relative to the best-stated completer, which keeps its weight: the product itself (two or three
cosines, 0.05 to 0.3) sank every completer toward the unfinished paths, and the graph signal with
it (veiled three-hop 16 -> 11 top-10 hits). Its square root rather than the ratio itself: on the
eight spent corpora together the ratio added 13 top-10 hits and lost blind two, the root added 20
and lost no corpus (MRR@10 up on every one either way): a mildly fitted two-way choice that only
unseen corpora confirm (docs/ARCHITECTURE.md "Step evidence").
"""

from __future__ import annotations

import math

import numpy as np

from gateway.knowledge_graph.extract import PHRASE
from gateway.knowledge_graph.phrases import Likeness
from gateway.knowledge_graph.walk import Reached

FLOOR = 0.05  # a step's fit is never taken as less: a cosine near 0 is "unlike", not "impossible"


def evidenced(reached: dict[str, Reached], relate: Likeness | None, hops: int) -> dict[str, Reached]:
    """`reached` with each entity completing the chain (all `hops` matched) reweighed by how well
    its steps state their hops (`_fit`); every other entity unchanged. Nothing to weigh by without
    likeness (`relate` None) or on a one-hop question (its one step is the question's relation)."""
    if relate is None or hops < 2 or not relate.hop_count:
        return reached
    done = [e for e, r in reached.items() if len(r.matched) >= hops]
    if len(done) < 2:
        return reached
    floor = max((r.potential() for r in reached.values() if len(r.matched) < hops), default=0.0)
    steps: dict[str, list[tuple[str, int]]] = {}
    for e in done:
        steps[e] = _steps(reached[e])
    words = sorted({w for path in steps.values() for w, _ in path})
    known, table = relate.table(words)
    if len(known) < len(words):
        return reached  # a step with no vector: no fair comparison (module docstring)
    fits = relate.fits(known, table)
    if not fits:
        return reached  # the question's own words not all embedded: nothing to weigh by
    fit = {e: _fit(steps[e], fits, relate) for e in done}
    best = max(fit.values())
    out = dict(reached)
    for e in done:
        # relative (the best-stated completer keeps its weight), square-rooted: `_fit` multiplies two
        # or three cosines, a wider spread than the walk's own step weights (measured below)
        r, g = reached[e], math.sqrt(fit[e] / best)
        was = r.potential()
        if g >= 1.0 or was <= 0.0:
            continue
        now = was * g if was <= floor else floor + (was - floor) * g
        out[e] = Reached(r.base * now / was, r.hops, r.matched, r.via, r.into, r.trail, r.prior, r.fan)
    return out


def _fit(steps: list[tuple[str, int]], fits: dict[str, np.ndarray], relate: Likeness) -> float:
    """The product of a path's steps' fits to their hops, each `FLOOR` at least (a negative cosine
    too); a step at a hop the question names nothing for (`Likeness.named`) counts 1."""
    g = 1.0
    for w, hop in steps:
        if not relate.named(hop):
            continue
        g *= max(float(fits[w][hop]), FLOOR)
    return g


def _steps(r: Reached) -> list[tuple[str, int]]:
    """The words of each step of `r`'s path that matched a relation (a phrase's own, a type's name
    as words) with the hop it was taken at (its prior path's hop count), read back along `prior`."""
    out: list[tuple[str, int]] = []
    at: Reached | None = r
    while at is not None and at.prior is not None:
        for m in at.matched - at.prior.matched:
            out.append((m if m.startswith(PHRASE) else PHRASE + m.replace("_", " "), at.prior.hops))
        at = at.prior
    return out
