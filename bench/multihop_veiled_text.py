"""Pages of the veiled multi-hop corpus (bench/multihop_veiled.py): a maritime encyclopaedia.

Ships, shipyards, shipping lines, academies of navigation, mariners and naval architects, harbour
towns and the provinces they lie in. Every page states its subject's facts, but the writers differ:
a ship's page may be prose in the passive ("she was laid down at ..."), an appositive sketch, a
table of particulars or a story told in relative clauses; a yard's page may list the hulls it
launched in a table, a line its fleet in a bullet list, a mariner the ships they commanded. A link
is stated on the subject's page, on the other end's page, or on both (`World.tie`'s side). After
the full name a person is the surname, a ship "she", a yard "the yard", a line "the company".
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.corpus_world import Ent, World, article, cap, join_and

DASH = "\u2013"


ROUTES = ["coastal mail", "emigrant", "grain", "timber", "island ferry", "cattle", "fruit", "coal", "pilgrim"]
FATES = [
    "was broken up in {y}",
    "ran aground in fog in {y} and was lost",
    "was sold abroad in {y} and renamed",
    "was sunk as a breakwater in {y}",
    "foundered in a gale in {y} with all hands saved",
    "was laid up in {y} and later scrapped",
]
GOODS = ["salt fish", "rope", "oysters", "tar", "sailcloth", "herring", "flax", "barley", "peat", "whale oil"]


def _pron(e: Ent) -> tuple[str, str]:
    return ("she", "her") if e.facts.get("female") else ("he", "his")


def _sur(e: Ent) -> str:
    return e.title.split()[-1]


def _table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def ship(w: World, e: Ent, rng: random.Random) -> str:
    yard, line = w.out("built_at", e), w.out("operated_by", e)
    master, arch = w.out("master", e), w.out("designed_by", e)
    f, t = e.facts, e.title
    y, kind, tons = f["year"], f["type"], f["tons"]
    form = rng.randrange(4)
    s: list[str] = []
    if form == 0:
        s.append(f"{t} was {article(kind)}" + (f" built by {yard.title}" if yard else "") + f", launched in {y}.")
        if arch:
            s.append(f"She was drawn up by the naval architect {arch.title}.")
        if line:
            s.append(f"For most of her career she sailed for {line.title} in the {f['route']} trade.")
        if master:
            s.append(f"Her longest-serving master was {master.title}.")
    elif form == 1:
        s.append(
            f"{t}, {article(kind)} of {tons:,} tons, " + (f"was laid down at {yard.title}" if yard else "was completed")
        )
        s[-1] += f" in {y - 1}."
        if arch:
            s.append(rng.choice([f"Her plans came from {arch.title}.", f"{arch.title} prepared the design."]))
        if line:
            s.append(f"{line.title} ran her on its {f['route']} service.")
        if master:
            s.append(f"{master.title} commanded her from {y} until {y + rng.randint(4, 15)}.")
    elif form == 2:
        s.append(f"{t} was {article(kind)} of the {f['route']} trade, launched in {y}.")
        links = [["Builder", yard.title]] if yard else []
        links += [["Designer", arch.title]] if arch else []
        links += [["Operator", line.title]] if line else []
        links += [["Master", master.title]] if master else []
        rows = [["Type", kind], ["Tonnage", f"{tons:,}"], *rng.sample(links, len(links)), ["Launched", str(y)]]
        s.append("\n\n" + _table(["Particulars", ""], rows) + "\n\n")
    else:
        if line:
            s.append(
                f"Ordered by {line.title}, which needed {article(kind)} for the {f['route']} run,"
                f" {t} was completed in {y}."
            )
        else:
            s.append(f"{t} was completed in {y} as {article(kind)} of {tons:,} tons.")
        if yard:
            s.append(f"The hull was put together at {yard.title}, a yard then short of work.")
        if arch:
            s.append(f"The lines were those of {arch.title}, whose earlier hulls had proved fast.")
        if master:
            sur = _sur(master)
            s.append(f"{master.title}, who took her out on her maiden voyage, stayed with her; {sur} kept her log.")
    if form != 2:  # the writers do not agree on which fact comes first
        s[1:] = rng.sample(s[1:], len(s) - 1)
    s.append(f"She {rng.choice(FATES).format(y=y + rng.randint(18, 45))}.")
    return " ".join(s).replace(" \n", "\n").replace("\n ", "\n")


def _built(ships: list[Ent], rng: random.Random, label: str) -> str:
    if not ships:
        return ""
    if rng.random() < 0.5:
        rows = [[x.title, str(x.facts["year"]), x.facts["type"]] for x in ships[:3]]
        return f"\n\n### {label}\n\n" + _table(["Name", "Year", "Type"], rows)
    return f"\n\n{label}:\n" + "\n".join(f"- {x.title} ({x.facts['year']})" for x in ships[:3])


def yard(w: World, e: Ent, rng: random.Random) -> str:
    founder, port = w.out("founded_by", e), w.out("yard_in", e)
    f, t = e.facts, e.title
    form = rng.randrange(3)
    s: list[str] = []
    if form == 0:
        s.append(f"{t} is a shipbuilding firm" + (f" on the waterfront of {port.title}" if port else ""))
        s[-1] += f", established in {f['year']}" + (f" by {founder.title}." if founder else ".")
    elif form == 1:
        lead = f"Set up by {founder.title} in {f['year']}" if founder else f"Opened in {f['year']}"
        s.append(f"{lead}, {t} has {f['ways']} slipways" + (f" at {port.title}." if port else "."))
    else:
        s.append(f"{t} dates from {f['year']}.")
        if founder:
            s.append(f"Its founder, {founder.title}, had run a repair shop before the yard was laid out.")
        if port:
            s.append(rng.choice([f"The yard lies in {port.title}.", f"It occupies the old dry dock of {port.title}."]))
    s.append(f"At its busiest the yard employed {f['staff']} shipwrights.")
    return " ".join(s) + _built(w.incoming("built_at", e), rng, rng.choice(["Ships launched", "Hulls built"]))


def line(w: World, e: Ent, rng: random.Random) -> str:
    founder, port = w.out("founded_by", e), w.out("home_port", e)
    f, t = e.facts, e.title
    form = rng.randrange(3)
    s: list[str] = []
    if form == 0:
        s.append(f"{t} is a shipping company" + (f" registered at {port.title}" if port else ""))
        s[-1] += f", formed in {f['year']}" + (f" by {founder.title}." if founder else ".")
    elif form == 1:
        s.append(f"{t} was a {f['route']} operator founded in {f['year']}.")
        if founder:
            s.append(f"{founder.title}, its first chairman, put up most of the capital.")
        if port:
            s.append(f"The company's ships sailed from {port.title}, where its offices stood.")
    else:
        if port:
            s.append(f"Headquartered in {port.title}, {t} ran the {f['route']} trade from {f['year']}.")
        else:
            s.append(f"{t} ran the {f['route']} trade from {f['year']}.")
        if founder:
            s.append(f"It was started by {founder.title} and passed to {_sur(founder)}'s heirs.")
    s.append(f"It carried {rng.choice(['mail', 'passengers and cargo', 'freight'])} for {rng.randint(20, 90)} years.")
    fleet = w.incoming("operated_by", e)
    if fleet:
        s.append("\n\nFleet:\n" + "\n".join(f"- {x.title}, {x.facts['type']}" for x in fleet[:3]))
    return " ".join(s).replace(" \n", "\n")


def person(w: World, e: Ent, rng: random.Random) -> str:
    town, school = w.out("born_in", e), w.out("trained_at", e)
    mentor, rest = w.out("mentor", e), w.out("retired_to", e)
    n, f = e.title, e.facts
    sur, (she, her) = _sur(e), _pron(e)
    him = "her" if she == "she" else "him"
    by, dy, prof = f["born"], f["died"], f["prof"]
    form = rng.randrange(3)
    s: list[str] = []
    if form == 0 or not town:
        s.append(f"{n} ({by}{DASH}{dy}) was {article(prof)}" + (f" from {town.title}." if town else "."))
    elif form == 1:
        s.append(f"{n}, {article(prof)}, was born at {town.title} in {by}.")
    else:
        s.append(f"{n} ({by}{DASH}{dy}) was {article(prof)}. {cap(she)} grew up in {town.title}, a {f['childhood']}.")
    if school:
        s.append(
            rng.choice(
                [
                    f"{sur} studied at {school.title}.",
                    f"After two years at {school.title}, {she} passed {her} examinations in {by + 19}.",
                    f"{school.title}, where {sur} took {her} certificate, later named a prize after {him}.",
                ]
            )
        )
    if mentor:
        if f["role"] == "captain":
            s.append(
                rng.choice(
                    [
                        f"{cap(she)} served as mate under {mentor.title}.",
                        f"{sur} learned the sea from {mentor.title}, in whose ships {she} sailed for six years.",
                        f"As a young officer {sur} was taken on by {mentor.title}.",
                    ]
                )
            )
        else:
            s.append(
                rng.choice(
                    [
                        f"{cap(she)} was articled to {mentor.title}.",
                        f"{sur} learned to draw hulls in the office of {mentor.title}.",
                        f"{mentor.title} took {him} on as an assistant in {by + 20}.",
                    ]
                )
            )
    for o in w.incoming("founded_by", e):
        s.append(rng.choice([f"In {o.facts['year']} {sur} founded {o.title}.", f"{cap(she)} set up {o.title}."]))
    for p in w.incoming("mentor", e)[:1]:
        s.append(f"{p.title} was among those {she} trained.")
    ships = w.incoming("master", e) + w.incoming("designed_by", e)
    if ships:
        label = "Commands" if f["role"] == "captain" else "Designs"
        s.append(f"\n\n{label}:\n" + "\n".join(f"- {x.title}" for x in ships[:3]) + "\n\n")
    if rest:
        s.append(
            rng.choice(
                [
                    f"{sur} retired to {rest.title} in {dy - rng.randint(3, 15)}.",
                    f"{cap(her)} last years were spent at {rest.title}.",
                    f"On leaving the sea {she} settled in {rest.title}.",
                ]
            )
        )
    return " ".join(s).replace(" \n", "\n").replace("\n ", "\n").strip()


def academy(w: World, e: Ent, rng: random.Random) -> str:
    port, f = w.out("located", e), e.facts
    form = rng.randrange(3)
    if form == 0:
        s = [
            f"{e.title} is a school for ship's officers"
            + (f" in {port.title}" if port else "")
            + f", opened {f['year']}."
        ]
    elif form == 1 and port:
        s = [f"Housed in the old customs house of {port.title}, {e.title} has taught navigation since {f['year']}."]
    else:
        s = [f"{e.title} was founded in {f['year']} to train deck officers and engineers."]
        if port:
            s.append(f"Its training ship is moored at {port.title}.")
    s.append(f"It takes some {rng.randint(3, 12) * 10} cadets a year.")
    alumni = w.incoming("trained_at", e)
    if alumni:
        s.append(
            f"Among its graduates {'were' if len(alumni) > 1 else 'was'} {join_and([a.title for a in alumni[:3]])}."
        )
    return " ".join(s)


def port(w: World, e: Ent, rng: random.Random) -> str:
    prov, f = w.out("in_province", e), e.facts
    form = rng.randrange(3)
    word = prov.facts["word"] if prov else ""
    where = (
        rng.choice([f" in {prov.title}", f" in the {word} of {prov.title}", f" within {prov.title}"]) if prov else ""
    )
    if form == 0:
        s = [f"{e.title} is a {f['sort']}{where}, with about {f['pop']:,} inhabitants."]
    elif form == 1:
        s = [f"{e.title}, a {f['sort']} of some {f['pop']:,} people, lies{where or ' on the estuary'}."]
    else:
        s = [f"With {f['pop']:,} inhabitants, {e.title} is the largest {f['sort']}" + (where or " of its bay") + "."]
    s.append(f"It has long traded in {f['goods']}.")
    for x in w.incoming("yard_in", e):
        s.append(f"{x.title} builds ships there.")
    for x in w.incoming("home_port", e):
        s.append(f"{x.title} keeps its offices on the quay.")
    for x in w.incoming("located", e):
        s.append(f"{x.title} is in {e.title}.")
    natives = w.incoming("born_in", e)
    if natives:
        s.append(f"Natives of {e.title} include {join_and([p.title for p in natives[:2]])}.")
    settlers = w.incoming("retired_to", e)
    if settlers:
        s.append(
            f"{join_and([p.title for p in settlers[:2]])}"
            f" spent {'their' if len(settlers) > 1 else 'a'} retirement here."
        )
    return " ".join(s)


def province(w: World, e: Ent, rng: random.Random) -> str:
    towns = w.incoming("in_province", e)
    f = e.facts
    s = f"{e.title} is a coastal {f['word']} in the {f['dir']}, covering {f['area']:,} square kilometres."
    if towns:
        rows = [[t.title, f"{t.facts['pop']:,}"] for t in towns]
        s += "\n\n" + _table(["Town", "Inhabitants"], rows)
    return s + f"\n\nIts assembly has met since {f['year']}."


RENDER: dict[str, Callable[[World, Ent, random.Random], str]] = {
    "ship": ship,
    "yard": yard,
    "line": line,
    "person": person,
    "academy": academy,
    "port": port,
    "province": province,
}


def render(w: World, e: Ent, rng: random.Random) -> str:
    """The page of an entity of the core world (the traps are written in multihop_veiled_traps)."""
    return f"# {e.title}\n\n" + RENDER[e.kind](w, e, rng)
