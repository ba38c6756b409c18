"""The traps of the muffled multi-hop corpus (bench/multihop_muffled.py): pages off every chain.

* namesakes: people sharing a player's, coach's or chef's full name (their page titled with their own
  trade), from somewhere else, with a club or restaurant of their own to mention;
* renamed clubs and restaurants: the old name's page saying what it became;
* hub pages naming many entities in passing: league tables, all-time squad lists, match reports with their
  scorers, eating-out listings with star ratings;
* food-festival stall lists naming restaurants and a town they have nothing else to do with;
* notes on football and food that use the questions' relation words and name no entity.
Every fact a trap states about a core entity is true of it; the traps only add company.
"""

from __future__ import annotations

import random

from bench.corpus_world import Ent, NameMaker, World
from bench.multihop_corpus import Doc
from bench.multihop_muffled_text import DASH, sur

_TRADE = ["referee", "groundsman", "food critic", "butcher", "baker", "kit manager", "sommelier", "physio"]
_TRADE += ["steward", "fishmonger"]
_NOTES = [
    (
        "On academies",
        "Most players come through a youth academy near where they were born; the academy that "
        "produced a player is rarely the club's own.",
    ),
    (
        "On managers",
        "A club's manager or head coach is appointed by the board; whoever manages a side this season "
        "may be gone by the next, and few coaches were born in the town they coach in.",
    ),
    (
        "On founders",
        "Many clubs were founded by mill owners and brewers; the founder of a club is remembered by "
        "a stand, a cup or a portrait in the boardroom.",
    ),
    (
        "On sponsors",
        "A shirt sponsor pays for its name on the shirts; the firm that backs a club is seldom based "
        "in the club's own town.",
    ),
    (
        "On grounds",
        "A home ground may be shared by two sides; the stadium a club plays at is not always in the "
        "town the club is named after.",
    ),
    (
        "On head chefs",
        "The head chef runs the kitchen; whoever cooks at a restaurant on the night may be the "
        "sous-chef, whatever the menu says.",
    ),
    (
        "On cookery schools",
        "Chefs who trained at a cookery school still learn most under a mentor; the chef who "
        "taught a cook matters more than the diploma.",
    ),
    ("On suppliers", "Menus name their producers; the farm that supplies a restaurant may be two counties away."),
    (
        "On ownership",
        "Restaurant groups own many restaurants under different names; the company behind a "
        "restaurant is named in small print, if at all.",
    ),
    (
        "On awards",
        "Food guides award stars, plates and prizes; the guide behind an award is based wherever its "
        "inspectors keep their office.",
    ),
    (
        "On birthplaces",
        "Programmes give the town a player was born in; the hometown of a footballer is where "
        "the first club scouted them.",
    ),
    (
        "On counties",
        "Every county has its league and its cheese; a county is a poor guide to which club a town supports.",
    ),
    (
        "On renamed clubs",
        "Clubs change names when they merge or move; check the founding year before quoting who founded a club.",
    ),
    ("On squad lists", "A squad list shows who plays for a club this season, not where they trained or were born."),
]


def _ents(w: World, kind: str, role: str | None = None) -> list[Ent]:
    return [e for e in w.ents.values() if e.kind == kind and (role is None or e.facts.get("role") == role)]


def _namesakes(w: World, rng: random.Random) -> list[Doc]:
    people = [e for e in _ents(w, "person") if e.facts["role"] in ("player", "coach", "chef")]
    towns, rests = _ents(w, "town"), _ents(w, "restaurant")
    docs = []
    for i, p in enumerate(rng.sample(people, 10)):
        p.facts["namesake"] = True
        trade = _TRADE[i % len(_TRADE)]
        home = rng.choice([t for t in towns if w.link["born_in"].get(p.file) != t.file])
        year = min(2000, p.facts["born"] + rng.randint(-20, 20))
        r = rng.choice(rests)
        text = (
            f"# {p.title} ({trade})\n\n{p.title} (b. {year}) is a {trade} from {home.title}. Not to be confused "
            f"with the {p.facts['role']} of the same name. {sur(p)} once had lunch at {r.title} and keeps pigeons."
        )
        docs.append(Doc(f"namesake_{i:02d}.md", text))
    return docs


