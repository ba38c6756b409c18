"""Pages of the muffled multi-hop corpus (bench/multihop_muffled.py): clubs, organisations, towns, counties.

A club is board-meeting minutes, a press release, a timeline or a fact sheet (a markdown table); a
ground a travel-guide snippet or a stadium-museum label; an academy, cookery school, sponsor, farm,
restaurant group or food guide a press release, a fact sheet, a chat log or meeting minutes; an
award a press release or an honours board; a town a travel-guide snippet or a timeline; a county a
fact sheet. Where an organisation is, is said as where it is based, stands, has its offices or is
found, or as what a town is home to; a link is stated on either end's page or both.
"""

from __future__ import annotations

import random

from bench.corpus_world import Ent, World, article, cap
from bench.multihop_muffled_text import DASH, USERS, person, restaurant, some, titles

Lists = list[tuple[list[str], list[Ent]]]  # (ways to introduce a list, its items)

_WHAT = {
    "academy": "youth academy",
    "school": "cookery school",
    "sponsor": "food and drink company",
    "farm": "producer",
    "group": "restaurant group",
    "guide": "food guide",
}
_MONTHS = ["January", "March", "April", "June", "September", "October", "November"]


def _date(rng: random.Random) -> str:
    return f"{rng.randint(2, 27)} {rng.choice(_MONTHS)} {rng.randint(2019, 2025)}"


def club(w: World, e: Ent, rng: random.Random) -> str:
    here, founder, ground = w.out("based_in", e), w.out("founded_by", e), w.out("home_ground", e)
    coach, sponsor = w.out("coached_by", e), w.out("sponsored_by", e)
    squad = some(w, "plays_for", e, 4)
    t, year = e.title, e.facts["year"]
    form = rng.randrange(4)
    s: list[str] = []
    if form == 0:  # board-meeting minutes
        s.append(
            f"MINUTES of the board meeting of {t}, {_date(rng)}. Present: the chair, the secretary, two directors."
        )
        k = 1
        if ground:
            s.append(
                f"{k}. Ground. The lease on {ground.title}, the club's home ground, runs for another twenty years."
            )
            k += 1
        if sponsor:
            s.append(
                f"{k}. Sponsorship. The shirt deal with {sponsor.title} was renewed; "
                f"{sponsor.title} sponsors the club for three more seasons."
            )
            k += 1
        if coach:
            s.append(f"{k}. Football. The head coach, {coach.title}, reported on the injuries.")
            k += 1
        if founder:
            s.append(f"{k}. History. The chair reminded the board that {founder.title} founded the club in {year}.")
            k += 1
        if squad:
            s.append(f"{k}. Heritage. The club history names {titles(squad)} among those who have played for it.")
            k += 1
        if here:
            s.append(f"{k}. Offices. The club stays based in {here.title}, where its offices are.")
        return f"# {t}\n\n" + "\n".join(s)
    if form == 1:  # press release
        s.append(f"PRESS RELEASE {DASH} {t} {DASH} {_date(rng)}")
        s.append(f"{t}, the {here.title} club," if here else f"{t}")
        s[-1] += " has confirmed its plans for the new season."
        if coach:
            s.append(f"Head coach {coach.title} will lead the squad on a tour.")
        if sponsor:
            s.append(f"The club is sponsored by {sponsor.title}, whose name stays on the shirts.")
        if ground:
            s.append(f"Home games are played at {ground.title}.")
        if squad:
            s.append(f"Players past and present include {titles(squad)}.")
        if founder:
            s.append(f"Founded by {founder.title} in {year}, the club marks its anniversary with a new badge.")
        return f"# {t}\n\n" + s[0] + "\n" + " ".join(s[1:])
    if form == 2:  # timeline
        s.append("TIMELINE OF THE CLUB")
        s.append(f"{year} {DASH} founded" + (f" by {founder.title}" if founder else ""))
        if ground:
            moved = max(year + rng.randint(5, 30), ground.facts["year"])  # not before the ground opened
            s.append(f"{moved} {DASH} moves to {ground.title}, its home ground ever since")
        if here:
            s.append(f"1990 {DASH} club offices move to the centre of {here.title}; the club is based there today")
        if sponsor:
            s.append(f"2018 {DASH} {sponsor.title} becomes shirt sponsor")
        if coach:
            s.append(f"2023 {DASH} {coach.title} appointed head coach")
        if squad:
            s.append(f"2024 {DASH} a club history names {titles(squad)} among its players, past and present")
        return f"# {t}\n\n" + "\n".join(s)
    rows = [("Founded", str(year))]
    rows += [("Founded by", founder.title)] if founder else []
    rows += [("Based in", here.title)] if here else []
    rows += [("Home ground", ground.title)] if ground else []
    rows += [("Head coach", coach.title)] if coach else []
    rows += [("Shirt sponsor", sponsor.title)] if sponsor else []
    rows += [("Players past and present (selected)", titles(squad))] if squad else []
    return f"# {t}\n\nCLUB FACT SHEET\n\n| | |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows)


