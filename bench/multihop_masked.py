"""The masked multi-hop corpus (#28): a third blind check of the `kg` ranker, never tuned on.

Written by a helper that read no code under gateway/knowledge_graph/ or the retrieval rankers and
no part of docs/ARCHITECTURE.md's knowledge-graph section, and that never ran `kg` (or `kg+2hop`)
on it; it is calibrated with hybrid search, two-hop expansion and PPR only. Nobody tuning a ranker
is to read this file, bench/multihop_masked_text.py, _questions.py or _traps.py, or its test.

A fictional railway archive generated from a fixed seed (a domain no other corpus uses):
locomotives, the works that built them, the engineers who designed them, the depots that kept
them, the companies that ran them and the museums that keep them now; the founders of the works,
the engineers' apprenticeships, masters and posts, where people were born and died, and the
districts the towns lie in (17 relation types). Pages are written as catalogue cards, infoboxes,
timelines, obituaries, letters, board minutes, gazetteer entries and allocation registers, with
each relation worded several ways (bench/multihop_masked_text.py); a link is stated on the
subject's page, the other end's page or both.

Questions (bench/multihop_masked_questions.py): 36 one-hop controls, 84 two-hop and 54 three-hop,
as questions, "Name the ...", "I need the ...", "Tell me ...", possessive chains and contact
relatives; a multi-hop answer page shares no content word with its question and does not name
the chain's start, and no page off the chain names both its ends. Traps
(bench/multihop_masked_traps.py): namesakes of engineers (same full name, another trade), shared
surnames, engines, works and companies named after towns they have nothing to do with, rebuilt
engines carrying an old name, hub pages (stock registers, timetables, membership rolls, works
lists) naming many entities in passing, and notes sharing the questions' relation words.

Shape: 373 pages (122 engines, 68 people, 34 towns, 16 depots, 13 works, 12 companies, 10
districts, 6 museums; traps: 10 namesakes, 12 rebuilt engines, 30 hub pages, 24 handbills, 16
notes); 743 links, 494 stated only on the subject's page, 140 only on the other end's, 109 on
both (of the 234 links the questions walk: 135 / 51 / 48). Fourteen engines bear a town's name,
eight companies are named after two towns they are not run from, five works after a town or a
founder; seven surnames are shared by two people. Three-hop chains start on engines (33), people
(18) and companies (3).

Calibrated without `kg` (`flock /work/wt/bench.lock .venv/bin/python -m bench.bench_multihop
--corpus masked --per-hops 0 --methods hybrid two-hop ppr`), top-10 hit rate / MRR@10 on the 138
multi-hop questions (hybrid / two-hop expansion / PPR): 0.7 % / 34.8 % / 3.6 % (MRR 0.001 /
0.074 / 0.004); two-hop expansion 53.6 % on two-hop and 5.6 % on three-hop questions; one-hop
controls 77.8 % / 69.4 % / 75.0 %.
"""

from __future__ import annotations

import random
import re

from bench.corpus_world import FUNCTION_WORDS, Ent, Names, Recipe, World
from bench.corpus_world import side as world_side
from bench.multihop_masked_questions import make_questions
from bench.multihop_masked_text import DUTIES, TRADES, WHEELS, render
from bench.multihop_masked_traps import add_traps

_ON = ["b", "d", "k", "l", "m", "n", "r", "s", "t", "w", "st", "br", "cr", "gl", "sk", "tw", "wh", "h", "p", "sp"]
_NU = ["a", "e", "i", "o", "u", "ay", "ow", "ee", "ai"]
_CO = ["ck", "ll", "rn", "sh", "nt", "rd", "mp", "ss", "lt", "dg", "ns", "ft", "tch", "lb"]
_PLACE = ["by", "thorpe", "wick", "ley", "ham", "ford", "stow", "combe", "hope", "ness", "field", "bury"]
_SURN = ["er", "ley", "ton", "well", "man", "son", "ard", "ing", "lock", "hurst"]
_GIVEN = (
    "Josiah Ambrose Edmund Silas Hester Walter Matilda Cornelius Ezra Lavinia Rufus Obadiah Harriet Percival "
    "Jabez Clement Thaddeus Octavia Barnaby Ephraim Augusta Reuben Leopold Winifred Gideon Cecily Lemuel Tobias"
).split()
_ENGINEER = ["locomotive engineer", "mechanical engineer", "railway engineer"]
_MAKER = ["ironmaster", "engine builder", "industrialist"]
_PARENT = ["blacksmith", "miller", "schoolmaster", "platelayer", "clockmaker", "draper", "curate"]


