"""Pages of the draped multi-hop corpus (bench/multihop_draped.py): organisations, towns and regions.

A house, imprint, agency, printer, foundation or writing programme is a publisher's catalogue front
page, a wiki talk-page discussion or an email thread with quoted replies; a prize is a prize
citation or a talk page; a town is a literary walking-tour leaflet or a talk page; a region a short
gazetteer entry. Where an organisation is, is said as where it is based, has its offices or is
located, or as what a town is home to; a link is stated on either end's page or both.
"""

from __future__ import annotations

import random

from bench.corpus_world import Ent, World, article
from bench.multihop_draped_text import DASH, USERS, book, person, some, stamp, titles

Lists = list[tuple[list[str], list[Ent]]]  # (ways to introduce a list, its items)

_WHAT = {
    "house": "publishing house",
    "imprint": "imprint",
    "agency": "literary agency",
    "printer": "printing works",
    "foundation": "foundation",
    "programme": "writing programme",
}


def _org(w: World, e: Ent, rng: random.Random, lists: Lists) -> str:
    """A catalogue front page, a talk page or an email thread for an organisation."""
    here = w.out("based_in", e)
    f, t, what = e.facts, e.title, _WHAT[e.kind]
    form = rng.randrange(3)
    s: list[str] = []
    if form == 0:  # catalogue front page
        s.append(f"{t.upper()} {DASH} CATALOGUE {min(2025, f['year'] + rng.randint(20, 45))}\n")
        s.append(f"{t} is {article(what)}" + (f" based in {here.title}." if here else ".") + f" Since {f['year']}.")
        for leads, items in lists:
            if items:
                s.append(f"{rng.choice(leads)} {titles(items)}.")
        return f"# {t}\n\n" + "\n".join(s[:1]) + "\n" + " ".join(s[1:])
    if form == 1:  # talk page
        s.append(f"Talk:{t}")
        if here:
            s.append(f"== Offices ==\nThe offices of {t} are located in {here.title}, not in the capital as the")
            s[-1] += f" lead said; fixed. {DASH} {rng.choice(USERS)} {stamp(rng, 2011 + rng.randint(0, 12))}"
        register = "charity" if e.kind in ("foundation", "programme") else "company"  # a trust is no company
        s.append(f"== Dates ==\nFounding year {f['year']} per the {register} register.")
        said = [f"{rng.choice(leads)} {titles(items)}." for leads, items in lists if items]
        if said:
            s.append("== Notability ==\n" + " ".join(said) + " Surely enough for an article.")
        return f"# {t}\n\n" + "\n\n".join(s)
    s.append(f"Subject: Fwd: {t} {DASH} fact check\n")  # email thread with quoted replies
    if here:
        s.append(f"> is {t} still based in {here.title}?\nYes, same building since {f['year']}.")
    for leads, items in lists:
        if items:
            s.append(f"> anything to add for the profile?\n{rng.choice(leads)} {titles(items)}.")
    return f"# {t}\n\n" + "\n\n".join(s)


def house(w: World, e: Ent, rng: random.Random) -> str:
    founder = w.out("founded_by", e)
    lists: Lists = [(["Its founder is", "It was set up by", "The house was founded by"], [founder] if founder else [])]
    lists.append((["Its imprints include", "Imprints belonging to it:", "It owns"], some(w, "imprint_of", e, 3)))
    return _org(w, e, rng, lists)


def imprint(w: World, e: Ent, rng: random.Random) -> str:
    owner = w.out("imprint_of", e)
    books = some(w, "published_by", e, 4)
    t, f = e.title, e.facts
    form = rng.randrange(2)
    s = [f"{t.upper()} {DASH} BACKLIST\n"] if form == 0 else [f"Talk:{t}"]
    if owner:
        s.append(
            f"{t} is an imprint of {owner.title}, launched in {f['year']}."
            if form == 0
            else f"== Ownership ==\nSince {f['year']} the imprint has belonged to {owner.title}."
        )
    if books:
        s.append(
            f"Titles on its list: {titles(books)}." if form == 0 else f"== Books ==\nIt published {titles(books)}."
        )
    return f"# {t}\n\n" + ("\n".join(s) if form == 0 else "\n\n".join(s))


