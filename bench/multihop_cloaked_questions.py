"""Questions of the cloaked multi-hop corpus (bench/multihop_cloaked.py), as people type them.

A chain is a start entity and one to three relations. Its question names the start and describes
each further step by a noun phrase ("the studio behind X", "X's cinematographer's alma mater", "the
channel that showed X"); the whole is a question ("who ...?", "where ...?"), an instruction ("find
...", "tell me ...", "show me ...", "looking for ..."), or a bare noun phrase with or without a
question mark. About a quarter are typed all in lower case, names included. A film a remake bears the title
of is always named with its year ("the 1987 thriller X", "X (1987)"), or it would have two answers. A one-hop control is
kept only when its answer page states the link and names the start. A multi-hop question is kept
only when its answer page does not name the start and shares no content word with the question,
and no page off the chain names both its ends. Then 36 / 90 / 48 are drawn round-robin over the
chain patterns, one question per start and hop count, at most two two-hop and four three-hop per answer page.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.corpus_world import World, draw, names, question_pools
from bench.multihop_corpus import Doc, Question

_RELS = (
    "directed_by shot_by edited_by made_at premiered_at aired_by founded_by studio_in school_in festival_in "
    "based_in born_in studied_at assisted in_region"
).split()
_ONE: list[tuple[str, ...]] = [(r,) for r in _RELS]
_TWO: list[tuple[str, ...]] = [
    tuple(p.split(">"))
    for p in (
        "directed_by>born_in directed_by>studied_at directed_by>assisted shot_by>born_in shot_by>studied_at "
        "shot_by>assisted edited_by>born_in edited_by>studied_at made_at>studio_in made_at>founded_by "
        "premiered_at>festival_in aired_by>based_in founded_by>born_in founded_by>studied_at assisted>born_in "
        "assisted>studied_at assisted>assisted studied_at>school_in born_in>in_region studio_in>in_region "
        "festival_in>in_region school_in>in_region based_in>in_region"
    ).split()
]
_THREE: list[tuple[str, ...]] = [
    tuple(p.split(">"))
    for p in (
        "directed_by>born_in>in_region directed_by>studied_at>school_in directed_by>assisted>born_in "
        "directed_by>assisted>studied_at shot_by>born_in>in_region shot_by>studied_at>school_in "
        "edited_by>studied_at>school_in edited_by>born_in>in_region made_at>studio_in>in_region "
        "made_at>founded_by>born_in made_at>founded_by>studied_at premiered_at>festival_in>in_region "
        "aired_by>based_in>in_region founded_by>born_in>in_region founded_by>studied_at>school_in "
        "assisted>studied_at>school_in assisted>born_in>in_region studied_at>school_in>in_region "
        "shot_by>assisted>born_in"
    ).split()
]
WANT = (36, 90, 48)


def _poss(x: str) -> str:
    return f"{x}'" if x.endswith("s") else f"{x}'s"


# relation -> (noun phrases for its target given the thing x, possessive heads after "x's")
_NP: dict[str, tuple[list[str], list[str]]] = {
    "directed_by": (
        ["the director of {x}", "the person who directed {x}", "the filmmaker behind {x}", "whoever helmed {x}"],
        ["director"],
    ),
    "shot_by": (
        ["the cinematographer of {x}", "the person who shot {x}", "the DP on {x}", "whoever photographed {x}"],
        ["cinematographer", "DoP"],
    ),
    "edited_by": (["the editor of {x}", "the person who cut {x}", "whoever edited {x}"], ["editor", "cutter"]),
    "made_at": (
        ["the studio that produced {x}", "the production company behind {x}", "the outfit {x} was made at"],
        ["studio", "production company"],
    ),
    "premiered_at": (
        ["the festival where {x} premiered", "the festival that first screened {x}", "the event {x} debuted at"],
        ["premiere festival"],
    ),
    "aired_by": (
        ["the broadcaster that aired {x}", "the channel that showed {x}", "the network {x} went out on"],
        ["broadcaster", "channel"],
    ),
    "founded_by": (
        ["the founder of {x}", "the person who started {x}", "the producer who set up {x}"],
        ["founder", "creator"],
    ),
    "studio_in": (
        ["the town {x} is based in", "the city {x} operates from", "the place {x} works out of", "the location of {x}"],
        ["base"],
    ),
    "school_in": (
        ["the town {x} is in", "the city where {x} teaches", "the place {x} has its campus", "the campus town of {x}"],
        ["campus"],
    ),
    "festival_in": (
        ["the town that hosts {x}", "the city {x} takes place in", "the place where {x} is held"],
        ["host city"],
    ),
    "based_in": (
        [
            "the city {x} broadcasts from",
            "the town where {x} has its headquarters",
            "the place {x} is run from",
            "the seat of {x}",
        ],
        ["headquarters", "home city"],
    ),
    "born_in": (
        ["the birthplace of {x}", "the town {x} was born in", "the hometown of {x}", "the place {x} comes from"],
        ["birthplace", "hometown"],
    ),
    "studied_at": (
        [
            "the school {x} attended",
            "the academy {x} graduated from",
            "the alma mater of {x}",
            "the place {x} trained at",
        ],
        ["alma mater", "film school"],
    ),
    "assisted": (
        [
            "the mentor of {x}",
            "the director that {x} assisted",
            "the person who gave {x} a first job",
            "the old boss of {x}",
        ],
        ["mentor"],
    ),
    "in_region": (
        ["the region {x} is in", "the part of the country {x} lies in", "the area that contains {x}"],
        ["region", "province"],
    ),
}

_DIRECT: dict[str, list[str]] = {
    "directed_by": ["who directed {x}?", "{x} was directed by who?"],
    "shot_by": ["who shot {x}?", "who was the cinematographer on {x}?"],
    "edited_by": ["who edited {x}?", "who cut {x}?"],
    "made_at": ["which studio made {x}?", "what company produced {x}?"],
    "premiered_at": ["where did {x} premiere?", "which festival screened {x} first?"],
    "aired_by": ["which channel aired {x}?", "who broadcast {x} on tv?"],
    "founded_by": ["who founded {x}?", "who started {x}?"],
    "studio_in": ["where is {x} based?", "which city is {x} in?"],
    "school_in": ["where is {x}?", "which town is {x} located in?"],
    "festival_in": ["where is {x} held?", "which town hosts {x}?"],
    "based_in": ["where does {x} broadcast from?", "where is {x} headquartered?"],
    "born_in": ["where was {x} born?", "which town is {x} from?"],
    "studied_at": ["where did {x} study?", "which school did {x} go to?"],
    "assisted": ["who did {x} assist?", "who was {x} an assistant to?"],
    "in_region": ["which region is {x} in?", "what part of the country is {x} in?"],
}
_LEADS = ["find {}", "tell me {}", "show me {}", "looking for {}", "{}?", "{}", "i'd like to know {}", "{what} {}?"]
_PERSON = {"directed_by", "shot_by", "edited_by", "founded_by", "assisted"}  # relations whose target is a person


def _np(rel: str, x: str, short: bool, clause: bool) -> list[str]:
    """Noun phrases for the target of `rel` from the thing `x` describes (possessives only on a short x).
    When `x` ends in a clause ("the town Y is based in"), only phrases that end in it: no "... is in is in"."""
    plain, heads = _NP[rel]
    return [p.format(x=x) for p in plain if not clause or p.endswith("{x}")] + (
        [f"{_poss(x)} {h}" for h in heads] if short else []
    )


def _refs(w: World, file: str) -> list[str]:
    e = w.ents[file]
    if e.kind == "film" and e.facts.get("remade"):  # a remake bears the title too: say which year's film
        return [f"the {e.facts['year']} {e.facts['genre']} {e.title}", f"{e.title} ({e.facts['year']})"]
    if e.kind == "film":
        return [e.title, f"the film {e.title}", f"the {e.facts['year']} {e.facts['genre']} {e.title}"]
    if e.facts.get("namesake"):  # two people of this name: say which ("the cinematographer X")
        return [f"the {e.facts['role']} {e.title}"]
    if e.kind == "person":
        return [e.title, f"{e.facts['role']} {e.title}"]
    return [e.title]


def _phrase(w: World, files: list[str], pattern: tuple[str, ...], rng: random.Random) -> str:
    x = start = rng.choice(_refs(w, files[0]))
    short, clause = True, False
    for rel in pattern[:-1]:
        x = rng.choice(_np(rel, x, short, clause))
        short = x.startswith(start)  # a possessive goes on: "X's cinematographer's alma mater"
        clause = not short and not x.endswith(start)  # "the town X is based in": nothing may follow it
    last = pattern[-1]
    forms = [d.format(x=x) for d in _DIRECT[last] if not clause or d.endswith("{x}?")]
    what = "who's" if last in _PERSON else "what's"
    forms += [rng.choice(_LEADS).format(np, what=what) for np in _np(last, x, short, clause)]
    q = rng.choice(forms)
    return q[0].upper() + q[1:]


def make_questions(
    w: World, docs: list[Doc], rng: random.Random, words: Callable[[str], set[str]]
) -> list[tuple[Question, list[str]]]:
    """36 one-hop, 90 two-hop and 48 three-hop questions with their chains' files."""
    text = {d.name: d.text for d in docs}
    naming = {f: {d.name for d in docs if e.title in d.text and names(d.text, e.title)} for f, e in w.ents.items()}
    out: list[tuple[Question, list[str]]] = []
    for patterns, want, cap in zip((_ONE, _TWO, _THREE), WANT, (9, 2, 4), strict=True):
        pools = question_pools(w, text, naming, patterns, rng, words, _phrase)
        out += draw(pools, want, cap)
    # a quarter typed all in lower case, names included
    for i in rng.sample(range(len(out)), len(out) // 4):
        asked, files = out[i]
        out[i] = (Question(asked.text.lower(), asked.answer, asked.hops), files)
    return out
