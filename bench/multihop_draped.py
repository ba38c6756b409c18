"""The draped multi-hop corpus (#28): a fifth blind check of the `kg` ranker, never tuned on.

Written by a helper that read no code under gateway/knowledge_graph/ or the retrieval rankers and
no part of docs/ARCHITECTURE.md's knowledge-graph section, and that never ran `kg` (or `kg+2hop`)
on it; it is calibrated with hybrid search, two-hop expansion and PPR only. Nobody tuning a ranker
is to read this file, bench/multihop_draped_text.py, _questions.py or _traps.py, or its test.

A fictional world of publishing and literature generated from a fixed seed (a domain no other
corpus uses): novels and story collections, the authors who wrote them, the editors, translators
and illustrators who worked on them, the imprints that published them and the houses the imprints
belong to, the printers that printed them and the prizes they won; the publishers who founded the
houses, the literary agencies that represent authors, the foundations that award the prizes, the
writing programmes people studied at, where people were born, where houses, agencies, printers,
foundations and programmes are, and the regions the towns lie in (15 relation types). Pages are
written as library catalogue records, book-jacket blurbs, first-person acknowledgments pages,
auction-lot descriptions, publisher's catalogue listings, reading-group guides, festival programme
entries, wiki talk-page discussions, email threads with quoted replies, prize citations and
jacket-flap author notes, each relation worded several ways (bench/multihop_draped_text.py); a link
is stated on the subject's page, the other end's page or both.

Questions (bench/multihop_draped_questions.py): 36 one-hop controls, 90 two-hop and 48 three-hop,
a fifth of them typed all in lower case, as questions, instructions, possessive chains and bare
noun phrases with the relation words varied; a multi-hop answer page shares no content word with
its question (a crude stem) and does not name the chain's start, and no page off the chain names
both its ends. Traps (bench/multihop_draped_traps.py): namesakes (same full name, another trade),
shared surnames, imprints, houses and prizes named after towns they are not in, two organisations
on one stem, books reissued or sold abroad under another title, hub pages (prize longlists,
bestseller lists, festival line-ups, backlist indexes, a directory of printers) naming many
entities in passing, bookshop events naming a book and a town, and notes sharing the questions'
relation words. Dates agree: houses founded by grown publishers, imprints after their houses,
books published after their imprint opened and awarded prizes that already exist, by people of
age; no festival guest is over 85. Each walked link is stated in words a reader takes for its
relation (a founder as founding, a school as studying there), and the contract says so.

Shape: 379 pages (120 books, 74 people, 34 towns, 12 imprints, 9 regions, 9 prizes, 8 houses, 7
agencies, 6 writing programmes, 6 printers, 5 foundations; traps: 10 namesakes, 12 reissues and
editions abroad, 33 hub pages, 20 bookshop events, 14 notes); 736 links, 481 meant for the
subject's page only, 142 for both and 113 for the other end's only (where a page lists a few
books, clients or natives, the rest go unstated); of the 237 links the questions walk, 143 are
named on the subject's page only, 55 on both and 39 on the other end's only. Twelve books bear a
town's name; two houses, three imprints, a programme and two prizes are named after a town they
are not in (nor their owner's or sponsor's town); three stems are each borne by two organisations,
and one town's name by an imprint and a prize; seven surnames are shared by two people; the
English words and real publishers' names this seed drew (Painter, Warner, Pampa) are drawn again.
Three-hop chains start on books (35), imprints (5), people (4), prizes (2) and houses (2); 34
questions are typed all in lower case.

Calibrated without `kg` (`flock /work/wt/kg.lock env PYTHONPATH=$PWD .venv/bin/python -m
bench.bench_multihop --corpus draped --per-hops 0 --speed-repeat 1 --no-single --methods hybrid
two-hop ppr`), top-10 hit rate / MRR@10 on the 138 multi-hop questions (hybrid / two-hop expansion /
PPR): 0.0 % / 29.7 % / 4.3 % (MRR 0.000 / 0.058 / 0.008); two-hop expansion 43.3 % on two-hop and
4.2 % on three-hop questions; one-hop controls 69.4 % / 72.2 % / 88.9 % (after the blind review's
fixes; before them 0.0 % / 26.8 % / 6.5 %).
"""

