"""The traps of the veiled multi-hop corpus (bench/multihop_veiled.py): pages off every chain.

* namesakes: people sharing a mariner's full name (their page titled with their own occupation),
  with a birthplace and a foundation of their own; (the core already has eight shared surnames);
* ships named after a town, built, run and commanded by others than the chains' ships;
* later ships of a name ("SS X (1931)"): same name, another yard, line and master;
* registers of shipping (tables of ships with builder and owner), lists of yards and lines with
  their towns, harbour logs (ships and masters calling at a town), regatta results and academies'
  rolls of cadets;
* notes on the trade that use the questions' relation words and name no entity.
Every fact a trap states about a core entity is true of it; the traps only add company.
"""

from __future__ import annotations

import random

from bench.corpus_world import NameMaker, World, article
from bench.multihop_corpus import Doc
from bench.multihop_veiled_text import DASH, _table

_OCC = ["organist", "botanist", "painter", "surveyor", "schoolteacher", "mayor", "astronomer", "printer"]
_CLUB = ["a choir", "a lending library", "a rowing club", "a botanical society", "a brass band", "a museum"]
_NOTES = [
    (
        "On the training of ship's officers",
        "A deck officer trained at a nautical college or academy, then served as mate under an experienced master "
        "before taking a command. Where an officer was born mattered less than the school that trained them.",
    ),
    (
        "On founding a shipyard",
        "Most yards were founded by a shipwright or a naval architect who had run a repair slip. The town where a "
        "yard stands usually had deep water close inshore; who built a ship was painted on her builder's plate.",
    ),
    (
        "On the retirement of mariners",
        "Masters often retired to a small town within sight of the sea. Where a captain retired and where the "
        "captain was born were seldom the same place; many settled near the line they had sailed for.",
    ),
    (
        "On shipping lines and their home ports",
        "A shipping line was registered at its home port and founded, as a rule, by a merchant or shipowner. "
        "The company that operated a ship was not always the one that owned her.",
    ),
    (
        "On the designers of ships",
        "The naval architect who drew a ship's lines is rarely remembered; the yard that launched her and the "
        "master who commanded her are. Designers served articles in a drawing office before working alone.",
    ),
    (
        "On provinces and harbour towns",
        "Each coastal province has a chief town and an assembly. Harbour towns in one province often competed "
        "for the yards and lines founded by natives of another.",
    ),
    (
        "On masters and mates",
        "A mate learned the sea under a master, and many masters are known by the mates they taught. The captain "
        "of a ship was named in her register; her commander could change every voyage.",
    ),
    (
        "On birthplaces in maritime biographies",
        "Biographies of mariners give the town where the subject was born, the college they attended, the ships "
        "they commanded and the place they retired to; parish registers are the usual source.",
    ),
    (
        "On launching ceremonies",
        "A ship is launched by the yard that built her, named by a sponsor and handed to the line that will run her. "
        "The founder of the yard often attended.",
    ),
    (
        "On academies of navigation",
        "An academy of navigation taught seamanship, astronomy and law. The towns that house such schools were "
        "proud of them, and their graduates founded lines and yards along the coast.",
    ),
    (
        "On steam packet companies",
        "Packet companies ran scheduled sailings with mail. Who operated a packet, where the company was "
        "headquartered and who established it are recorded in the shipping registers.",
    ),
    (
        "On the commanders of emigrant ships",
        "Emigrant ships were commanded by masters with long experience; the captain's birthplace was often "
        "printed on the passenger bill to reassure travellers.",
    ),
]


