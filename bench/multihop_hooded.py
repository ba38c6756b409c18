"""The hooded multi-hop corpus (#28): a tenth blind check of the `kg` ranker, never tuned on.

Written by a helper (n29, session 15) that read no code under gateway/knowledge_graph/, not the
knowledge-graph section of docs/ARCHITECTURE.md and no other corpus's questions (only swathed's
builder and contract test, for the return type and the checklist), and that never ran `kg` (or
`kg+2hop`) on it; it is calibrated with hybrid search, two-hop expansion and PPR only. Nobody
tuning a ranker is to read this file, bench/multihop_hooded_text.py, _words.py, _traps.py or
_questions.py, or its test.

A fictional gazetteer of astronomy and instrument-making, bell-founding, and viticulture and
cooperage generated from a fixed seed (domains no other corpus uses): comets, the astronomers who
found them and the observatories they were first seen from; telescopes, the optical firms that
built them, the makers who designed them and the observatories housing them; observatories'
present directors; astronomers' mentors and the colleges astronomers and makers studied at; bells,
the foundries that cast them and the winegrowers who gave them; wines, their estates, the
cooperages that made their casks and the winegrowers who blended them; founders of observatories,
firms, foundries, estates and cooperages; where people were born, where organisations are and the
counties the towns lie in (17 relation types, each worded three ways in prose, two as key-value
lines, and in the first person where a living person tells it: bench/multihop_hooded_words.py).
Pages are narrative articles, infoboxes, obituaries, interview transcripts, minutes of board
meetings, museum catalogue entries and scholarly notes with footnotes
(bench/multihop_hooded_text.py).

Questions (bench/multihop_hooded_questions.py): 36 one-hop controls, 90 two-hop and 48 three-hop,
a fifth typed all in lower case: of-chains, relative clauses, "whose" clauses folding two hops,
possessives, wh-questions on the last hop, requests and indirect questions; at most one clause
closing at a question's end; no phrase that fits two relations of one kind of entity ("the
maker of" a wine: its estate or its winemaker?). A multi-hop answer page shares no content word
(a crude stem) with its question and does not name the start, the start's page does not name the
answer, no page off the chain names both ends, no chain visits a page twice, no start is a name a
namesake also bears. Dates agree (founders 25 to 70, at most four organisations each and never
two in a year, comets found at 22 to 80 from an observatory already open, telescopes after their
firm and designed at 25 to 75, bells after their foundry and given at 30 to 85, wines after
their estate and cooperage and blended at 22 to 75, students of 18 to 24 at a college already
open, mentors 15 to 50 years older and alive at the first lesson, directors living and appointed
at 30 to 44; everyone born before 1935 dead, at 72 or older, after their last
dated link, by 2025; obituaries, minutes and interviews dated no earlier than anything they
mention; listings naming only what existed in their year; nothing after 2025).
Traps (bench/multihop_hooded_traps.py): 12 namesakes, four shared surnames, five organisations
named after towns they are not in, three stems borne by two organisations each, 49 listings naming
entities in passing (star-party programmes, saleroom catalogues, tasting sheets, ringing rotas,
subscription lists, mileage tables, parish almanacs) and 14 glossary notes sharing the relation
words.

Shape: 353 pages (92 people: 32 astronomers, 28 winegrowers, 18 makers, 14 founders; 40 towns, 8
counties; 42 organisations: 9 observatories, 8 estates, 7 optical firms, 6 foundries, 6
cooperages, 6 colleges; 96 works: 30 comets, 30 wines, 20 bells, 16 telescopes; 75 trap pages);
517 links, 260 meant for the subject's page only, 131 for both, 126 for the other end's only; of the
266 links the questions walk, 131 are named on the subject's page only, 73 on both and 62 on the
other end's only (tests.support.corpus_pages.link_sides). Styles of the 278 entity pages: 80
narrative, 47 infobox, 47 footnoted note, 28 catalogue entry, 24 minutes, 25 interview, 27 obituary.

Calibrated without `kg` (`flock /work/wt/kg.lock env PYTHONPATH=$PWD .venv/bin/python -m
bench.bench_multihop --corpus hooded --per-hops 0 --speed-repeat 1 --no-single --methods hybrid
two-hop ppr`), top-10 hit rate / MRR@10 on the 138 multi-hop questions (hybrid / two-hop expansion
/ PPR): 0.0 % / 27.5 % / 8.7 % (MRR 0.000 / 0.051 / 0.012); two-hop expansion 37.8 % on two-hop
and 8.3 % on three-hop questions; one-hop controls 80.6 % / 86.1 % / 91.7 % (measured after the
review's fixes; before them 0.0 / 31.2 / 7.2 % and controls 69.4 / 77.8 / 94.4 %, when hybrid's 11
control misses started on an entity whose title ends in a word others of its kind share).
"""

