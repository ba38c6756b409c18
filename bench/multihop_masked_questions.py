"""Questions of the masked multi-hop corpus (bench/multihop_masked.py): chains walked forward along
functional links, phrased by relation in many sentence shapes, filtered so the corpus keeps its promises.

A chain is a start entity and one to three relations. Its question names the start and describes
each further step: a role noun ("the builder of X"), a possessive chain ("X's designer's teacher's
birthplace"), a relative clause ("the works that built X"), a contact relative ("the shed X was
allocated to"), a nominalisation ("the place of X's death"). The sentence is a question ("Which
...?", "Where ...?", "Who ...?") or an instruction ("Name the ...", "I need the ...", "Tell me
...", "Find the ..."). A one-hop control is kept only when its answer page states the link and
names the start. A multi-hop question is kept only when its answer page does not name the start
and shares no content word with the question, and no page off the chain names both its ends.
Then 36 / 84 / 54 are drawn round-robin over the start's kind (engine, person, works, company,
...) and within a kind over its chain patterns, one per start, at most four per answer page.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.corpus_world import World, names, question_pools
from bench.multihop_corpus import Doc, Question

_ONE: list[tuple[str, ...]] = [
    (r,)
    for r in (
        "built_at designed_by shedded_at owned_by preserved_at founded_by works_in depot_in museum_in hq_in "
        "chief_engineer absorbed_into born_in apprenticed_at pupil_of died_in in_district"
    ).split()
]
_TWO: list[tuple[str, ...]] = [
    tuple(p.split(">"))
    for p in (
        "built_at>works_in built_at>founded_by designed_by>born_in designed_by>apprenticed_at designed_by>pupil_of "
        "designed_by>died_in shedded_at>depot_in owned_by>hq_in owned_by>chief_engineer owned_by>absorbed_into "
        "preserved_at>museum_in founded_by>born_in founded_by>died_in chief_engineer>born_in "
        "chief_engineer>apprenticed_at chief_engineer>pupil_of absorbed_into>hq_in absorbed_into>chief_engineer "
        "apprenticed_at>works_in apprenticed_at>founded_by pupil_of>born_in pupil_of>apprenticed_at pupil_of>died_in "
        "born_in>in_district works_in>in_district depot_in>in_district hq_in>in_district died_in>in_district "
        "museum_in>in_district"
    ).split()
]
_THREE: list[tuple[str, ...]] = [
    tuple(p.split(">"))
    for p in (
        "built_at>works_in>in_district built_at>founded_by>born_in built_at>founded_by>died_in "
        "designed_by>born_in>in_district designed_by>apprenticed_at>works_in designed_by>pupil_of>born_in "
        "designed_by>apprenticed_at>founded_by designed_by>pupil_of>apprenticed_at shedded_at>depot_in>in_district "
        "owned_by>hq_in>in_district owned_by>chief_engineer>born_in owned_by>chief_engineer>pupil_of "
        "owned_by>absorbed_into>hq_in owned_by>chief_engineer>apprenticed_at preserved_at>museum_in>in_district "
        "chief_engineer>apprenticed_at>works_in chief_engineer>pupil_of>born_in chief_engineer>born_in>in_district "
        "founded_by>born_in>in_district founded_by>died_in>in_district pupil_of>apprenticed_at>works_in "
        "apprenticed_at>founded_by>born_in "
        "absorbed_into>chief_engineer>born_in apprenticed_at>works_in>in_district pupil_of>pupil_of>born_in"
    ).split()
]
WANT = (36, 84, 54)


def _poss(x: str) -> str:
    return f"{x}'" if x.endswith("s") else f"{x}'s"


def _np(rel: str, x: str, short: bool) -> list[str]:
    """Noun phrases for the target of `rel` from the thing `x` describes (possessives only on a short x)."""
    p = _poss(x)
    forms: dict[str, tuple[list[str], list[str]]] = {
        "built_at": (
            [
                f"the works that built {x}",
                f"the builder of {x}",
                f"the firm whose shops turned out {x}",
                f"the works {x} came from",
                f"the makers of {x}",
            ],
            [f"{p} builder", f"{p} makers"],
        ),
        "designed_by": (
            [
                f"the designer of {x}",
                f"the person who drew {x}",
                f"the engineer whose drawings {x} followed",
                f"the one {x} was designed by",
            ],
            [f"{p} designer"],
        ),
        "shedded_at": (
            [f"the shed {x} was allocated to", f"the depot that kept {x}", f"the shed where {x} was stabled"],
            [f"{p} home shed", f"{p} depot"],
        ),
        "owned_by": (
            [f"the railway that ran {x}", f"the company {x} worked for", f"the owners of {x}", f"the line {x} ran on"],
            [f"{p} owners", f"{p} operator"],
        ),
        "preserved_at": (
            [
                f"the museum where {x} is preserved",
                f"the collection that keeps {x}",
                f"the place {x} is displayed today",
            ],
            [f"{p} present home"],
        ),
        "founded_by": (
            [f"the founder of {x}", f"the person who set up {x}", f"the one who established {x}"],
            [f"{p} founder"],
        ),
        "works_in": ([f"the town where {x} stood", f"the town {x} was in", f"the place that housed {x}"], []),
        "depot_in": ([f"the town {x} served", f"the town where {x} stood", f"the place {x} was in"], []),
        "museum_in": ([f"the town where {x} is", f"the place that houses {x}", f"the town {x} is found in"], []),
        "hq_in": (
            [f"the town where {x} had its offices", f"the town {x} was run from", f"the seat of {x}"],
            [f"{p} head office town"],
        ),
        "chief_engineer": (
            [
                f"the chief engineer of {x}",
                f"the locomotive superintendent of {x}",
                f"the person {x} put in charge of its engines",
            ],
            [f"{p} chief engineer"],
        ),
        "absorbed_into": (
            [f"the company that absorbed {x}", f"the railway {x} was merged into", f"the successor of {x}"],
            [f"{p} successor"],
        ),
        "born_in": (
            [f"the birthplace of {x}", f"the town where {x} was born", f"the place {x} came from"],
            [f"{p} birthplace", f"{p} home town"],
        ),
        "apprenticed_at": (
            [
                f"the works where {x} served an apprenticeship",
                f"the firm {x} trained at",
                f"the shops {x} was apprenticed to",
            ],
            [f"{p} training works"],
        ),
        "pupil_of": (
            [f"the master {x} learned under", f"the engineer who took {x} as a pupil", f"the teacher of {x}"],
            [f"{p} teacher", f"{p} master"],
        ),
        "died_in": (
            [f"the town where {x} died", f"the place {x} died in", f"the place of death of {x}"],
            [f"{p} deathplace"],
        ),
        "in_district": ([f"the district {x} lies in", f"the district containing {x}", f"the area {x} belongs to"], []),
    }
    plain, possessive = forms[rel]
    return plain + (possessive if short else [])


def _final(rel: str, x: str, short: bool, rng: random.Random) -> list[str]:
    """Sentences asking for the target of `rel` from the thing `x` describes."""
    direct = {
        "built_at": [f"Which works built {x}?", f"Where was {x} built?"],
        "designed_by": [f"Who designed {x}?", f"By whom was {x} drawn?"],
        "shedded_at": [f"Which shed was {x} allocated to?", f"Where was {x} stabled?"],
        "owned_by": [f"Which railway ran {x}?", f"For which company did {x} work?"],
        "preserved_at": [f"Where is {x} preserved?", f"Which museum keeps {x}?"],
        "founded_by": [f"Who founded {x}?", f"By whom was {x} established?"],
        "works_in": [f"In which town did {x} stand?", f"Where was {x}?"],
        "depot_in": [f"Which town did {x} serve?", f"Where was {x}?"],
        "museum_in": [f"In which town is {x}?", f"Where is {x} found?"],
        "hq_in": [f"Where did {x} have its offices?", f"From which town was {x} run?"],
        "chief_engineer": [f"Who was chief engineer of {x}?", f"Who ran the locomotive department of {x}?"],
        "absorbed_into": [f"Which company absorbed {x}?", f"Into which railway was {x} merged?"],
        "born_in": [f"Where was {x} born?", f"Which town did {x} come from?"],
        "apprenticed_at": [f"Where did {x} serve an apprenticeship?", f"At which firm did {x} train?"],
        "pupil_of": [f"Under whom did {x} learn?", f"Who took {x} as a pupil?"],
        "died_in": [f"Where did {x} die?", f"In which town did {x} die?"],
        "in_district": [f"Which district does {x} lie in?", f"What area does {x} belong to?"],
    }[rel]
    lead = ["Name {}.", "I need {}.", "Tell me {}.", "Find {}.", "Give {}.", "What is {}?"]
    nps = _np(rel, x, short)
    return direct + [rng.choice(lead).format(np) for np in nps]


def _refs(w: World, file: str) -> list[str]:
    e = w.ents[file]
    if e.kind == "loco":
        return [e.title, f"the engine {e.title}", f"the {e.facts['wheels']} {e.title}"]
    if e.kind == "railway":
        return [f"the {e.title}"]
    if e.facts.get("namesake"):  # two people of this name: say which ("the locomotive engineer X")
        return [f"the {e.facts['prof']} {e.title}"]
    return [e.title]


def _phrase(w: World, files: list[str], pattern: tuple[str, ...], rng: random.Random) -> str:
    x, short = rng.choice(_refs(w, files[0])), True
    start_ref = x
    for rel in pattern[:-1]:
        nps = _np(rel, x, short)
        x = rng.choice(nps)
        short = x.startswith(start_ref)  # a possessive goes on: "X's designer's teacher's birthplace"
    q = rng.choice(_final(pattern[-1], x, short, rng))
    return q[0].upper() + q[1:]


def make_questions(
    w: World, docs: list[Doc], rng: random.Random, words: Callable[[str], set[str]]
) -> list[tuple[Question, list[str]]]:
    """36 one-hop, 84 two-hop and 54 three-hop questions with their chains' files."""
    text = {d.name: d.text for d in docs}
    naming = {f: {d.name for d in docs if names(d.text, e.title)} for f, e in w.ents.items()}
    out: list[tuple[Question, list[str]]] = []
    seen: set[str] = set()
    ends: dict[str, int] = {}
    for patterns, want in zip((_ONE, _TWO, _THREE), WANT, strict=True):
        pools = question_pools(w, text, naming, patterns, rng, words, _phrase)
        kinds: dict[str, list[list[tuple[str, list[str]]]]] = {}  # start kind -> its patterns' pools
        for pool in pools:
            kinds.setdefault(pool[0][1][0].split("_")[0], []).append(pool)
        turn = dict.fromkeys(kinds, 0)
        taken: list[tuple[Question, list[str]]] = []
        starts: set[str] = set()
        while len(taken) < want and any(any(ps) for ps in kinds.values()):
            for kind, ps in kinds.items():  # round-robin over start kinds, then over each kind's patterns
                for _ in range(len(ps)):
                    pool = ps[turn[kind] % len(ps)]
                    turn[kind] += 1
                    got = False
                    while pool and len(taken) < want:
                        q, files = pool.pop()
                        if q in seen or files[0] in starts or (len(files) > 2 and ends.get(files[-1], 0) >= 4):
                            continue
                        seen.add(q)
                        starts.add(files[0])
                        ends[files[-1]] = ends.get(files[-1], 0) + 1
                        taken.append((Question(q, files[-1], len(files) - 1), files))
                        got = True
                        break
                    if got:
                        break
        out += taken
    return out
