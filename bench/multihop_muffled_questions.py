"""Questions of the muffled multi-hop corpus (bench/multihop_muffled.py), as people type them.

A chain is a start entity and one to three relations. Its question names the start and describes
each further step by a noun phrase ("the club X plays for", "X's mentor's hometown", "the firm
that backs X"), with each relation worded by several role nouns and verbs,
mostly not the pages' own; the whole is a question, an instruction ("find ...", "tell me ..."), or
a bare noun phrase with or without a question mark. About a fifth are typed all in lower case. A
person who shares a full name with someone else is named with the role ("the chef X"). A one-hop
control is kept only when its answer page states the link and names the start; a multi-hop
question only when its answer page does not name the start and shares no content word with the
question, the start's page does not name the answer, and no page off the chain names both its ends.
A retired or dead player is asked of in the past tense ("the side X was on the books of"). Then
36 / 90 / 48 are drawn round-robin over the chain patterns, one question per start and hop count,
at most two two-hop and three three-hop per answer page.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from bench.corpus_world import World, draw, names, question_pools
from bench.multihop_corpus import Doc, Question

_RELS = (
    "plays_for came_through coached_by founded_by sponsored_by home_ground head_chef trained_at apprenticed_under "
    "supplied_by owned_by won award_by born_in based_in in_county"
).split()
_ONE: list[tuple[str, ...]] = [(r,) for r in _RELS]


def _split(spec: str) -> list[tuple[str, ...]]:
    return [tuple(p.split(">")) for p in spec.split()]


_TWO = _split(
    "plays_for>coached_by plays_for>founded_by plays_for>sponsored_by plays_for>home_ground plays_for>based_in "
    "came_through>based_in born_in>in_county coached_by>born_in coached_by>came_through founded_by>born_in "
    "sponsored_by>based_in home_ground>based_in based_in>in_county head_chef>born_in head_chef>trained_at "
    "head_chef>apprenticed_under owned_by>founded_by owned_by>based_in supplied_by>based_in won>award_by "
    "trained_at>based_in apprenticed_under>born_in apprenticed_under>trained_at award_by>based_in"
)
_THREE = _split(
    "plays_for>coached_by>born_in plays_for>founded_by>born_in plays_for>sponsored_by>based_in "
    "plays_for>home_ground>based_in plays_for>based_in>in_county came_through>based_in>in_county "
    "coached_by>born_in>in_county head_chef>born_in>in_county head_chef>trained_at>based_in "
    "head_chef>apprenticed_under>born_in owned_by>founded_by>born_in owned_by>based_in>in_county "
    "supplied_by>based_in>in_county won>award_by>based_in award_by>based_in>in_county "
    "trained_at>based_in>in_county sponsored_by>based_in>in_county home_ground>based_in>in_county "
    "founded_by>born_in>in_county coached_by>came_through>based_in"
)
WANT = (36, 90, 48)


def _poss(x: str) -> str:
    return f"{x}'" if x.endswith("s") else f"{x}'s"


# relation -> (noun phrases for its target given the thing x, possessive heads after "x's")
_NP: dict[str, tuple[list[str], list[str]]] = {
    "plays_for": (
        ["the club {x} plays for", "the team {x} turned out for", "the side {x} is on the books of"],
        ["club", "team"],
    ),
    "came_through": (
        ["the academy {x} came through", "the youth setup that produced {x}", "the academy that developed {x}"],
        ["youth academy", "academy"],
    ),
    "coached_by": (["the manager of {x}", "the coach in charge of {x}", "whoever manages {x}"], ["manager", "gaffer"]),
    "founded_by": (["the founder of {x}", "the person who started {x}", "whoever set up {x}"], ["founder"]),
    "sponsored_by": (
        ["the shirt sponsor of {x}", "the firm that backs {x}", "whoever sponsors {x}"],
        ["sponsor", "backer"],
    ),
    "home_ground": (
        ["the home ground of {x}", "the stadium {x} play at", "the ground used by {x}"],
        ["ground", "stadium"],
    ),
    "head_chef": (
        ["the chef at {x}", "the person running the kitchen at {x}", "whoever cooks at {x}"],
        ["chef", "head chef"],
    ),
    "trained_at": (
        ["the cookery school {x} attended", "the culinary school of {x}", "the college where {x} learned to cook"],
        ["culinary school", "alma mater"],
    ),
    "apprenticed_under": (
        ["the mentor of {x}", "the chef who taught {x}", "the cook that {x} learned under"],
        ["mentor", "teacher"],
    ),
    "supplied_by": (
        ["the supplier of {x}", "the producer {x} buys from", "the farm that sends produce to {x}"],
        ["supplier", "producer"],
    ),
    "owned_by": (
        ["the owner of {x}", "the company behind {x}", "the group that owns {x}", "the business {x} belongs to"],
        ["owner", "parent company"],
    ),
    "won": (["the accolade {x} won", "the honour {x} received", "the prize {x} picked up"], ["accolade", "prize"]),
    "award_by": (
        ["the publication that hands out {x}", "the guide behind {x}", "whoever presents {x}"],
        ["awarding body", "guide"],
    ),
    "born_in": (
        ["the birthplace of {x}", "the town {x} was born in", "the hometown of {x}", "the place {x} comes from"],
        ["birthplace", "hometown"],
    ),
    "based_in": (
        ["the town {x} is based in", "the location of {x}", "the town that hosts {x}", "the town where you'd find {x}"],
        ["location", "base"],
    ),
    "in_county": (
        ["the county {x} is in", "the county containing {x}", "the shire {x} lies in", "the region {x} is part of"],
        ["county", "shire", "region"],
    ),
}

_DIRECT: dict[str, list[str]] = {
    "plays_for": ["who does {x} play for?", "which club is {x} at?"],
    "came_through": ["which academy did {x} come through?", "where did {x} learn the game as a kid?"],
    "coached_by": ["who manages {x}?", "who coaches {x}?"],
    "founded_by": ["who founded {x}?", "who started {x}?"],
    "sponsored_by": ["who sponsors {x}?", "which company backs {x}?"],
    "home_ground": ["where do {x} play home games?", "what is the ground of {x}?"],
    "head_chef": ["who cooks at {x}?", "who is the chef at {x}?"],
    "trained_at": ["which cookery school did {x} go to?", "where did {x} train as a cook?"],
    "apprenticed_under": ["who did {x} train under?", "who taught {x} to cook?"],
    "supplied_by": ["who supplies {x}?", "where does {x} get its produce?"],
    "owned_by": ["who owns {x}?", "which group does {x} belong to?"],
    "won": ["what award did {x} win?", "which honour did {x} get?"],
    "award_by": ["who gives out {x}?", "which guide awards {x}?"],
    "born_in": ["where was {x} born?", "which town is {x} from?"],
    "based_in": ["where is {x} based?", "which town is {x} in?"],
    "in_county": ["which county is {x} in?", "what region is {x} part of?"],
}
_PLAYING = 1988  # players born since still play (bench/multihop_muffled_text.py); the rest are asked of in the past
_PAST = [
    (r"\bplays for\b", "played for"),
    (r"\bis on the books of\b", "was on the books of"),
    (r"^who does (.+) play for\?$", r"who did \1 play for?"),
    (r"^which club is (.+) at\?$", r"which club was \1 at?"),
]
_LEADS = ["find {}", "tell me {}", "give me {}", "looking for {}", "{}?", "{}", "i need {}", "{what} {}?"]
ECHO = re.compile(r"\b(\w{4,})s\b.*\b\1\b")  # a verb echoed by its own noun: clumsy
_PERSON = {"coached_by", "founded_by", "head_chef", "apprenticed_under"}  # targets that are people
ROLE_WORD = {"player": "footballer", "coach": "coach", "chef": "chef", "industrialist": "industrialist"}
ROLE_WORD |= {"restaurateur": "restaurateur"}


def lower_ambiguous(w: World, start: str) -> bool:
    """Whether a question starting at `start` turns ambiguous typed in lower case: a name that opens
    with "The" ("the old x's chef") or holds a town's name ("dunfield rovers") no longer stands apart
    from the words around it, nor from the town."""
    e = w.ents[start]
    towns = {t.title for t in w.ents.values() if t.kind == "town"}
    return e.title.startswith("The ") or (e.kind != "town" and bool(set(e.title.split()) & towns))


def _np(rel: str, x: str, short: bool, clause: bool) -> list[str]:
    """Noun phrases for the target of `rel` from the thing `x` describes (possessives only on a short x).
    When `x` ends in a clause ("the town Y is based in"), only phrases that end in it."""
    plain, heads = _NP[rel]
    return [p.format(x=x) for p in plain if not clause or p.endswith("{x}")] + (
        [f"{_poss(x)} {h}" for h in heads] if short else []
    )


def _refs(w: World, file: str) -> list[str]:
    e = w.ents[file]
    if e.facts.get("namesake"):  # two people of this name: say which ("the chef X")
        return [f"the {ROLE_WORD[e.facts['role']]} {e.title}"]
    if e.kind == "person":
        return [e.title, f"{ROLE_WORD[e.facts['role']]} {e.title}"]
    if e.kind == "award":
        return [f"the {e.title}"]
    if e.title.startswith("The "):
        return [e.title]
    if e.kind == "restaurant":
        return [e.title, f"the restaurant {e.title}"]
    if e.kind == "club":
        return [e.title, f"the club {e.title}"]
    return [e.title]


def _phrase(w: World, files: list[str], pattern: tuple[str, ...], rng: random.Random) -> str:
    """A question for the chain; drawn again (up to 20 times) while a verb echoes its own noun."""
    for _ in range(20):
        q = _draft(files, pattern, rng, w)
        if not ECHO.search(q.lower()):
            break
    return q


def _draft(files: list[str], pattern: tuple[str, ...], rng: random.Random, w: World) -> str:
    x = start = rng.choice(_refs(w, files[0]))
    short, clause = True, False
    for rel in pattern[:-1]:
        x = rng.choice(_np(rel, x, short, clause))
        short = x.startswith(start)  # a possessive goes on: "X's manager's hometown"
        # "the club X plays for" or "whoever manages X": only a phrase that ends in it may follow
        clause = not short and (not x.endswith(start) or x.startswith("whoever"))
    last = pattern[-1]
    forms = [d.format(x=x) for d in _DIRECT[last] if not clause or d.endswith("{x}?")]
    what = "who's" if last in _PERSON else "what's"
    forms += [rng.choice(_LEADS).format(np, what=what) for np in _np(last, x, short, clause)]
    q = rng.choice([f for f in forms if not ECHO.search(f.lower())] or forms)
    q = re.sub(r"^who's whoever ", "who ", q)  # not "who's whoever set up X?"
    first = w.ents[files[0]]
    if first.facts.get("role") == "player" and first.facts["born"] < _PLAYING:  # retired or dead: past tense
        for now, then in _PAST:
            q = re.sub(now, then, q)
    return q[0].upper() + q[1:]


def make_questions(
    w: World, docs: list[Doc], rng: random.Random, words: Callable[[str], set[str]]
) -> list[tuple[Question, list[str]]]:
    """36 one-hop, 90 two-hop and 48 three-hop questions with their chains' files."""
    text = {d.name: d.text for d in docs}
    naming = {f: {d.name for d in docs if e.title in d.text and names(d.text, e.title)} for f, e in w.ents.items()}
    out: list[tuple[Question, list[str]]] = []
    for patterns, want, cap in zip((_ONE, _TWO, _THREE), WANT, (9, 2, 3), strict=True):
        pools = question_pools(w, text, naming, patterns, rng, words, _phrase)
        # a multi-hop start page naming the answer (a chef's own school that is also the mentor's, a
        # player born in the town the club is based in) would reach it in one hop: not asked
        pools = [[(q, fs) for q, fs in pool if len(fs) == 2 or fs[0] not in naming[fs[-1]]] for pool in pools]
        out += draw(pools, want, cap)
    plain = [i for i, (_q, fs) in enumerate(out) if not lower_ambiguous(w, fs[0])]
    for i in rng.sample(plain, len(out) // 5):
        asked, files = out[i]
        out[i] = (Question(asked.text.lower(), asked.answer, asked.hops), files)
    return out