from __future__ import annotations

import random

from bench.corpus_world import FUNCTION_WORDS, Ent, Names, People, Recipe, World, place_orgs, stemmed_words
from bench.corpus_world import make_works as _works
from bench.corpus_world import side as world_side
from bench.multihop_hooded_questions import make_questions
from bench.multihop_hooded_text import render
from bench.multihop_hooded_traps import add_traps

_ON = ["h", "m", "n", "p", "t", "s", "f", "w", "th", "ch", "br", "pl", "st", "gw", "ol", "an", "ur"]
_NU = ["a", "e", "i", "o", "u", "au", "ea", "oo", "ie", "ay"]
_CO = ["lm", "nt", "rth", "ff", "ck", "mb", "ss", "ld", "nch", "rv", "sp", "pp", "lk", "ft"]
_END = ["ary", "en", "ock", "ish", "ett", "ard", "ew", "um", "ilt", "on"]
_PLACE = ["combe", "ford", "leigh", "thorpe", "stow", "mere", "ham", "well", "by", "cott", "hurst", "mouth"]
_SURN = ["ley", "ard", "wick", "more", "ing", "son", "ell", "hart", "ridge", "low"]
_GIVEN = (
    "Agnes Basil Cecily Edmund Frieda Gideon Hester Isaac Juno Kester Lavinia Mordecai Nell Oswin Prudence "
    "Quentin Rosalind Silas Thea Ulric Winifred Ambrose Beatrix Cyril Dorcas Ezra Florence Godfrey Imogen Jasper"
).split()
FEMALE = set("Agnes Cecily Frieda Hester Juno Lavinia Nell Prudence Rosalind Thea Winifred Beatrix Dorcas "
             "Florence Imogen".split())  # fmt: skip
_NOT_NAMES = (  # English words, and no rude syllables in a name
    r"(.)\1\1|^(thaw|sham|shoo|stock|smock|spell|wool|hamb|pump|month|fell|mist)"
    r"|fuck|shit|cunt|piss|cock|dick|wank|slut|nigg|fag|twat|arse|tits|porn|rape"
)

_FUNCTION = FUNCTION_WORDS | {
    "name", "tell", "find", "know", "looking", "could", "would", "please", "wonder", "wondering",
    "curious", "someone", "anyone", "need", "want", "help", "which", "wish", "like",
}  # fmt: skip


def words(text: str) -> set[str]:
    """Crude stems of the content words: a multi-hop question and its answer page share none."""
    return stemmed_words(text, _FUNCTION)


def side(rng: random.Random) -> str:
    return world_side(rng, 50, 22, 28)


def _names(rng: random.Random) -> Names:
    return Names(rng, (_ON, _NU, _CO, _END), shortest=5, reject=_NOT_NAMES)


def _orgs(
    rng: random.Random, nm: Names, w: World, kind: str, spec: tuple[int, list[str], tuple[int, int]], extra: list[str]
) -> list[Ent]:
    return place_orgs(rng, nm, w, kind, spec, extra, side)


def _found(rng: random.Random, w: World, orgs: list[Ent], founders: list[Ent]) -> None:
    """A founder of 25 to 70 at the organisation's own date where one fits, else the nearest of the
    least busy founders with the date moved into their span; no founder sets up more than four
    organisations, nor two in one year (the nearest founder alone once set up every old one, all in
    the first year of their span)."""
    used: dict[str, list[int]] = {f.file: [] for f in founders}
    for org in orgs:
        year = int(org.facts["year"])
        free = [f for f in founders if len(used[f.file]) < 4]
        fit = [f for f in free if 25 <= year - int(f.facts["year"]) <= 70 and year not in used[f.file]]
        gap = {f.file: (len(used[f.file]), abs(year - int(f.facts["year"]) - 47)) for f in free}
        founder = rng.choice(fit) if fit else min(free, key=lambda f: gap[f.file])
        born = int(founder.facts["year"])
        year = min(max(year, born + 25), born + 70)
        while year in used[founder.file]:
            year = year + 1 if year < born + 70 else born + 25 + rng.randint(0, 45)
        used[founder.file].append(year)
        org.facts["year"] = year
        w.tie("founded", org, founder, side(rng))


