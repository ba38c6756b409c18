"""Pages of the masked multi-hop corpus (bench/multihop_masked.py): a railway archive, not an encyclopaedia.

Locomotives, the works that built them, the engineers who drew them, the depots that kept them,
the railway companies that ran them and the museums that keep them now; the founders of the
works, the places people were born and died, and the districts the towns lie in. Each kind of
page comes in several document genres: a museum catalogue card, an infobox of particulars, a dated
timeline, an obituary, a letter, a board's minutes, a gazetteer entry, an allocation register. A
relation is worded in several ways (active, passive, a nominalisation, a relative clause, a
key-value line) and stated on the subject's page, on the other end's page or on both
(`World.tie`'s side). After the full name a person is the surname or a pronoun, an engine "she"
or "the engine", a company "the company".
"""

from __future__ import annotations

import random

from bench.corpus_world import Ent, World, cap, join_and

DASH = "\u2013"
WHEELS = ["4-4-0", "0-6-0", "2-6-2T", "4-6-0", "0-4-2ST", "2-8-0", "2-4-0", "0-6-2T"]
DUTIES = ["express passenger engine", "goods engine", "tank engine", "shunting engine", "mixed-traffic engine"]
TRADES = ["lace", "hosiery", "brewing", "tanning", "ironstone", "glove making", "malting", "wool stapling"]
MONTHS = ["January", "March", "April", "June", "July", "September", "October", "December"]


def _pron(e: Ent) -> tuple[str, str]:
    return ("she", "her") if e.facts.get("female") else ("he", "his")


def sur(e: Ent) -> str:
    return e.title.split(" (")[0].split()[-1]


def table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def _date(rng: random.Random, year: int) -> str:
    return f"{rng.randint(1, 28)} {rng.choice(MONTHS)} {year}"


def loco(w: World, e: Ent, rng: random.Random) -> str:
    works, eng = w.out("built_at", e), w.out("designed_by", e)
    shed, rly, mus = w.out("shedded_at", e), w.out("owned_by", e), w.out("preserved_at", e)
    f, t = e.facts, e.title
    y, wh, duty, gone = f["year"], f["wheels"], f["duty"], f["withdrawn"]
    form = f.get("form", rng.randrange(5))
    s: list[str] = []
    if form == 0:  # plain prose, passives
        s.append(f"{t} is a {wh} {duty}" + (f" built at {works.title} in {y}" if works else f" of {y}") + ".")
        if eng:
            s.append(f"She was designed by {eng.title}.")
        if rly:
            s.append(f"She ran on the {rly.title} for {gone - y} years.")
        if shed:
            s.append(f"For most of that time she was allocated to {shed.title}.")
        s.append(f"She was withdrawn in {gone}.")
        if mus:
            s.append(f"Today the engine can be seen at {mus.title}.")
    elif form == 1:  # infobox of particulars
        rows = [["Wheel arrangement", wh], ["Type", duty]]
        rows += [["Builder", works.title]] if works else []
        rows += [["Built", str(y)]]
        rows += [["Designer", eng.title]] if eng else []
        rows += [["Operator", rly.title]] if rly else []
        rows += [["Home shed", shed.title]] if shed else []
        rows += [["Withdrawn", str(gone)]]
        rows += [["Preserved at", mus.title]] if mus else []
        s.append(table(["Particular", "Value"], rows))
        s.append(f"\nThe engine covered some {f['miles']:,} miles in service.")
    elif form == 2:  # museum catalogue card
        s.append(f"Catalogue card. Object: locomotive, {wh} ({duty}).")
        if works:
            s.append(f"\nMaker: {works.title}, {y}.")
        if eng:
            s.append(f"\nDesign attributed to: {eng.title}.")
        prov = [f"worked by the {rly.title}"] if rly else []
        prov += [f"stabled at {shed.title}"] if shed else []
        if prov:
            s.append(f"\nProvenance: {join_and(prov)}; withdrawn {gone}.")
        if mus:
            s.append(f"\nCurrent location: {mus.title}.")
    elif form == 3:  # nominalisations and relative clauses
        if works:
            s.append(f"The construction of {t} by {works.title} in {y} gave the line a {wh} {duty}.")
        else:
            s.append(f"{t}, a {wh} {duty}, entered traffic in {y}.")
        if eng:
            s.append(f"The engine followed drawings by {eng.title}, whose office had prepared them the year before.")
        if rly:
            s.append(f"The {rly.title}, which bought her new, kept her until {gone}.")
        if shed:
            s.append(f"Her crews signed on at {shed.title}, where she was kept throughout.")
        if mus:
            s.append(f"The engine's preservation at {mus.title} followed a public appeal.")
    else:  # dated timeline
        s.append(f"{t} ({wh}, {duty}). Timeline:\n")
        s.append(f"\n- {y}: completed" + (f" by {works.title}" if works else "") + ".")
        if eng:
            s.append(f"\n- {y - 1}: drawings signed by {eng.title}.")
        if rly:
            s.append(f"\n- {y}: taken into stock by the {rly.title}.")
        if shed:
            s.append(f"\n- {y + 1}: sent new to {shed.title}.")
        s.append(f"\n- {gone}: withdrawn from service.")
        if mus:
            s.append(f"\n- {gone + rng.randint(5, 30)}: placed on display at {mus.title}.")
    return f"# {t}\n\n" + (" ".join(s) if form in (0, 3) else "".join(s) if form != 1 else "\n".join(s))


