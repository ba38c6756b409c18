"""Questions of the veiled multi-hop corpus (bench/multihop_veiled.py): chains walked forward along
functional links, phrased by relation, filtered so that the corpus keeps its promises.

A chain is a start entity and one to three relations. Its question names the start and describes
each further step by its relation: a role noun ("the builder of X"), a possessive ("X's builder"),
a relative clause ("the harbour where X's master retired"), a passive ("by whom was X drawn?"),
nested "of"s. A one-hop control is kept only when its answer page states the link and names the
start (what plain search should find). A multi-hop question is kept only when its answer page does
not name the start and shares no content word with the question, and no page off the chain names
both its ends. Then 36 / 90 / 45 are drawn round-robin over the chain patterns, one per start
and at most four per answer page.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

from bench.corpus_world import World, chains, names, stated
from bench.multihop_corpus import Doc, Question

_ONE = [
    ("built_at",),
    ("operated_by",),
    ("master",),
    ("designed_by",),
    ("founded_by",),
    ("yard_in",),
    ("home_port",),
    ("born_in",),
    ("trained_at",),
    ("mentor",),
    ("retired_to",),
    ("located",),
    ("in_province",),
]
_TWO = [
    ("built_at", "yard_in"),
    ("built_at", "founded_by"),
    ("operated_by", "home_port"),
    ("operated_by", "founded_by"),
    ("master", "born_in"),
    ("master", "trained_at"),
    ("master", "mentor"),
    ("master", "retired_to"),
    ("designed_by", "born_in"),
    ("designed_by", "trained_at"),
    ("designed_by", "mentor"),
    ("founded_by", "born_in"),
    ("founded_by", "trained_at"),
    ("yard_in", "in_province"),
    ("home_port", "in_province"),
    ("born_in", "in_province"),
    ("trained_at", "located"),
    ("mentor", "born_in"),
    ("mentor", "retired_to"),
    ("retired_to", "in_province"),
    ("located", "in_province"),
]
_THREE = [
    ("built_at", "yard_in", "in_province"),
    ("built_at", "founded_by", "born_in"),
    ("operated_by", "home_port", "in_province"),
    ("operated_by", "founded_by", "born_in"),
    ("master", "born_in", "in_province"),
    ("master", "trained_at", "located"),
    ("master", "mentor", "born_in"),
    ("master", "retired_to", "in_province"),
    ("designed_by", "trained_at", "located"),
    ("designed_by", "mentor", "born_in"),
    ("founded_by", "born_in", "in_province"),
    ("founded_by", "trained_at", "located"),
    ("mentor", "born_in", "in_province"),
    ("trained_at", "located", "in_province"),
    ("mentor", "trained_at", "located"),
]


def _poss(x: str) -> str:
    return f"{x}'" if x.endswith("s") else f"{x}'s"


def _np(rel: str, x: str, short: bool) -> list[str]:
    """Noun phrases for the target of `rel` from the thing `x` describes (possessives only on a name)."""
    p = _poss(x)
    forms: dict[str, tuple[list[str], list[str]]] = {
        "built_at": (
            [f"the yard that built {x}", f"the shipyard where {x} was launched", f"the builder of {x}"],
            [f"{p} builder"],
        ),
        "operated_by": (
            [f"the line that operated {x}", f"the company {x} sailed for", f"the operator of {x}"],
            [f"{p} owners", f"{p} operator"],
        ),
        "master": (
            [f"the captain of {x}", f"the master of {x}", f"the person who commanded {x}"],
            [f"{p} commander", f"{p} captain"],
        ),
        "designed_by": (
            [f"the designer of {x}", f"the naval architect who drew {x}", f"the person who drew up the plans of {x}"],
            [f"{p} designer"],
        ),
        "founded_by": (
            [f"the founder of {x}", f"the person who set up {x}", f"the one who established {x}"],
            [f"{p} founder"],
        ),
        "yard_in": (
            [f"the town where {x} stands", f"the harbour where {x} has its slipways", f"the place that houses {x}"],
            [],
        ),
        "home_port": (
            [
                f"the town where {x} was registered",
                f"the town where {x} is headquartered",
                f"the harbour from which {x} was run",
            ],
            [f"{p} home port"],
        ),
        "born_in": (
            [f"the birthplace of {x}", f"the town where {x} was born", f"the place {x} hailed from"],
            [f"{p} home town"],
        ),
        "trained_at": (
            [f"the school where {x} trained", f"the academy that trained {x}", f"the college {x} attended"],
            [f"{p} alma mater"],
        ),
        "mentor": (
            [f"the mentor of {x}", f"the person who taught {x} the trade", f"the elder under whom {x} first served"],
            [f"{p} mentor", f"{p} teacher"],
        ),
        "retired_to": (
            [f"the town where {x} retired", f"the place {x} retired to", f"the harbour where {x} spent the last years"],
            [],
        ),
        "located": ([f"the town that is home to {x}", f"the harbour where {x} stands", f"the seat of {x}"], []),
        "in_province": ([f"the province {x} lies in", f"the region containing {x}"], []),
    }
    plain, possessive = forms[rel]
    return plain + (possessive if short else [])


def _final(rel: str, x: str, short: bool) -> list[str]:
    """Questions asking for the target of `rel` from the thing `x` describes."""
    forms = {
        "built_at": [f"Which yard built {x}?", f"Where was {x} built?", f"At which shipyard was {x} laid down?"],
        "operated_by": [f"Which line operated {x}?", f"For which company did {x} sail?", f"Who ran {x}?"],
        "master": [f"Who commanded {x}?", f"Who was master of {x}?", f"Under whom did {x} sail?"],
        "designed_by": [f"Who designed {x}?", f"By whom was {x} drawn?", f"Which naval architect drew up {x}?"],
        "founded_by": [f"Who founded {x}?", f"By whom was {x} established?", f"Who set up {x}?"],
        "yard_in": [f"Where does {x} stand?", f"In which town is {x}?", f"Which harbour houses {x}?"],
        "home_port": [
            f"Where was {x} registered?",
            f"Where is {x} headquartered?",
            f"From which town was {x} run?",
        ],
        "born_in": [f"Where was {x} born?", f"In which town was {x} born?", f"What was the birthplace of {x}?"],
        "trained_at": [f"Where did {x} train?", f"Which academy trained {x}?", f"At which college did {x} study?"],
        "mentor": [f"Under whom did {x} first serve?", f"Who taught {x} the trade?", f"Who was the mentor of {x}?"],
        "retired_to": [f"Where did {x} retire?", f"To which town did {x} retire?", f"Where did {x} settle in old age?"],
        "located": [f"In which town is {x}?", f"Where does {x} stand?", f"Which harbour is home to {x}?"],
        "in_province": [
            f"In which province does {x} lie?",
            f"Which region contains {x}?",
            f"To what county does {x} belong?",
            f"What district is {x} in?",
        ],
    }[rel]
    extra = {
        "born_in": "What is {p} home town?",
        "master": "Who was {p} commander?",
        "founded_by": "Who was {p} founder?",
    }
    if short and rel in extra:
        forms.append(extra[rel].format(p=_poss(x)))
    return forms


def _refs(w: World, file: str) -> list[str]:
    e = w.ents[file]
    if e.kind == "ship":
        return [e.title, f"the {e.facts['type']} {e.title}"]
    if e.facts.get("namesake"):  # two people of this name: say which ("the sea captain X")
        return [f"the {e.facts['prof']} {e.title}"]
    return [e.title]


def _phrase(w: World, files: list[str], pattern: tuple[str, ...], rng: random.Random) -> str:
    x, short = rng.choice(_refs(w, files[0])), True
    for rel in pattern[:-1]:
        x, short = rng.choice(_np(rel, x, short)), False
    q = rng.choice(_final(pattern[-1], x, short))
    return q[0].upper() + q[1:]


def make_questions(
    w: World, docs: list[Doc], rng: random.Random, words: Callable[[str], set[str]]
) -> list[tuple[Question, list[str]]]:
    """36 one-hop, 90 two-hop and 45 three-hop questions with their chains' files."""
    text = {d.name: d.text for d in docs}
    naming = {f: {d.name for d in docs if names(d.text, e.title)} for f, e in w.ents.items()}
    out: list[tuple[Question, list[str]]] = []
    seen: set[str] = set()
    ends: dict[str, int] = {}  # multi-hop questions per answer page
    for patterns, want in ((_ONE, 36), (_TWO, 90), (_THREE, 45)):
        pools: list[list[tuple[str, list[str]]]] = []
        for pattern in patterns:
            pool = []
            for files in chains(w, pattern):
                answer = files[-1]
                if not all(stated(w, text, a, b) for a, b in itertools.pairwise(files)):
                    continue  # a link left off a capped list is stated nowhere: not askable
                if len(pattern) == 1:  # a control: the answer page names the start, and a word of it if it can
                    if answer in naming[files[0]]:
                        tries = [_phrase(w, files, pattern, rng) for _ in range(12)]
                        own = words(w.ents[files[0]].title)
                        pool.append((max(tries, key=lambda q: len((words(q) - own) & words(text[answer]))), files))
                    continue
                if answer in naming[files[0]] or (naming[files[0]] & naming[answer]) - set(files):
                    continue
                for _ in range(40):
                    q = _phrase(w, files, pattern, rng)
                    if not words(q) & words(text[answer]):
                        pool.append((q, files))
                        break
            rng.shuffle(pool)
            pools.append(pool)
        taken: list[tuple[Question, list[str]]] = []
        starts: set[str] = set()
        while len(taken) < want and any(pools):
            for pool in pools:
                while pool and len(taken) < want:
                    q, files = pool.pop()
                    if q in seen or files[0] in starts or (len(files) > 2 and ends.get(files[-1], 0) >= 4):
                        continue
                    seen.add(q)
                    starts.add(files[0])
                    ends[files[-1]] = ends.get(files[-1], 0) + 1
                    taken.append((Question(q, files[-1], len(files) - 1), files))
                    break
        out += taken
    return out
