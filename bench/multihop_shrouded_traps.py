"""The shrouded corpus's traps (#28): pages off every chain that a ranker following names or shared
words alone would take for an answer.

- namesakes: another person of a chain person's name ("Karin Dolvsen (botanist)") born and living
  in towns of their own, stated in the relation's words;
- pages naming many entities in passing, none stating a link: tables of summit heights, a society's
  lecture programmes (guides, surveyors and designers as speakers), cloth-fair exhibitor tables
  (mills, fashion houses, schools, map publishers), subscribers' lists, catwalk running orders
  (collections), hut booking tables, rescue-team rotas (guides) and a map library's accessions
  (peaks, ranges and publishers);
- notes sharing the relation words (first ascents, triangulation, looms, graduates, founders ...)
  and no names.
(Shared surnames, organisations named after towns they are not in and two organisations on one
stem are made with the world itself: bench/multihop_shrouded.py.)
"""

from __future__ import annotations

import random

from bench.corpus_world import Ent, NameMaker, World, join_and
from bench.multihop_corpus import Doc

_JOBS = [
    "botanist", "organist", "footballer", "painter", "politician", "chemist", "novelist", "cyclist", "actor",
    "bishop", "engineer", "swimmer",
]  # fmt: skip

NOTES = [
    ("First ascents", "A first ascent is credited to whoever led the party to the top, usually a local guide "
     "hired by a visitor; many summits were first climbed by shepherds whose names nobody wrote down."),
    ("Triangulation", "Surveyors measured a summit's height by triangulation from two known points. Early "
     "surveys often put a peak a hundred metres too high, and a surveyor's figure could stand for decades."),
    ("Map publishing", "A map publisher employed draughtsmen, engravers and surveyors; the staff of a big firm "
     "drew sheets for decades and joined young, often as apprentices."),
    ("Mountain huts", "A hut stands below the summit it serves and is run by a club, which built it and keeps "
     "a warden there in summer; climbers bound for the top stay a night."),
    ("Climbing clubs", "A club elected its members by ballot; a guide who belonged to one was rare, and most "
     "clubs were founded by townspeople rather than by climbers."),
    ("Woollen mills", "A mill weaves cloth on power looms; most mills were founded by one family, were set up "
     "beside a river and have made the same cloths for a century."),
    ("Tweed and twill", "A tweed is woven from carded wool; a twill shows diagonal ribs. Coats cut from either "
     "wear for decades, and a cloth's name usually records the mill where it is woven."),
    ("Fashion schools", "Designers trained at a school of fashion study pattern cutting and draping; a graduate "
     "usually joins a fashion house as an assistant before being appointed creative director."),
    ("Collections", "A collection is designed by one designer, shown twice a year and usually cut from a few "
     "cloths; the work of a season is sold out or forgotten within months."),
    ("Birthplaces", "Encyclopaedias give where a person was born; a native of a small village is often claimed "
     "by the market town next door, or by the region it lies in."),
    ("Headquarters", "A firm is based where its premises are registered, which may not be where it is situated "
     "in practice; several mills have their headquarters in one town and their looms in another."),
    ("Founders", "Firms, clubs and houses are remembered by who founded them; a founder who set up a business "
     "with borrowed money is the hero of most company histories, whoever established it in fact."),
]  # fmt: skip


def _namesakes(w: World, rng: random.Random) -> list[Doc]:
    people = [e for e in w.ents.values() if e.kind == "person"]
    towns = [e for e in w.ents.values() if e.kind == "town"]
    out = []
    for i, (p, job) in enumerate(zip(rng.sample(people, len(_JOBS)), _JOBS, strict=True)):
        home = w.target("born", p)
        born, lives = rng.sample([t for t in towns if t is not home], 2)
        y = rng.randint(1935, 1995)  # alive: no older than 90
        out.append(Doc(
            f"namesake_{i:02d}.md",
            f"# {p.title} ({job})\n\n{p.title} (born {y}) is a {job}. {p.title} was born in {born.title} and "
            f"is based in {lives.title}. This {job} is not to be confused with other people of the same name.\n",
        ))  # fmt: skip
    return out


def _pick(by: dict[str, list[Ent]], kinds: tuple[str, ...], n: int, rng: random.Random) -> list[Ent]:
    pool = [e for k in kinds for e in by[k]]
    return rng.sample(pool, n)


