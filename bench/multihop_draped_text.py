"""Pages of the draped multi-hop corpus (bench/multihop_draped.py): books and people, as the trade writes them.

A book's page is a library catalogue record (key-value lines), a book-jacket blurb, the author's
acknowledgments page in the first person ("My thanks to my editor, ..."), an auction-lot
description, a publisher's catalogue listing or a reading-group guide; a person's page is a
festival programme entry, a wiki talk-page discussion, an email thread with quoted replies or a
jacket-flap note. Organisations, towns and regions are written in bench/multihop_draped_places.py.
A relation is worded in several ways (active, passive, a nominalisation, a relative clause, a
key-value line, the first person) and stated on the subject's page, on the other end's page or on
both (`World.tie`'s side). After the full name a person is the surname, a pronoun or "I".
"""

from __future__ import annotations

import random

from bench.corpus_world import Ent, World, article, cap, join_and

DASH = "\u2014"
ROLES = ("author", "editor", "translator", "illustrator", "publisher")
MONTHS = ["January", "March", "April", "May", "June", "September", "October", "November"]
USERS = ["Quirewright", "Foxed_Margins", "Colophonist", "Inkhorn42", "Deckle_Edge", "Verso"]


def pron(e: Ent) -> tuple[str, str]:
    return ("she", "her") if e.facts.get("female") else ("he", "his")


def sur(e: Ent) -> str:
    return e.title.split(" (")[0].split()[-1]


def some(w: World, rel: str, e: Ent, most: int) -> list[Ent]:
    """The first `most` sources of `rel` into `e` that its page states: a page lists selected books,
    some clients, a few natives, not every one."""
    return w.incoming(rel, e)[:most]


def titles(items: list[Ent]) -> str:
    return join_and([x.title for x in items])


def stamp(rng: random.Random, year: int) -> str:
    """A wiki signature's time stamp."""
    return f"{rng.randint(10, 23)}:{rng.randint(10, 59)}, {rng.randint(1, 28)} {rng.choice(MONTHS)} {year} (UTC)"


def _catalogue_record(
    e: Ent, d: Ent | None, ed: Ent | None, tr: Ent | None, il: Ent | None, rest: list[Ent | None]
) -> str:
    imp, pr, prize = rest
    f = e.facts
    s = ["CATALOGUE RECORD", f"Title: {e.title}"]
    s += [f"Main author: {d.title}, {f['born_author']}-"] if d else []
    others = [f"{x.title} ({r})" for x, r in ((ed, "editor"), (tr, "translator"), (il, "illustrator")) if x]
    s += [f"Other contributors: {'; '.join(others)}"] if others else []
    s += [f"Publisher: {imp.title}, {f['year']}"] if imp else [f"Date: {f['year']}"]
    s += [f"Printer: {pr.title}"] if pr else []
    s.append(f"Description: {f['pages']} p. ; 22 cm")
    s += [f"Language note: translated from the {f['from']}"] if f.get("from") else []
    s += [f"Awards note: {prize.title}"] if prize else []
    s.append(f"Form: {f['kind']}")
    return "\n".join(s)


def _blurb(
    rng: random.Random, e: Ent, d: Ent | None, ed: Ent | None, tr: Ent | None, il: Ent | None, rest: list[Ent | None]
) -> str:
    imp, pr, prize = rest
    f = e.facts
    mood = rng.choice(["luminous", "unsparing", "tender", "ferocious", "quietly devastating"])
    s = [f"FROM THE JACKET. {cap(article(mood))} {f['kind']}" + (f" by {d.title}." if d else ".")]
    if d:
        s.append(f"In {e.title}, {sur(d)} returns to the questions that have haunted all of {pron(d)[1]} fiction.")
    if prize:
        s.append(f"Winner of the {prize.title}.")
    if tr:
        s.append(f"Rendered from the {f['from']} by {tr.title}, whose version sings.")
    if il:
        s.append(f"With drawings by {il.title}.")
    if ed:
        s.append(f"Edited for this edition by {ed.title}.")
    if imp:
        s.append(f"{'An' if imp.title[0] in 'AEIOU' else 'A'} {imp.title} hardback, {f['year']}.")
    if pr:
        s.append(f"Printed and bound by {pr.title}.")
    return " ".join(s)


