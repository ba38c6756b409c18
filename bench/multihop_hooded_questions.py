"""The hooded corpus's questions (#28), phrased as a person writes them: of-chains ("the maker of
the instrument of Z"), relative clauses ("the town that X came from"), "whose" clauses folding two
hops, possessives on the start's name, wh-questions on the last hop, requests ("Can you find ...",
"Please name ..."), indirect questions ("I wonder ...", "Do you happen to know ..."), a fifth typed
all in lower case.

Chains are drawn by bench/corpus_world.py's `draw_questions`: each link stated, no page visited
twice, a multi-hop answer page sharing no content word with its question nor naming the start, no
page off the chain naming both ends, one question per start entity.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from bench.corpus_world import World, draw_questions
from bench.multihop_corpus import Doc, Question

# how a person names a relation's far end, given the near end's phrase {x}; "'s" forms only on a name
ASK: dict[str, list[str]] = {
    "born": ["the hometown of {x}", "the town {x} came from", "{x}'s home town", "the place that {x} grew up in"],
    "in": ["the town that is home to {x}", "the location of {x}", "{x}'s home town", "the town {x} operates from"],
    "region": ["the shire around {x}", "the county {x} is part of", "{x}'s shire", "the district containing {x}"],
    "founded": ["the creator of {x}", "the person who started {x}", "{x}'s creator", "the one behind the start of {x}"],
    "studied": ["the school {x} went to", "the college that taught {x}", "{x}'s old school", "the school of {x}"],
    "mentor": ["the tutor of {x}", "the astronomer who trained {x}", "{x}'s old master", "the master of {x}"],
    "discovered": ["the spotter of {x}", "the person who spotted {x}", "{x}'s spotter", "the one who spotted {x}"],
    "sighted": ["the station that spotted {x}", "the station where {x} was spotted", "{x}'s station"],
    "built": [
        "the firm behind {x}",
        "the company that manufactured {x}",
        "{x}'s manufacturer",
        "the firm that made {x}",
    ],
    "housed": ["the home of {x}", "the station that keeps {x}", "{x}'s home", "the place where {x} sits"],
    "designed": ["the inventor of {x}", "the person who devised {x}", "{x}'s inventor", "the mind behind {x}"],
    "cast": ["the maker of {x}", "the works that made {x}", "{x}'s maker", "the works that produced {x}"],
    "donated": ["the benefactor behind {x}", "the person who funded {x}", "{x}'s sponsor", "the sponsor of {x}"],
    "produced": ["the label behind {x}", "the winery behind {x}", "{x}'s winery", "the house that makes {x}"],
    "barrels": ["the supplier of barrels for {x}", "the stave maker for {x}", "{x}'s stave maker"],
    "vinified": ["the one who crafted {x}", "the vintner behind {x}", "{x}'s vintner", "the person who crafted {x}"],
    "director": ["the head of {x}", "the person who runs {x}", "{x}'s head", "the one in charge of {x}"],
}

# two hops told as one "whose" clause ("the town whose son spotted X")
WHOSE: dict[tuple[str, str], list[str]] = {
    ("discovered", "born"): ["the town whose son or daughter spotted {x}"],
    ("discovered", "mentor"): ["the astronomer whose pupil spotted {x}"],
    ("discovered", "studied"): ["the school whose former student spotted {x}"],
    ("sighted", "in"): ["the town whose station first spotted {x}"],
    ("built", "founded"): ["the person whose company manufactured {x}"],
    ("built", "in"): ["the town whose firm made {x}"],
    ("designed", "born"): ["the town whose son or daughter devised {x}"],
    ("cast", "founded"): ["the person whose works made {x}"],
    ("donated", "born"): ["the town whose son or daughter funded {x}"],
    ("produced", "in"): ["the town whose winery makes {x}"],
    ("produced", "founded"): ["the person whose winery makes {x}"],
    ("vinified", "born"): ["the town whose son or daughter crafted {x}"],
    ("barrels", "founded"): ["the person whose stave maker supplied {x}"],
}

# the last hop asked as a question of its own, {x} the rest of the chain
WHICH: dict[str, list[str]] = {
    "born": ["Which town did {x} come from?", "What town was the childhood home of {x}?"],
    "in": ["Which town is {x} in?", "Where does {x} operate?"],
    "region": ["Which shire is {x} part of?", "In what district is {x}?"],
    "founded": ["Who started {x}?", "Who created {x}?"],
    "studied": ["Which school did {x} go to?", "Where was {x} taught?"],
    "mentor": ["Who trained {x}?", "Who was {x}'s tutor?"],
    "discovered": ["Who spotted {x}?", "Who was the first to spot {x}?"],
    "sighted": ["From which station was {x} spotted?", "Where was {x} spotted?"],
    "built": ["Which company manufactured {x}?", "Which firm made {x}?"],
    "housed": ["Where does {x} sit?", "Which station keeps {x}?"],
    "designed": ["Who devised {x}?", "Who invented {x}?"],
    "cast": ["Which works made {x}?", "Who made {x}?"],
    "donated": ["Who funded {x}?", "Who sponsored {x}?"],
    "produced": ["Which winery makes {x}?", "Which house makes {x}?"],
    "barrels": ["Who supplied the staves for {x}?", "Which stave maker supplied {x}?"],
    "vinified": ["Who crafted {x}?", "Which vintner crafted {x}?"],
    "director": ["Who runs {x}?", "Who heads {x}?"],
}

# a one-hop control in the words people use for the relation itself (a multi-hop question's words
# must avoid its answer page's; a control's need not)
CONTROL: dict[str, list[str]] = {
    "born": ["Where was {x} born?", "In which town was {x} born?"],
    "in": ["Where does {x} have its seat?", "Which town is {x} based in?"],
    "discovered": ["Who discovered {x}?", "Which astronomer discovered {x}?"],
    "built": ["Which workshop built {x}?", "Who built {x}?"],
    "cast": ["Which foundry cast {x}?", "Where was {x} cast?"],
    "produced": ["Which estate produced {x}?", "Where was {x} produced?"],
    "studied": ["Where was {x} educated?", "Which college did {x} graduate from?"],
    "designed": ["Who designed {x}?", "Who drew up the design of {x}?"],
    "vinified": ["Which winemaker blended {x}?", "Who was the winemaker of {x}?"],
}

PERSON_ENDS = {"founded", "mentor", "discovered", "designed", "donated", "vinified", "director"}

ONE_HOP: list[tuple[str, ...]] = [
    (r,) for r in ["born", "in", "discovered", "built", "cast", "produced", "studied", "designed", "vinified"]
]
TWO_HOP: list[tuple[str, ...]] = [
    ("discovered", "born"), ("discovered", "mentor"), ("discovered", "studied"), ("sighted", "in"),
    ("sighted", "director"), ("sighted", "founded"), ("built", "founded"), ("built", "in"), ("designed", "born"),
    ("designed", "studied"), ("housed", "director"), ("housed", "in"), ("cast", "founded"), ("cast", "in"),
    ("donated", "born"), ("produced", "in"), ("produced", "founded"), ("barrels", "founded"), ("barrels", "in"),
    ("vinified", "born"), ("mentor", "born"), ("mentor", "studied"), ("director", "born"), ("director", "studied"),
    ("in", "region"), ("born", "region"), ("studied", "in"), ("founded", "born"), ("mentor", "mentor"),
    ("director", "mentor"),
]  # fmt: skip
THREE_HOP: list[tuple[str, ...]] = [
    ("discovered", "born", "region"), ("discovered", "mentor", "born"), ("discovered", "studied", "in"),
    ("sighted", "director", "born"), ("sighted", "in", "region"), ("sighted", "founded", "born"),
    ("built", "founded", "born"), ("built", "in", "region"), ("designed", "born", "region"),
    ("designed", "studied", "in"), ("housed", "director", "born"), ("housed", "in", "region"),
    ("cast", "founded", "born"), ("cast", "in", "region"), ("donated", "born", "region"),
    ("produced", "founded", "born"), ("produced", "in", "region"), ("barrels", "founded", "born"),
    ("barrels", "in", "region"), ("vinified", "born", "region"), ("mentor", "born", "region"),
    ("director", "born", "region"), ("director", "mentor", "born"), ("mentor", "studied", "in"),
    ("founded", "born", "region"), ("studied", "in", "region"), ("housed", "director", "studied"),
]  # fmt: skip


def _tail(form: str) -> bool:
    """Whether a form has words after the phrase it wraps ("the town {x} came from")."""
    return not re.search(r"\{x\}('s)?\W*$", form)


def _wrap(form: str, x: str) -> str:
    """`form` around `x`, a name ending in s taking a bare apostrophe ("Mumford & Sons' maker")."""
    return form.replace("{x}'s", "{x}'" if x.endswith("s") else "{x}'s").format(x=x)


def _np(pattern: tuple[str, ...], start: str, rng: random.Random) -> tuple[str, int]:
    """The chain's end as one noun phrase built outwards from the start's name, and how many forms
    with words after their phrase close it (never two together: "the county the town X operates
    from is part of" is not how people write; no form wraps one of the same opening)."""
    x, i, last, depth = start, 0, "", 0
    while i < len(pattern):
        pair = (pattern[i], pattern[i + 1]) if i + 1 < len(pattern) else None
        fused = WHOSE.get(pair) if pair else None
        form = rng.choice(fused) if fused and rng.random() < 0.35 else ""
        step = 2 if form else 1
        if not form:
            forms = [f for f in ASK[pattern[i]] if i == 0 or "{x}'s" not in f]
            fits = [f for f in forms if not (_tail(f) and depth)]  # no clause closing right on another
            fits = [f for f in fits if f.split("{")[0] != last] or fits
            form = rng.choice(fits or [f for f in forms if not _tail(f)])
        depth += _tail(form)  # a phrase ends with the words after it until another form closes them
        last = form.split("{")[0]
        x, i = _wrap(form, x), i + step
    return x, depth


def phrase(w: World, files: list[str], pattern: tuple[str, ...], rng: random.Random) -> str:
    """One way a person might ask for the end of `pattern`'s chain from its start."""
    start = w.ents[files[0]].title
    if len(pattern) == 1 and rng.random() < 0.6:
        return rng.choice(CONTROL[pattern[0]]).format(x=start)
    if rng.random() < 0.3:
        inner, depth = _np(pattern[:-1], start, rng)
        forms = [f for f in WHICH[pattern[-1]] if not (depth and _tail(f.rstrip("?")))]
        forms = [f for f in forms if "{x}'s" not in f or inner == start]
        if forms:
            return _wrap(rng.choice(forms), inner)
    np, depth = _np(pattern, start, rng)
    who = "Who" if pattern[-1] in PERSON_ENDS else "What"
    asks = [
        f"{who} is {np}?",
        f"Can you find {np}?",
        f"Please name {np}.",
        f"I wonder {who.lower()} {np} is.",
        f"Do you happen to know {np}?",
        f"{np}?",
        f"{np}",
        f"I need {np}.",
        f"Help me find {np}, please.",
    ]
    q = rng.choice([a for a in asks if not (depth and a.endswith(" is."))])  # "... operates from is."
    return q[0].upper() + q[1:] if q[0].islower() and rng.random() < 0.5 else q


def make_questions(
    w: World, docs: list[Doc], rng: random.Random, words: Callable[[str], set[str]]
) -> list[tuple[Question, list[str]]]:
    """36 one-hop controls, 90 two-hop and 48 three-hop questions with their chains' files."""
    plan = ((ONE_HOP, 36), (THREE_HOP, 48), (TWO_HOP, 90))
    return draw_questions(w, docs, rng, words, phrase, plan, lambda i: i % 5 == 3)