def works(w: World, e: Ent, rng: random.Random) -> str:
    founder, town = w.out("founded_by", e), w.out("works_in", e)
    built, pupils = w.incoming("built_at", e), w.incoming("apprenticed_at", e)
    f, t = e.facts, e.title
    form = rng.randrange(3)
    s: list[str] = []
    if form == 0:
        s.append(f"{t} was an engineering firm" + (f" at {town.title}" if town else "") + f", opened in {f['year']}.")
        if founder:
            s.append(f"It was founded by {founder.title}.")
        s.append(f"At its height the works employed {f['staff']:,} hands.")
        if pupils:
            s.append(f"Apprentices trained in its shops included {join_and([p.title for p in pupils])}.")
        if built:
            s.append(f"Engines erected there include {join_and([b.title for b in built])}.")
    elif form == 1:
        s.append(f"The foundation of {t}" + (f" by {founder.title}" if founder else "") + f" in {f['year']} ")
        s[-1] += f"brought heavy engineering to {town.title}." if town else "was followed by rapid growth."
        if pupils:
            s.append(f"Among those who served an apprenticeship there were {join_and([p.title for p in pupils])}.")
        if built:
            rows = [[b.title, b.facts["wheels"], str(b.facts["year"])] for b in built]
            s.append("\n\nWorks list (surviving records):\n\n" + table(["Engine", "Wheels", "Year"], rows))
    else:
        s.append(f"{t}. Timeline:\n")
        s.append(f"\n- {f['year']}: established" + (f" by {founder.title}" if founder else "") + ".")
        if town:
            s.append(f"\n- {f['year'] + 2}: erecting shop opened at {town.title}.")
        for b in built:
            s.append(f"\n- {b.facts['year']}: {b.title} leaves the shops.")
        for p in pupils:
            s.append(f"\n- {p.facts['born'] + 15}: {p.title} joins as an apprentice.")
        s.append(f"\n- {f['year'] + rng.randint(60, 110)}: the works closed.")
    return f"# {t}\n\n" + (" ".join(s) if form != 2 else "".join(s))