def _listings(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    by: dict[str, list[Ent]] = {}
    for e in w.ents.values():
        by.setdefault(e.domain or e.kind, []).append(e)
    out = []
    for i in range(5):
        rows = "\n".join(f"| {p.title} | {p.facts['height']} m |" for p in _pick(by, ("peak",), 8, rng))
        out.append(Doc(f"heights_{i}.md", f"# Table of summit heights, part {i + 1}\n\nHeights as given in the "
                       f"{1950 + 10 * i} gazetteer.\n\n| Summit | Height |\n|---|---|\n{rows}\n"))  # fmt: skip
        talks = ["Old routes", "Snow and ice", "Cloth for the hills", "Maps we trust", "A winter traverse"]
        people = _pick(by, ("guide", "surveyor", "designer"), 6, rng)
        lines = "\n".join(f"- {rng.choice(['January', 'February', 'March'])} {rng.randint(1, 28)}: "
                          f"{p.title}, \"{rng.choice(talks)}\"" for p in people)  # fmt: skip
        out.append(Doc(f"lectures_{i}.md", f"# {nm.word()} Society winter lectures, season {i + 1}\n\nTalks begin "
                       f"at half past seven; admission by donation.\n\n{lines}\n"))  # fmt: skip
        orgs = _pick(by, ("mill", "house", "school", "publisher"), 7, rng)
        rows = "\n".join(
            f"| {10 + j} | {o.title} | {rng.choice(['hall', 'annexe', 'yard'])} |" for j, o in enumerate(orgs)
        )
        out.append(Doc(f"fair_{i}.md", f"# Cloth and print fair, exhibitors {2010 + i}\n\n| Stand | Exhibitor | "
                       f"Where |\n|---|---|---|\n{rows}\n"))  # fmt: skip
        names = join_and([p.title for p in _pick(by, ("founder", "guide", "surveyor", "designer"), 8, rng)])
        out.append(Doc(f"subscribers_{i}.md", f"# Subscribers to the {nm.word()} almanac, volume {i + 1}\n\nThe "
                       f"editors thank the following for their support: {names}.\n"))  # fmt: skip
        cols = _pick(by, ("collection",), 7, rng)
        rows = "\n".join(f"| {18 + j // 3}:{(j % 3) * 20:02d} | {c.title} |" for j, c in enumerate(cols))
        out.append(Doc(f"catwalk_{i}.md", f"# Running order, autumn shows, evening {i + 1}\n\n| Time | Show |\n"
                       f"|---|---|\n{rows}\n\nDoors close ten minutes before each show.\n"))  # fmt: skip
        huts = _pick(by, ("hut",), 6, rng)
        rows = "\n".join(
            f"| {h.title} | {rng.randint(0, 30)} | {rng.choice(['open', 'full', 'closed'])} |" for h in huts
        )
        out.append(Doc(f"booking_{i}.md", f"# Hut bookings, week {20 + i}\n\n| Hut | Beds free | Status |\n"
                       f"|---|---|---|\n{rows}\n"))  # fmt: skip
        days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        gs = _pick(by, ("guide",), 7, rng)
        lines = "\n".join(f"- {d}: {g.title}" for d, g in zip(days, gs, strict=True))
        out.append(Doc(f"rota_{i}.md", f"# Rescue team call-out rota, week {30 + i}\n\nOn call from six in the "
                       f"evening.\n\n{lines}\n"))  # fmt: skip
        items = _pick(by, ("peak", "range", "publisher"), 7, rng)
        lines = "\n".join(
            f"- Accession {rng.randint(10000, 99999)}: a folded sheet mentioning {x.title}" for x in items
        )
        out.append(Doc(f"accessions_{i}.md", f"# Map library accessions, {2015 + i}\n\nReceived this year, "
                       f"uncatalogued.\n\n{lines}\n"))  # fmt: skip
    return out


def _notes() -> list[Doc]:
    return [Doc(f"note_{i:02d}.md", f"# {title}\n\n{text}\n") for i, (title, text) in enumerate(NOTES)]


def add_traps(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    return _namesakes(w, rng) + _listings(w, nm, rng) + _notes()
