"""The swathed multi-hop corpus (#28): a ninth blind check of the `kg` ranker, never tuned on.

Written by a helper that read no code under gateway/knowledge_graph/ and no other corpus's
questions, and that never ran `kg` (or `kg+2hop`) on it; it is calibrated with hybrid search,
two-hop expansion and PPR only. Nobody tuning a ranker is to read this file,
bench/multihop_swathed_text.py, _words.py, _traps.py or _questions.py, or its test.

A fictional encyclopaedia of opera and recorded music, horticulture and porcelain generated from a
fixed seed (domains no other corpus uses): operas, their composers and the opera houses that gave
their premieres; recordings, their labels, soloists and the operas they record; singers, their
teachers and conservatories; garden cultivars, their breeders, the nurseries that introduced them
and the singers some are named after; botanic gardens, their curators and the breeders they
trained; porcelain services, the manufactories that made them and the cultivars painted on them;
founders of houses, labels, nurseries and manufactories; where people were born, where
organisations are and the provinces the towns lie in (18 relation types, each worded three ways in
prose and two as key-value lines: bench/multihop_swathed_words.py). Pages are narrative articles,
infoboxes, tables, timelines, news items and register entries (bench/multihop_swathed_text.py).

Questions (bench/multihop_swathed_questions.py): 36 one-hop controls, 90 two-hop and 48 three-hop,
a fifth typed all in lower case: "the X of the Y of Z", relative clauses, "whose" clauses folding
two hops, possessives, wh-questions on the last hop, requests and indirect questions. A multi-hop
answer page shares no content word (a crude stem) with its question and does not name the start,
the start's page does not name the answer, no page off the chain names both ends, no chain visits
a page twice, no start is a name a namesake also bears. Dates agree (founders 25 to 70, no record
label before 1895, composers 25 to 75 at a premiere in a house already open, recordings after their
opera and label with a soloist of 20 to 70, students of 18 to 24 at a school already open,
apprentices of 19 to 24 before their first cultivar, breeders 25 to 80, teachers 15 to 50 years
older, curators living breeders appointed at 30 to 44, listings naming only what existed in their
year, nothing after 2025).
Traps (bench/multihop_swathed_traps.py): 12 namesakes, six shared surnames, five organisations
named after towns they are not in, three stems borne by two organisations each, 49 listings naming
entities in passing (festival seasons, seed lists, auction lots, sales charts, gazetteer sheets,
society rolls, news in brief) and 14 notes sharing the relation words.

Shape: 389 pages (110 people: 44 singers, 30 breeders, 20 composers, 16 founders; 40 towns, 8
provinces; 48 organisations: 10 opera houses, 9 nurseries, 8 labels, 8 gardens, 7 conservatories,
6 porcelain works; 108 works: 36 cultivars, 30 recordings, 28 operas, 14 porcelain pieces; 75
trap pages); 630 links, 345 meant for the subject's page only, 144 for both, 141 for the other
end's only; of the 283 links the questions walk, 144 are named on the subject's page only, 72 on
both and 67 on the other end's only (tests.support.corpus_pages.link_sides). Styles of the 314
entity pages: 95 narrative, 65 infobox, 49 table, 36 timeline, 37 news item, 32 register entry.

Calibrated without `kg` (`flock /work/wt/kg.lock env PYTHONPATH=$PWD .venv/bin/python -m
bench.bench_multihop --corpus swathed --per-hops 0 --speed-repeat 1 --no-single --methods hybrid
two-hop ppr`), top-10 hit rate / MRR@10 on the 138 multi-hop questions (hybrid / two-hop expansion
/ PPR): 0.0 % / 31.9 % / 7.2 % (MRR 0.000 / 0.060 / 0.010); two-hop expansion 45.6 % on two-hop
and 6.2 % on three-hop questions; one-hop controls 91.7 % / 83.3 % / 100 % (after review n28r's
fixes; before them 0.0 % / 28.3 % / 9.4 %, two-hop 41.1 % and 4.2 %, controls 86.1 / 77.8 / 91.7 %).
"""

from __future__ import annotations

import random

from bench.corpus_world import FUNCTION_WORDS, Ent, Names, People, Recipe, World, place_orgs, stemmed_words
from bench.corpus_world import make_works as _works
from bench.corpus_world import side as world_side
from bench.multihop_swathed_questions import make_questions
from bench.multihop_swathed_text import render
from bench.multihop_swathed_traps import add_traps

