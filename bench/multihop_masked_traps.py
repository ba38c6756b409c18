"""The traps of the masked multi-hop corpus (bench/multihop_masked.py): pages off every chain.

* namesakes: people sharing an engineer's full name (their page titled with their own trade), born
  and working somewhere else, with a connection of their own to a company or works;
* rebuilt engines carrying an old engine's name under another number, from another works;
* hub pages naming many entities in passing: stock registers (engine, wheels, year, company),
  working timetables (a company's stations), membership rolls of an engineers' institution, a trade
  directory of works and their towns, a heritage-trail leaflet of museums;
* excursion handbills naming an engine and a destination town;
* notes on railway practice that use the questions' relation words and name no entity.
Every fact a trap states about a core entity is true of it; the traps only add company.
"""

from __future__ import annotations

import random

from bench.corpus_world import NameMaker, World, join_and
from bench.multihop_corpus import Doc
from bench.multihop_masked_text import DUTIES, WHEELS, table

_TRADE = ["banker", "organist", "botanist", "painter", "surveyor", "schoolmaster", "brewer", "alderman", "printer"]
_GOOD = ["a cottage hospital", "a lending library", "a brass band", "a chapel", "a savings bank", "a choir"]
_NOTES = [
    (
        "On apprenticeships",
        "An apprentice served five or seven years in the shops of a works before a "
        "draughtsman's stool or a foreman's post. Where a young engineer trained mattered more than the town he "
        "was born in; the firm that took him on usually found his first situation too.",
    ),
    (
        "On pupils and masters",
        "A pupil paid a premium to learn under an established engineer, and the master "
        "who took a pupil vouched for him afterwards. Many a chief engineer was a pupil of another.",
    ),
    (
        "On the naming of engines",
        "Companies named engines after the towns they served, after directors and "
        "after racehorses. An engine named after a town was seldom built, stabled or preserved there.",
    ),
    (
        "On sheds and allocation",
        "An engine was allocated to a shed, which kept her, coaled her and found her "
        "crews. The depot an engine was stabled at changed as traffic changed; registers record each move.",
    ),
    (
        "On chief engineers",
        "The locomotive superintendent, or chief engineer, answered to the board for the "
        "engines, the works and the sheds. His appointment was minuted; so was his retirement.",
    ),
    (
        "On amalgamations",
        "Small companies were absorbed by larger ones, merged into a group or taken over "
        "outright. The successor company often kept the absorbed line's engines, and renumbered them.",
    ),
    (
        "On the founders of works",
        "Most engine works were founded by an ironmaster or by a former "
        "locomotive superintendent. The founder's name often stayed on the builder's plates long after his death.",
    ),
    (
        "On preservation",
        "An engine preserved in a museum is usually the last of her class. A collection that "
        "keeps an engine displays her with a catalogue card giving her maker, designer and owners.",
    ),
    (
        "On birthplaces and deaths",
        "Obituaries give where an engineer was born and where he died, and not much "
        "between. Many died far from their birthplace, in the town where their last works stood.",
    ),
    (
        "On districts and market towns",
        "Each district has a handful of market towns; a gazetteer gives the "
        "district a town lies in, its population and its chief trade.",
    ),
    (
        "On head offices",
        "A railway company was run from its head office, where the board met; the seat of a "
        "company was rarely the town that gave it its name.",
    ),
    (
        "On designers' drawings",
        "The designer of an engine signed the general arrangement drawing; who drew an "
        "engine is often disputed in letters to the technical press.",
    ),
    (
        "On works lists",
        "A builder's works list gives each engine it built, the year it came out of the "
        "erecting shop and the company that bought it.",
    ),
    (
        "On museums and their towns",
        "Railway museums stand in old goods sheds and engine houses; the town that "
        "houses a museum is seldom the one its engines served.",
    ),
    (
        "On operators",
        "The company an engine worked for is not always the one that ordered her: engines were "
        "hired, sold and run by their owners' successors.",
    ),
    (
        "On letters to the editor",
        "Retired engineers wrote to the editor to claim designs as their own and to "
        "correct the record of their masters, their pupils and their apprenticeships.",
    ),
]


def _namesakes(w: World, rng: random.Random) -> list[Doc]:
    people = [e for e in w.ents.values() if e.kind == "person" and e.facts["role"] == "engineer"]
    towns = [e for e in w.ents.values() if e.kind == "town"]
    firms = [e for e in w.ents.values() if e.kind in ("railway", "works")]
    docs = []
    for i, p in enumerate(rng.sample(people, 10)):
        p.facts["namesake"] = True
        trade = _TRADE[i % len(_TRADE)]
        home = rng.choice([t for t in towns if w.link["born_in"].get(p.file) != t.file])
        firm = rng.choice(firms)
        year = p.facts["born"] + rng.randint(-30, 30)
        text = (
            f"# {p.title} ({trade})\n\n{p.title} ({year}{chr(8211)}{year + rng.randint(50, 85)}) was a {trade} "
            f"born at {home.title}. Not to be confused with the engineer of the same name. "
            f"{p.title.split()[-1]} founded {rng.choice(_GOOD)} in the town and held shares in the "
            f"{firm.title}."
        )
        docs.append(Doc(f"namesake_{i:02d}.md", text))
    return docs


