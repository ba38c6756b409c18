"""The muffled multi-hop corpus (#28): a sixth blind check of the `kg` ranker, never tuned on.

Written by a helper that read no code under gateway/knowledge_graph/ or the retrieval rankers and
no part of docs/ARCHITECTURE.md's knowledge-graph section, and that never ran `kg` (or `kg+2hop`)
on it; it is calibrated with hybrid search, two-hop expansion and PPR only. Nobody tuning a ranker
is to read this file, bench/multihop_muffled_text.py, _places.py, _questions.py or _traps.py, or
its test.

A fictional world of sport and food generated from a fixed seed (domains no other corpus uses):
football clubs, their grounds, head coaches, founders and shirt sponsors, the players who play for
them and the youth academies they came through; restaurants, their head chefs, the culinary
schools the chefs trained at and the chefs they trained under, the farms that supply them, the
groups that own them, the awards they won and the food guides that give the awards; where people
were born, where organisations are and the counties the towns lie in (16 relation types). Pages
are written as obituaries, podcast transcripts with speaker tags, hall-of-fame labels, forum
threads, fact sheets as markdown tables, board-meeting minutes, press releases, timelines, chat
logs, restaurant reviews with star ratings, menus with producer notes and travel-guide snippets
(bench/multihop_muffled_text.py, _places.py), each relation worded several ways and stated on the
subject's page, the other end's or both.

Questions (bench/multihop_muffled_questions.py): 36 one-hop controls, 90 two-hop and 48 three-hop,
a fifth typed all in lower case; a multi-hop answer page shares no content word with its question
(a crude stem) and does not name the chain's start, the start's page does not name the answer,
and no page off the chain names both its ends.
Traps (bench/multihop_muffled_traps.py): namesakes, shared surnames, clubs and restaurants named
after towns they are not in, two organisations on one stem (a sponsor and a farm), renamed clubs
and restaurants, league tables, guide listings, all-time squad lists and match reports naming many
entities in passing, food-festival stall lists, and notes sharing the questions' relation words.
Dates agree: clubs founded by grown founders before they died and moving to a ground once it opened,
groups by grown restaurateurs, head chefs aged 24 to 55 when their restaurant opened, mentors twelve
years older than their pupils, academies and schools open when their pupils joined, awards after
their guides and won once they exist; timelines run in order and no page is dated past 2025.

Shape: 375 pages (113 people: 52 players, 34 chefs, 13 coaches, 8 club founders, 6 restaurateurs;
64 restaurants, 34 towns, 12 clubs, 10 grounds, 10 farms, 9 counties, 9 awards, 7 sponsors, 6
academies, 6 cookery schools, 6 restaurant groups, 4 guides; traps: 10 namesakes, 11 renamed clubs
and restaurants, 38 hub pages, 12 festival stall lists, 14 notes); 632 links, 397 meant for the
subject's page only, 108 for both and 127 for the other end's only (where a page lists a few
players, pupils or customers, the rest go unstated); of the 250 links the questions walk, 144 are
named on the subject's page only, 47 on both and 59 on the other end's only. Seven restaurants and
four clubs bear a town's name and are not in it; a sponsor shares a farm's stem and an award a
guide's that does not give it; seven surnames are shared by two people; the English words this
seed drew (Skinner, Render, Mambo, ...) are drawn again. Three-hop chains start on people (20),
restaurants (17), clubs (9) and awards (2); 34 questions are typed all in lower case.

Calibrated without `kg` (`flock /work/wt/kg.lock env PYTHONPATH=$PWD .venv/bin/python -m
bench.bench_multihop --corpus muffled --per-hops 0 --speed-repeat 1 --no-single --methods hybrid
two-hop ppr`), top-10 hit rate / MRR@10 on the 138 multi-hop questions (hybrid / two-hop expansion
/ PPR): 0.0 % / 23.9 % / 2.2 % (MRR 0.000 / 0.044 / 0.003); two-hop expansion 36.7 % on two-hop
and 0.0 % on three-hop questions; one-hop controls 69.4 % / 66.7 % / 91.7 %.
"""