def _namesakes(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    people = [e for e in w.ents.values() if e.kind == "person"]
    ports = [e for e in w.ents.values() if e.kind == "port"]
    docs = []
    for i, p in enumerate(rng.sample(people, 14)):
        occ = rng.choice(_OCC)
        title = f"{p.title} ({occ})"
        she = rng.choice(["She", "He"])
        born, home, club = rng.randint(1840, 1950), rng.choice(ports).title, rng.choice(_CLUB)
        text = rng.choice(
            [
                f"{p.title} (born {born} in {home}) was {article(occ)}. {she} founded {club} in {born + 30}.",
                f"{p.title} ({born}{DASH}{born + 71}) was {article(occ)} from {home}, who set up {club} there.",
                f"Born at {home} in {born}, {p.title} worked as {article(occ)} and established {club}.",
            ]
        )
        text += f" {she} is not to be confused with the {p.facts['prof']} of the same name."
        p.facts["namesake"] = title  # a question naming `p` then says which of the two it means
        docs.append(Doc(f"namesake_{i:02d}.md", f"# {title}\n\n{text}"))
    return docs


def _ships(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    ships = [e for e in w.ents.values() if e.kind == "ship"]
    ports = [e for e in w.ents.values() if e.kind == "port"]
    yards = [e for e in w.ents.values() if e.kind == "yard"]
    lines = [e for e in w.ents.values() if e.kind == "line"]
    captains = [e for e in w.ents.values() if e.kind == "person" and e.facts["role"] == "captain"]
    docs = []
    for i, town in enumerate(rng.sample(ports, 8)):  # a ship named after a town, with nothing else of it
        yd, ln, cap = rng.choice(yards), rng.choice(lines), rng.choice(captains)
        year = rng.randint(1880, 1930)
        title = f"{rng.choice(['SS', 'MV'])} {town.title}"
        text = (
            f"{title} was a coaster built by {yd.title} in {year} and named after the town of {town.title}. "
            f"She ran for {ln.title} under {cap.title} until {year + rng.randint(10, 30)}."
        )
        docs.append(Doc(f"namedship_{i}.md", f"# {title}\n\n{text}"))
    for i, s in enumerate(rng.sample(ships, 14)):  # a later ship of the same name
        yd = rng.choice([y for y in yards if y.file != w.link["built_at"][s.file]])
        ln = rng.choice([x for x in lines if x.file != w.link["operated_by"].get(s.file)])
        cap = rng.choice([c for c in captains if c.file != w.link["master"][s.file]])
        year = s.facts["year"] + rng.randint(25, 60)
        title = f"{s.title} ({year})"
        text = rng.choice(
            [
                f"{title} was the second ship of the name, built by {yd.title} for {ln.title} and commanded "
                f"by {cap.title}. She had no connection with the earlier {s.title}.",
                f"The later {s.title}, launched in {year} by {yd.title}, sailed for {ln.title}; "
                f"{cap.title} was her first master.",
            ]
        )
        docs.append(Doc(f"later_{i:02d}.md", f"# {title}\n\n{text}"))
    return docs


def _registers(w: World, rng: random.Random) -> list[Doc]:
    ents = list(w.ents.values())
    ships = sorted((e for e in ents if e.kind == "ship"), key=lambda e: e.facts["year"])
    ports = [e for e in ents if e.kind == "port"]
    t = w.ents.__getitem__
    docs = []
    for k in range(4):  # registers of shipping: a ship, her builder and her operator
        part = ships[k * 32 : (k + 1) * 32]
        rows = [[s.title, str(s.facts["year"]), t(w.link["built_at"][s.file]).title] for s in part]
        if k % 2:
            ops = w.link["operated_by"]
            rows = [[*r, t(ops[s.file]).title if s.file in ops else DASH] for r, s in zip(rows, part, strict=True)]
        head = ["Ship", "Year", "Builder"] + (["Operator"] if k % 2 else [])
        span = f"{part[0].facts['year']}{DASH}{part[-1].facts['year']}"
        docs.append(
            Doc(
                f"register_{k}.md",
                f"# Register of shipping, {span}\n\nVessels entered in the register in these years.\n\n"
                + _table(head, rows),
            )
        )
    for kind, label in (("yard", "List of shipyards"), ("line", "List of shipping lines")):
        firms = [e for e in ents if e.kind == kind]
        rel = "yard_in" if kind == "yard" else "home_port"
        rows = [[f.title, str(f.facts["year"]), t(w.link[rel][f.file]).title] for f in firms]
        docs.append(Doc(f"list_{kind}s.md", f"# {label}\n\n" + _table(["Name", "Founded", "Town"], rows)))
    for i, town in enumerate(rng.sample(ports, 8)):  # harbour logs: ships calling, with their masters
        calls = rng.sample(ships, 7)
        year = rng.randint(1880, 1925)
        rows = [[f"{rng.randint(1, 28)} {rng.choice(['March', 'June', 'October'])}", s.title] for s in calls]
        rows = [[*r, t(w.link["master"][s.file]).title] for r, s in zip(rows, calls, strict=True)]
        docs.append(
            Doc(
                f"log_{i}.md",
                f"# Harbour log of {town.title}, {year}\n\nArrivals recorded by the harbourmaster.\n\n"
                + _table(["Date", "Vessel", "Master"], rows),
            )
        )
    for i, year in enumerate(sorted(rng.sample(range(1885, 1931), 6))):  # regattas: ships and their lines
        entries = rng.sample([s for s in ships if s.file in w.link["operated_by"]], 6)
        host = rng.choice(ports).title
        rows = [[s.title, t(w.link["operated_by"][s.file]).title, str(p + 1)] for p, s in enumerate(entries)]
        docs.append(
            Doc(
                f"regatta_{i}.md",
                f"# Coastal steamer race of {year}\n\nRun off {host} before a crowd of "
                f"{rng.randint(2, 20) * 1000:,}.\n\n" + _table(["Ship", "Entered by", "Place"], rows),
            )
        )
    for i, a in enumerate(e for e in ents if e.kind == "academy"):  # rolls of cadets: many names in passing
        cadets = [t(p) for p, d in w.link["trained_at"].items() if d == a.file]
        if len(cadets) < 3:
            continue
        rows = [[c.title, str(c.facts["born"] + rng.randint(17, 21))] for c in cadets]
        docs.append(
            Doc(
                f"roll_{i}.md",
                f"# Roll of cadets of {a.title}\n\nCadets entered in the roll, with the year of entry.\n\n"
                + _table(["Cadet", "Entered"], sorted(rows, key=lambda r: r[1])),
            )
        )
    docs += [Doc(f"note_{i:02d}.md", f"# {title}\n\n{text}") for i, (title, text) in enumerate(_NOTES)]
    return docs


def add_traps(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    """The trap pages (and the `namesake` fact on the people they shadow)."""
    return _namesakes(w, nm, rng) + _ships(w, nm, rng) + _registers(w, rng)