def _rebuilt(w: World, rng: random.Random) -> list[Doc]:
    locos = [e for e in w.ents.values() if e.kind == "loco"]
    works = [e for e in w.ents.values() if e.kind == "works"]
    rail = [e for e in w.ents.values() if e.kind == "railway"]
    docs = []
    for i, e in enumerate(rng.sample(locos, 12)):
        name = e.title.split(" ", 2)[2]
        num = 3000 + i * 13
        wk = rng.choice([x for x in works if w.link["built_at"][e.file] != x.file])
        r = rng.choice([x for x in rail if w.link["owned_by"][e.file] != x.file])
        year = min(e.facts["withdrawn"] + rng.randint(1, 10), 1950)
        text = (
            f"# No. {num} {name}\n\nNo. {num} {name} was a {rng.choice(WHEELS)} {rng.choice(DUTIES)} turned out "
            f"by {wk.title} in {year} for the {r.title}. She took her name from an older engine, long withdrawn, "
            f"and was herself scrapped in {year + rng.randint(15, 40)}."
        )
        docs.append(Doc(f"rebuilt_{i:02d}.md", text))
    return docs


def _hubs(w: World, rng: random.Random) -> list[Doc]:
    by = {k: [e for e in w.ents.values() if e.kind == k] for k in ("loco", "railway", "town", "person", "works")}
    docs = []
    for i in range(10):  # stock registers
        year = 1890 + i * 4
        rows = []
        for e in sorted(rng.sample(by["loco"], 9), key=lambda e: e.title):
            r = w.ents[w.link["owned_by"][e.file]]
            rows.append([e.title, e.facts["wheels"], str(e.facts["year"])] + ([r.title] if i % 2 else []))
        head = ["Engine", "Wheels", "Built"] + (["Company"] if i % 2 else [])
        docs.append(Doc(f"register_{i:02d}.md", f"# Register of locomotive stock, {year}\n\n{table(head, rows)}"))
    for i, r in enumerate(rng.sample(by["railway"], 8)):  # working timetables
        stops = rng.sample(by["town"], 7)
        rows = [
            [t.title, f"{6 + j}.{rng.randint(10, 59)}", f"{14 + j}.{rng.randint(10, 59)}"] for j, t in enumerate(stops)
        ]
        text = f"# Working timetable no. {i + 1}\n\nThe {r.title}, summer service.\n\n"
        docs.append(Doc(f"timetable_{i:02d}.md", text + table(["Station", "Up", "Down"], rows)))
    for i in range(6):  # membership rolls
        members = sorted(rng.sample(by["person"], 9), key=lambda e: e.title)
        rows = [[p.title, str(p.facts["born"] + rng.randint(25, 40))] for p in members]
        text = f"# Roll of members, Institution of Locomotive Engineers, part {i + 1}\n\n"
        docs.append(Doc(f"roll_{i}.md", text + table(["Member", "Elected"], rows)))
    for i in range(3):  # trade directories (works and their towns: true)
        firms = rng.sample(by["works"], 6)
        lines = [f"- {f.title}, {w.ents[w.link['works_in'][f.file]].title}" for f in firms]
        docs.append(Doc(f"directory_{i}.md", f"# Trade directory, engineering, vol. {i + 1}\n\n" + "\n".join(lines)))
    for i in range(3):  # heritage trail leaflets
        held = [e for e in by["loco"] if e.file in w.link.get("preserved_at", {})]
        pick = rng.sample(held, min(6, len(held)))
        seen = join_and([e.title for e in pick])
        text = f"# Heritage steam trail, leaflet {i + 1}\n\nEngines to see on the trail: {seen}."
        docs.append(Doc(f"trail_{i}.md", text))
    return docs


def _handbills(w: World, rng: random.Random) -> list[Doc]:
    locos = [e for e in w.ents.values() if e.kind == "loco"]
    towns = [e for e in w.ents.values() if e.kind == "town"]
    docs = []
    for i in range(24):
        e, t = rng.choice(locos), rng.choice(towns)
        text = (
            f"# Excursion handbill {i + 1}\n\nA day excursion to {t.title}, hauled by the famous {e.title}. "
            f"Fares {rng.randint(2, 9)}s. return; the train calls at all stations "
            f"and returns by {rng.randint(7, 10)} p.m."
        )
        docs.append(Doc(f"handbill_{i:02d}.md", text))
    return docs


def add_traps(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    docs = _namesakes(w, rng) + _rebuilt(w, rng) + _hubs(w, rng) + _handbills(w, rng)
    docs += [Doc(f"note_{i:02d}.md", f"# {title}\n\n{body}") for i, (title, body) in enumerate(_NOTES)]
    return docs