_ON = ["b", "d", "g", "k", "l", "r", "v", "z", "gr", "dr", "tr", "sk", "sl", "kl", "or", "el", "ar"]
_NU = ["a", "e", "i", "o", "u", "ae", "ei", "ou", "ia", "y"]
_CO = ["nd", "rk", "lt", "zz", "nn", "sk", "rg", "lv", "dd", "rn", "st", "gg", "tt", "rb"]
_END = ["esca", "ina", "oro", "ante", "ello", "ana", "isse", "ova", "iero", "alda"]
_PLACE = ["wick", "ness", "dale", "bury", "holm", "field", "stead", "brook", "worth", "gate", "ton", "minster"]
_SURN = ["ini", "elli", "ova", "sky", "berg", "mann", "quist", "etti", "ardo", "lund"]
_GIVEN = (
    "Adela Bruno Carlotta Dario Elsa Felix Giulia Hugo Ilse Jonas Katya Leon Magda Nils Olga Pavel Renata "
    "Sven Tilde Ugo Vera Walter Xenia Yuri Zelda Anton Greta Marco Lotte Emil"
).split()
FEMALE = set("Adela Carlotta Elsa Giulia Ilse Katya Magda Olga Renata Tilde Vera Xenia Zelda Greta Lotte".split())
_NOT_NAMES = r"(.)\1\1|^(errand|bridge|dress|grass|glass|barn|trend|stand|board)"

_FUNCTION = FUNCTION_WORDS | {
    "name",
    "tell",
    "find",
    "know",
    "looking",
    "could",
    "would",
    "please",
    "wondering",
    "trying",
    "someone",
}


def words(text: str) -> set[str]:
    """Crude stems of the content words: a multi-hop question and its answer page share none."""
    return stemmed_words(text, _FUNCTION)


def side(rng: random.Random) -> str:
    return world_side(rng, 55, 20, 25)


def _names(rng: random.Random) -> Names:
    return Names(rng, (_ON, _NU, _CO, _END), shortest=5, reject=_NOT_NAMES)


def _orgs(
    rng: random.Random, nm: Names, w: World, kind: str, spec: tuple[int, list[str], tuple[int, int]], extra: list[str]
) -> list[Ent]:
    return place_orgs(rng, nm, w, kind, spec, extra, side)


def _populate(rng: random.Random, nm: Names) -> World:
    w = World()
    provinces = [
        w.add(Ent(f"province_{i}.md", f"{nm.word()} {s}", "province", facts={"year": 1650}))
        for i, s in enumerate(["Riding", "March", "Palatinate", "Coast", "Uplands", "Lowlands", "Basin", "Shire"])
    ]
    towns = [w.add(Ent(f"town_{i:02d}.md", nm.word(last=_PLACE), "town", facts={"year": 1600})) for i in range(40)]
    for t in towns:
        w.tie("province", t, rng.choice(provinces), side(rng))
    people = People(rng, nm, w, towns, _GIVEN, FEMALE, _SURN, side, max_shared=6, share=0.08, role_fact=True)
    founders = people.make("founder", 16, (1790, 1930))
    composers = people.make("composer", 20, (1800, 1960))
    singers = people.make("singer", 44, (1860, 1990))
    breeders = people.make("breeder", 30, (1830, 1985))
    stem = [nm.word() for _ in range(3)]  # three stems, each borne by two organisations
    # organisations named after towns they are not in (five of the six drawn are used)
    named = [t.title for t in rng.sample(towns, 6)]
    houses = _orgs(rng, nm, w, "house", (8, ["Opera House", "Lyric Theatre", "Opera"], (1760, 1900)), [
        f"{named[0]} Opera House", f"{stem[0]} Opera"])  # fmt: skip
    schools = _orgs(rng, nm, w, "conservatory", (6, ["Conservatory", "Academy of Music"], (1780, 1920)), [
        f"{stem[1]} Conservatory"])  # fmt: skip
    labels = _orgs(rng, nm, w, "label", (6, ["Records", "Gramophone", "Classics"], (1895, 1985)), [
        f"{named[1]} Records", f"{stem[2]} Records"])  # fmt: skip
    nurseries = _orgs(rng, nm, w, "nursery", (7, ["Nurseries", "Seed Company", "Plant Nursery"], (1790, 1980)), [
        f"{named[2]} Nurseries", f"{stem[2]} Nurseries"])  # fmt: skip
    gardens = _orgs(rng, nm, w, "garden", (6, ["Botanic Garden", "Arboretum", "Physic Garden"], (1680, 1940)), [
        f"{named[3]} Botanic Garden", f"{stem[1]} Arboretum"])  # fmt: skip
    factories = _orgs(rng, nm, w, "works", (4, ["Porcelain", "China Works", "Porcelain Works"], (1720, 1900)), [
        f"{named[4]} Porcelain", f"{stem[0]} China Works"])  # fmt: skip
    for org in houses[:8] + labels + nurseries[:7] + factories:
        # a founder of 25 to 70 at the organisation's own date where one fits (a record label stays
        # after the gramophone), else the nearest founder with the date moved into their span
        year = int(org.facts["year"])
        fit = [f for f in founders if 25 <= year - int(f.facts["year"]) <= 70]
        founder = rng.choice(fit) if fit else min(founders, key=lambda f: abs(year - int(f.facts["year"]) - 47))
        born = int(founder.facts["year"])
        org.facts["year"] = min(max(year, born + 25), born + 70)
        w.tie("founded", org, founder, side(rng))
    for p in composers + singers:  # a student of 18 to 24 at a school already open
        born = int(p.facts["year"])
        open_ = [s for s in schools if int(s.facts["year"]) < born + 24]
        if open_:
            school = rng.choice(open_)
            p.facts["y_studied"] = max(born + 18, int(school.facts["year"]) + 1)
            w.tie("studied", p, school, side(rng))
    for s in singers:  # a teacher 15 to 50 years older (31 to 66 at the first lesson)
        elders = [m for m in singers if 15 <= int(s.facts["year"]) - int(m.facts["year"]) <= 50]
        if elders:
            s.facts["y_teacher"] = int(s.facts["year"]) + 16
            w.tie("teacher", s, rng.choice(elders), side(rng))
    # a garden's curator is its present one, so a living breeder (born 1950 to 1980)
    keepers = rng.sample(breeders, len(gardens))
    for b in keepers:
        b.facts["year"] = rng.randint(1950, 1980)
    for b in breeders:  # an apprentice of 19 to 24 at a garden already laid out
        born = int(b.facts["year"])
        laid_out = [g for g in gardens if int(g.facts["year"]) < born + 24]
        if not laid_out:
            continue
        garden = rng.choice(laid_out)
        b.facts["y_trained"] = max(born + 19, int(garden.facts["year"]) + 1)
        w.tie("trained", b, garden, side(rng))
    for g, b in zip(gardens, keepers, strict=True):
        g.facts["y_curator"] = int(b.facts["year"]) + rng.randint(30, 44)
        w.tie("curator", g, b, side(rng))
    _music(rng, nm, w, composers, singers, houses, labels)
    _plants(rng, nm, w, breeders, singers, nurseries, factories)
    return w


