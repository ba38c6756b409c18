"""The traps of the draped multi-hop corpus (bench/multihop_draped.py): pages off every chain.

* namesakes: people sharing an author's, editor's, translator's or illustrator's full name (their
  page titled with their own trade), from somewhere else, with a book of their own to mention;
* reissues and editions abroad: a book brought out again, or in another English-speaking market, under
  another title (its text and credits unchanged: no second translator);
* hub pages naming many entities in passing: prize longlists (books and their authors), bestseller
  lists, festival line-ups (authors and their venues), backlist indexes of an imprint, a trade
  directory of printers and their towns;
* bookshop events naming a book and a town it has nothing else to do with;
* notes on the book trade that use the questions' relation words and name no entity.
Every fact a trap states about a core entity is true of it; the traps only add company.
"""

from __future__ import annotations

import random

from bench.corpus_world import Ent, NameMaker, World
from bench.multihop_corpus import Doc
from bench.multihop_draped_text import DASH, sur

_TRADE = ["bookbinder", "typesetter", "bookseller", "librarian", "proofreader", "archivist", "calligrapher"]
_TRADE += ["papermaker", "lexicographer", "critic"]
_NOTES = [
    (
        "On acknowledgments",
        "Authors thank their editor first and their agent second; the translator, if any, "
        "is thanked in the middle and the printer almost never.",
    ),
    (
        "On imprints",
        "An imprint is a name on a spine, not a company: it belongs to a house, which owns "
        "several, and the house that owns an imprint is rarely based where the imprint's name suggests.",
    ),
    (
        "On agents",
        "A literary agency represents authors, sells their rights abroad and takes fifteen per "
        "cent; the agent who acts for a writer seldom works in the town the writer comes from.",
    ),
    (
        "On prizes",
        "A prize is awarded by a foundation or a trust that appoints the jury; the body behind a "
        "prize is usually based far from any town the prize is named after.",
    ),
    (
        "On translators",
        "Translators are credited on the title page; who translated a book matters as much "
        "as who wrote it, and many translators studied at writing programmes themselves.",
    ),
    (
        "On illustrators",
        "The illustrator of a novel is usually chosen by the editor, not the author; the "
        "artist who drew the pictures is paid a flat fee.",
    ),
    (
        "On printers",
        "Printing works print for many houses; the firm that printed a book is named on the "
        "copyright page, with the town where the works are located.",
    ),
    (
        "On writing programmes",
        "Graduates of a writing programme often find their first agent among the "
        "programme's visitors; where a novelist studied says more than where they were born.",
    ),
    (
        "On founders",
        "Publishing houses are set up by publishers, often with family money; the founder of a "
        "house rarely edits its books and seldom lives in the county where its offices are.",
    ),
    (
        "On birthplaces",
        "Jacket copy gives the town an author was born in, the hometown, and little else; "
        "the birthplace of a writer is a poor guide to where the books are set.",
    ),
    (
        "On reissues",
        "A reissue may change a book's title, its imprint and its cover; check the year and "
        "the original title before quoting who edited or who published it.",
    ),
    (
        "On counties",
        "Each county keeps its own arts council; a region with long winters and cheap rents "
        "attracts writers from everywhere.",
    ),
    (
        "On catalogue records",
        "A library record lists the main author, other contributors and the "
        "publisher; the printer is noted only in older records.",
    ),
    (
        "On editors",
        "An editor acquires a book, edits the manuscript and sees it through the press; the "
        "editor of a book is named in its acknowledgments more often than on its jacket.",
    ),
]


def _ents(w: World, kind: str) -> list[Ent]:
    return [e for e in w.ents.values() if e.kind == kind]


def _namesakes(w: World, rng: random.Random) -> list[Doc]:
    people = [e for e in _ents(w, "person") if e.facts["role"] != "publisher"]
    towns, books = _ents(w, "town"), _ents(w, "book")
    docs = []
    for i, p in enumerate(rng.sample(people, 10)):
        p.facts["namesake"] = True
        trade = _TRADE[i % len(_TRADE)]
        home = rng.choice([t for t in towns if w.link["born_in"].get(p.file) != t.file])
        year = p.facts["born"] + rng.randint(-25, 25)
        b = rng.choice([x for x in books if x.facts["year"] >= year + 22] or books)  # handled it as an adult
        text = (
            f"# {p.title} ({trade})\n\n{p.title} (b. {year}) is a {trade} from {home.title}. Not to be confused "
            f"with the {p.facts['role']} of the same name. {sur(p)} once handled a copy of {b.title} and keeps bees."
        )
        docs.append(Doc(f"namesake_{i:02d}.md", text))
    return docs