def _names(rng: random.Random) -> Names:
    """Fictional words, each used once unless a trap reuses one on purpose; none with a letter thrice over."""
    return Names(rng, (_ON, _NU, _CO, ["a", "o", "ia", "ine", "us", "el"]), shortest=0, reject=r"(.)\1\1")


# what an instruction's lead ("Name ...", "I need ...") adds to the words a question and its answer may share
_FUNCTION = FUNCTION_WORDS | {"need", "tell", "name", "give", "find", "please"}


def words(text: str) -> set[str]:
    """Content words of four letters or more (lower-cased): a multi-hop question and its answer share none."""
    return {t for t in re.findall(r"[a-z']{4,}", text.lower().replace("'s ", " ")) if t not in _FUNCTION}


def side(rng: random.Random, fwd: int = 68, both: int = 14, back: int = 18) -> str:
    """Which page states a link, with this corpus's default weights (bench/corpus_world.py's side)."""
    return world_side(rng, fwd, both, back)


def _people(rng: random.Random, nm: Names, w: World, towns: list[Ent]) -> list[Ent]:
    people: list[Ent] = []
    shared = [nm.word(_SURN) for _ in range(7)]  # seven surnames borne by two people each
    for i in range(68):
        role = "maker" if i % 5 == 4 else "engineer"
        sn = shared[i // 9] if i % 9 in (2, 7) and i // 9 < 7 else nm.word(_SURN)
        given = _GIVEN[(i * 11) % len(_GIVEN)]
        p = w.add(Ent(f"person_{i:02d}.md", f"{given} {sn}", "person"))
        born = 1800 + (i * 7) % 60 + rng.randint(0, 8)
        p.facts = {
            "female": given in {"Hester", "Matilda", "Lavinia", "Harriet", "Octavia", "Augusta", "Winifred", "Cecily"},
            "born": born,
            "died": born + rng.randint(55, 88),
            "prof": rng.choice(_ENGINEER if role == "engineer" else _MAKER),
            "role": role,
            "parent": rng.choice(_PARENT),
        }
        w.tie("born_in", p, rng.choice(towns), side(rng))
        if rng.random() < 0.6:
            w.tie("died_in", p, rng.choice(towns), side(rng))
        elders = [q for q in people if q.facts["role"] == "engineer" and q.facts["born"] + 14 < born]
        if role == "engineer" and elders and rng.random() < 0.7:
            w.tie("pupil_of", p, rng.choice(elders), side(rng))
        people.append(p)
    return people


def _populate(rng: random.Random, nm: Names) -> World:
    w = World()
    dirs = ["northern", "southern", "eastern", "western", "central", "border", "coastal", "forest", "fen", "moorland"]
    districts = [
        w.add(Ent(f"district_{i}.md", nm.word(), "district", facts={"dir": d, "area": rng.randint(20, 400) * 1000}))
        for i, d in enumerate(dirs)
    ]
    towns: list[Ent] = []
    for i in range(34):
        t = w.add(Ent(f"town_{i:02d}.md", nm.word(_PLACE), "town"))
        t.facts = {"pop": rng.randint(8, 400) * 100, "trade": rng.choice(TRADES)}
        w.tie("in_district", t, districts[i % len(districts)], side(rng, 60, 15, 25))
        towns.append(t)
    people = _people(rng, nm, w, towns)
    makers = [p for p in people if p.facts["role"] == "maker"]
    engineers = [p for p in people if p.facts["role"] == "engineer"]
    works_list: list[Ent] = []
    for i in range(13):
        founder = makers[i % len(makers)]
        if i in (3, 7, 11):  # named after a town it is not in
            stem = towns[(i * 5) % 34].title
        elif i in (1, 5):  # named after its founder's surname
            stem = founder.title.split()[-1]
        else:
            stem = nm.word()
        title = f"{stem} {['Engine Works', 'Foundry', 'Locomotive Company', 'Ironworks'][i % 4]}"
        facts = {"year": founder.facts["born"] + rng.randint(24, 40), "staff": rng.randint(80, 4000)}
        wk = w.add(Ent(f"works_{i:02d}.md", title, "works", facts=facts))
        w.tie("founded_by", wk, founder, side(rng))
        w.tie("works_in", wk, rng.choice([t for t in towns if t.title != stem]), side(rng))
        works_list.append(wk)
    for p in engineers:
        if rng.random() < 0.85:
            w.tie("apprenticed_at", p, rng.choice(works_list), side(rng))
    railways: list[Ent] = []
    for i in range(12):
        a, b = rng.sample(towns, 2)
        while any(r.title.startswith(f"{a.title} and {b.title}") for r in railways):
            a, b = rng.sample(towns, 2)
        title = f"{a.title} and {b.title} Railway" if i % 3 != 2 else f"{nm.word()} Valley Railway"
        facts = {"year": rng.randint(1830, 1880), "miles": rng.randint(8, 240), "trade": rng.choice(TRADES)}
        r = w.add(Ent(f"railway_{i:02d}.md", title, "railway", facts=facts))
        w.tie("hq_in", r, rng.choice([t for t in towns if t not in (a, b)]), side(rng))
        w.tie("chief_engineer", r, rng.choice(engineers), side(rng))
        if i >= 3 and rng.random() < 0.85:  # the later, smaller companies went to the first three
            w.tie("absorbed_into", r, rng.choice(railways[:3]), side(rng, 50, 25, 25))
        railways.append(r)
    depots: list[Ent] = []
    for i in range(16):
        facts = {
            "roads": rng.randint(2, 12),
            "year": rng.randint(1840, 1900),
            "code": f"{rng.randint(1, 89)}{'ABCDE'[i % 5]}",
        }
        d = w.add(
            Ent(
                f"depot_{i:02d}.md",
                f"{nm.word()} {['Shed', 'Depot', 'Motive Power Depot'][i % 3]}",
                "depot",
                facts=facts,
            )
        )
        w.tie("depot_in", d, rng.choice(towns), side(rng))
        depots.append(d)
    museums: list[Ent] = []
    for i in range(6):
        title = f"{nm.word()} {['Railway Museum', 'Steam Centre', 'Transport Collection'][i % 3]}"
        m = w.add(Ent(f"museum_{i}.md", title, "museum", facts={"year": rng.randint(1950, 1995)}))
        w.tie("museum_in", m, rng.choice(towns), side(rng))
        museums.append(m)
    for i in range(122):
        wk = rng.choice(works_list)
        year = max(wk.facts["year"] + rng.randint(2, 45), 1840)
        name = towns[(i * 3) % 34].title if i % 9 == 4 else nm.word()  # some engines bear a town's name
        facts = {
            "year": year,
            "wheels": rng.choice(WHEELS),
            "duty": rng.choice(DUTIES),
            "withdrawn": year + rng.randint(20, 60),
            "miles": rng.randint(300, 2400) * 1000,
        }
        e = w.add(Ent(f"loco_{i:03d}.md", f"No. {100 + i * 7} {name}", "loco", facts=facts))
        w.tie("built_at", e, wk, side(rng))
        alive = [p for p in engineers if p.facts["born"] + 24 <= year <= p.facts["died"]]
        if rng.random() < 0.8:
            w.tie("designed_by", e, rng.choice(alive or engineers), side(rng))
        w.tie("owned_by", e, rng.choice(railways), side(rng, 72, 12, 16))
        if rng.random() < 0.75:
            w.tie("shedded_at", e, rng.choice(depots), side(rng))
        if rng.random() < 0.25:
            w.tie("preserved_at", e, rng.choice(museums), side(rng))
    return w


_RECIPE = Recipe(
    names=_names,
    populate=_populate,
    render=render,
    traps=add_traps,
    questions=lambda w, docs, rng: make_questions(w, docs, rng, words),
    seed=31,
)

# The corpus: ~370 pages; 36 one-hop, 84 two-hop and 54 three-hop questions; the same for a seed.
build_masked = _RECIPE.build
masked_world = _RECIPE.world
masked_chains = _RECIPE.chains
