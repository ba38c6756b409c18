"""Questions of the draped multi-hop corpus (bench/multihop_draped.py), as people type them.

A chain is a start entity and one to three relations. Its question names the start and describes
each further step by a noun phrase ("the imprint that published X", "X's translator's alma mater",
"the body behind X"), with each relation worded by several role nouns and verbs; the whole is a
question ("who ...?", "where ...?"), an instruction ("find ...", "tell me ...", "give me ..."), or a
bare noun phrase with or without a question mark. About a fifth are typed all in lower case, names
included. A person who shares a full name with someone else is named with the role ("the
translator X"). A one-hop control is kept only when its answer page states the link and names the
start. A multi-hop question is kept only when its answer page does not name the start and shares no
content word with the question, and no page off the chain names both its ends. Then 36 / 90 / 48 are
drawn round-robin over the chain patterns, one question per start and hop count, at most two
two-hop and three three-hop per answer page.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from bench.corpus_world import World, draw, names, question_pools
from bench.multihop_corpus import Doc, Question

_RELS = (
    "written_by edited_by translated_by illustrated_by published_by printed_by won imprint_of founded_by "
    "represented_by prize_by born_in studied_at based_in in_region"
).split()
_ONE: list[tuple[str, ...]] = [(r,) for r in _RELS]
_TWO: list[tuple[str, ...]] = [
    tuple(p.split(">"))
    for p in (
        "written_by>born_in written_by>studied_at written_by>represented_by edited_by>born_in edited_by>studied_at "
        "translated_by>born_in translated_by>studied_at illustrated_by>born_in illustrated_by>studied_at "
        "published_by>imprint_of printed_by>based_in won>prize_by imprint_of>founded_by imprint_of>based_in "
        "founded_by>born_in represented_by>based_in prize_by>based_in studied_at>based_in born_in>in_region "
        "based_in>in_region"
    ).split()
]
_THREE: list[tuple[str, ...]] = [
    tuple(p.split(">"))
    for p in (
        "written_by>born_in>in_region written_by>studied_at>based_in written_by>represented_by>based_in "
        "edited_by>born_in>in_region edited_by>studied_at>based_in translated_by>born_in>in_region "
        "translated_by>studied_at>based_in illustrated_by>born_in>in_region published_by>imprint_of>founded_by "
        "published_by>imprint_of>based_in printed_by>based_in>in_region won>prize_by>based_in "
        "imprint_of>founded_by>born_in imprint_of>based_in>in_region represented_by>based_in>in_region "
        "prize_by>based_in>in_region studied_at>based_in>in_region founded_by>born_in>in_region"
    ).split()
]
WANT = (36, 90, 48)


def _poss(x: str) -> str:
    return f"{x}'" if x.endswith("s") else f"{x}'s"


# relation -> (noun phrases for its target given the thing x, possessive heads after "x's")
_NP: dict[str, tuple[list[str], list[str]]] = {
    "written_by": (
        ["the author of {x}", "the writer of {x}", "the person who wrote {x}", "whoever penned {x}"],
        ["author", "writer"],
    ),
    "edited_by": (["the editor of {x}", "the person who edited {x}", "whoever edited {x}"], ["editor"]),
    "translated_by": (
        ["the translator of {x}", "the person who translated {x}", "whoever put {x} into English"],
        ["translator"],
    ),
    "illustrated_by": (
        ["the illustrator of {x}", "the artist who drew the pictures for {x}", "whoever illustrated {x}"],
        ["illustrator", "artist"],
    ),
    "published_by": (
        ["the imprint that published {x}", "the imprint {x} came out under", "the imprint behind {x}"],
        ["imprint"],
    ),
    "printed_by": (["the printer of {x}", "the firm that printed {x}", "the works that printed {x}"], ["printer"]),
    "won": (["the prize {x} won", "the award that went to {x}", "the honour {x} received"], ["prize", "award"]),
    "imprint_of": (
        ["the house {x} belongs to", "the parent company of {x}", "the publishing group that owns {x}"],
        ["parent company", "owner"],
    ),
    "founded_by": (
        ["the founder of {x}", "the person who set up {x}", "the person who started {x}"],
        ["founder"],
    ),
    "represented_by": (
        ["the agency that represents {x}", "the literary agency acting for {x}", "the agency handling {x}"],
        ["agency", "agent"],
    ),
    "prize_by": (
        [
            "the foundation that awards {x}",
            "the body behind {x}",
            "the organisation that gives {x}",
            "the sponsor of {x}",
        ],
        ["sponsor", "awarding body"],
    ),
    "born_in": (
        ["the birthplace of {x}", "the town {x} was born in", "the hometown of {x}", "the place {x} comes from"],
        ["birthplace", "hometown"],
    ),
    "studied_at": (
        [
            "the programme {x} attended",
            "the school {x} attended",
            "the alma mater of {x}",
            "the writing school {x} went to",
        ],
        ["alma mater", "writing school"],
    ),
    "based_in": (
        ["the town {x} is based in", "the city {x} operates from", "the location of {x}", "the seat of {x}"],
        ["base", "headquarters"],
    ),
    "in_region": (
        ["the county {x} is in", "the region that contains {x}", "the part of the country {x} lies in"],
        ["county", "region"],
    ),
}

_DIRECT: dict[str, list[str]] = {
    "written_by": ["who wrote {x}?", "{x} was written by whom?"],
    "edited_by": ["who edited {x}?", "who was the editor on {x}?"],
    "translated_by": ["who translated {x}?", "who put {x} into English?"],
    "illustrated_by": ["who illustrated {x}?", "who drew the pictures in {x}?"],
    "published_by": ["which imprint published {x}?", "what imprint did {x} come out under?"],
    "printed_by": ["who printed {x}?", "which printer produced {x}?"],
    "won": ["what prize did {x} win?", "which award did {x} get?"],
    "imprint_of": ["which house owns {x}?", "who does {x} belong to?"],
    "founded_by": ["who founded {x}?", "who set up {x}?"],
    "represented_by": ["which agency represents {x}?", "who acts as agent for {x}?"],
    "prize_by": ["who awards {x}?", "which foundation gives out {x}?"],
    "born_in": ["where was {x} born?", "which town is {x} from?"],
    "studied_at": ["where did {x} study writing?", "which programme did {x} go to?"],
    "based_in": ["where is {x} based?", "which town is {x} in?"],
    "in_region": ["which county is {x} in?", "what region is {x} part of?"],
}
_LEADS = ["find {}", "tell me {}", "give me {}", "looking for {}", "{}?", "{}", "i need {}", "{what} {}?"]
# a verb echoed by its own noun ("who awards the award ...", "who awards X's award?"): clumsy
ECHO = re.compile(r"\b(\w{4,})s\b.*\b\1\b")
_PERSON = {"written_by", "edited_by", "translated_by", "illustrated_by", "founded_by"}  # targets that are people
_ROLE_WORD = {"author": "novelist", "editor": "editor", "translator": "translator"}
_ROLE_WORD |= {"illustrator": "illustrator", "publisher": "publisher"}


def lower_ambiguous(w: World, start: str) -> bool:
    """Whether a question starting at `start` turns ambiguous typed in lower case: a book's title
    that opens with an article or "The House on" ("a summer at x's artist", "the imprint the house
    on x lane came out under"), or a name that holds a town's ("the peardstow letters", "noshstow
    house"), no longer stands apart from the words around it, nor from the town."""
    e = w.ents[start]
    towns = {t.title for t in w.ents.values() if t.kind == "town"}
    opens = e.kind == "book" and e.title.startswith(("A ", "The House on "))
    return opens or (e.kind != "town" and bool(set(e.title.split()) & towns))


def _np(rel: str, x: str, short: bool, clause: bool) -> list[str]:
    """Noun phrases for the target of `rel` from the thing `x` describes (possessives only on a short x).
    When `x` ends in a clause ("the town Y is based in"), only phrases that end in it: no "... is in is in"."""
    plain, heads = _NP[rel]
    return [p.format(x=x) for p in plain if not clause or p.endswith("{x}")] + (
        [f"{_poss(x)} {h}" for h in heads] if short else []
    )


def _refs(w: World, file: str) -> list[str]:
    e = w.ents[file]
    if e.kind == "book":
        return [e.title, f"the {e.facts['kind']} {e.title}", f"{e.title} ({e.facts['year']})"]
    if e.facts.get("namesake"):  # two people of this name: say which ("the translator X")
        return [f"the {_ROLE_WORD[e.facts['role']]} {e.title}"]
    if e.kind == "person":
        return [e.title, f"{_ROLE_WORD[e.facts['role']]} {e.title}"]
    return [e.title, f"the {e.title}"] if e.kind == "prize" else [e.title]


def _phrase(w: World, files: list[str], pattern: tuple[str, ...], rng: random.Random) -> str:
    x = start = rng.choice(_refs(w, files[0]))
    short, clause = True, False
    for rel in pattern[:-1]:
        x = rng.choice(_np(rel, x, short, clause))
        short = x.startswith(start)  # a possessive goes on: "X's translator's alma mater"
        clause = not short and not x.endswith(start)  # "the town X is based in": nothing may follow it
    last = pattern[-1]
    forms = [d.format(x=x) for d in _DIRECT[last] if not clause or d.endswith("{x}?")]
    what = "who's" if last in _PERSON else "what's"
    forms += [rng.choice(_LEADS).format(np, what=what) for np in _np(last, x, short, clause)]
    q = rng.choice([f for f in forms if not ECHO.search(f.lower())] or forms)
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
        out += draw(pools, want, cap)
    # a fifth typed all in lower case, names included; not one a reader could no longer parse there
    plain = [i for i, (_q, fs) in enumerate(out) if not lower_ambiguous(w, fs[0])]
    for i in rng.sample(plain, len(out) // 5):
        asked, files = out[i]
        out[i] = (Question(asked.text.lower(), asked.answer, asked.hops), files)
    return out
