"""The hushed corpus's questions (#28), typed as users type them: questions, instructions,
possessive chains and bare noun phrases, each relation named by words mostly not the pages' own,
a fifth all in lower case (names too).

Chains are drawn by bench/corpus_world.py's `question_pools` and `draw`: each link stated, no page
visited twice, a multi-hop answer page sharing no content word with its question nor naming the
start, and no page off the chain naming both ends. Here also: the start's page does not name the
answer, and a start entity begins one question only (the controls drawn first, on the entities
most pages name; then the three-hop questions, then the two-hop).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.corpus_world import World, draw_questions
from bench.multihop_corpus import Doc, Question

# what a user might call the far end of each relation (mostly not the pages' words)
NOUN: dict[str, list[str]] = {
    "born": ["birthplace", "hometown", "native town", "town of origin", "place of birth"],
    "in": ["location", "home town", "seat", "base town", "city"],
    "region": ["region", "province", "county", "district", "area"],
    "maker": ["manufacturer", "maker", "builder", "constructor", "airframer", "plane maker"],
    "first_flight": ["maiden-flight pilot", "first pilot", "first aviator", "debut pilot"],  # not "test pilot":
    # the maker's chief test pilot would fit that too
    "chief_pilot": ["employer", "aircraft firm", "test-flying employer", "plane company"],
    "flying_school": ["flight academy", "flying school", "aviation academy", "flight training school"],
    "hub": ["hub", "home airport", "main airport", "base airport"],
    "fleet": ["flagship plane", "main aircraft", "workhorse plane", "aircraft type", "airliner"],
    "founded": ["founder", "creator", "originator", "founding figure"],
    "works": ["hospital", "workplace", "clinic", "employer"],
    "studied": ["medical school", "alma mater", "training school", "faculty"],
    "mentor": ["mentor", "teacher", "supervisor", "old boss", "master"],
    "directs": ["director", "head", "chief", "boss"],
    "partner": ["research partner", "partner institute", "affiliated lab", "research institute"],
    "air_ambulance": ["air ambulance operator", "medevac airline", "rescue airline", "air ambulance carrier"],
}

# controls end on pages naming many entities (towns, hospitals, schools, makers), as a real question's answer does
ONE_HOP: list[tuple[str, ...]] = [
    (r,) for r in ["born", "in", "maker", "works", "studied", "flying_school", "region", "hub"]
]
TWO_HOP: list[tuple[str, ...]] = [
    ("maker", "in"), ("maker", "founded"), ("first_flight", "born"), ("first_flight", "flying_school"),
    ("first_flight", "chief_pilot"), ("flying_school", "in"), ("chief_pilot", "in"), ("hub", "in"),
    ("fleet", "maker"), ("fleet", "first_flight"), ("founded", "born"), ("works", "in"), ("works", "partner"),
    ("works", "founded"), ("studied", "in"), ("mentor", "works"), ("mentor", "studied"), ("mentor", "born"),
    ("directs", "works"), ("directs", "studied"), ("directs", "mentor"), ("partner", "directs"),
    ("air_ambulance", "hub"), ("air_ambulance", "fleet"), ("in", "region"), ("born", "region"),
]  # fmt: skip
THREE_HOP: list[tuple[str, ...]] = [
    ("fleet", "maker", "in"), ("fleet", "maker", "founded"), ("fleet", "first_flight", "born"),
    ("hub", "in", "region"), ("maker", "in", "region"), ("first_flight", "flying_school", "in"),
    ("mentor", "works", "in"), ("directs", "works", "in"), ("partner", "directs", "studied"),
    ("air_ambulance", "hub", "in"), ("air_ambulance", "fleet", "maker"), ("works", "founded", "born"),
    ("studied", "in", "region"), ("founded", "born", "region"), ("mentor", "studied", "in"),
    ("chief_pilot", "founded", "born"), ("mentor", "mentor", "works"), ("first_flight", "born", "region"),
]  # fmt: skip


# a surgeon who directs an institute has two employers and two workplaces: name the hospital as one
DIRECTOR_WORKS = ["hospital", "clinic"]


def phrase(w: World, files: list[str], pattern: tuple[str, ...], rng: random.Random) -> str:
    """One way a user might ask for the end of `pattern`'s chain from its start."""
    start = w.ents[files[0]].title
    directors = set(w.link.get("directs", {}).values())
    nouns = [
        rng.choice(DIRECTOR_WORKS if r == "works" and f in directors else NOUN[r])
        for r, f in zip(pattern, files, strict=False)
    ]
    person = w.ents[files[-1]].kind == "person"
    poss = start + "".join(f"'s {n}" for n in nouns)
    of = " of ".join(f"the {n}" for n in reversed(nouns)) + f" of {start}"
    mixed = f"the {nouns[-1]} of {start}" + "".join(f"'s {n}" for n in nouns[:-1])
    asks = [
        f"{poss}?",
        f"{poss}",
        f"{'who' if person else 'what'} is {of}?",
        f"{'who' if person else 'which one'} is {mixed}",
        f"find {of}",
        f"tell me {poss}",
        f"look up {mixed}",
        f"{start} {' '.join(nouns)}",
        f"i need {of}",
        f"any idea {'who' if person else 'what'} {of} is?",
    ]
    return rng.choice(asks)


def make_questions(
    w: World, docs: list[Doc], rng: random.Random, words: Callable[[str], set[str]]
) -> list[tuple[Question, list[str]]]:
    """36 one-hop controls, 90 two-hop and 48 three-hop questions with their chains' files."""
    plan = ((ONE_HOP, 36), (THREE_HOP, 48), (TWO_HOP, 90))
    return draw_questions(w, docs, rng, words, phrase, plan, lambda i: i % 5 == 2, controls_by_fame=True)