def _thanks(
    rng: random.Random, e: Ent, d: Ent | None, ed: Ent | None, tr: Ent | None, il: Ent | None, rest: list[Ent | None]
) -> str:
    imp, pr, prize = rest
    s = ["Acknowledgments\n"]
    if ed:
        s.append(f"My thanks first to my editor, {ed.title}, who read every draft; {sur(ed)} saved this book twice.")
    if imp:
        s.append(f"I am grateful to everyone at {imp.title}, which took a chance on it and published it.")
    if tr:
        s.append(f"{tr.title} carried it out of the {e.facts['from']}; I could not have asked for a better translator.")
    if il:
        s.append(f"The pictures are by {il.title}, and I owe {sur(il)} a dinner.")
    if pr:
        s.append(f"The people at {pr.title} printed it with more care than it deserved.")
    if prize:
        s.append(f"Winning the {prize.title} gave me a year to write the next one.")
    s.append(f"Any errors that remain are mine alone.\n\n{DASH} " + (d.title if d else "the author"))
    return "\n".join(s)


def _lot(
    rng: random.Random, e: Ent, d: Ent | None, ed: Ent | None, tr: Ent | None, il: Ent | None, rest: list[Ent | None]
) -> str:
    imp, pr, prize = rest
    f = e.facts
    s = [f"Lot {rng.randint(100, 480)}."]
    s.append((f"{d.title.upper()}. " if d else "") + f"{e.title}." + (f" {imp.title}, {f['year']}." if imp else ""))
    s.append("First edition, first impression" + (f", the printing by {pr.title}." if pr else "."))
    if il:
        s.append(f"The illustrations throughout are by {il.title}, who signed the wrappers in pencil.")
    if tr:
        s.append(f"The translation by {tr.title} was never reprinted.")
    if ed:
        s.append(f"Laid in: a letter from {ed.title}, the book's editor, to the author.")
    if prize:
        s.append(f"This is the copy the book won the {prize.title} with.")
    low = rng.randint(2, 8)
    s.append(f"Estimate \u00a3{low * 100}{DASH}{(low + rng.randint(2, 9)) * 100}.")
    return " ".join(s)


def _listing(
    rng: random.Random, e: Ent, d: Ent | None, ed: Ent | None, tr: Ent | None, il: Ent | None, rest: list[Ent | None]
) -> str:
    imp, pr, prize = rest
    f = e.facts
    season = rng.choice(["Spring", "Autumn"])
    s = [(f"{imp.title} {DASH} " if imp else "") + f"{season} list {f['year']}\n"]
    s.append(f"{e.title.upper()}" + (f"\nby {d.title}" if d else ""))
    s.append(f"{f['kind'].capitalize()}, {f['pages']} pages, first printing {f['copies']:,} copies")
    if tr:
        s.append(f"Translation from the {f['from']}: {tr.title}")
    if il:
        s.append(f"Illustrations: {il.title}")
    if ed:
        s.append(f"Acquired and edited by {ed.title}")
    if pr:
        s.append(f"Printing: {pr.title}")
    if prize:
        s.append(f"Already a winner: the {prize.title}")
    return "\n".join(s)


def _guide(
    rng: random.Random, e: Ent, d: Ent | None, ed: Ent | None, tr: Ent | None, il: Ent | None, rest: list[Ent | None]
) -> str:
    imp, _pr, prize = rest
    f = e.facts
    s = [f"Reading group guide. About the book: {e.title} is a {f['kind']}" + (f" by {d.title}." if d else ".")]
    if imp:
        s.append(f"It was published by {imp.title} in {f['year']}.")
    if tr:
        s.append(f"The English text, which {tr.title} translated, keeps the {f['from']} word order in places.")
    if il:
        s.append(f"The illustrations, which {il.title} drew, open each chapter.")
    if prize:
        s.append(f"The book won the {prize.title}.")
    if ed:
        s.append(f"The editing of the manuscript by {ed.title} cut a third of it.")
    s.append("\n\nFor discussion:\n1. Whose story is this, really?\n2. What does the ending withhold?")
    if d:
        s.append(f"\n3. How does {sur(d)} use the weather?")
    return " ".join(s)


_BOOK_GENRES = [_blurb, _thanks, _lot, _listing, _guide]


def book(w: World, e: Ent, rng: random.Random) -> str:
    d, ed, tr, il = (w.out(r, e) for r in ("written_by", "edited_by", "translated_by", "illustrated_by"))
    rest = [w.out(r, e) for r in ("published_by", "printed_by", "won")]
    e.facts["born_author"] = d.facts["born"] if d else ""
    form = rng.randrange(6)
    body = _catalogue_record(e, d, ed, tr, il, rest) if form == 5 else _BOOK_GENRES[form](rng, e, d, ed, tr, il, rest)
    return f"# {e.title}\n\n{body}"


