"""Which hop of the question's chain each of its relation words and asked types belongs to (#28).

The walk credits a relation only for its own hop: at the k-th hop from the question's entity an
edge is judged against the k-th relation of the chain (innermost first, `question.hop_words`), not
against any word of the question. Without that, a wrong path "matched" as many relations as the
chain: the first hop took the type the question asks for at the second ("born" in "In which town
was the founder of X born?" credited to a biography reached in one hop from X). The nesting is the
question's grammar (`question.hop_words`, `question_parse`); this module only places the pattern
types the wording asks for (`patterns.cues`) in those hops, by the hop whose clause holds the cue's
first word. Nothing here names a relation word.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from gateway.knowledge_graph.patterns import CUES
from gateway.knowledge_graph.question import TOKEN, as_question, hop_groups, relation_words

if TYPE_CHECKING:
    from gateway.knowledge_graph.phrases import Likeness

HOP_OWN = 0.9  # a relation this like its hop, relative to its likest later hop, may be its hop's step
HOP_MIN = 0.5  # a relation less like every later hop than this is no later hop's


@dataclass(frozen=True, slots=True)
class HopPlan:
    """Per hop (innermost first), the question's relation words naming it; per asked pattern type
    whose cue stands in exactly one hop's clause, that hop."""

    words: list[list[str]] = field(default_factory=list)
    types: dict[str, int] = field(default_factory=dict)


CACHED_QUERY_CHARS = 2_000
"""Longer queries are planned afresh each time, so a tenant's huge queries cannot fill the cache."""


def hop_plan(query: str) -> HopPlan:
    """The question's relation words by hop and the hop of each asked type it can place (a type cued
    in two clauses, or by a word no clause holds, is placed in none: any hop may take it). Pure, and
    read twice per walked question (the walk's `Likeness` and `specific`): kept for the last 1,024
    questions of at most `CACHED_QUERY_CHARS`; callers only read the plan (its lists are shared)."""
    return _cached_plan(query) if len(query) <= CACHED_QUERY_CHARS else _plan(query)


@lru_cache(maxsize=1024)
def _cached_plan(query: str) -> HopPlan:
    return _plan(query)


def _plan(query: str) -> HopPlan:
    query = as_question(query)
    groups = hop_groups(query)  # one per step, the outer clauses merged as `hop_words` has them
    if not groups:
        return HopPlan()
    allowed = set(relation_words(query))
    words = [[w for w in group if w in allowed] for group in groups]  # `hop_words`, from the same read
    types: dict[str, int] = {}
    for kind, regex in CUES.items():
        where: set[int] = set()
        for m in regex.finditer(query):
            first = TOKEN.findall(m.group(0))
            if not first:
                continue
            token = first[0].lower()
            where |= {i for i, g in enumerate(groups) if token in g}
            if not any(token in g for g in groups):
                where.add(-1)
        if len(where) == 1 and -1 not in where:
            types[kind] = where.pop()
    return HopPlan(words, types)


def own(relate: Likeness | None, fit: np.ndarray | None, k: int) -> bool:
    """Whether a relation's words may be the step of the chain's hop `k` (innermost first): not when
    they are plainly a later hop's (`fit`: their likeness to each hop's words and the asked types
    placed in it; a later hop's at least `HOP_MIN`, hop `k`'s less than `HOP_OWN` of it). The hops
    before `k` are the path's already; a hop beyond those the grammar read is not judged. Only
    plain cases are judged: one word's cosine says little, and a relation's true hop is often no
    likelier than another ("served as mate under" for "mentor")."""
    if relate is None or k >= relate.hop_count:
        return True
    if fit is None:
        return True
    ahead = float(fit[k + 1 :].max(initial=0.0))  # the hops still to come; those before are the path's
    return ahead < HOP_MIN or float(fit[k]) >= HOP_OWN * ahead


def own_type(relate: Likeness | None, kind: str, k: int, fit: np.ndarray | None = None) -> bool:
    """Whether an asked pattern type (or a phrase standing for it, `fit` its words' likeness to the
    hops) may be the step of hop `k`: the hop its cue stands in, when the question placed it."""
    placed = relate.hop_types.get(kind) if relate is not None and k < relate.hop_count else None
    if placed is not None:
        return placed <= k  # a later hop's type is no step yet
    return own(relate, fit, k)  # (which judges no hop beyond those the grammar read)
