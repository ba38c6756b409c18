"""The next entity's kind as a second likeness of a walk's phrase step (#28, `walk_step.py`).

A question names a hop of its chain by the kind of entity the hop reaches as often as by the
relation ("Traestis Worsted's mill's city": the mill), and a phrase link often says neither: stored
from the far end's page ("Zervik Mills ~include Traestis Worsted") and walked backwards, its label
says what the source does, not what the target is to it. A name of several words mostly ends on its
kind ("Zervik Mills", "Brylvane Mountaineering Club"): that last word (the name's head), compared
with the hop's words like a relation's own words (`Likeness.fits`: cosine, 1 for a shared stem),
lets the step count as the hop when its label does not. A one-word name ("Klolvberg") has no head
to read, nor has a person's name a kind in it (a surname is like no question word).

Read per distinct head, not per edge: one embedding batch per walk hop for the heads not seen yet.
"""

from __future__ import annotations

import numpy as np

from gateway.knowledge_graph.extract import PHRASE
from gateway.knowledge_graph.phrases import Likeness as Relate
from gateway.knowledge_graph.walk_path import Reached
from storage.graph import Edge

HEAD_LETTERS = 3  # a shorter last word ("co", "st") is an abbreviation, no kind to compare


def head(entity: str) -> str | None:
    """The last word of a name of several words, when a word of letters ("zervik mills" -> "mills")."""
    words = entity.split()
    last = words[-1] if len(words) > 1 else ""
    return last if len(last) >= HEAD_LETTERS and last.isalpha() else None


async def head_fits(
    edges: list[Edge], inside: set[str], start: dict[str, Reached], relate: Relate
) -> dict[str, np.ndarray]:
    """Per entity a frontier entity's phrase relation leads to, its name's head's likeness to each
    hop's words (`Likeness.fits`, innermost first); entities without a head are left out."""
    heads: dict[str, str] = {}
    for e in edges:
        if not e.type.startswith(PHRASE):
            continue
        for u, v in ((e.source, e.target), (e.target, e.source)):
            if u in inside and u in start and v not in heads and (h := head(v)) is not None:
                heads[v] = PHRASE + h
    if not heads or not relate.hop_count:
        return {}
    words = sorted(set(heads.values()))
    await relate.kinds(words)  # embeds the heads not known yet (one batch)
    known, table = relate.table(words)
    fits = relate.fits(known, table) if known else {}
    return {v: fits[h] for v, h in heads.items() if h in fits}