from __future__ import annotations

import random

from bench.corpus_world import FUNCTION_WORDS, Ent, Names, Recipe, World, stemmed_words
from bench.corpus_world import side as world_side
from bench.multihop_muffled_places import render
from bench.multihop_muffled_questions import make_questions
from bench.multihop_muffled_traps import add_traps

_ON = ["k", "m", "v", "br", "gr", "dr", "tr", "sk", "sl", "b", "d", "f", "g", "l", "n", "r", "t", "z", "cr", "pr"]
_NU = ["a", "e", "i", "o", "u", "oo", "ae", "ey", "ia", "ou"]
_CO = ["nn", "lv", "sk", "rm", "nd", "lb", "gg", "rt", "zz", "mb", "rk", "st", "dd", "lk"]
_PLACE = ["field", "wich", "ton", "borough", "caster", "dale", "minster", "port", "holme", "bridge", "wold", "gate"]
_SURN = ["son", "er", "ell", "ick", "ard", "low", "ey", "ins", "ock", "an"]
_GIVEN = (
    "Martha Declan Sienna Owen Lorna Callum Freya Rhys Nadia Ewan Tamsin Hugo Greta Niall Rosa Dominic Elodie "
    "Silas Maeve Jasper Ines Conor Petra Roland Agnes Bram Carys Idris"
).split()
FEMALE = set("Martha Sienna Lorna Freya Nadia Tamsin Greta Rosa Elodie Maeve Ines Petra Agnes Carys".split())
_NOT_NAMES = (
    r"(.)\1\1|^(butter|banker|better|border|bolder|ladder|letter|lender|rubber|tender|tinder|dinner|skinner"
    r"|badder|tusker|figger|rasta|kerma|ledder|modder|render|mambo|baggins)$"
)

ROLE_WORD = {
    "player": "footballer",
    "coach": "coach",
    "chef": "chef",
    "industrialist": "industrialist",
    "restaurateur": "restaurateur",
}


def _names(rng: random.Random) -> Names:
    """Fictional words, each used once unless a trap reuses one on purpose; none an English word."""
    return Names(rng, (_ON, _NU, _CO, ["a", "o", "er", "en", "ey", "is"]), shortest=4, reject=_NOT_NAMES)


_FUNCTION = FUNCTION_WORDS | {"need", "tell", "find", "show", "please", "looking", "know", "want", "anyone", "give"}


def words(text: str) -> set[str]:
    """Crude stems of the content words (bench/corpus_world.py's `stemmed_words`): a multi-hop
    question and its answer share none."""
    return stemmed_words(text, _FUNCTION)


def side(rng: random.Random, fwd: int = 62, both: int = 18, back: int = 20) -> str:
    return world_side(rng, fwd, both, back)


