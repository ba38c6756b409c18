"""Questions of the blind multi-hop corpus (bench/multihop_blind.py): chains walked forward along
functional links, phrased by relation, filtered so that the corpus keeps its promises.

A chain is a start entity and one to three relations. Its question names the start and describes
each further step by its relation: a role noun ("the founder of X"), a possessive ("X's alma mater"),
a relative clause ("the town where X was born"), a passive ("By whom was X set up?"). A one-hop
control is kept only when its answer page states the link and names the start (what plain search
should find); a multi-hop question only when its answer page shares no content word with it and no
page names both its ends. Then 36 / 90 / 45 are drawn round-robin over the chain patterns.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.corpus_world import World, chains, names
from bench.multihop_corpus import Doc, Question

_ONE = [
    ("made_by",),
    ("designed_by",),
    ("founded_by",),
    ("hq",),
    ("born_in",),
    ("trained_at",),
    ("located",),
    ("in_canton",),
    ("owned_by",),
    ("apprenticed_to",),
]
_TWO = [
    ("made_by", "founded_by"),
    ("made_by", "hq"),
    ("made_by", "owned_by"),
    ("designed_by", "born_in"),
    ("designed_by", "trained_at"),
    ("designed_by", "apprenticed_to"),
    ("founded_by", "born_in"),
    ("founded_by", "trained_at"),
    ("hq", "in_canton"),
    ("owned_by", "hq"),
    ("founded_by", "apprenticed_to"),
    ("born_in", "in_canton"),
    ("trained_at", "located"),
    ("apprenticed_to", "born_in"),
    ("located", "in_canton"),
]
_THREE = [
    ("made_by", "founded_by", "born_in"),
    ("made_by", "hq", "in_canton"),
    ("designed_by", "born_in", "in_canton"),
    ("designed_by", "trained_at", "located"),
    ("made_by", "founded_by", "trained_at"),
    ("made_by", "owned_by", "hq"),
    ("designed_by", "apprenticed_to", "born_in"),
    ("founded_by", "born_in", "in_canton"),
    ("founded_by", "trained_at", "located"),
    ("trained_at", "located", "in_canton"),
    ("apprenticed_to", "born_in", "in_canton"),
    ("made_by", "founded_by", "apprenticed_to"),
    ("designed_by", "apprenticed_to", "trained_at"),
    ("founded_by", "apprenticed_to", "born_in"),
]
_MAKER = {"type": ["foundry", "type foundry"], "scent": ["perfume house", "house"], "watch": ["watchmaker", "firm"]}
_ISSUE = {"type": ["issued", "released", "cast"], "scent": ["launched", "sells"], "watch": ["makes", "builds"]}
_DESIGNER = {"type": ["designer", "type designer"], "scent": ["perfumer", "nose"], "watch": ["designer", "watchmaker"]}
_DESIGN = {"type": ["designed", "drew"], "scent": ["composed", "created"], "watch": ["designed"]}


def _poss(x: str) -> str:
    return f"{x}'" if x.endswith("s") else f"{x}'s"


def _np(rel: str, x: str, short: bool, dom: str) -> list[str]:
    """Noun phrases for the target of `rel` from the thing `x` describes."""
    p = _poss(x)
    m, v, d, dv = (
        _MAKER.get(dom, ["firm"]),
        _ISSUE.get(dom, ["makes"]),
        _DESIGNER.get(dom, ["designer"]),
        _DESIGN.get(dom, ["designed"]),
    )
    forms: dict[str, tuple[list[str], list[str]]] = {
        "made_by": (
            [f"the {a} that {b} {x}" for a in m for b in v]
            + [f"the {m[0]} behind {x}", f"the maker of {x}", f"the firm by which {x} is made"],
            [f"{p} maker"],
        ),
        "designed_by": (
            [f"the {a} of {x}" for a in d]
            + [f"the {a} who {b} {x}" for a in d for b in dv if a != "designer" or b != "designed"]
            + [f"the person who {dv[0]} {x}", f"the person by whom {x} was {dv[0]}"],
            [f"{p} {d[0]}"],
        ),
        "founded_by": (
            [f"the founder of {x}", f"the person who founded {x}", f"the person who set up {x}"],
            [f"{p} founder"],
        ),
        "hq": (
            [
                f"the town where {x} has its head office",
                f"the place where {x} is headquartered",
                f"the town in which {x} is based",
            ],
            [f"{p} home base"],
        ),
        "owned_by": (
            [
                f"the group that owns {x}",
                f"the parent company of {x}",
                f"the holding company that controls {x}",
                f"the group by which {x} is owned",
            ],
            [f"{p} parent company", f"{p} owner"],
        ),
        "born_in": (
            [f"the town where {x} was born", f"the birthplace of {x}", f"the place {x} came from"],
            [f"{p} birthplace"],
        ),
        "trained_at": (
            [f"the school where {x} trained", f"the school that trained {x}", f"the institution at which {x} studied"],
            [f"{p} alma mater", f"{p} old school"],
        ),
        "located": ([f"the town that is home to {x}", f"the town where {x} stands", f"the place that houses {x}"], []),
        "apprenticed_to": (
            [f"the master of {x}", f"the master {x} was apprenticed to", f"the person who taught {x}"],
            [f"{p} master", f"{p} teacher"],
        ),
    }
    plain, possessive = forms[rel]
    return plain + (possessive if short else [])


def _final(rel: str, x: str, short: bool, dom: str) -> list[str]:
    """Questions asking for the target of `rel` from the thing `x` describes."""
    m, v, d, dv = (
        _MAKER.get(dom, ["firm"]),
        _ISSUE.get(dom, ["makes"]),
        _DESIGNER.get(dom, ["designer"]),
        _DESIGN.get(dom, ["designed"]),
    )
    forms = {
        "made_by": [f"Which {a} {b} {x}?" for a in m for b in v]
        + [f"Name the maker of {x}.", f"By which firm is {x} made?"],
        "designed_by": [f"Who {b} {x}?" for b in dv] + [f"By whom was {x} {dv[0]}?", f"Name the {d[0]} of {x}."],
        "founded_by": [
            f"Who founded {x}?",
            f"By whom was {x} set up?",
            f"Who established {x}?",
            f"Name the founder of {x}.",
        ],
        "hq": [f"Where does {x} have its head office?", f"In which town is {x} headquartered?", f"Where is {x} based?"],
        "owned_by": [
            f"Which group owns {x}?",
            f"What is the parent company of {x}?",
            f"Who owns {x}?",
            f"By which group is {x} owned?",
        ],
        "born_in": [f"Where was {x} born?", f"In which town was {x} born?", f"What is the birthplace of {x}?"],
        "trained_at": [f"Where did {x} train?", f"At which school did {x} study?", f"Which school trained {x}?"],
        "located": [f"In which town is {x}?", f"Where does {x} stand?", f"Which town is home to {x}?"],
        "in_canton": [
            f"In which canton does {x} lie?",
            f"Which district contains {x}?",
            f"To which province does {x} belong?",
            f"In what region is {x}?",
        ],
        "apprenticed_to": [
            f"Under whom did {x} serve an apprenticeship?",
            f"Who taught {x}?",
            f"To whom was {x} apprenticed?",
        ],
    }[rel]
    if short and rel == "born_in":
        forms.append(f"What is {_poss(x)} birthplace?")
    return forms


def _refs(w: World, file: str) -> list[str]:
    e = w.ents[file]
    if e.kind == "product":
        noun = {"type": "typeface", "scent": "fragrance", "watch": "watch"}[e.domain]
        return (
            [e.title, f"the {e.title} {noun}", f"the {noun} {e.title}"] if e.domain != "watch" else [f"the {e.title}"]
        )
    if e.facts.get("namesake"):  # two people of this name: say which ("the perfumer X")
        return [f"the {e.facts['prof']} {e.title}"]
    return [e.title]


def _phrase(w: World, files: list[str], pattern: tuple[str, ...], rng: random.Random) -> str:
    x, short = rng.choice(_refs(w, files[0])), True
    for i, rel in enumerate(pattern[:-1]):
        x, short = rng.choice(_np(rel, x, short, w.ents[files[i]].domain)), False
    q = rng.choice(_final(pattern[-1], x, short, w.ents[files[-2]].domain))
    return q[0].upper() + q[1:]


def make_questions(
    w: World, docs: list[Doc], rng: random.Random, words: Callable[[str], set[str]]
) -> list[tuple[Question, list[str]]]:
    """36 one-hop, 90 two-hop and 45 three-hop questions with their chains' files."""
    text = {d.name: d.text for d in docs}
    naming: dict[str, set[str]] = {}
    for f, e in w.ents.items():
        naming[f] = {d.name for d in docs if e.title in d.text and names(d.text, e.title)}
    out: list[tuple[Question, list[str]]] = []
    seen: set[str] = set()
    for patterns, want in ((_ONE, 36), (_TWO, 90), (_THREE, 45)):
        pools: list[list[tuple[str, list[str]]]] = []
        for pattern in patterns:
            pool = []
            for files in chains(w, pattern):
                answer = files[-1]
                if len(pattern) == 1:
                    if answer not in naming[files[0]]:
                        continue
                    pool.append((_phrase(w, files, pattern, rng), files))
                    continue
                if naming[files[0]] & naming[answer]:
                    continue
                for _ in range(40):
                    q = _phrase(w, files, pattern, rng)
                    if not words(q) & words(text[answer]):
                        pool.append((q, files))
                        break
            rng.shuffle(pool)
            pools.append(pool)
        taken: list[tuple[Question, list[str]]] = []
        starts: dict[str, int] = {}
        while len(taken) < want and any(pools):
            for pool in pools:
                while pool and len(taken) < want:
                    q, files = pool.pop()
                    if q in seen or starts.get(files[0], 0) >= 1:
                        continue
                    seen.add(q)
                    starts[files[0]] = starts.get(files[0], 0) + 1
                    taken.append((Question(q, files[-1], len(files) - 1), files))
                    break
        out += taken
    return out