def stadium(w: World, e: Ent, rng: random.Random) -> str:
    here, clubs = w.out("based_in", e), w.incoming("home_ground", e)
    t, year = e.title, e.facts["year"]
    if rng.randrange(2) == 0:  # travel-guide snippet
        s = [f"GETTING THERE. {t}, opened in {year}" + (f", stands on the edge of {here.title}" if here else "")]
        s[-1] += ", twenty minutes' walk from the station."
        if clubs:
            s.append(f"It is where {titles(clubs)} play their home games.")
        s.append("Pies at the north stand; cash only.")
        return f"# {t}\n\n" + " ".join(s)
    s = [f"STADIUM MUSEUM, ROOM {rng.randint(1, 6)}. A turnstile from {t}, opened {year}."]
    if here:
        s.append(f"The ground is in {here.title}.")
    if clubs:
        s.append(f"Home ground of {titles(clubs)}.")
    s.append("Donated by a season-ticket holder.")
    return f"# {t}\n\n" + "\n".join(s)


def _org(w: World, e: Ent, rng: random.Random, lists: Lists) -> str:
    """A press release, a fact sheet, a chat log or minutes for an organisation."""
    here = w.out("based_in", e)
    t, what = e.title, _WHAT[e.kind]
    form = rng.randrange(4)
    said = [f"{rng.choice(leads)} {titles(items)}." for leads, items in lists if items]
    if form == 0:
        s = [
            f"PRESS RELEASE {DASH} {_date(rng)}",
            f"{t} is {article(what)}" + (f" based in {here.title}." if here else "."),
        ]
        s += [*said, "Ends."]
        return f"# {t}\n\n" + s[0] + "\n" + " ".join(s[1:])
    if form == 1:
        rows = [("Type", what)] + ([("Based in", here.title)] if here else [])
        rows += [("Notes", x.rstrip(".")) for x in said]
        return f"# {t}\n\nFACT SHEET\n\n| | |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows)
    if form == 2:
        u1, u2 = rng.sample(USERS, 2)
        s = ["[chat log #local]", f"[09:14] <{u1}> anyone know {t}?"]
        if here:
            s.append(f"[09:15] <{u2}> based in {here.title}, it's {article(what)}")
        s += [f"[09:1{6 + k}] <{u2}> {x[0].lower() + x[1:]}" for k, x in enumerate(said[:3])]
        return f"# {t}\n\n" + "\n".join(s)
    s = [f"MINUTES of the annual meeting of {t}, {_date(rng)}."]
    if here:
        s.append(f"1. Premises. {t} remains based in {here.title}; the lease was renewed.")
    s += [f"{k + 2}. Report. {x}" for k, x in enumerate(said)]
    return f"# {t}\n\n" + "\n".join(s)


def academy(w: World, e: Ent, rng: random.Random) -> str:
    leads = ["Graduates of the academy include", "Players it has produced:", "Came through its ranks:"]
    return _org(w, e, rng, [(leads, some(w, "came_through", e, 4))])


def school(w: World, e: Ent, rng: random.Random) -> str:
    leads = ["Its alumni include", "Cooks it trained:", "Former students include"]
    return _org(w, e, rng, [(leads, some(w, "trained_at", e, 4))])