from __future__ import annotations

import random

from bench.corpus_world import FUNCTION_WORDS, Ent, Names, Recipe, World, stemmed_words
from bench.corpus_world import side as world_side
from bench.multihop_draped_places import render
from bench.multihop_draped_questions import make_questions
from bench.multihop_draped_text import ROLES
from bench.multihop_draped_traps import add_traps

_ON = ["b", "c", "p", "w", "l", "r", "t", "d", "g", "n", "s", "ch", "ph", "st", "fl", "qu", "h", "m", "cl", "th"]
_NU = ["a", "e", "i", "o", "u", "ea", "ie", "oa", "ai", "eu"]
_CO = ["ll", "nt", "rd", "sh", "rn", "lt", "mp", "nch", "rc", "ft", "ck", "rp", "th", "ss"]
_PLACE = ["ford", "wick", "ham", "mouth", "cester", "bury", "ley", "thorpe", "combe", "stow", "haven", "by"]
_SURN = ["well", "ing", "ett", "ridge", "more", "man", "ley", "worth", "ton", "wood"]
_GIVEN = (
    "Harriet Ambrose Cecily Lionel Philippa Rupert Ottilie Barnaby Imogen Crispin Beatrix Lucian Marguerite "
    "Osric Winifred Evander Clemency Tobias Rosamund Gideon Perpetua Hilary Jocasta Laurence Verity Felix "
    "Honoria Aldous"
).split()
FEMALE = set(
    "Harriet Cecily Philippa Ottilie Imogen Beatrix Marguerite Winifred Clemency Rosamund Perpetua Jocasta Verity "
    "Honoria".split()
)
_BOOK_FORMS = ["{w}", "The {w} Letters", "A Summer at {w}", "{w} and Other Stories", "The House on {w} Lane"]
_BOOK_FORMS += ["Salt for {w}", "The {w} Inheritance", "Notes from {w}"]


_NOT_NAMES = r"(.)\1\1|^(painter|warner|pampa|carcel|planter|printer|banter|winter|center|canter|chanter)$"


def _names(rng: random.Random) -> Names:
    """Fictional words, each used once unless a trap reuses one on purpose; none with a letter thrice over,
    and none an English word or a real publisher's name (a "Painter" agency would read as an illustrator's)."""
    return Names(rng, (_ON, _NU, _CO, ["a", "on", "er", "is", "en", "el"]), shortest=0, reject=_NOT_NAMES)


# what an instruction's lead ("find the ...", "tell me ...") adds to the words a question and its answer may share
_FUNCTION = FUNCTION_WORDS | {"need", "tell", "find", "show", "please", "looking", "know", "want", "anyone", "give"}


def words(text: str) -> set[str]:
    """Crude stems of the content words (bench/corpus_world.py's `stemmed_words`): a multi-hop
    question and its answer share none."""
    return stemmed_words(text, _FUNCTION)


def side(rng: random.Random, fwd: int = 66, both: int = 17, back: int = 17) -> str:
    """Which page states a link, with this corpus's default weights (bench/corpus_world.py's side)."""
    return world_side(rng, fwd, both, back)


def _person(w: World, nm: Names, i: int, role: str, surname: str | None, rng: random.Random) -> Ent:
    given = _GIVEN[(i * 11) % len(_GIVEN)]
    p = w.add(Ent(f"person_{i:02d}.md", f"{given} {surname or nm.word(_SURN)}", "person"))
    p.facts = {"female": given in FEMALE, "born": 1925 + (i * 7) % 45 + rng.randint(0, 6), "role": role}
    return p