def _populate(rng: random.Random, nm: Names) -> World:
    w = World()
    counties = [
        w.add(Ent(f"county_{i}.md", f"{nm.word()} {s}", "province", facts={"year": 1600}))
        for i, s in enumerate(["Wold", "Fells", "Hundred", "Vale", "Moor", "Carse", "Weald", "Heath"])
    ]
    towns = [w.add(Ent(f"town_{i:02d}.md", nm.word(last=_PLACE), "town", facts={"year": 1550})) for i in range(40)]
    for t in towns:
        w.tie("region", t, rng.choice(counties), side(rng))
    people = People(rng, nm, w, towns, _GIVEN, FEMALE, _SURN, side, max_shared=6, share=0.08, role_fact=True)
    founders = people.make("founder", 14, (1770, 1925))
    astronomers = people.make("astronomer", 32, (1790, 1988))
    makers = people.make("maker", 18, (1770, 1975))
    vintners = people.make("vintner", 28, (1790, 1990))
    stem = [nm.word() for _ in range(3)]  # three stems, each borne by two organisations
    named = [t.title for t in rng.sample(towns, 6)]  # organisations named after towns they are not in
    obs = _orgs(rng, nm, w, "observatory", (7, ["Observatory", "Star Station"], (1700, 1925)), [
        f"{named[0]} Observatory", f"{stem[0]} Observatory"])  # fmt: skip
    shops = _orgs(rng, nm, w, "workshop", (5, ["& Sons", "Optical Works", "Instrument Company"], (1740, 1950)), [
        f"{named[1]} Optical Works", f"{stem[1]} & Sons"])  # fmt: skip
    foundries = _orgs(rng, nm, w, "foundry", (5, ["Bell Foundry", "Bellhangers"], (1650, 1900)), [
        f"{named[2]} Bell Foundry"])  # fmt: skip
    estates = _orgs(rng, nm, w, "estate", (6, ["Estate", "Cellars", "Winery"], (1700, 1960)), [
        f"{named[3]} Estate", f"{stem[2]} Cellars"])  # fmt: skip
    coopers = _orgs(rng, nm, w, "cooperage", (4, ["Cooperage", "Stave Works"], (1740, 1960)), [
        f"{named[4]} Cooperage", f"{stem[1]} Cooperage"])  # fmt: skip
    colleges = _orgs(rng, nm, w, "university", (4, ["College", "Polytechnic", "Institute"], (1500, 1880)), [
        f"{stem[0]} College", f"{stem[2]} Institute"])  # fmt: skip
    _found(rng, w, obs + shops + foundries + estates + coopers, founders)
    for p in astronomers + makers:  # a student of 18 to 24 at a college already open
        born = int(p.facts["year"])
        open_ = [c for c in colleges if int(c.facts["year"]) < born + 24]
        if open_ and rng.random() < 0.9:
            c = rng.choice(open_)
            p.facts["y_studied"] = max(born + 18, int(c.facts["year"]) + 1)
            w.tie("studied", p, c, side(rng))
    for a in astronomers:  # an assistant to an astronomer 15 to 50 years older (then 37 to 72)
        elders = [m for m in astronomers if 15 <= int(a.facts["year"]) - int(m.facts["year"]) <= 50]
        if elders:
            a.facts["y_mentor"] = int(a.facts["year"]) + 22
            w.tie("mentor", a, rng.choice(elders), side(rng))
    # an observatory's director is its present one, so a living astronomer (born 1950 to 1985)
    heads = rng.sample(astronomers, len(obs))
    for a in heads:
        a.facts["year"] = rng.randint(1950, 1985)
        a.facts["living"] = True
    for a in astronomers:  # keep studies and mentors consistent with the new birth years
        _refit(w, a, colleges, astronomers, rng)
    for o, a in zip(obs, heads, strict=True):
        o.facts["y_director"] = max(int(a.facts["year"]) + rng.randint(30, 40), int(o.facts["year"]) + 1)
        w.tie("director", o, a, side(rng))
    _sky(rng, nm, w, astronomers, makers, obs, shops)
    _cellar(rng, nm, w, vintners, foundries, estates, coopers)
    _deaths(rng, w)
    return w


def _refit(w: World, a: Ent, colleges: list[Ent], astronomers: list[Ent], rng: random.Random) -> None:
    """After a birth year moves: a college studied at at 18 to 24, a mentor 15 to 50 years older, or none."""
    born = int(a.facts["year"])
    if "studied" in w.link and a.file in w.link["studied"]:
        c = w.ents[w.link["studied"][a.file]]
        if int(c.facts["year"]) >= born + 24:
            del w.link["studied"][a.file]
        else:
            a.facts["y_studied"] = max(born + 18, int(c.facts["year"]) + 1)
    for s, m in list(w.link.get("mentor", {}).items()):
        gap = int(w.ents[s].facts["year"]) - int(w.ents[m].facts["year"])
        if not 15 <= gap <= 50:
            del w.link["mentor"][s]
        else:
            w.ents[s].facts["y_mentor"] = int(w.ents[s].facts["year"]) + 22


