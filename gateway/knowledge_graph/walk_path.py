"""A path of the relation-aware walk (`walk.py`, #28): the entity it reached, its weight, and what it
took to get there.

A path is worth `potential()`: its weight times `STEP_GAIN` for each relation of the question's
chain it matched, so completing one more step beats being one hop closer (x 2 before: a half-finished
chain's first page then scored within a few per cent of the answer).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

STEP_GAIN = 3  # a path is worth this much more for each step of the chain it completes


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
    # (not compared nor hashed: two paths are equal by their own fields, not by a chain of priors)
    prior: Reached | None = field(default=None, repr=False, compare=False, hash=False)
    # the entities `prior` stepped to, per the steps they matched (`matched - prior.matched`), each
    # step the walk took from it, whether or not it won: shared by every path that extended `prior`,
    # and complete when the hop that extended it ends (`specific.py`'s fan-out)
    fan: Mapping[frozenset[str], set[str]] = field(default_factory=dict, repr=False, compare=False, hash=False)

    def potential(self) -> float:
        return self.base * (STEP_GAIN ** len(self.matched))
