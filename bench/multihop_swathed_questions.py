"""The swathed corpus's questions (#28), phrased as a person writes them: "the X of the Y of Z",
relative clauses ("the town where the founder of Z was born"), "whose" clauses folding two hops
("the town whose native composed Z"), possessives on the start's name, wh-questions on the last
hop ("Which label issued the album on which Z sings the lead?"), indirect questions and requests,
a fifth typed all in lower case.

Chains are drawn by bench/corpus_world.py's `draw_questions`: each link stated, no page visited
twice, a multi-hop answer page sharing no content word with its question nor naming the start, no
page off the chain naming both ends, and one question per start entity (controls first, on the
entities most pages name; then three-hop, then two-hop).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from bench.corpus_world import World, draw_questions
from bench.multihop_corpus import Doc, Question

# how a person names a relation's far end, given the near end's phrase {x}; "'s" forms only on a name
ASK: dict[str, list[str]] = {
    "born": ["the birthplace of {x}", "the town where {x} was born", "{x}'s hometown", "the place {x} hails from"],
    "in": ["the town where {x} is based", "the home of {x}", "{x}'s location", "the place where {x} operates"],
    "province": [
        "the province containing {x}",
        "the region {x} belongs to",
        "{x}'s county",
        "the district that includes {x}",
    ],
    "founded": ["the founder of {x}", "the person who established {x}", "{x}'s founder", "the one who set up {x}"],
    "composed": [
        "the composer of {x}",
        "the person who wrote the music for {x}",
        "{x}'s composer",
        "the musician who scored {x}",
    ],
    "premiered": [
        "the venue of {x}'s first night",
        "the theatre where {x} premiered",
        "the house that first staged {x}",
        "the stage on which {x} was first heard",
    ],
    "label": [
        "the label that issued {x}",
        "the record company behind {x}",
        "{x}'s label",
        "the company that released {x}",
    ],
    "soloist": [
        "the lead singer on {x}",
        "the voice in the title role of {x}",
        "{x}'s star soloist",
        "the vocalist featured on {x}",
    ],
    "of_opera": [
        "the work recorded on {x}",
        "the opera captured on {x}",
        "the piece performed on {x}",
        "the stage work heard on {x}",
    ],
    "studied": [
        "the conservatory {x} attended",
        "the music school where {x} trained",
        "{x}'s alma mater",
        "the academy where {x} studied",
        "the alma mater of {x}",
    ],
    "teacher": [
        "the teacher of {x}",
        "the singer who coached {x}",
        "{x}'s vocal coach",
        "the teacher who gave {x} lessons",
    ],
    "bred": ["the breeder of {x}", "the hybridiser who raised {x}", "{x}'s raiser", "the grower who selected {x}"],
    "introduced": [
        "the nursery that introduced {x}",
        "the firm that first sold {x}",
        "{x}'s introducer",
        "the business that brought {x} to market",
    ],
    "named_for": [
        "the person {x} is named after",
        "the namesake of {x}",
        "the singer honoured by {x}",
        "the artist commemorated in {x}",
    ],
    "curator": ["the curator of {x}", "the keeper of {x}", "the person in charge of {x}", "{x}'s head gardener"],
    "trained": [
        "the garden where {x} was apprenticed",
        "the place where {x} learned horticulture",
        "{x}'s training ground",
        "the institution that schooled {x} in gardening",
        "the institution that trained {x}",
    ],
    "made_by": ["the manufacturer of {x}", "the factory that made {x}", "the pottery behind {x}", "{x}'s maker"],
    "depicts": [
        "the flower painted on {x}",
        "the plant shown on {x}",
        "the bloom that decorates {x}",
        "{x}'s floral motif",
    ],
}

# two hops told as one "whose" clause ("the town whose native composed X"), as people often fold them
WHOSE: dict[tuple[str, str], list[str]] = {
    ("of_opera", "composed"): ["the composer whose opera is heard on {x}"],
    ("soloist", "teacher"): ["the singer whose pupil sings the lead on {x}"],
    ("bred", "trained"): ["the garden whose former apprentice raised {x}"],
    ("introduced", "founded"): ["the person whose firm introduced {x}"],
    ("label", "founded"): ["the person whose company released {x}"],
    ("made_by", "founded"): ["the person whose factory produced {x}"],
    ("premiered", "founded"): ["the person whose theatre first staged {x}"],
    ("composed", "born"): ["the town whose native composed {x}"],
    ("bred", "born"): ["the town whose native raised {x}"],
    ("soloist", "born"): ["the town whose native sings the lead on {x}"],
    ("premiered", "in"): ["the town whose theatre first staged {x}"],
    ("introduced", "in"): ["the town whose nursery introduced {x}"],
    ("made_by", "in"): ["the town whose pottery made {x}"],
    ("trained", "curator"): ["the person whose garden schooled {x}"],
}

# the last hop asked as a question of its own ("Which label issued X?"), {x} the rest of the chain
WHICH: dict[str, list[str]] = {
    "born": ["Which town was {x} born in?", "In what town was {x} born?"],
    "in": ["In which town is {x} based?", "Where is {x} located?"],
    "province": ["Which province is {x} in?", "In what province does {x} lie?"],
    "founded": ["Who founded {x}?", "Who started {x}?"],
    "composed": ["Who composed {x}?", "Who wrote the music of {x}?"],
    "premiered": ["At which theatre did {x} premiere?", "Where was {x} first staged?"],
    "label": ["Which label issued {x}?", "On what label did {x} come out?"],
    "soloist": ["Who sings the lead on {x}?", "Who takes the title role on {x}?"],
    "of_opera": ["Which opera is recorded on {x}?", "What work does {x} capture?"],
    "studied": ["Which conservatory did {x} attend?", "Where did {x} study music?"],
    "teacher": ["Who taught {x}?", "Who coached {x}?"],
    "bred": ["Who bred {x}?", "Who raised {x}?"],
    "introduced": ["Which nursery introduced {x}?", "Which firm first sold {x}?"],
    "named_for": ["After whom is {x} named?", "Who is {x} named after?"],
    "curator": ["Who looks after {x}?", "Who is in charge of {x}?"],
    "trained": ["Where was {x} apprenticed?", "Which garden trained {x}?"],
    "made_by": ["Which factory made {x}?", "Who manufactured {x}?"],
    "depicts": ["Which flower is painted on {x}?", "What plant decorates {x}?"],
}

PERSON_ENDS = {"founded", "composed", "soloist", "teacher", "bred", "named_for", "curator"}

ONE_HOP: list[tuple[str, ...]] = [
    (r,) for r in ["born", "in", "composed", "studied", "bred", "introduced", "label", "premiered", "made_by"]
]
TWO_HOP: list[tuple[str, ...]] = [
    ("composed", "born"), ("composed", "studied"), ("premiered", "in"), ("premiered", "founded"),
    ("label", "founded"), ("label", "in"), ("soloist", "born"), ("soloist", "teacher"), ("soloist", "studied"),
    ("of_opera", "composed"), ("of_opera", "premiered"), ("bred", "born"), ("bred", "trained"),
    ("introduced", "in"), ("introduced", "founded"), ("named_for", "born"), ("named_for", "studied"),
    ("curator", "born"), ("made_by", "in"), ("made_by", "founded"), ("depicts", "bred"), ("depicts", "introduced"),
    ("teacher", "born"), ("in", "province"), ("born", "province"), ("studied", "in"), ("trained", "in"),
    ("founded", "born"), ("teacher", "studied"), ("depicts", "named_for"), ("trained", "curator"),
]  # fmt: skip
THREE_HOP: list[tuple[str, ...]] = [
    ("of_opera", "composed", "born"), ("of_opera", "premiered", "in"), ("soloist", "teacher", "born"),
    ("label", "founded", "born"), ("premiered", "in", "province"), ("composed", "born", "province"),
    ("bred", "trained", "in"), ("introduced", "founded", "born"), ("depicts", "bred", "born"),
    ("depicts", "named_for", "born"), ("made_by", "founded", "born"), ("named_for", "teacher", "studied"),
    ("curator", "born", "province"), ("soloist", "studied", "in"), ("of_opera", "premiered", "founded"),
    ("introduced", "in", "province"), ("label", "in", "province"), ("depicts", "introduced", "in"),
    ("soloist", "teacher", "teacher"), ("curator", "trained", "in"), ("founded", "born", "province"),
    ("teacher", "born", "province"), ("trained", "curator", "born"), ("teacher", "studied", "in"),
    ("studied", "in", "province"),
]  # fmt: skip


def _tail(form: str) -> bool:
    """Whether a form has words after the phrase it wraps ("the town where {x} was born")."""
    return not re.search(r"\{x\}('s)?\W*$", form)


def _wrap(form: str, x: str) -> str:
    """`form` around `x`, a name ending in s taking a bare apostrophe ("Vilvova Nurseries' location")."""
    return form.replace("{x}'s", "{x}'" if x.endswith("s") else "{x}'s").format(x=x)


def _np(pattern: tuple[str, ...], start: str, rng: random.Random) -> tuple[str, int]:
    """The chain's end as one noun phrase built outwards from the start's name (the start itself
    for an empty pattern), and how many forms with words after their phrase close it. No such form
    wraps a phrase closed by one of the same opening ("the place where the place where ...
    operates") and at most two close a phrase together, as people write."""
    x, i, last, depth = start, 0, "", 0
    while i < len(pattern):
        fused = WHOSE.get(tuple(pattern[i : i + 2]))  # type: ignore[arg-type]
        form = rng.choice(fused) if fused and rng.random() < 0.3 else ""
        if not form:
            forms = [f for f in ASK[pattern[i]] if i == 0 or "{x}'s" not in f]
            fits = [f for f in forms if not (_tail(f) and depth and (depth >= 2 or f.split("{")[0] == last))]
            form = rng.choice(fits or [f for f in forms if not _tail(f)])
        depth = depth + 1 if _tail(form) else 0
        last = form.split("{")[0]
        x, i = _wrap(form, x), i + (2 if form in WHOSE.get(tuple(pattern[i : i + 2]), []) else 1)  # type: ignore[arg-type]
    return x, depth


def phrase(w: World, files: list[str], pattern: tuple[str, ...], rng: random.Random) -> str:
    """One way a person might ask for the end of `pattern`'s chain from its start."""
    start = w.ents[files[0]].title
    if rng.random() < 0.3:
        inner, depth = _np(pattern[:-1], start, rng)
        forms = [f for f in WHICH[pattern[-1]] if depth < 2 or not _tail(f.rstrip("?"))]
        if forms:
            return rng.choice(forms).format(x=inner)
    np, _depth = _np(pattern, start, rng)
    who = "Who" if pattern[-1] in PERSON_ENDS else "What"
    asks = [
        f"{who} is {np}?",
        f"{np}?",
        f"Name {np}.",
        f"I'm looking for {np}.",
        f"Could you tell me {np}?",
        f"do you know {np}",
        f"{np}",
        f"Find {np}.",
        f"I'd like to know {np}, please.",
    ]
    q = rng.choice(asks)
    return q[0].upper() + q[1:] if q[0].islower() and rng.random() < 0.5 else q


def make_questions(
    w: World, docs: list[Doc], rng: random.Random, words: Callable[[str], set[str]]
) -> list[tuple[Question, list[str]]]:
    """36 one-hop controls, 90 two-hop and 48 three-hop questions with their chains' files."""
    plan = ((ONE_HOP, 36), (THREE_HOP, 48), (TWO_HOP, 90))
    return draw_questions(w, docs, rng, words, phrase, plan, lambda i: i % 5 == 2, controls_by_fame=True)