def _people(rng: random.Random, nm: Names, w: World, towns: list[Ent], schools: list[Ent]) -> list[Ent]:
    roles = ["author"] * 32 + ["editor"] * 14 + ["translator"] * 12 + ["illustrator"] * 10 + ["publisher"] * 6
    rng.shuffle(roles)
    shared = [nm.word(_SURN) for _ in range(7)]  # seven surnames borne by two people each
    people: list[Ent] = []
    for i, role in enumerate(roles):
        sn = shared[i // 10] if i % 10 in (2, 7) and i // 10 < 7 else None
        p = _person(w, nm, i, role, sn, rng)
        w.tie("born_in", p, rng.choice(towns), side(rng))
        open_then = [s for s in schools if s.facts["year"] <= p.facts["born"] + 20]  # open when they were 20
        if open_then and rng.random() < (0.8 if role in ("author", "translator") else 0.5):
            w.tie("studied_at", p, rng.choice(open_then), side(rng))
        people.append(p)
    return people


def _org(w: World, file: str, title: str, kind: str, town: Ent, rng: random.Random, **facts: object) -> Ent:
    e = w.add(Ent(file, title, kind, facts=dict(facts)))
    w.tie("based_in", e, town, side(rng))
    return e


def _stem_not_in(nm: Names, towns: list[Ent], i: int, town_names: tuple[int, ...], avoid: str = "") -> str:
    """A fresh word, or for the `i`s in `town_names` a town's name: not `avoid`'s (the town where the
    owner or sponsor is), so an imprint or prize named after a town is not in it even at one remove."""
    if i not in town_names:
        return nm.word()
    k = (i * 5 + 3) % len(towns)
    while towns[k].file == avoid:
        k = (k + 1) % len(towns)
    return towns[k].title


def _populate(rng: random.Random, nm: Names) -> World:
    w = World()
    lands = ["moorland", "coastal", "fen", "downland", "valley", "lake", "forest", "border", "estuary"]
    regions = [
        w.add(Ent(f"region_{i}.md", nm.word(), "region", facts={"land": c, "pop": rng.randint(60, 900) * 1000}))
        for i, c in enumerate(lands)
    ]
    towns: list[Ent] = []
    for i in range(34):
        t = w.add(Ent(f"town_{i:02d}.md", nm.word(_PLACE), "town", facts={"pop": rng.randint(8, 700) * 100}))
        w.tie("in_region", t, regions[i % len(regions)], side(rng, 55, 15, 30))
        towns.append(t)

    def away(stem: str) -> Ent:
        return rng.choice([t for t in towns if t.title != stem])

    schools = []
    for i in range(6):
        stem = _stem_not_in(nm, towns, i, (3,))
        kind = ["Writing Programme", "School of Letters", "Writers' Workshop"][i % 3]
        schools.append(_org(w, f"programme_{i}.md", f"{stem} {kind}", "programme", away(stem), rng, year=1930 + i * 6))
    people = _people(rng, nm, w, towns, schools)
    by_role = {r: [p for p in people if p.facts["role"] == r] for r in ROLES}
    agencies = []
    for i in range(7):
        stem = nm.word() if i != 4 else schools[1].title.split()[0]  # an agency on a programme's stem
        title = f"{stem} {['Literary Agency', 'Associates', 'Literary Management'][i % 3]}"
        agencies.append(_org(w, f"agency_{i}.md", title, "agency", away(stem), rng, year=1945 + i * 5))
    for a in by_role["author"]:
        if rng.random() < 0.75:
            w.tie("represented_by", a, rng.choice(agencies), side(rng))
    houses: list[Ent] = []
    for i in range(8):
        stem = _stem_not_in(nm, towns, i, (1, 5))
        founder = by_role["publisher"][i % len(by_role["publisher"])]
        year = rng.randint(
            founder.facts["born"] + 25, min(founder.facts["born"] + 38, 2003)
        )  # founded by a grown publisher
        title = f"{stem} {['& Company', 'House', 'Books', 'Publishers'][i % 4]}"
        h = _org(w, f"house_{i}.md", title, "house", away(stem), rng, year=year)
        w.tie("founded_by", h, founder, side(rng))
        houses.append(h)
    imprints = []
    for i in range(12):
        house = houses[i % len(houses)]
        stem = _stem_not_in(nm, towns, i, (2, 7, 10), w.link["based_in"][house.file])
        if i == 9:  # the same stem as an agency (two organisations on one stem)
            stem = agencies[0].title.split()[0]
        title = f"{stem} {['Press', 'Editions', 'Imprint', 'Library'][i % 4]}"
        e = w.add(
            Ent(
                f"imprint_{i:02d}.md",
                title,
                "imprint",
                facts={"year": min(2016, house.facts["year"] + rng.randint(1, 15))},
            )
        )
        w.tie("imprint_of", e, house, side(rng))
        imprints.append(e)
    printers = []
    for i in range(6):
        stem = nm.word()
        title = f"{stem} {['Printers', 'Press Works', 'Print & Bindery'][i % 3]}"
        printers.append(_org(w, f"printer_{i}.md", title, "printer", away(stem), rng, year=1900 + i * 9))
    foundations = []
    for i in range(5):
        stem = nm.word()
        title = f"{stem} {['Foundation', 'Trust', 'Literary Society'][i % 3]}"
        foundations.append(_org(w, f"foundation_{i}.md", title, "foundation", away(stem), rng, year=1920 + i * 7))
    prizes = []
    for i in range(9):
        fd = foundations[(i + 1) % len(foundations)] if i != 4 else foundations[3]
        stem = _stem_not_in(nm, towns, i, (2, 6), w.link["based_in"][fd.file])
        title = f"{stem} {['Prize', 'Award', 'Medal'][i % 3]}"
        if i == 4:  # a prize on a foundation's stem that it is not awarded by
            title = f"{foundations[2].title.split()[0]} Medal"
        year = max(fd.facts["year"], 1950) + i * 3
        p = w.add(Ent(f"prize_{i}.md", title, "prize", facts={"year": year}))
        w.tie("prize_by", p, fd, side(rng))
        prizes.append(p)
    for i in range(120):
        stem = towns[(i * 3) % 34].title if i % 10 == 6 else nm.word()  # some books bear a town's name
        title = _BOOK_FORMS[i % len(_BOOK_FORMS)].format(w=stem)
        title = f"The {stem} Letters" if title in (t.title for t in towns) else title
        first = min(m.facts["year"] for m in imprints)  # no book before the first imprint opened
        author = rng.choice(
            [a for a in by_role["author"] if max(1955, first, a.facts["born"] + 22) <= min(2019, a.facts["born"] + 72)]
        )
        year = rng.randint(max(1955, first, author.facts["born"] + 22), min(2019, author.facts["born"] + 72))
        kind = "collection" if "Stories" in title or rng.random() < 0.15 else "novel"
        b = w.add(Ent(f"book_{i:03d}.md", title, "book", facts={"year": year, "kind": kind}))
        b.facts.update(pages=rng.randint(140, 620), copies=rng.randint(1, 40) * 500)
        of_age = [p for p in people if p.facts["born"] + 21 <= year]
        w.tie("written_by", b, author, side(rng))
        w.tie("published_by", b, rng.choice([m for m in imprints if m.facts["year"] <= year] or imprints), side(rng))
        if rng.random() < 0.7:
            w.tie(
                "edited_by",
                b,
                rng.choice([p for p in by_role["editor"] if p in of_age] or by_role["editor"]),
                side(rng),
            )
        if rng.random() < 0.3:
            w.tie(
                "translated_by",
                b,
                rng.choice([p for p in by_role["translator"] if p in of_age] or by_role["translator"]),
                side(rng),
            )
            b.facts["from"] = rng.choice(["Danish", "Portuguese", "Czech", "Catalan", "Finnish", "Greek"])
        if rng.random() < 0.35:
            pool = [p for p in by_role["illustrator"] if p in of_age] or by_role["illustrator"]
            w.tie("illustrated_by", b, rng.choice(pool), side(rng))
        if rng.random() < 0.5:
            w.tie("printed_by", b, rng.choice([p for p in printers if p.facts["year"] <= year]), side(rng))
        running = [p for p in prizes if p.facts["year"] <= year]  # a prize is won once it exists
        if running and rng.random() < 0.35:
            w.tie("won", b, rng.choice(running), side(rng))
    return w


_RECIPE = Recipe(
    names=_names,
    populate=_populate,
    render=render,
    traps=add_traps,
    questions=lambda w, docs, rng: make_questions(w, docs, rng, words),
    seed=53,
)

# The corpus: ~360 pages; 36 one-hop, 90 two-hop and 48 three-hop questions; the same for a seed.
build_draped = _RECIPE.build
draped_world = _RECIPE.world
draped_chains = _RECIPE.chains
