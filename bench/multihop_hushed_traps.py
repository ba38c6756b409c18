"""The hushed corpus's traps (#28): pages off every chain that a ranker following names or
shared words alone would take for an answer.

- namesakes: another person of a chain person's name (a cellist, a rower, ...; the nine much-listed
  people below among them) with a birthplace and a base of their own, stated in the relation's words;
- renamed airlines and hospitals: a page under the old name, with where it flew from or ran a clinic then;
- listings naming many entities in passing, nine people (five surgeons, four pilots) in most of
  them: departure boards (airlines and aircraft types at an airport), theatre rotas (surgeons),
  air-show programmes (aircraft flown by pilots who did not first fly them), supporters' lists of
  a school's friends (never called its alumni: most are not its graduates), switchboard lists (hospitals),
  careers-fair exhibitor lists (airlines and hospitals) and museum hangar inventories (aircraft);
- notes sharing the relation words (maiden flights, hubs, registrars, founders ...) and no names.
(Shared surnames, organisations named after towns they are not in and two organisations on one
stem are made with the world itself: bench/multihop_hushed.py.)
"""

from __future__ import annotations

import random

from bench.corpus_world import Ent, NameMaker, World, join_and
from bench.multihop_corpus import Doc

_JOBS = [
    "cellist", "rower", "poet", "chess player", "sculptor", "botanist", "jockey", "potter", "cartoonist", "diver",
    "organist", "fencer",
]  # fmt: skip

_NOTES = [
    (
        "maiden flights",
        "A maiden flight is rarely more than an hour. The test pilot flies gentle turns, lowers "
        "the gear once and lands; the first flight of a new type is a ceremony more than a test.",
    ),
    (
        "hub airports",
        "An airline's hub is the airport its network runs out of. A main base needs hangars, crew "
        "rooms and slots at the busy hours; most carriers are based at one hub and keep a few outstations.",
    ),
    (
        "chief test pilots",
        "A manufacturer's chief test pilot signs off each new type. The post is usually held "
        "for a decade; a chief test pilot who learned to fly in the forces is the rule, not the exception.",
    ),
    (
        "registrars",
        "A registrar trains under a consultant for years. Surgeons still speak of whom they trained "
        "under as of a family; the registrar who was taught to operate by a famous name is marked for life.",
    ),
    (
        "medical schools",
        "Where a surgeon qualified matters less than it did. Graduates of the old medical "
        "schools studied medicine for six years and then trained under a consultant as registrars; the new "
        "schools graduate in five.",
    ),
    (
        "founders",
        "Companies, airlines and hospitals tend to be remembered by who founded them. A founder who set "
        "up a firm with borrowed money, based in a back room, is a favourite of the company histories.",
    ),
    (
        "air ambulances",
        "An air ambulance is usually flown by a commercial operator under contract. The hospital "
        "holds the air-ambulance contract; the airline supplies crews and the helicopter from its main base.",
    ),
    (
        "research partnerships",
        "A hospital that runs its research with an institute sends its trials there. "
        "Research partners share data, not staff, and are seldom based in the same town.",
    ),
    (
        "birthplaces",
        "Biographical dictionaries list where people were born; a native of a small town is often "
        "claimed by the larger one next door, or by the region it lies in.",
    ),
    (
        "headquarters",
        "A firm is based where its headquarters are registered, not where it builds. Many are "
        "based in one town and have their works on the edge of another.",
    ),
    (
        "regions",
        "Every town lies in a region, and the regions' boundaries were redrawn twice last century; a "
        "town that belongs to one region on a map may be part of another on the signposts, and a man born "
        "in one may die in the other.",
    ),
    (
        "fleets",
        "The backbone of a fleet is its main type. An airline that flies one type saves on spares; "
        "operators of several keep bigger hangars at their hub.",
    ),
    (
        "directors",
        "An institute is directed by a scientist or a surgeon; most directors have headed their "
        "institute for under ten years, are led by a board and still operate at a hospital two days a week.",
    ),
    (
        "flying schools",
        "Most pilots learned to fly at a club and earned their wings at a school; alumni lists "
        "of the old schools are full of names that later went to the airlines or became chief test pilots.",
    ),
]


def _namesakes(w: World, famous: list[Ent], rng: random.Random) -> list[Doc]:
    people = [e for e in w.ents.values() if e.kind == "person" and e not in famous]
    towns = [e for e in w.ents.values() if e.kind == "town"]
    out = []
    chosen = famous + rng.sample(people, len(_JOBS) - len(famous))
    for i, (p, job) in enumerate(zip(chosen, _JOBS, strict=True)):
        home = w.target("born", p)
        other = rng.choice([t for t in towns if t is not home])
        out.append(Doc(
            f"namesake_{i:02d}.md",
            f"# {p.title} ({job})\n\n{p.title}, the {job}, was born in {other.title} in {rng.randint(1900, 1995)}. "
            f"Not to be confused with any namesake in aviation or medicine. Trained at the conservatoire; "
            f"based in {other.title} all {'her' if p.facts['female'] else 'his'} working life.\n",
        ))  # fmt: skip
    return out