def _music(
    rng: random.Random,
    nm: Names,
    w: World,
    composers: list[Ent],
    singers: list[Ent],
    houses: list[Ent],
    labels: list[Ent],
) -> None:
    """Operas premiered by composers of 25 to 75 in houses already open; recordings of them made
    after the premiere, on a label already trading, with a soloist of 20 to 70."""
    operas = _works(rng, nm, w, "opera", 28, ["{}"])
    for o in operas:
        while True:
            c, h = rng.choice(composers), rng.choice(houses)
            lo = max(int(c.facts["year"]) + 25, int(h.facts["year"]) + 1)
            hi = min(int(c.facts["year"]) + 75, 2023)
            if lo <= hi:
                break
        o.facts["year"] = rng.randint(lo, hi)
        w.tie("composed", o, c, side(rng))
        w.tie("premiered", o, h, side(rng))
    recordings = _works(rng, nm, w, "recording", 30, ["{} Sessions", "Songs from {}", "{} Live", "{} Nights"])
    for r in recordings:
        while True:
            o, s, lab = rng.choice(operas), rng.choice(singers), rng.choice(labels)
            lo = max(int(o.facts["year"]), int(lab.facts["year"]), int(s.facts["year"]) + 20) + 1
            hi = min(int(s.facts["year"]) + 70, 2024)
            if lo <= hi:
                break
        r.facts["year"] = rng.randint(lo, hi)
        w.tie("of_opera", r, o, side(rng))
        w.tie("soloist", r, s, side(rng))
        w.tie("label", r, lab, side(rng))


def _plants(
    rng: random.Random,
    nm: Names,
    w: World,
    breeders: list[Ent],
    singers: list[Ent],
    nurseries: list[Ent],
    factories: list[Ent],
) -> None:
    """Cultivars raised by breeders of 25 to 80 and introduced by a nursery already trading, half of
    them named after a singer already grown; porcelain painted with a cultivar once it existed."""
    cultivars = _works(rng, nm, w, "cultivar", 36, ["{} Rose", "{} Camellia", "{} Tulip", "{} Peony", "{} Dahlia"])
    for c in cultivars:
        while True:
            b, n = rng.choice(breeders), rng.choice(nurseries)
            lo = max(int(b.facts["year"]) + 25, int(n.facts["year"]) + 1)
            hi = min(int(b.facts["year"]) + 80, 2024)
            if lo <= hi:
                break
        c.facts["year"] = rng.randint(lo, hi)
        w.tie("bred", c, b, side(rng))
        w.tie("introduced", c, n, side(rng))
        honoured = [s for s in singers if int(s.facts["year"]) + 20 <= int(c.facts["year"])]
        if honoured and rng.random() < 0.5:
            w.tie("named_for", c, rng.choice(honoured), side(rng))
    services = _works(rng, nm, w, "service", 14, ["{} Service", "{} Vase", "{} Tureen", "{} Figure Group"])
    for s in services:
        c = rng.choice([c for c in cultivars if int(c.facts["year"]) <= 2015])
        f = rng.choice(factories)
        s.facts["year"] = rng.randint(max(int(c.facts["year"]), int(f.facts["year"])) + 1, 2024)
        w.tie("made_by", s, f, side(rng))
        w.tie("depicts", s, c, side(rng))


_RECIPE = Recipe(
    names=_names,
    populate=_populate,
    render=render,
    traps=add_traps,
    questions=lambda w, docs, rng: make_questions(w, docs, rng, words),
    seed=91,
)

build_swathed = _RECIPE.build
swathed_world = _RECIPE.world
swathed_chains = _RECIPE.chains