def person(w: World, e: Ent, rng: random.Random) -> str:
    born, died = w.out("born_in", e), w.out("died_in", e)
    shop, master = w.out("apprenticed_at", e), w.out("pupil_of", e)
    designs, founded = w.incoming("designed_by", e), w.incoming("founded_by", e)
    posts, pupils = w.incoming("chief_engineer", e), w.incoming("pupil_of", e)
    f, t, sn = e.facts, e.title.split(" (")[0], sur(e)
    he, his = _pron(e)
    form = rng.randrange(4)
    s: list[str] = []
    if form == 0:  # obituary
        s.append(f"OBITUARY. {t}, {f['prof']}, died" + (f" at {died.title}" if died else ""))
        s[-1] += f" on {_date(rng, f['died'])}, aged {f['died'] - f['born']}."
        if born:
            s.append(f"{cap(he)} was a native of {born.title}.")
        if shop:
            s.append(f"{sn} served {his} time at {shop.title}.")
        if master and rng.random() < 0.5:
            s.append(f"{cap(he)} learned {his} trade under {master.title}.")
        elif master:
            s.append(f"{cap(he)} was taken on as a pupil by {master.title}.")
        if posts:
            s.append(f"{sn} was later locomotive superintendent of the {join_and([r.title for r in posts])}.")
        if founded:
            s.append(f"{cap(he)} established {join_and([x.title for x in founded])}.")
        if designs:
            verb = "is" if len(designs) == 1 else "are"
            s.append(f"Of {his} engines, {join_and([d.title for d in designs])} {verb} best remembered.")
        if pupils:
            s.append(f"{sn}'s pupils included {join_and([p.title for p in pupils])}.")
    elif form == 1:  # biographical sketch, surname after the first line
        s.append(f"{t} ({f['born']}{DASH}{f['died']}) was a {f['prof']}.")
        if born:
            s.append(f"Born at {born.title}, {sn} was the child of a {f['parent']}.")
        else:
            s.append(f"{cap(he)} was the child of a {f['parent']}.")
        if shop:
            s.append(f"The apprenticeship of {sn} at {shop.title} lasted seven years.")
        if master:
            s.append(f"{sn} was then taken on as a pupil by {master.title}.")
        if posts:
            s.append(
                f"The appointment of {sn} as chief engineer of the {join_and([r.title for r in posts])} came later."
            )
        if designs:
            s.append(f"Designs by {sn} include {join_and([d.title for d in designs])}.")
        if founded:
            s.append(f"{sn} founded {join_and([x.title for x in founded])}.")
        if pupils:
            s.append(f"{cap(he)} in turn trained {join_and([p.title for p in pupils])}.")
        if died:
            s.append(f"{sn} died at {died.title} in {f['died']}.")
    elif form == 2:  # a letter, then an editor's note
        s.append(f"Letter to the editor, {f['born'] + 50}. Sir, — I write as one who")
        s[-1] += (f" was born at {born.title}" if born else " grew up among the sidings") + ","
        s[-1] += f" served an apprenticeship at {shop.title}" if shop else " learned the trade young"
        s[-1] += f" and owed everything to my old master, {master.title}." if master else "."
        if designs:
            drawn = join_and([d.title for d in designs])
            s.append(f"Your correspondent is wrong to credit others with {drawn}: I drew them.")
        s.append(f"Yours faithfully, {t}.")
        note = []
        if posts:
            note.append(f"{sn} had charge of the locomotive department of the {join_and([r.title for r in posts])}")
        if founded:
            note.append(f"{he} set up {join_and([x.title for x in founded])}")
        if pupils:
            note.append(f"{he} took {join_and([p.title for p in pupils])} as pupils")
        if died:
            note.append(f"{he} died at {died.title} in {f['died']}")
        if note:
            s.append(f"\n\nEditor's note: {cap('; '.join(note))}.")
    else:  # timeline
        s.append(f"{t}, {f['prof']}. Timeline:\n")
        s.append(f"\n- {f['born']}: born" + (f" at {born.title}" if born else "") + ".")
        s.append(f"\n- {f['born'] + 14}: leaves school; {his} father is a {f['parent']}.")
        if shop:
            s.append(f"\n- {f['born'] + 15}: apprenticed to {shop.title}.")
        if master:
            s.append(f"\n- {f['born'] + 22}: becomes a pupil of {master.title}.")
        for r in posts:
            s.append(f"\n- {f['born'] + 35}: appointed chief engineer of the {r.title}.")
        for x in founded:
            s.append(f"\n- {x.facts['year']}: founds {x.title}.")
        for d in designs:
            s.append(f"\n- {d.facts['year'] - 1}: completes the drawings of {d.title}.")
        for p in pupils:
            s.append(f"\n- {p.facts['born'] + 22}: takes {p.title} as a pupil.")
        s.append(f"\n- {f['died']}: dies" + (f" at {died.title}" if died else "") + ".")
    return f"# {e.title}\n\n" + (" ".join(s) if form in (0, 1) else "".join(s) if form == 3 else " ".join(s))


def railway(w: World, e: Ent, rng: random.Random) -> str:
    hq, chief, into = w.out("hq_in", e), w.out("chief_engineer", e), w.out("absorbed_into", e)
    stock, took = w.incoming("owned_by", e), w.incoming("absorbed_into", e)
    f, t = e.facts, e.title
    n = int(e.file.split("_")[1].split(".")[0])
    form, alt = n % 3, n // 3 % 2 == 0  # each genre and wording on a share of the companies
    s: list[str] = []
    if form == 0:  # minutes of the board
        s.append(f"Minutes of the directors of the {t}, {_date(rng, f['year'] + 3)}.")
        if hq:
            s.append(f"The board met at the company's offices in {hq.title}.")
        if chief:
            s.append(f"Resolved, that {chief.title} be appointed locomotive superintendent of the company.")
        if stock:
            s.append(f"Resolved, that the engines {join_and([x.title for x in stock])} be taken into stock.")
        if took:
            s.append(
                f"Reported, the terms of the amalgamation of the {join_and([x.title for x in took])} into this company."
            )
        if into:
            later = f["year"] + rng.randint(30, 60)
            if alt:
                s.append(f"\n\nLater note: in {later} the company was absorbed by the {into.title}.")
            else:
                s.append(
                    f"\n\nLater note: the amalgamation of the company into the {into.title} took effect in {later}."
                )
    elif form == 1:  # infobox and prose
        rows = [["Incorporated", str(f["year"])], ["Route miles", str(f["miles"])]]
        rows += [["Headquarters", hq.title]] if hq else []
        rows += [["Chief engineer", chief.title]] if chief else []
        rows += [["Successor", f"the {into.title}"]] if into else []
        s.append(table(["Particular", "Value"], rows))
        if stock:
            s.append("\n\nStock list:\n\n" + "\n".join(f"- {x.title} ({x.facts['wheels']})" for x in stock))
        if took:
            s.append(f"\n\nThe {join_and([x.title for x in took])} was absorbed by the company.")
    else:
        s.append(f"The {t} was a railway company incorporated in {f['year']} to serve the {f['trade']} trade.")
        if hq:
            s.append(f"Its head office stood in {hq.title}.")
        if chief and alt:
            s.append(f"{chief.title}, who served it as chief engineer, shaped its engine policy.")
        elif chief:
            s.append(f"The appointment of {chief.title} as chief engineer in {f['year'] + 5} shaped its engine policy.")
        if stock:
            s.append(f"The company's engines included {join_and([x.title for x in stock])}.")
        if took and alt:
            s.append(f"It took over the {join_and([x.title for x in took])}.")
        elif took:
            s.append(f"The amalgamation of the {join_and([x.title for x in took])} into the company followed.")
        if into and not alt:
            s.append(f"The amalgamation of the company into the {into.title} ended its independence.")
        elif into:
            s.append(f"In {f['year'] + rng.randint(30, 60)} it was absorbed by the {into.title}.")
    return f"# {t}\n\n" + (" ".join(s) if form != 1 else "".join(s))