def agency(w: World, e: Ent, rng: random.Random) -> str:
    leads = ["Its clients include", "Authors it represents:", "It acts for"]
    return _org(w, e, rng, [(leads, some(w, "represented_by", e, 4))])


def printer(w: World, e: Ent, rng: random.Random) -> str:
    leads = ["Books printed there include", "It has printed", "From its presses:"]
    return _org(w, e, rng, [(leads, some(w, "printed_by", e, 4))])


def foundation(w: World, e: Ent, rng: random.Random) -> str:
    leads = ["It awards the", "The prizes it gives:", "It funds and judges the"]  # "the Soncher Medal"
    return _org(w, e, rng, [(leads, w.incoming("prize_by", e))])


def programme(w: World, e: Ent, rng: random.Random) -> str:
    leads = ["Alumni:", "Its graduates include", "Former students:"]
    return _org(w, e, rng, [(leads, some(w, "studied_at", e, 4))])


def prize(w: World, e: Ent, rng: random.Random) -> str:
    by, winners = w.out("prize_by", e), some(w, "won", e, 4)
    t, f = e.title, e.facts
    if rng.randrange(2) == 0:  # a prize citation
        s = [f"Citation. The jury of the {t}, first given in {f['year']}, honours this year a book of rare nerve."]
        if by:
            s.append(f"The {t} is awarded annually by {by.title}.")
        if winners:
            s.append(f"Past winners: {titles(winners)}.")
        return f"# {t}\n\n" + " ".join(s)
    s = [f"Talk:{t}", f"== Jury ==\nFive judges a year since {f['year']}; names in the annual report."]
    if by:
        s.append(f"== Sponsor ==\n{by.title} runs the prize and picks its jury. {DASH} {rng.choice(USERS)}")
    if winners:
        s.append(f"== Winners ==\nThe list of winning books ({titles(winners)}) needs sources.")
    return f"# {t}\n\n" + "\n\n".join(s)


def town(w: World, e: Ent, rng: random.Random) -> str:
    reg = w.out("in_region", e)
    natives = some(w, "born_in", e, 3)
    hosts = w.incoming("based_in", e)
    t, pop = e.title, e.facts["pop"]
    if rng.randrange(2) == 0:  # walking-tour leaflet
        s = [f"A LITERARY WALK THROUGH {t.upper()}\n", f"Population {pop:,}."]
        s += [f"The town lies in {reg.title}."] if reg else []
        s += [f"Stop 1: the offices of {titles(hosts)}, which are based here."] if hosts else []
        if natives:
            s.append(
                f"Stop 2: the birthplace plaques of {titles(natives)}, {'all ' if len(natives) > 1 else ''}born in {t}."
            )
        s.append("Stop 3: the old lending library, closed on Mondays.")
        return f"# {t}\n\n" + "\n".join(s)
    s = [
        f"Talk:{t}",
        f"== Region ==\n{t} is in {reg.title}, not the next county."
        if reg
        else f"== Size ==\nPopulation {pop:,} at the last census.",
    ]
    if hosts:
        s.append(f"== Institutions ==\nThe town is home to {titles(hosts)}; add them to the infobox?")
    if natives:
        s.append(f"== Natives ==\nPeople born in {t}: {titles(natives)}.")
    return f"# {t}\n\n" + "\n\n".join(s)


def region(w: World, e: Ent, rng: random.Random) -> str:
    towns = w.incoming("in_region", e)
    s = [f"{e.title} is {article(e.facts['land'])} county of some {e.facts['pop']:,} inhabitants."]
    if towns:
        s.append(f"{rng.choice(['Its towns include', 'It takes in', 'Within it lie'])} {titles(towns)}.")
    s.append(f"Writers come for {rng.choice(['its silence', 'its long winters', 'its cheap rents'])}.")
    return f"# {e.title}\n\n" + " ".join(s)


_RENDER = {
    "book": book,
    "person": person,
    "house": house,
    "imprint": imprint,
    "agency": agency,
    "printer": printer,
    "foundation": foundation,
    "programme": programme,
    "prize": prize,
    "town": town,
    "region": region,
}


def render(w: World, e: Ent, rng: random.Random) -> str:
    return _RENDER[e.kind](w, e, rng)