def _reissues(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    books = _ents(w, "book")
    docs = []
    for i, b in enumerate(rng.sample(books, 12)):
        year = b.facts["year"] + rng.randint(3, max(3, min(25, 2025 - b.facts["year"])))  # none in the future
        title = f"{['The Year of', 'Beyond', 'Return to'][i % 3]} {nm.word()}"
        if i % 2:
            what = f"the title under which {b.title} ({b.facts['year']}) was reissued in paperback in {year}"
        else:
            market = ["American", "Australian"][i % 4 // 2]
            what = f"the {year} edition abroad of {b.title}, retitled for the {market} market"
        docs.append(Doc(f"reissue_{i:02d}.md", f"# {title}\n\n{title} is {what}. The text is unchanged."))
    return docs


def _hubs(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    books, imprints = _ents(w, "book"), _ents(w, "imprint")
    docs = []
    for i in range(8):  # prize longlists: books and their authors, after the books came out
        picks = rng.sample(books, 8)
        year = 2000 + i * 3
        picks = [b for b in picks if b.facts["year"] <= year] or picks[:1]
        year = max(year, max(b.facts["year"] for b in picks))
        lines = [f"- {b.title}, by {w.target('written_by', b).title}" for b in picks]  # type: ignore[union-attr]
        docs.append(Doc(f"longlist_{i}.md", f"# Longlist {year}\n\nThe judges' longlist:\n" + "\n".join(lines)))
    for i in range(8):  # bestseller lists: books and copies sold
        shop = f"{nm.word()} {['Booksellers', 'Bookshop', 'Books'][i % 3]}"
        lines = [f"{k + 1}. {b.title} ({rng.randint(2, 90) * 10} copies)" for k, b in enumerate(rng.sample(books, 10))]
        docs.append(Doc(f"bestsellers_{i}.md", f"# {shop}: bestsellers this month\n\n" + "\n".join(lines)))
    authors = [p for p in _ents(w, "person") if p.facts["role"] == "author"]
    for i in range(8):  # festival line-ups: authors and venues
        tent = ["Marquee", "Tent B", "Town Hall", "Chapel"]
        lines = [f"- {10 + k}:00 {tent[k % 4]}: {a.title}" for k, a in enumerate(rng.sample(authors, 7))]
        docs.append(Doc(f"lineup_{i}.md", f"# {nm.word()} Book Festival line-up\n\n" + "\n".join(lines)))
    for i, m in enumerate(rng.sample(imprints, 8)):  # backlist indexes
        own = [b for b in books if w.link["published_by"][b.file] == m.file][:8]
        text = f"# Backlist index {i + 1}\n\nIn print under {m.title}:\n" + "\n".join(f"- {b.title}" for b in own)
        docs.append(Doc(f"backlist_{i}.md", text))
    rows = [f"- {p.title}: {w.target('based_in', p).title}" for p in _ents(w, "printer")]  # type: ignore[union-attr]
    docs.append(Doc("directory_printers.md", "# Trade directory of printers\n\n" + "\n".join(rows)))
    return docs


def _events(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    """Bookshop events: a book and a town it has no other tie to (not its people's or organisations')."""
    towns, books = _ents(w, "town"), _ents(w, "book")
    docs = []
    for i, b in enumerate(rng.sample(books, 20)):
        near = set()
        for r in ("written_by", "edited_by", "translated_by", "illustrated_by", "published_by", "printed_by", "won"):
            mid = w.link.get(r, {}).get(b.file)
            for r2 in ("born_in", "based_in", "imprint_of", "prize_by", "studied_at", "represented_by"):
                if mid and mid in w.link.get(r2, {}):
                    near.add(w.link[r2][mid])
                    deeper = w.link.get("based_in", {}).get(w.link[r2][mid])
                    near.add(deeper or "")
        town = rng.choice([t for t in towns if t.file not in near])
        text = (
            f"# Bookshop event {i + 1}\n\n{nm.word()} Books, {town.title}: a reading from {b.title} on "
            f"{rng.randint(1, 28)} March {DASH} doors at 19:00, wine, no tickets."
        )
        docs.append(Doc(f"event_{i:02d}.md", text))
    return docs


def add_traps(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    notes = [Doc(f"note_{i:02d}.md", f"# {head}\n\n{body}") for i, (head, body) in enumerate(_NOTES)]
    return _namesakes(w, rng) + _reissues(w, nm, rng) + _hubs(w, nm, rng) + _events(w, nm, rng) + notes