def _sky(
    rng: random.Random, nm: Names, w: World, astronomers: list[Ent], makers: list[Ent], obs: list[Ent], shops: list[Ent]
) -> None:
    """Comets found by astronomers of 22 to 80 from observatories already open; telescopes built by a
    firm already trading, designed by a maker of 25 to 75 and mounted at an observatory already open."""
    comets = _works(rng, nm, w, "comet", 30, ["Comet {}", "{}'s Comet", "Comet {}-Brook"])
    for c in comets:
        while True:
            a, o = rng.choice(astronomers), rng.choice(obs)
            lo = max(int(a.facts["year"]) + 22, int(o.facts["year"]) + 1)
            hi = min(int(a.facts["year"]) + 80, 2024)
            if lo <= hi:
                break
        c.facts["year"] = rng.randint(lo, hi)
        w.tie("discovered", c, a, side(rng))
        w.tie("sighted", c, o, side(rng))
    scopes = _works(rng, nm, w, "telescope", 16, ["{} Refractor", "{} Reflector", "Great {} Telescope"])
    for t in scopes:
        while True:
            m, s, o = rng.choice(makers), rng.choice(shops), rng.choice(obs)
            lo = max(int(m.facts["year"]) + 25, int(s.facts["year"]) + 1, int(o.facts["year"]) + 1)
            hi = min(int(m.facts["year"]) + 75, 2024)
            if lo <= hi:
                break
        t.facts["year"] = rng.randint(lo, hi)
        t.facts["y_housed"] = rng.randint(t.facts["year"], min(t.facts["year"] + 3, 2024))
        w.tie("built", t, s, side(rng))
        w.tie("designed", t, m, side(rng))
        w.tie("housed", t, o, side(rng))


def _cellar(
    rng: random.Random,
    nm: Names,
    w: World,
    vintners: list[Ent],
    foundries: list[Ent],
    estates: list[Ent],
    coopers: list[Ent],
) -> None:
    """Bells cast by a foundry already working and given by a winegrower of 30 to 85; wines of an
    estate and a cooperage already trading, blended by a winegrower of 22 to 75."""
    bells = _works(rng, nm, w, "bell", 20, ["{} Bell", "Great {}", "{} Tenor"])
    for b in bells:
        while True:
            v, f = rng.choice(vintners), rng.choice(foundries)
            lo = max(int(v.facts["year"]) + 30, int(f.facts["year"]) + 1)
            hi = min(int(v.facts["year"]) + 85, 2024)
            if lo <= hi:
                break
        b.facts["year"] = rng.randint(lo, hi)
        w.tie("cast", b, f, side(rng))
        w.tie("donated", b, v, side(rng))
    wines = _works(rng, nm, w, "wine", 30, ["{} Reserve", "Clos {}", "{} Cuvée", "{} Old Vines"])
    for x in wines:
        while True:
            v, e, c = rng.choice(vintners), rng.choice(estates), rng.choice(coopers)
            lo = max(int(v.facts["year"]) + 22, int(e.facts["year"]) + 1, int(c.facts["year"]) + 1)
            hi = min(int(v.facts["year"]) + 75, 2023)
            if lo <= hi:
                break
        x.facts["year"] = rng.randint(lo, hi)
        w.tie("produced", x, e, side(rng))
        w.tie("barrels", x, c, side(rng))
        w.tie("vinified", x, v, side(rng))


def _deaths(rng: random.Random, w: World) -> None:
    """Everyone born before 1935 (and no director) has died: at 72 to 94, after their last dated
    link, never after 2025."""
    last: dict[str, int] = {}
    for rel, links in w.link.items():
        for s, d in links.items():
            y = int(w.ents[s].facts.get(f"y_{rel}", w.ents[s].facts["year"]))
            for f in (s, d):
                last[f] = max(last.get(f, 0), y)
    for e in w.ents.values():
        if e.kind == "person" and int(e.facts["year"]) < 1935 and not e.facts.get("living"):
            born = int(e.facts["year"])
            e.facts["died"] = min(max(born + rng.randint(72, 94), last.get(e.file, 0) + rng.randint(1, 6)), 2025)


_RECIPE = Recipe(
    names=_names,
    populate=_populate,
    render=render,
    traps=add_traps,
    questions=lambda w, docs, rng: make_questions(w, docs, rng, words),
    seed=113,
)

build_hooded = _RECIPE.build
hooded_world = _RECIPE.world
hooded_chains = _RECIPE.chains
