"""The swathed corpus's trap pages (#28): pages that share a question's words or names but are off
its chain.

Namesakes (a second person of a chain person's name, in another trade, born elsewhere); listings
naming many entities in passing and stating no link (festival seasons, seed lists, auction lots,
sales charts, gazetteer sheets, society rolls, news in brief); and notes that use the relation
words (born, founded, premiere, curator, ...) and name no entity. The organisations named after
towns they are not in and the stems two organisations share are made with the world
(bench/multihop_swathed.py), as are the shared surnames.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.corpus_world import Ent, Names, World, article, join_and
from bench.multihop_corpus import Doc

_ROLE_WORD = {"singer": "singer", "composer": "composer", "breeder": "plant breeder", "founder": "patron"}
_TRADES = ["cellist", "fencer", "chemist", "architect", "novelist", "cartoonist", "jurist", "sculptor"]


def _of(w: World, *kinds: str, year: int | None = None) -> list[Ent]:
    """The entities of `kinds`; with `year`, only those a listing of that year could name: works and
    organisations already made, people aged 20 to 70."""
    out = [e for e in w.ents.values() if e.kind in kinds or e.facts.get("role") in kinds]
    if year is None:
        return out
    return [e for e in out if (20 <= year - e.facts["year"] <= 70 if e.kind == "person" else e.facts["year"] < year)]


def _namesakes(w: World, rng: random.Random) -> list[Doc]:
    people = _of(w, "person")
    towns = _of(w, "town")
    out = []
    for i, p in enumerate(rng.sample(people, 12)):
        home = w.target("born", p)
        town = rng.choice([t for t in towns if t is not home])
        year = min(int(p.facts["year"]) + rng.choice([-31, -17, 12, 26]), 1999)
        trade = rng.choice(_TRADES)
        he = "She" if p.facts["female"] else "He"
        tense = "was" if year < 1935 else "is"
        other = _ROLE_WORD[str(p.facts["role"])]
        text = (
            f"# {p.title} ({trade})\n\n{p.title} (b. {year}) {tense} {article(trade)}, born in {town.title}. "
            f"{he} is not to be confused with the {other} of the same name.\n"
        )
        out.append(Doc(f"namesake_{i:02d}.md", text))
    return out


def _season(w: World, rng: random.Random, i: int, year: int) -> str:
    rows = [
        f"| {d} | {o.title} | {s.title} |"
        for d, o, s in zip(
            ["Mon", "Tue", "Thu", "Fri", "Sat", "Sun"],
            rng.sample(_of(w, "opera", year=year), 6),
            rng.sample(_of(w, "singer", year=year), 6),
            strict=True,
        )
    ]
    return (
        f"# Festival season {year}\n\nEvenings of the summer festival week.\n\n| Night | Work | Cast |\n|---|---|---|\n"
        + ("\n".join(rows) + "\n")
    )


def _seeds(w: World, rng: random.Random, i: int, year: int) -> str:
    items = "\n".join(
        f"- {c.title}: {rng.randint(2, 19)} shillings a dozen" for c in rng.sample(_of(w, "cultivar", year=year), 7)
    )
    return f"# Spring list {year}\n\nPlants on offer this spring, prices per dozen.\n\n{items}\n"


def _auction(w: World, rng: random.Random, i: int, year: int) -> str:
    lots = [
        f"Lot {rng.randint(10, 400)}: {s.title}, consigned from {t.title}, estimate {rng.randint(2, 90)}00."
        for s, t in zip(rng.sample(_of(w, "service", year=year), 4), rng.sample(_of(w, "town"), 4), strict=True)
    ]
    return f"# Ceramics sale {year}\n\nLots in the order of sale.\n\n" + "\n".join(lots) + "\n"


def _chart(w: World, rng: random.Random, i: int, year: int) -> str:
    rows = "\n".join(f"| {n} | {r.title} |" for n, r in enumerate(rng.sample(_of(w, "recording", year=year), 6), 1))
    head = f"# Classical chart, week {i + 1}, {year}\n\nBest-selling albums of the week."
    return f"{head}\n\n| Rank | Album |\n|---|---|\n{rows}\n"


def _gazetteer(w: World, rng: random.Random, i: int, year: int) -> str:
    rows = "\n".join(f"- {t.title}: {rng.randint(8, 95)}00 inhabitants" for t in rng.sample(_of(w, "town"), 6))
    return f"# Gazetteer sheet {i + 1} ({year} count)\n\nHeadcounts at the {year} count.\n\n{rows}\n"


def _roll(w: World, rng: random.Random, i: int, year: int) -> str:
    members = [p.title for p in rng.sample(_of(w, "breeder", "singer", "founder", "composer", year=year), 7)]
    return f"# Members' roll {year}\n\nSubscribers to the flower show committee this year: {join_and(members)}.\n"


def _brief(w: World, rng: random.Random, i: int, year: int) -> str:
    p, q = rng.sample(_of(w, "singer", "composer", "breeder", year=year), 2)
    a, b = rng.sample(_of(w, "town"), 2)
    g = rng.choice(_of(w, "garden", "house", "nursery", "label", "conservatory", year=year))
    return (
        f"# News in brief, {year}\n\n{p.title} will give a talk in {a.title} next month. "
        f"A charity evening at {g.title} collected record sums. {q.title} was seen at the county show in {b.title}. "
        "Repairs continue on the ring road.\n"
    )


_LISTINGS: list[tuple[str, Callable[[World, random.Random, int, int], str]]] = [
    ("season", _season),
    ("seeds", _seeds),
    ("auction", _auction),
    ("chart", _chart),
    ("gazetteer", _gazetteer),
    ("roll", _roll),
    ("brief", _brief),
]

_NOTES = [
    (
        "On birthplaces",
        "Where a singer was born says little about the voice; many natives of small towns studied far away.",
    ),
    (
        "On founders",
        "A house founded by a patron was often established in a hurry; its first premiere was given on borrowed money.",
    ),
    (
        "On premieres",
        "A premiere is the first performance; a work that opened at a small theatre was recorded decades later.",
    ),
    (
        "On curators",
        "A curator has the care of living collections; a keeper took charge of the seedlings selected there.",
    ),
    ("On introductions", "A plant is introduced when a firm first offered it for sale; many were raised by amateurs."),
    (
        "On raising seedlings",
        "A seedling is raised from seed and selected; a breeder may have learned the craft as a student gardener.",
    ),
    ("On labels and catalogues", "A label issued discs; its catalogue listed each complete recording it released."),
    ("On soloists", "The soloist sings the title role; many had taken lessons from a famous teacher."),
    (
        "On apprenticeships",
        "A student gardener served an apprenticeship; some became curator of the garden where they trained at first.",
    ),
    (
        "On factory marks",
        "A factory mark shows who produced a piece; wares fired at one works were often painted at another.",
    ),
    (
        "On floral decoration",
        "Sprays of flowers decorated dinner services; the pattern depicted was rarely a named variety.",
    ),
    (
        "On commemorative names",
        "A variety named in honour of a singer commemorates a season; it was usually introduced by a small firm.",
    ),
    ("On provinces", "A province takes in many settlements; many a composer born in one lies buried in another."),
    (
        "On teachers",
        "A singer who took lessons from an older one was coached for years; teachers graduated from the same schools.",
    ),
]


def add_traps(w: World, nm: Names, rng: random.Random) -> list[Doc]:
    """Namesakes, listings (seven of each kind, each on a year of its own, naming only the people
    alive and the works and organisations made by then) and notes."""
    docs = _namesakes(w, rng)
    for kind, make in _LISTINGS:
        made = 0
        for year in rng.sample(range(1950, 2025), 75):  # a year with too few of its kinds yet is passed over
            if made == 7:
                break
            try:
                text = make(w, rng, made, year)
            except (ValueError, IndexError):
                continue
            docs.append(Doc(f"{kind}_{made:02d}.md", text))
            made += 1
    for i, (title, text) in enumerate(_NOTES):
        docs.append(Doc(f"note_{i:02d}.md", f"# {title}\n\n{text}\n"))
    return docs