def _renamed(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    clubs, rests = _ents(w, "club"), _ents(w, "restaurant")
    docs = []
    for i, c in enumerate(rng.sample(clubs, 5)):
        old = f"{nm.word()} {['Swifts', 'Excelsior', 'Works', 'Corinthians', 'Rangers'][i]}"
        year = min(1990, c.facts["year"] + rng.randint(3, 40))
        docs.append(
            Doc(
                f"renamed_club_{i}.md",
                f"# {old}\n\n{old} was the name of {c.title} until {year}, when the club took its present name.",
            )
        )
    for i, r in enumerate(rng.sample(rests, 6)):
        old = f"The {nm.word()} {['Inn', 'Tearooms', 'Grill'][i % 3]}"
        what = f"is what {r.title} was called when it first opened in {r.facts['year']}; same dining room, new sign."
        text = f"# {old}\n\n{old} {what}"
        docs.append(Doc(f"renamed_restaurant_{i}.md", text))
    return docs


def _hubs(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    clubs, rests, players = _ents(w, "club"), _ents(w, "restaurant"), _ents(w, "person", "player")
    docs = []
    for i in range(6):  # league tables
        picks = rng.sample(clubs, 8)
        rows = [f"| {k + 1} | {c.title} | {rng.randint(20, 38)} | {rng.randint(18, 80)} |" for k, c in enumerate(picks)]
        season = f"{2016 + i}/{17 + i}"
        head = f"# {nm.word()} League table {season}\n\n| Pos | Club | P | Pts |\n|---|---|---|---|\n"
        docs.append(Doc(f"table_{i}.md", head + "\n".join(rows)))
    for i, c in enumerate(rng.sample(clubs, 8)):  # all-time squad lists: who played for the club (true)
        squad = [p for p in players if w.link["plays_for"][p.file] == c.file]
        if len(squad) < 2:
            continue
        lines = [f"{k + 1}. {p.title}" for k, p in enumerate(squad)]
        docs.append(Doc(f"squad_{i}.md", f"# {c.title} all-time squad list\n\n" + "\n".join(lines)))
    for i in range(16):  # match reports: two clubs and a scorer of each (true)
        a, b = rng.sample(clubs, 2)
        sa = [p for p in players if w.link["plays_for"][p.file] == a.file and p.facts["born"] >= 1985]
        sb = [p for p in players if w.link["plays_for"][p.file] == b.file and p.facts["born"] >= 1985]
        ga, gb = rng.randint(0, 4), rng.randint(0, 3)
        s = [f"MATCH REPORT. {a.title} {ga}{DASH}{gb} {b.title}, in front of {rng.randint(3, 40) * 500:,}."]
        if sa and ga:
            s.append(f"{rng.choice(sa).title} opened the scoring for the hosts.")
        if sb and gb:
            s.append(f"{rng.choice(sb).title} replied with a header.")
        s.append("Referee's report to follow.")
        docs.append(Doc(f"match_{i:02d}.md", f"# Match report {i + 1}: {a.title} v {b.title}\n\n" + " ".join(s)))
    for i in range(8):  # eating-out listings with star ratings
        picks = rng.sample(rests, 8)
        lines = [f"- {r.title} {DASH} {r.facts['stars']} stars, {r.facts['seats']} covers" for r in picks]
        docs.append(Doc(f"listing_{i}.md", f"# {nm.word()} eating-out list {2018 + i}\n\n" + "\n".join(lines)))
    return docs


def _near(w: World, file: str) -> set[str]:
    """Every page within two links of `file`, either way."""
    out = {file}
    for _ in range(2):
        for links in w.link.values():
            for s, d in links.items():
                if s in out or d in out:
                    out |= {s, d}
    return out


def _festivals(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    """Food-festival stall lists: restaurants and a town they have no tie to within two links."""
    towns, rests = _ents(w, "town"), _ents(w, "restaurant")
    docs = []
    for i in range(12):
        picks = rng.sample(rests, 4)
        near = set().union(*(_near(w, r.file) for r in picks))
        town = rng.choice([t for t in towns if t.file not in near] or towns)
        lines = [f"Stall {k + 1}: {r.title}" for k, r in enumerate(picks)]
        text = (
            f"# {nm.word()} Food Festival stalls\n\nOn the green at {town.title}, one weekend in July.\n"
            + "\n".join(lines)
        )
        docs.append(Doc(f"festival_{i:02d}.md", text))
    return docs


def add_traps(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    notes = [Doc(f"note_{i:02d}.md", f"# {head}\n\n{body}") for i, (head, body) in enumerate(_NOTES)]
    return _namesakes(w, rng) + _renamed(w, nm, rng) + _hubs(w, nm, rng) + _festivals(w, nm, rng) + notes
