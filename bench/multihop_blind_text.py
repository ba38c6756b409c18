"""Pages of the blind multi-hop corpus (bench/multihop_blind.py), written as an encyclopaedia would.

Each page is about its subject and states the subject's own facts: a typeface, fragrance or watch
names its maker and its designer, a firm its founder, head office and owner, a person where they were
born, trained and served an apprenticeship, a school its town, a town its canton. Some links are also
(or only) stated on the other end's page: a firm listing its products, a person the firm they set up
or the work they are known for, a canton its towns, a school its alumni. The wording varies page by
page (appositives, relative clauses, passives, pronouns and the surname alone after the full name,
"Key facts:" lines), as different writers would; nothing is phrased to trip a reader up.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.corpus_world import Ent, World, article, cap, join_and

DASH = "\u2013"  # the en dash between two years
MAKER = {"type": "type foundry", "scent": "perfume house", "watch": "watchmaker"}
KIND = {"type": "typeface", "scent": "fragrance", "watch": "watch"}
STYLE = {
    "type": ["serif", "sans-serif", "slab-serif", "script", "blackletter", "monospaced", "display"],
    "scent": ["chypre", "fougère", "oriental", "citrus", "floral", "leather", "woody"],
    "watch": ["dress", "pilot's", "diving", "railway", "chronograph", "calendar", "skeleton"],
}
_NOTES = ["bergamot", "vetiver", "iris", "oakmoss", "tonka", "cedar", "violet", "pepper", "amber", "fig", "tobacco"]
_USE = ["newspapers", "road signs", "timetables", "Bibles", "school primers", "posters", "stamps", "banknotes"]
TRADES = ["lace", "paper", "glass", "cutlery", "clock cases", "lavender", "cider", "wool", "slate", "tanning"]
SIGHTS = [
    "a covered market",
    "a Romanesque church",
    "a ruined castle",
    "a spa",
    "a weir and mill",
    "an old toll house",
]


def _pron(e: Ent) -> tuple[str, str]:
    return ("she", "her") if e.facts["female"] else ("he", "his")


def plural(word: str) -> str:
    return word + ("es" if word.endswith(("ch", "s")) else "s")


def _facts(rows: list[tuple[str, str]]) -> str:
    return "\n\nKey facts:\n" + "\n".join(f"- {k}: {v}" for k, v in rows)


def product(w: World, e: Ent, rng: random.Random) -> str:
    maker, designer = w.out("made_by", e), w.out("designed_by", e)
    p, f = e.title, e.facts
    style, year, kind = f["style"], f["year"], KIND[e.domain]
    form = rng.randrange(4)
    s: list[str] = []
    if e.domain == "type":
        if form == 0 and maker and designer:
            s.append(
                f"{p} is {article(style)} typeface designed by {designer.title}"
                f" and released by {maker.title} in {year}."
            )
        elif form == 1 and designer:
            s.append(f"{p}, {article(style)} face of {year}, was drawn by {designer.title}.")
            if maker:
                s.append(f"It was cast and sold by {maker.title}.")
        elif maker:
            s.append(f"{maker.title} issued {p} in {year}, {article(style)} typeface for {rng.choice(_USE)}.")
            if designer:
                sur = designer.title.split()[-1]
                s.append(f"The face was the work of {designer.title}; {sur} later added an italic.")
        else:
            s.append(f"{p} is {article(style)} typeface first shown in {year}.")
            if designer:
                s.append(f"Its designer, {designer.title}, based the capitals on inscriptions.")
        s.append(f"It was widely used for {rng.choice(_USE)} and was revised in {year + rng.randint(8, 30)}.")
    elif e.domain == "scent":
        notes = rng.sample(_NOTES, 3)
        if form == 0 and maker:
            s.append(f"{p} is {article(style)} perfume launched by {maker.title} in {year}.")
            if designer:
                s.append(f"Composed by {designer.title}, it opens with {notes[0]} over a heart of {notes[1]}.")
        elif form == 1 and designer:
            s.append(f"{p} is {article(style)} fragrance created in {year} by the perfumer {designer.title}.")
            if maker:
                s.append(f"{maker.title} has sold it since its launch.")
        else:
            s.append(f"Launched in {year}, {p} is {article(style)} scent built around {notes[0]} and {notes[1]}.")
            if maker:
                s.append(f"It is made by {maker.title}.")
            if designer:
                s.append(f"The formula is credited to {designer.title}.")
        s.append(f"Its base of {notes[2]} was reformulated in {year + rng.randint(5, 25)}.")
    else:
        if form == 0 and maker:
            s.append(f"The {p} is {article(style)} watch made by {maker.title} from {year}.")
            if designer:
                s.append(f"Its movement was designed by {designer.title}.")
        elif form == 1 and designer:
            s.append(f"The {p}, {article(style)} wristwatch introduced in {year}, was designed by {designer.title}.")
            if maker:
                s.append(f"{maker.title} built it in small series.")
        else:
            s.append(
                f"Introduced in {year}, the {p} is {article(style)} watch with a {rng.randint(15, 31)}-jewel movement."
            )
            if maker:
                s.append(f"It is produced by {maker.title}.")
            if designer:
                s.append(f"{designer.title} drew the case and dial.")
        s.append(f"About {rng.randint(2, 90) * 100:,} were made before {year + rng.randint(6, 30)}.")
    if form == 3 and rng.random() < 0.6:
        rows = [("Type", f"{style} {kind}"), ("Introduced", str(year))]
        rows += [("Maker", maker.title)] if maker else []
        rows += [("Designer", designer.title)] if designer else []
        return " ".join(s) + _facts(rows)
    return " ".join(s)


def company(w: World, e: Ent, rng: random.Random) -> str:
    founder, hq, parent = w.out("founded_by", e), w.out("hq", e), w.out("owned_by", e)
    c, f = e.title, e.facts
    what = MAKER[e.domain]
    form = rng.randrange(4)
    s: list[str] = []
    if form == 0:
        s.append(f"{c} is a {what}" + (f" in {hq.title}" if hq else "") + f", founded in {f['year']}")
        s[-1] += f" by {founder.title}." if founder else "."
    elif form == 1:
        lead = f"Founded in {f['year']} by {founder.title}" if founder else f"Founded in {f['year']}"
        s.append(f"{lead}, {c} is a {what}" + (f" with its headquarters in {hq.title}." if hq else "."))
    else:
        s.append(f"{c} is a {what} established in {f['year']}.")
        if founder:
            sur = founder.title.split()[-1]
            s.append(
                f"It was set up by {founder.title}, and {sur}'s family ran it until {f['year'] + rng.randint(20, 60)}."
            )
        if hq:
            s.append(f"The firm is based in {hq.title}.")
    s.append(f"It employs about {f['staff']} people.")
    if parent:
        s.append(f"Since {f['year'] + rng.randint(30, 70)} it has belonged to {parent.title}.")
    made = w.incoming("made_by", e)
    if made:
        s.append(f"Its best-known {plural(KIND[e.domain])} include {join_and([m.title for m in made[:4]])}.")
    if form == 3:
        rows = [("Founded", str(f["year"])), ("Staff", str(f["staff"]))]
        rows += [("Founder", founder.title)] if founder else []
        rows += [("Headquarters", hq.title)] if hq else []
        return " ".join(s) + _facts(rows)
    return " ".join(s)


def group(w: World, e: Ent, rng: random.Random) -> str:
    hq = w.out("hq", e)
    s = [f"{e.title} is a holding company formed in {e.facts['year']}" + (f" and based in {hq.title}." if hq else ".")]
    subs = w.incoming("owned_by", e)
    if subs:
        s.append(f"Its subsidiaries include {join_and([x.title for x in subs])}.")
    s.append(f"The group's shares have been listed since {e.facts['year'] + rng.randint(5, 40)}.")
    return " ".join(s)


def person(w: World, e: Ent, rng: random.Random) -> str:
    town, school, master = w.out("born_in", e), w.out("trained_at", e), w.out("apprenticed_to", e)
    n, f = e.title, e.facts
    sur, (she, her) = n.split()[-1], _pron(e)
    by, dy, prof = f["born"], f["died"], f["prof"]
    form = rng.randrange(4)
    s: list[str] = []
    if form == 0 or not town:
        s.append(f"{n} ({by}{DASH}{dy}) was {article(prof)}" + (f" born in {town.title}." if town else "."))
    elif form == 1:
        s.append(f"{n}, born in {town.title} in {by}, was {article(prof)}.")
    elif form == 2:
        s.append(f"Born in {town.title} in {by}, {n} became one of the best-known {prof}s of {her} generation.")
    else:
        s.append(f"{n} ({by}{DASH}{dy}) was {article(prof)}. A native of {town.title}, {she} left home young.")
    if school:
        s.append(
            rng.choice(
                [
                    f"{sur} trained at {school.title}.",
                    f"{cap(she)} studied at {school.title}, graduating in {by + rng.randint(18, 24)}.",
                    f"A graduate of {school.title}, {sur} {rng.choice(['taught there briefly', 'won its medal'])}.",
                ]
            )
        )
    if master:
        s.append(
            rng.choice(
                [
                    f"{cap(she)} served an apprenticeship under {master.title}.",
                    f"{sur} learned the trade from {master.title}, whose workshop {she} joined as a youth.",
                    f"As a young {prof}, {sur} was apprenticed to {master.title}.",
                ]
            )
        )
    for c in w.incoming("founded_by", e):
        s.append(f"In {c.facts['year']} {sur} founded {c.title}.")
    for a in w.incoming("apprenticed_to", e)[:2]:
        s.append(f"{a.title} was among {her} apprentices.")
    made = w.incoming("designed_by", e)
    if made:
        s.append(
            f"{cap(her)} best-known work{'s are' if len(made) > 1 else ' is'} {join_and([m.title for m in made[:3]])}."
        )
    if f.get("died_in"):
        s.append(f"{sur} died in {f['died_in']} in {dy}.")
    return " ".join(s)


def school(w: World, e: Ent, rng: random.Random) -> str:
    town = w.out("located", e)
    what = {"type": "typography and lettering", "scent": "perfumery", "watch": "watchmaking"}[e.domain]
    form = rng.randrange(3)
    if form == 0:
        s = [
            f"{e.title} is a school of {what}"
            + (f" in {town.title}" if town else "")
            + f", opened in {e.facts['year']}."
        ]
    elif form == 1 and town:
        s = [f"Located in {town.title}, {e.title} has taught {what} since {e.facts['year']}."]
    else:
        s = [f"{e.title} was opened in {e.facts['year']} to teach {what}."]
        if town:
            s.append(f"Its building in {town.title} dates from {e.facts['year'] + rng.randint(10, 50)}.")
    s.append(f"It admits about {rng.randint(2, 9) * 10} students a year.")
    alumni = w.incoming("trained_at", e)
    if alumni:
        s.append(f"Former students include {join_and([a.title for a in alumni[:4]])}.")
    return " ".join(s)


def town(w: World, e: Ent, rng: random.Random) -> str:
    canton, f = w.out("in_canton", e), e.facts
    form = rng.randrange(3)
    where = f" in the canton of {canton.title}" if canton else ""
    if form == 0:
        s = [f"{e.title} is a {f['sort']}{where}, with about {f['pop']:,} inhabitants."]
    elif form == 1:
        s = [f"{e.title}, a {f['sort']} of some {f['pop']:,} people, lies{where or ' in the uplands'}."]
    else:
        s = [
            f"With {f['pop']:,} inhabitants, {e.title} is the largest place"
            + (f" in the canton of {canton.title}." if canton else " of its valley.")
        ]
    s.append(f"It has long been known for its {f['trade']}, and its sights include {f['sight']}.")
    for c in w.incoming("hq", e):
        s.append(f"{c.title} has its offices in the town.")
    for x in w.incoming("located", e):
        s.append(f"{x.title} is in {e.title}.")
    natives = w.incoming("born_in", e)
    if natives:
        s.append(f"Natives of {e.title} include {join_and([p.title for p in natives[:3]])}.")
    if f.get("twin"):
        s.append(f"It is twinned with {f['twin']}.")
    return " ".join(s)


def canton(w: World, e: Ent, rng: random.Random) -> str:
    towns = w.incoming("in_canton", e)
    seat = e.facts["seat"]
    s = [f"{e.title} is a canton in the {e.facts['dir']} of the country, covering {e.facts['area']} square kilometres."]
    s.append(
        f"Its seat is {seat}"
        + (
            f", and its other towns include {join_and([t.title for t in towns if t.title != seat])}."
            if len(towns) > 1
            else "."
        )
    )
    s.append(f"The canton was created in {e.facts['year']} and has its own assembly.")
    return " ".join(s)


RENDER: dict[str, Callable[[World, Ent, random.Random], str]] = {
    "product": product,
    "company": company,
    "group": group,
    "person": person,
    "school": school,
    "town": town,
    "canton": canton,
}


def render(w: World, e: Ent, rng: random.Random) -> str:
    """The page of an entity of the core world (traps are written in multihop_blind)."""
    return f"# {e.title}\n\n" + RENDER[e.kind](w, e, rng)