def depot(w: World, e: Ent, rng: random.Random) -> str:
    town, kept = w.out("depot_in", e), w.incoming("shedded_at", e)
    f, t = e.facts, e.title
    if rng.random() < 0.5:
        s = f"{t} was an engine shed of {f['roads']} roads" + (f" on the edge of {town.title}" if town else "") + "."
        s += f" It opened in {f['year']} and closed in {f['year'] + rng.randint(50, 100)}."
        if kept:
            s += "\n\nAllocation register:\n\n" + table(
                ["Engine", "Wheels", "Arrived"], [[k.title, k.facts["wheels"], str(k.facts["year"] + 1)] for k in kept]
            )
        return f"# {t}\n\n{s}"
    s = f"Shed code {f['code']}. " + (f"{town.title} was served by {t}, " if town else f"{t}, ")
    s += f"a depot with {f['roads']} roads and a turntable."
    if kept:
        s += " Engines stabled here:\n\n" + "\n".join(f"- {k.title}" for k in kept)
    return f"# {t}\n\n{s}"


def museum(w: World, e: Ent, rng: random.Random) -> str:
    town, held = w.out("museum_in", e), w.incoming("preserved_at", e)
    t = e.title
    s = f"{t} opened in {e.facts['year']}" + (f" in the old goods shed at {town.title}" if town else "") + "."
    if held and int(e.file[7]) % 2:
        s += f" Engines whose preservation at {t} was paid for by subscription: {join_and([h.title for h in held])}."
    elif held:
        s += " Catalogue of locomotives on display:\n\n" + "\n".join(
            f"- {h.title}, {h.facts['wheels']}, {h.facts['year']}" for h in held
        )
    return f"# {t}\n\n{s}"


def town(w: World, e: Ent, rng: random.Random) -> str:
    dist, f, t = w.out("in_district", e), e.facts, e.title
    s = f"{t.upper()}, a market town" + (f" of the {dist.title} district" if dist else "")
    s += f"; pop. {f['pop']:,} (1901). Chief trade: {f['trade']}."
    bits = []
    for rel, label in (("works_in", "Works"), ("depot_in", "Engine shed"), ("museum_in", "Museum")):
        here = w.incoming(rel, e)
        if here:
            bits.append(f"{label}: {join_and([x.title for x in here])}.")
    hq = w.incoming("hq_in", e)
    if hq:
        bits.append(f"Offices of the {join_and([x.title for x in hq])}.")
    natives, deaths = w.incoming("born_in", e), w.incoming("died_in", e)
    if natives:
        bits.append(f"Natives: {join_and([x.title for x in natives])}.")
    if deaths:
        bits.append(f"{join_and([x.title for x in deaths])} spent {rng.choice(['their', 'the'])} last years here.")
    return f"# {t}\n\n{s} " + " ".join(bits)


def district(w: World, e: Ent, rng: random.Random) -> str:
    towns = w.incoming("in_district", e)
    s = f"The {e.title} district covers {e.facts['area']:,} acres of the {e.facts['dir']} uplands."
    if towns:
        s += "\n\n" + table(["Town", "Population (1901)"], [[x.title, f"{x.facts['pop']:,}"] for x in towns])
    return f"# {e.title}\n\n{s}"


RENDER = {
    "loco": loco,
    "works": works,
    "person": person,
    "railway": railway,
    "depot": depot,
    "museum": museum,
    "town": town,
    "district": district,
}


def render(w: World, e: Ent, rng: random.Random) -> str:
    return RENDER[e.kind](w, e, rng)
