"""The shrouded corpus's questions (#28), as users type them: questions, "find"/"tell me"
instructions, possessive chains, bare noun phrases and relative clauses ("the town where the person
who started X was born"), each relation named by words mostly not the pages' own, a tenth all in
lower case (names too).

Chains are drawn by bench/corpus_world.py's `question_pools` and `draw`: each link stated, no page
visited twice, a multi-hop answer page sharing no content word with its question nor naming the
start, and no page off the chain naming both ends. Here also: the start's page does not name the
answer, no start is a name a namesake's page bears, and a start begins one question only.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.corpus_world import World, draw_questions
from bench.multihop_corpus import Doc, Question

# what a user might call the far end of each relation
NOUN: dict[str, list[str]] = {
    "born": ["birthplace", "hometown", "town of origin", "native town", "place of birth"],
    "in": ["town", "location", "base", "home town", "city"],
    "region": ["region", "county", "district", "province"],
    "range": ["range", "mountain chain", "massif", "sierra"],
    "first_ascent": ["pioneer guide", "summit guide", "first-ascent leader", "ascent leader"],
    "surveyed": ["surveyor", "mapper", "map-maker", "measurer"],
    "employer": ["employer", "map firm", "publisher", "boss firm"],
    "club": ["club", "climbing society", "alpine society", "association"],
    "hut_peak": ["mountain", "peak", "overlooking peak"],
    "hut_club": ["owning club", "operator", "keeping club", "running club"],
    "founded": ["founder", "creator", "originator", "founding figure"],
    "woven": ["mill", "weaver", "maker", "manufacturer"],
    "trained": ["school", "alma mater", "college", "training college"],
    "house": ["label", "fashion brand", "brand", "couture employer"],
    "designed": ["designer", "creator", "author", "couturier"],
    "fabric": ["cloth", "fabric", "material", "textile"],
}

# the far end described from the near end's description {x}
CLAUSE: dict[str, list[str]] = {
    "born": ["the town where {x} was born", "the place {x} came from"],
    "in": ["the town {x} is in", "the town where {x} sits"],
    "region": ["the region {x} is part of", "the county containing {x}"],
    "range": ["the range {x} belongs to", "the mountain chain {x} is part of"],
    "first_ascent": ["the guide who led the first climb of {x}", "whoever led the first climb of {x}"],
    "surveyed": ["whoever first mapped {x}", "the person who measured {x}"],
    "employer": ["the firm {x} drew maps for", "the company that employed {x}"],
    "club": ["the club {x} belonged to", "the society {x} was in"],
    "hut_peak": ["the mountain above {x}", "the summit {x} serves"],
    "hut_club": ["the club that keeps {x}", "the society operating {x}"],
    "founded": ["the person who started {x}", "whoever set up {x}"],
    "woven": ["the mill that makes {x}", "the firm weaving {x}"],
    "trained": ["the school {x} attended", "the college {x} went to"],
    "house": ["the label {x} worked for", "the brand that employed {x}"],
    "designed": ["the designer behind {x}", "whoever designed {x}"],
    "fabric": ["the cloth {x} is made of", "the material of {x}"],
}

ONE_HOP: list[tuple[str, ...]] = [(r,) for r in ["born", "in", "range", "woven", "trained", "house", "club", "region"]]
TWO_HOP: list[tuple[str, ...]] = [
    ("first_ascent", "born"), ("first_ascent", "club"), ("surveyed", "born"), ("surveyed", "employer"),
    ("employer", "in"), ("employer", "founded"), ("club", "in"), ("club", "founded"), ("hut_peak", "range"),
    ("hut_peak", "first_ascent"), ("hut_peak", "surveyed"), ("hut_club", "in"), ("hut_club", "founded"),
    ("founded", "born"), ("woven", "in"), ("woven", "founded"), ("trained", "in"), ("house", "in"),
    ("house", "founded"), ("designed", "born"), ("designed", "trained"), ("designed", "house"),
    ("fabric", "woven"), ("in", "region"), ("born", "region"),
]  # fmt: skip
THREE_HOP: list[tuple[str, ...]] = [
    ("first_ascent", "born", "region"), ("first_ascent", "club", "in"), ("first_ascent", "club", "founded"),
    ("surveyed", "employer", "in"), ("surveyed", "employer", "founded"), ("hut_peak", "first_ascent", "born"),
    ("hut_peak", "surveyed", "employer"), ("hut_club", "founded", "born"), ("hut_club", "in", "region"),
    ("woven", "founded", "born"), ("woven", "in", "region"), ("fabric", "woven", "in"),
    ("fabric", "woven", "founded"), ("designed", "trained", "in"), ("designed", "house", "founded"),
    ("designed", "house", "in"), ("designed", "born", "region"), ("house", "founded", "born"),
    ("employer", "founded", "born"), ("club", "founded", "born"), ("hut_peak", "first_ascent", "club"),
]  # fmt: skip


def phrase(w: World, files: list[str], pattern: tuple[str, ...], rng: random.Random) -> str:
    """One way a user might ask for the end of `pattern`'s chain from its start."""
    start = w.ents[files[0]].title
    nouns = [rng.choice(NOUN[r]) for r in pattern]
    person = w.ents[files[-1]].kind == "person"
    poss = start + "".join(f"'s {n}" for n in nouns)
    of = " of ".join(f"the {n}" for n in reversed(nouns)) + f" of {start}"
    clause = start
    for r in pattern:
        clause = rng.choice(CLAUSE[r]).format(x=clause)
    asks = [
        f"{poss}?",
        poss,
        f"{'who' if person else 'what'} is {of}?",
        f"find {of}",
        f"tell me {poss}",
        f"show me {clause}",
        f"{clause}?",
        f"{start} {' '.join(nouns)}",
        f"look up {clause}",
        f"{'who' if person else 'what'} is {clause}?" if not clause.startswith("whoever") else f"{clause}?",
        f"i need {of}",
    ]
    return rng.choice(asks)


def make_questions(
    w: World, docs: list[Doc], rng: random.Random, words: Callable[[str], set[str]]
) -> list[tuple[Question, list[str]]]:
    """36 one-hop controls, 90 two-hop and 48 three-hop questions with their chains' files."""
    plan = ((ONE_HOP, 36), (THREE_HOP, 48), (TWO_HOP, 90))
    return draw_questions(w, docs, rng, words, phrase, plan, lambda i: i % 10 == 3)