def _works(w: World, e: Ent) -> list[tuple[str, list[Ent]]]:
    return [
        (what, some(w, rel, e, 3))
        for rel, what in (
            ("written_by", "wrote"),
            ("edited_by", "edited"),
            ("translated_by", "translated"),
            ("illustrated_by", "illustrated"),
        )
    ]


def person(w: World, e: Ent, rng: random.Random) -> str:
    born, school, agent = w.out("born_in", e), w.out("studied_at", e), w.out("represented_by", e)
    founded = w.incoming("founded_by", e)
    f, t, sn = e.facts, e.title.split(" (")[0], sur(e)
    he, his = pron(e)
    works = _works(w, e)
    form = rng.randrange(4)
    s: list[str] = []
    if form == 0:  # festival programme entry
        day = rng.choice(["Friday", "Saturday", "Sunday"])
        s.append(f"{day} {rng.randint(10, 20)}:30, {rng.choice(['Marquee', 'Tent B', 'Town Hall'])} {DASH} {t}")
        # a guest is of an age to travel; the work of someone born before 1941 gets a retrospective
        billed = (
            f"this year's guest {f['role']}"
            if f["born"] >= 1941
            else f"the {f['role']} whose work this year's retrospective celebrates"
        )
        if born:
            s.append(f"Born in {born.title} in {f['born']}, {sn} is {billed}.")
        else:
            s.append(f"{sn} is {billed}.")
        if school:
            s.append(f"{cap(he)} is a graduate of {school.title}.")
        for what, items in works:
            if items:
                s.append(f"{cap(he)} {what} {titles(items)}.")
        if agent:
            s.append(f"Tickets through the festival; press enquiries to {agent.title}, which represents {sn}.")
        if founded:
            who = f"{sn} will also talk about" if f["born"] >= 1941 else f"The session also covers {his}"
            s.append(f"{who} setting up {titles(founded)}.")
        return f"# {t}\n\n" + "\n".join(s[:1]) + "\n\n" + " ".join(s[1:])
    if form == 1:  # wiki talk page
        s.append(f"Talk:{t}")
        if born:
            s.append(
                f"== Birthplace ==\nThe infobox now gives {born.title} as where {sn} was born; the parish register"
            )
            s[-1] += f" agrees. {DASH} {rng.choice(USERS)} {stamp(rng, 2012 + rng.randint(0, 10))}"
        if school:
            s.append(f"== Education ==\nDid {he} really attend {school.title}? :Yes, {his} thesis is in its library.")
        if agent:
            s.append(f"== Agent ==\n{agent.title} represents {him(e)}; I added the source.")
        for what, items in works:
            if items:
                s.append(f"== Bibliography ==\nShould we list everything {sn} {what}? {titles(items)} at least.")
        if founded:
            s.append(f"== Publishing ==\n{sn} founded {titles(founded)}; that deserves its own section.")
        return f"# {t}\n\n" + "\n\n".join(s)
    if form == 2:  # email thread with quoted replies
        s.append(f"Subject: Re: bio for {t}\n\nThanks {DASH} answers inline.")
        if born:
            s.append(f"> where was {he} born?\nIn {born.title}.")
        if school:
            s.append(f"> any formal training?\n{sn} studied at {school.title}.")
        if agent:
            s.append(f"> who handles rights?\n{cap(his)} agency is {agent.title}.")
        for what, items in works:
            if items:
                s.append(f"> which books to mention?\n{cap(he)} {what} {titles(items)}.")
        if founded:
            s.append(f"> anything else?\n{cap(he)} was the founder of {titles(founded)}.")
        return f"# {t}\n\n" + "\n\n".join(s)
    s.append(f"About the {f['role']}. {t}" + (f" was born in {born.title} in {f['born']}." if born else "."))
    if school:
        s.append(f"After studying at {school.title}, {he} moved to the city.")
    for what, items in works:
        if items:
            s.append(f"{sn} {what} {titles(items)}.")
    if agent:
        s.append(f"{cap(he)} is represented by {agent.title}.")
    if founded:
        s.append(f"{cap(he)} later founded {his} own firm, {titles(founded)}.")
    return f"# {t}\n\n" + " ".join(s)


def him(e: Ent) -> str:
    return "her" if e.facts.get("female") else "him"