def sponsor(w: World, e: Ent, rng: random.Random) -> str:
    leads = ["It sponsors", "Shirt sponsor to", "Its name is on the shirts of"]
    return _org(w, e, rng, [(leads, w.incoming("sponsored_by", e))])


def farm(w: World, e: Ent, rng: random.Random) -> str:
    leads = ["It supplies", "It supplies the kitchens of", "Restaurants it delivers to:"]
    return _org(w, e, rng, [(leads, some(w, "supplied_by", e, 4))])


def group(w: World, e: Ent, rng: random.Random) -> str:
    founder = w.out("founded_by", e)
    lists: Lists = [(["It was founded by", "Founder:", "The group was set up by"], [founder] if founder else [])]
    lists.append((["It owns", "Restaurants the group owns:", "Its restaurants:"], some(w, "owned_by", e, 4)))
    return _org(w, e, rng, lists)


def guide(w: World, e: Ent, rng: random.Random) -> str:
    leads = ["It awards the", "Awards it presents: the", "The guide gives the"]
    return _org(w, e, rng, [(leads, w.incoming("award_by", e))])


def award(w: World, e: Ent, rng: random.Random) -> str:
    by, winners = w.out("award_by", e), some(w, "won", e, 4)
    t, year = e.title, e.facts["year"]
    if rng.randrange(2) == 0:
        s = [f"PRESS RELEASE {DASH} the {t}, {_date(rng)}"]
        s.append(
            f"The {t}, first presented in {year},"
            + (f" is awarded each year by {by.title}." if by else " is given each year.")
        )
        if winners:
            s.append(f"Recent winners: {titles(winners)}.")
        return f"# {t}\n\n" + s[0] + "\n" + " ".join(s[1:])
    s = [f"HONOURS BOARD {DASH} THE {t.upper()} (since {year})"]
    if by:
        s.append(f"Presented by {by.title}.")
    if winners:
        s.append(f"Holders: {titles(winners)}.")
    return f"# {t}\n\n" + "\n".join(s)


def town(w: World, e: Ent, rng: random.Random) -> str:
    cty = w.out("in_county", e)
    natives = some(w, "born_in", e, 3)
    hosts = w.incoming("based_in", e)
    t, pop = e.title, e.facts["pop"]
    if rng.randrange(2) == 0:  # travel-guide snippet
        s = [f"TRAVEL GUIDE: {t.upper()}", f"Population {pop:,}." + (f" A market town in {cty.title}." if cty else "")]
        if hosts:
            s.append(f"What's here: {t} is home to {titles(hosts)}.")
        if natives:
            s.append(f"Local heroes: {titles(natives)} {'were' if len(natives) > 1 else 'was'} born in {t}.")
        s.append("Market day is Thursday.")
        return f"# {t}\n\n" + "\n".join(s)
    s = ["TIMELINE OF THE TOWN", f"1086 {DASH} a mill recorded at {t}"]
    if cty:
        s.append(f"1889 {DASH} {t} becomes part of {cty.title}; it lies in that county still")
    if natives:
        s.append(f"since then {DASH} births in {t} include {titles(natives)}")
    if hosts:
        s.append(f"today {DASH} {titles(hosts)} {'are' if len(hosts) > 1 else 'is'} based in {t}")
    return f"# {t}\n\n" + "\n".join(s)


def county(w: World, e: Ent, rng: random.Random) -> str:
    towns = w.incoming("in_county", e)
    rows = [("Landscape", e.facts["land"]), ("Inhabitants", f"{e.facts['pop']:,}")]
    rows += [("Towns within its borders", titles(towns))] if towns else []
    body = "\n".join(f"| {k} | {v} |" for k, v in rows)
    tail = f"{cap(e.facts['land'])} country, known for its cheese."
    return f"# {e.title}\n\nFACT SHEET\n\n| | |\n|---|---|\n{body}\n\n{tail}"


_RENDER = {
    "person": person,
    "restaurant": restaurant,
    "club": club,
    "stadium": stadium,
    "academy": academy,
    "school": school,
    "sponsor": sponsor,
    "farm": farm,
    "group": group,
    "guide": guide,
    "award": award,
    "town": town,
    "county": county,
}


def render(w: World, e: Ent, rng: random.Random) -> str:
    return _RENDER[e.kind](w, e, rng)