def _renamed(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    orgs = [e for e in w.ents.values() if e.kind in ("airline", "hospital")]
    airports = [e for e in w.ents.values() if e.kind == "airport"]
    towns = [e for e in w.ents.values() if e.kind == "town"]
    out = []
    for i, org in enumerate(rng.sample(orgs, 12)):
        old = f"{nm.word()} {org.title.split()[-1]}"
        y = rng.randint(max(1960, int(org.facts["year"]) + 1), 2015)  # renamed after it was founded
        if org.kind == "airline":
            then = rng.choice([a for a in airports if a is not w.target("hub", org)])
            fact = f"In those years it flew out of {then.title}."
        else:
            then = rng.choice([t for t in towns if t is not w.target("in", org)])
            fact = f"In those years it also ran an outpatient clinic in {then.title}."  # it never moved
        out.append(Doc(
            f"renamed_{i:02d}.md",
            f"# {old}\n\n{old} was the name of {org.title} until {y}, when it was renamed. {fact}\n",
        ))  # fmt: skip
    return out


def _some(rng: random.Random, famous: list[Ent], many: list[Ent], k: int, n: int) -> list[Ent]:
    """`n` of `many`, `k` of them among `famous` (the few people every listing seems to name)."""
    picked = rng.sample([e for e in famous if e in many], k)
    picked += rng.sample([e for e in many if e not in picked], n - k)
    rng.shuffle(picked)
    return picked


def _listings(w: World, nm: NameMaker, famous: list[Ent], rng: random.Random) -> list[Doc]:
    by = {k: [e for e in w.ents.values() if e.kind == k or e.domain == k] for k in
          ("airport", "airline", "aircraft", "surgeon", "pilot", "school", "medschool", "hospital")}  # fmt: skip
    out = []
    for i in range(10):
        port = rng.choice(by["airport"])
        rows = [
            f"| {8 + j}:{rng.choice(['05', '20', '40'])} | {nm.word()} | {rng.choice(by['airline']).title} | "
            f"{rng.choice(by['aircraft']).title} | {rng.choice(['on time', 'delayed', 'boarding'])} |"
            for j in range(6)
        ]
        table = "\n".join(["| time | to | carrier | equipment | status |", "|---|---|---|---|---|", *rows])
        out.append(Doc(f"board_{i:02d}.md", f"# Departures board, {port.title}, day {i + 1}\n\n{table}\n"))
    for i in range(10):
        rota = "\n".join(f"- Theatre {j + 1}: {s.title}" for j, s in enumerate(_some(rng, famous, by["surgeon"], 3, 6)))
        out.append(Doc(f"rota_{i:02d}.md", f"# Theatre rota, week {i + 7}\n\nOn call this week:\n{rota}\n"))
    for i in range(8):
        acts = [
            f"- {12 + j}:00 {a.title}, displayed by {p.title}"
            for j, (a, p) in enumerate(
                zip(rng.sample(by["aircraft"], 5), _some(rng, famous, by["pilot"], 2, 5), strict=True)
            )
        ]
        out.append(Doc(f"airshow_{i:02d}.md", f"# Air show {2000 + i}: flying display\n\n" + "\n".join(acts) + "\n"))
    for i in range(10):
        school = rng.choice(by["school"] + by["medschool"])
        people = by["pilot"] if school.kind == "school" else by["surgeon"]
        members = [p.title for p in _some(rng, famous, people, 3, 6)]
        out.append(Doc(
            f"friends_{i:02d}.md",
            f"# Friends of {school.title}: supporters' list {2010 + i}\n\n"
            f"Paid-up supporters this year: {join_and(members)}. Anyone may join the friends of {school.title}.\n",
        ))  # fmt: skip
    for i in range(6):
        listed = "\n".join(
            f"- {h.title}: 0{rng.randint(1000, 9999)} {rng.randint(100000, 999999)}"
            for h in rng.sample(by["hospital"], 6)
        )
        out.append(Doc(f"switchboard_{i:02d}.md", f"# Switchboard numbers, list {i + 1}\n\n{listed}\n"))
    for i in range(6):
        stands = [e.title for e in rng.sample(by["airline"], 3) + rng.sample(by["hospital"], 3)]
        rng.shuffle(stands)
        out.append(
            Doc(f"careers_{i:02d}.md", f"# Careers fair {2015 + i}: exhibitors\n\nStands: {join_and(stands)}.\n")
        )
    for i in range(8):
        kept = "\n".join(f"- Bay {j + 1}: {a.title}" for j, a in enumerate(rng.sample(by["aircraft"], 5)))
        out.append(Doc(f"hangar_{i:02d}.md", f"# Museum hangar {i + 1}: inventory\n\nAirframes held:\n{kept}\n"))
    return out


def add_traps(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    notes = [Doc(f"note_{i:02d}.md", f"# A note on {topic}\n\n{body}\n") for i, (topic, body) in enumerate(_NOTES)]
    people = [e for e in w.ents.values() if e.kind == "person"]
    famous = rng.sample([p for p in people if p.domain == "surgeon"], 5)
    famous += rng.sample([p for p in people if p.domain == "pilot"], 4)
    return _namesakes(w, famous, rng) + _renamed(w, nm, rng) + _listings(w, nm, famous, rng) + notes
