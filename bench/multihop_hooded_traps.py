"""The hooded corpus's trap pages (#28): pages that share a question's words or names but are off
its chain.

Namesakes (a second person of a chain person's name, in another walk of life, born elsewhere);
listings naming many entities in passing and stating no link (star-party programmes, instrument
sales, tasting sheets, ringing rotas, society subscription lists, mileage tables, parish
almanacs); and glossary notes that use the relation words and name no entity. The organisations
named after towns they are not in and the stems two organisations share are made with the world
(bench/multihop_hooded.py), as are the shared surnames.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.corpus_world import Ent, Names, World, article, join_and
from bench.multihop_corpus import Doc
from bench.multihop_hooded_text import ROLE

_TRADES = ["harpist", "surveyor", "magistrate", "engraver", "playwright", "apothecary", "oarsman", "botanist"]


def _of(w: World, *kinds: str, year: int | None = None) -> list[Ent]:
    """The entities of `kinds`; with `year`, only those a listing of that year could name: works and
    organisations already made, people aged 20 to 70 and alive."""
    out = [e for e in w.ents.values() if e.kind in kinds or e.facts.get("role") in kinds]
    if year is None:
        return out
    return [
        e
        for e in out
        if (
            20 <= year - e.facts["year"] <= 70 and year < e.facts.get("died", 9999)
            if e.kind == "person"
            else e.facts["year"] < year
        )
    ]


def _namesakes(w: World, rng: random.Random) -> list[Doc]:
    people = _of(w, "person")
    towns = _of(w, "town")
    out = []
    for i, p in enumerate(rng.sample(people, 12)):
        home = w.target("born", p)
        town = rng.choice([t for t in towns if t is not home])
        year = min(int(p.facts["year"]) + rng.choice([-33, -19, 14, 27]), 1995)
        trade = rng.choice(_TRADES)
        he, his = ("She", "her") if p.facts["female"] else ("He", "his")
        life = f"born {year}, died {year + rng.randint(55, 80)}" if year < 1935 else f"b. {year}"
        tense = "was" if year < 1935 else "is"
        text = (
            f"# {p.title} ({trade})\n\n{p.title} ({life}) {tense} {article(trade)} from {town.title}. "
            f"{he} is not to be confused with the {ROLE[str(p.facts['role'])]} of the same name; "
            f"the two are unrelated, and {his} papers are kept apart.\n"
        )
        out.append(Doc(f"namesake_{i:02d}.md", text))
    return out


def _starparty(w: World, rng: random.Random, i: int, year: int) -> str:
    people = rng.sample(_of(w, "astronomer", year=year), 4)
    comets = rng.sample(_of(w, "comet", year=year), 4)
    hours = (20, 21, 22, 23)
    rows = "\n".join(f"| {h}:00 | {p.title} | {c.title} |" for h, p, c in zip(hours, people, comets, strict=True))
    head = f"# Star party programme {year}\n\nTalks by the fireside, then the eyepieces."
    return f"{head}\n\n| Hour | Speaker | Target |\n|---|---|---|\n{rows}\n"


def _sale(w: World, rng: random.Random, i: int, year: int) -> str:
    lots = [
        f"Lot {rng.randint(5, 300)}. A framed print of {t.title}, estimate {rng.randint(2, 40)}0."
        for t in rng.sample(_of(w, "telescope", "bell", year=year), 4)
    ]
    head = f"# Saleroom catalogue {year}\n\nScientific and ecclesiastical pictures, sold in lot order."
    return f"{head}\n\n" + "\n".join(lots) + "\n"


def _tasting(w: World, rng: random.Random, i: int, year: int) -> str:
    rows = "\n".join(f"- {x.title}: {rng.randint(12, 19)}/20" for x in rng.sample(_of(w, "wine", year=year), 6))
    return f"# Tasting sheet {year}\n\nScores from the annual club evening.\n\n{rows}\n"


def _rota(w: World, rng: random.Random, i: int, year: int) -> str:
    bells = rng.sample(_of(w, "bell", year=year), 3)
    ringers = rng.sample(_of(w, "vintner", "founder", "maker", year=year), 3)
    lines = "\n".join(f"- {b.title}: rung by {p.title}" for b, p in zip(bells, ringers, strict=True))
    return f"# Ringing rota {year}\n\nSunday service ringing for the quarter.\n\n{lines}\n"


def _subscribers(w: World, rng: random.Random, i: int, year: int) -> str:
    members = [p.title for p in rng.sample(_of(w, "astronomer", "maker", "vintner", "founder", year=year), 7)]
    said = f"Those who paid their dues to the lecture society this year: {join_and(members)}."
    return f"# Subscription list {year}\n\n{said}\n"


def _mileage(w: World, rng: random.Random, i: int, year: int) -> str:
    a = rng.sample(_of(w, "town"), 6)
    rows = "\n".join(f"| {x.title} | {y.title} | {rng.randint(3, 60)} |" for x, y in zip(a[::2], a[1::2], strict=True))
    head = f"# Mileage table {i + 1}, {year} edition\n\nRoad distances in miles."
    return f"{head}\n\n| From | To | Miles |\n|---|---|---|\n{rows}\n"


def _almanac(w: World, rng: random.Random, i: int, year: int) -> str:
    p, q = rng.sample(_of(w, "astronomer", "vintner", "maker", year=year), 2)
    a, b = rng.sample(_of(w, "town"), 2)
    g = rng.choice(_of(w, "observatory", "estate", "foundry", "cooperage", "workshop", "university", year=year))
    return (
        f"# Parish almanac {year}\n\n{p.title} will speak at the reading room in {a.title} in spring. "
        f"An open day at {g.title} drew a large crowd. {q.title} judged the ploughing match near {b.title}. "
        "The lych gate is to be repainted.\n"
    )


_LISTINGS: list[tuple[str, Callable[[World, random.Random, int, int], str]]] = [
    ("party", _starparty),
    ("sale", _sale),
    ("tasting", _tasting),
    ("rota", _rota),
    ("subs", _subscribers),
    ("mileage", _mileage),
    ("almanac", _almanac),
]

_NOTES = [
    ("Glossary: seat", "In county usage a firm's seat is the town of its premises; a firm may be named after "
     "one town and have its seat in another, and founders often set up a venture far from where they were born."),
    ("Glossary: cast", "A bell is cast in loam moulds and poured hot; a gift of a bell to a parish is recorded "
     "on a board, and the donor is named there rather than the founder of the foundry."),
    ("Glossary: discoverer", "Whoever first picks up a comet is its discoverer, though the first observation "
     "may be credited to the observatory whose lenses were used; the director signs the report."),
    ("Glossary: cooper", "Casks are coopered from oak staves; the barrels a wine matured in say little of the "
     "estate that produced it or the winemaker who blended it."),
    ("Glossary: assistant", "An assistant learned observing under a senior astronomer; such instruction was "
     "often given after a degree, and the mentor is sometimes confused with a teacher at college."),
    ("Glossary: optics", "The optics of a telescope are figured by hand; the designer who drew up the plans is "
     "not always the firm whose workshop built the mounting, and the dome that houses it is later still."),
    ("Glossary: native", "A native of a parish is one born there; registers of birth list natives, while "
     "alumni lists record where a person was educated, not where they came from."),
    ("Glossary: parish", "A parish of a county lies within its bounds; some towns fall under two counties for "
     "different purposes, and the seat of a firm may straddle them."),
    ("Glossary: vintage", "A vintage names the harvest year; a wine of one estate may be blended by a "
     "winemaker from another, and the cellar work is often shared."),
    ("Glossary: benefaction", "Benefactions to a tower are listed with the donor's name; a bell given by a "
     "family may have been paid for by a guild and cast far away."),
    ("Glossary: director", "The director of an observatory is appointed by its board; a director may have "
     "headed another station, and a founder who established one rarely directed it."),
    ("Glossary: sighting", "A sighting is first seen from a station when its lenses are free; comets found "
     "by amateurs are often sighted first at a professional dome."),
    ("Glossary: graduates", "A college keeps lists of its graduates; a degree in natural philosophy was once "
     "the usual road into astronomy, and alumni often served as an assistant elsewhere."),
    ("Glossary: workshop", "An optical workshop built instruments to order; the products carried the firm's "
     "mark even when the optics were designed by an outside maker."),
]  # fmt: skip


def add_traps(w: World, nm: Names, rng: random.Random) -> list[Doc]:
    docs = _namesakes(w, rng)
    headings: set[str] = set()
    for n, (prefix, make) in enumerate(_LISTINGS):
        for i in range(7):
            while True:  # a year with enough entities of the listing's kinds alive or made, a title not yet used
                try:
                    text = make(w, rng, i, rng.randint(1900, 2024))
                except ValueError:
                    continue
                if text.splitlines()[0] not in headings:
                    break
            headings.add(text.splitlines()[0])
            docs.append(Doc(f"{prefix}_{n}{i}.md", text))
    for i, (title, body) in enumerate(_NOTES):
        docs.append(Doc(f"note_{i:02d}.md", f"# {title}\n\n{body}\n"))
    return docs