def _people(rng: random.Random, nm: Names, w: World, towns: list[Ent]) -> dict[str, list[Ent]]:
    plan = [("player", 52), ("coach", 13), ("chef", 34), ("industrialist", 8), ("restaurateur", 6)]
    roles = [r for r, n in plan for _ in range(n)]
    rng.shuffle(roles)
    shared = [nm.word(_SURN) for _ in range(7)]  # seven surnames borne by two people each
    span = {"player": (1938, 2004), "coach": (1958, 1986), "chef": (1955, 1998)}
    span |= {"industrialist": (1838, 1880), "restaurateur": (1940, 1978)}
    by: dict[str, list[Ent]] = {r: [] for r, _n in plan}
    for i, role in enumerate(roles):
        sn = shared[i // 14] if i % 14 in (3, 10) and i // 14 < 7 else nm.word(_SURN)
        given = _GIVEN[(i * 11) % len(_GIVEN)]
        p = w.add(Ent(f"person_{i:03d}.md", f"{given} {sn}", "person"))
        lo, hi = span[role]
        p.facts = {"female": given in FEMALE, "born": rng.randint(lo, hi), "role": role}
        if role == "industrialist":
            p.facts["died"] = p.facts["born"] + rng.randint(58, 90)
        w.tie("born_in", p, rng.choice(towns), side(rng))
        by[role].append(p)
    return by


def _org(w: World, file: str, title: str, kind: str, town: Ent, rng: random.Random, **facts: object) -> Ent:
    e = w.add(Ent(file, title, kind, facts=dict(facts)))
    w.tie("based_in", e, town, side(rng))
    return e


def _populate(rng: random.Random, nm: Names) -> World:
    w = World()
    lands = ["hill", "coastal", "marsh", "lowland", "upland", "river", "orchard", "mining", "lake"]
    counties = [
        w.add(Ent(f"county_{i}.md", nm.word(), "county", facts={"land": c, "pop": rng.randint(80, 900) * 1000}))
        for i, c in enumerate(lands)
    ]
    towns: list[Ent] = []
    for i in range(34):
        t = w.add(Ent(f"town_{i:02d}.md", nm.word(_PLACE), "town", facts={"pop": rng.randint(9, 800) * 100}))
        w.tie("in_county", t, counties[i % len(counties)], side(rng, 55, 15, 30))
        towns.append(t)

    def away(stem: str) -> Ent:
        return rng.choice([t for t in towns if t.title != stem])

    by = _people(rng, nm, w, towns)
    academies = []
    for i in range(6):
        kind = ["Youth Academy", "Football Academy", "Academy of Sport"][i % 3]
        stem = nm.word()
        academies.append(_org(w, f"academy_{i}.md", f"{stem} {kind}", "academy", away(stem), rng, year=1948 + i * 7))
    schools = []
    for i in range(6):
        kind = ["Cookery School", "Culinary Institute", "School of Cookery"][i % 3]
        stem = nm.word()
        schools.append(_org(w, f"school_{i}.md", f"{stem} {kind}", "school", away(stem), rng, year=1925 + i * 9))
    for p in by["player"] + by["coach"]:
        open_then = [a for a in academies if a.facts["year"] <= p.facts["born"] + 12]
        if open_then and rng.random() < 0.75:
            w.tie("came_through", p, rng.choice(open_then), side(rng))
    chefs = sorted(by["chef"], key=lambda c: c.facts["born"])
    for c in chefs:
        open_then = [s for s in schools if s.facts["year"] <= c.facts["born"] + 17]
        if open_then and rng.random() < 0.75:
            w.tie("trained_at", c, rng.choice(open_then), side(rng))
        elders = [m for m in chefs if m.facts["born"] <= c.facts["born"] - 12]
        if elders and rng.random() < 0.6:
            w.tie("apprenticed_under", c, rng.choice(elders), side(rng))
    sponsors = []
    for i in range(7):
        kind = ["Brewery", "Dairies", "Bakeries", "Mills", "Cider Company", "Foods", "Creamery"][i]
        stem = nm.word() if i != 1 else "__farm0__"
        sponsors.append((stem, kind))
    farms = []
    for i in range(10):
        stem = nm.word()
        kind = ["Farm", "Orchards", "Smokehouse", "Fisheries", "Market Garden"][i % 5]
        farms.append(_org(w, f"farm_{i}.md", f"{stem} {kind}", "farm", away(stem), rng))
    sponsor_ents = []
    for i, (stem, kind) in enumerate(sponsors):
        stem = farms[0].title.split()[0] if stem == "__farm0__" else stem  # a sponsor on a farm's stem
        sponsor_ents.append(_org(w, f"sponsor_{i}.md", f"{stem} {kind}", "sponsor", away(stem), rng))
    stadiums = []
    for i in range(10):
        stem = nm.word()
        kind = ["Park", "Road", "Lane", "Stadium", "Meadow"][i % 5]
        stadiums.append(_org(w, f"stadium_{i}.md", f"{stem} {kind}", "stadium", away(stem), rng, year=1885 + i * 11))
    clubs = []
    for i in range(12):
        founder = by["industrialist"][i % len(by["industrialist"])]
        year = founder.facts["born"] + rng.randint(25, 45)
        stem = towns[(i * 7 + 2) % 34].title if i in (1, 4, 8, 10) else nm.word()  # named after a town
        title = f"{stem} {['Rovers', 'Athletic', 'Town', 'United', 'Albion', 'Wanderers'][i % 6]}"
        c = _org(w, f"club_{i:02d}.md", title, "club", away(stem), rng, year=year)
        w.tie("founded_by", c, founder, side(rng))
        w.tie("home_ground", c, stadiums[i % len(stadiums)], side(rng))
        if i < len(by["coach"]):
            w.tie("coached_by", c, by["coach"][i], side(rng))
        if i < 11:
            w.tie("sponsored_by", c, sponsor_ents[i % len(sponsor_ents)], side(rng))
        clubs.append(c)
    for p in by["player"]:
        w.tie("plays_for", p, rng.choice(clubs), side(rng))
    guides = []
    for i in range(4):
        stem = nm.word()
        kind = ["Guide", "Good Food Guide", "Table Guide", "Restaurant Guide"][i]
        guides.append(_org(w, f"guide_{i}.md", f"The {stem} {kind}", "guide", away(stem), rng, year=1950 + i * 8))
    awards = []
    for i in range(9):
        g = guides[i % len(guides)]
        stem = nm.word() if i != 5 else guides[1].title.split()[1]  # an award on a guide's stem, not its own
        if i == 5:
            g = guides[2]
        title = f"{stem} {['Star', 'Plate', 'Award for Cooking'][i % 3]}"
        a = w.add(Ent(f"award_{i}.md", title, "award", facts={"year": g.facts["year"] + 2 + i * 3}))
        w.tie("award_by", a, g, side(rng))
        awards.append(a)
    groups = []
    for i in range(6):
        founder = by["restaurateur"][i]
        stem = nm.word()
        kind = ["Restaurant Group", "Hospitality", "Dining Company"][i % 3]
        year = min(2015, founder.facts["born"] + rng.randint(26, 40))
        g = _org(w, f"group_{i}.md", f"{stem} {kind}", "group", away(stem), rng, year=year)
        w.tie("founded_by", g, founder, side(rng))
        groups.append(g)
    forms = ["The {w} Table", "{w}", "Brasserie {w}", "The {w} Arms", "Cafe {w}", "{w} Kitchen", "The Old {w}"]
    for i in range(64):
        stem = towns[(i * 5 + 1) % 34].title if i % 9 == 4 else nm.word()  # some bear a town's name
        title = forms[i % len(forms)].format(w=stem)
        if title == stem and i % 9 == 4:
            title = f"{stem} Kitchen"
        year = rng.randint(1990, 2024)
        r = w.add(Ent(f"restaurant_{i:02d}.md", title, "restaurant", facts={"year": year}))
        r.facts.update(stars=rng.randint(2, 5), seats=rng.randint(3, 16) * 4)
        here = [t for t in towns if t.title != stem]
        w.tie("based_in", r, rng.choice(here), side(rng))
        cooks = [c for c in chefs if c.facts["born"] + 24 <= year <= c.facts["born"] + 55]
        if cooks and rng.random() < 0.85:
            w.tie("head_chef", r, rng.choice(cooks), side(rng))
        if rng.random() < 0.55:
            w.tie("owned_by", r, rng.choice([g for g in groups if g.facts["year"] <= year] or groups), side(rng))
        if rng.random() < 0.6:
            w.tie("supplied_by", r, rng.choice(farms), side(rng))
        running = [a for a in awards if a.facts["year"] <= 2024]
        if rng.random() < 0.45:
            a = rng.choice(running)
            r.facts["won_year"] = rng.randint(max(year, a.facts["year"]), 2025)
            w.tie("won", r, a, side(rng))
    return w


_RECIPE = Recipe(
    names=_names,
    populate=_populate,
    render=render,
    traps=add_traps,
    questions=lambda w, docs, rng: make_questions(w, docs, rng, words),
    seed=61,
)

build_muffled = _RECIPE.build
muffled_world = _RECIPE.world
muffled_chains = _RECIPE.chains
