"""The cloaked multi-hop corpus (#28): a fourth blind check of the `kg` ranker, never tuned on.

Written by a helper that read no code under gateway/knowledge_graph/ or the retrieval rankers and
no part of docs/ARCHITECTURE.md's knowledge-graph section, and that never ran `kg` (or `kg+2hop`)
on it; it is calibrated with hybrid search, two-hop expansion and PPR only. Nobody tuning a ranker
is to read this file, bench/multihop_cloaked_text.py, _questions.py or _traps.py, or its test.

A fictional world of film and broadcasting generated from a fixed seed (a domain no other corpus
uses): films, the directors, cinematographers and editors who made them, the studios that produced
them, the festivals where they premiered and the broadcasters that aired them; the producers who
founded the studios, the film schools people studied at, whom a director assisted first, where
people were born, where studios, schools, festivals and broadcasters are, and the provinces the
towns lie in (15 relation types). Pages are written as news-wire items with datelines, interview
transcripts, credit blocks, reviews, press releases, CV entries, FAQ pages, forum posts and
programme notes, with each relation worded several ways (bench/multihop_cloaked_text.py); a link
is stated on the subject's page, the other end's page or both.

Questions (bench/multihop_cloaked_questions.py): 36 one-hop controls, 90 two-hop and 48 three-hop,
a quarter of them typed all in lower case, as questions, instructions ("find the ...", "tell me
..."), possessive chains and bare noun phrases; a multi-hop answer page shares no content word with
its question (compared by a crude stem, so "studio" meets "Studios") and does not name the chain's
start, and no page off the chain names both its ends. Traps (bench/multihop_cloaked_traps.py):
namesakes (same full name, another trade), shared surnames, studios and broadcasters named after
towns they are not in, two organisations on one stem, remakes and sequels reusing a film's title (a
question names a remade film with its year), hub pages (retrospective line-ups, cinema programmes,
broadcast schedules, crew rosters, a school directory) naming many entities in passing,
location-shoot notices, and notes sharing the questions' relation words. Dates agree: studios are
founded by grown producers, films made at studios and premiered at festivals that already exist, by
crews of age.

Shape: 358 pages (120 films, 70 people, 34 towns, 12 studios, 9 provinces, 8 festivals, 6 film
schools, 6 broadcasters; traps: 10 namesakes, 12 remakes and sequels, 31 hub pages, 24 filming
notices, 16 notes); 721 links, 514 meant for the subject's page only, 108 for both and 99 for the
other end's only (where a page lists a few credits, alumni or natives, the rest go unstated); of
the 245 links the questions walk, 156 are named on the subject's page only, 48 on both and 41 on
the other end's only. Twelve films bear a town's name; six studios, schools and broadcasters are
named after a town they are not in, three stems are each borne by two organisations; seven surnames
are shared by two people. Three-hop chains start on films (38), people (6) and studios (4).

Calibrated without `kg` (`flock /work/wt/bench.lock .venv/bin/python -m bench.bench_multihop
--corpus cloaked --per-hops 0 --speed-repeat 1 --no-single --methods hybrid two-hop ppr`), top-10
hit rate / MRR@10 on the 138 multi-hop questions (hybrid / two-hop expansion / PPR): 0.7 % / 27.5 %
/ 2.2 % (MRR 0.002 / 0.051 / 0.003); two-hop expansion 36.7 % on two-hop and 10.4 % on three-hop
questions; one-hop controls 72.2 % / 63.9 % / 77.8 %.
"""

from __future__ import annotations

import random

from bench.corpus_world import FUNCTION_WORDS, Ent, Names, Recipe, World, stemmed_words
from bench.corpus_world import side as world_side
from bench.multihop_cloaked_questions import make_questions
from bench.multihop_cloaked_text import GENRES, render
from bench.multihop_cloaked_traps import add_traps

_ON = ["v", "k", "m", "l", "r", "t", "d", "z", "n", "s", "br", "gr", "tr", "kl", "sv", "j", "f", "h", "pr", "dr"]
_NU = ["a", "e", "i", "o", "u", "ei", "au", "y", "aa", "ou"]
_CO = ["rn", "lk", "nd", "sk", "rv", "lm", "ng", "st", "rt", "lv", "nz", "rk", "mb", "ss"]
_PLACE = ["vik", "stad", "heim", "ova", "ice", "burg", "dal", "lund", "grad", "mont", "sund", "berg"]
_SURN = ["ek", "ova", "sen", "ski", "ani", "elli", "ard", "oux", "inger", "ström"]
_GIVEN = (
    "Ilse Marek Tove Anouk Dario Sunniva Lev Petra Oskar Mirela Jonas Alba Ruben Greta Nils Yara Emil Katja "
    "Bruno Livia Teodor Signe Casimir Rosalind Aurel Henrike Matthias Elodie"
).split()
FEMALE = set("Ilse Tove Anouk Sunniva Petra Mirela Alba Greta Yara Katja Livia Signe Rosalind Henrike Elodie".split())
_TITLE_FORMS = ["{w}", "The {w} Affair", "Winter in {w}", "{w} Nights", "The Last of {w}", "{w} Road", "After {w}"]


def _names(rng: random.Random) -> Names:
    """Fictional words, each used once unless a trap reuses one on purpose; none with a letter thrice over."""
    return Names(rng, (_ON, _NU, _CO, ["a", "o", "en", "is", "ar", "el"]), shortest=0, reject=r"(.)\1\1")


# what an instruction's lead ("find the ...", "tell me ...") adds to the words a question and its answer may share
_FUNCTION = FUNCTION_WORDS | {"need", "tell", "find", "show", "please", "looking", "know", "want", "anyone"}


def words(text: str) -> set[str]:
    """Crude stems of the content words (bench/corpus_world.py's `stemmed_words`): a multi-hop
    question and its answer share none."""
    return stemmed_words(text, _FUNCTION)


def side(rng: random.Random, fwd: int = 74, both: int = 14, back: int = 12) -> str:
    """Which page states a link, with this corpus's default weights (bench/corpus_world.py's side)."""
    return world_side(rng, fwd, both, back)


def _person(w: World, nm: Names, i: int, role: str, surname: str | None, rng: random.Random) -> Ent:
    given = _GIVEN[(i * 11) % len(_GIVEN)]
    p = w.add(Ent(f"person_{i:02d}.md", f"{given} {surname or nm.word(_SURN)}", "person"))
    p.facts = {"female": given in FEMALE, "born": 1930 + (i * 7) % 45 + rng.randint(0, 6), "role": role}
    return p


def _people(rng: random.Random, nm: Names, w: World, towns: list[Ent], schools: list[Ent]) -> list[Ent]:
    roles = ["director"] * 30 + ["cinematographer"] * 18 + ["editor"] * 14 + ["producer"] * 8
    rng.shuffle(roles)
    shared = [nm.word(_SURN) for _ in range(7)]  # seven surnames borne by two people each
    people: list[Ent] = []
    for i, role in enumerate(roles):
        sn = shared[i // 10] if i % 10 in (3, 8) and i // 10 < 7 else None
        p = _person(w, nm, i, role, sn, rng)
        w.tie("born_in", p, rng.choice(towns), side(rng))
        open_then = [s for s in schools if s.facts["year"] <= p.facts["born"] + 18]  # open when they were 18
        if open_then and rng.random() < 0.8:
            w.tie("studied_at", p, rng.choice(open_then), side(rng))
        elders = [q for q in people if q.facts["role"] == "director" and q.facts["born"] + 12 < p.facts["born"]]
        if role != "producer" and elders and rng.random() < 0.65:
            w.tie("assisted", p, rng.choice(elders), side(rng))
        people.append(p)
    return people


def _org(w: World, file: str, title: str, kind: str, town: Ent, rel: str, rng: random.Random, **facts: object) -> Ent:
    e = w.add(Ent(file, title, kind, facts=dict(facts)))
    w.tie(rel, e, town, side(rng))
    return e


def _populate(rng: random.Random, nm: Names) -> World:
    w = World()
    coasts = ["coastal", "upland", "lake", "forest", "river", "island", "border", "plains", "valley"]
    regions = [
        w.add(Ent(f"region_{i}.md", nm.word(), "region", facts={"land": c, "seat_pop": rng.randint(40, 900) * 1000}))
        for i, c in enumerate(coasts)
    ]
    towns: list[Ent] = []
    for i in range(34):
        t = w.add(Ent(f"town_{i:02d}.md", nm.word(_PLACE), "town", facts={"pop": rng.randint(6, 600) * 100}))
        w.tie("in_region", t, regions[i % len(regions)], side(rng, 55, 15, 30))
        towns.append(t)
    datelines = [nm.word(_PLACE) for _ in range(5)]  # news agencies' cities, no page of their own
    schools = []
    for i in range(6):
        stem = nm.word() if i != 2 else towns[11].title  # one school is named after a town it is not in
        kind = ["Film School", "Film Academy", "Cinema Institute"][i % 3]
        where = rng.choice([t for t in towns if t.title != stem])
        schools.append(
            _org(w, f"school_{i}.md", f"{stem} {kind}", "school", where, "school_in", rng, year=1930 + i * 6)
        )
    people = _people(rng, nm, w, towns, schools)
    for p in people:
        p.facts["datelines"] = datelines
    producers = [p for p in people if p.facts["role"] == "producer"]
    studios: list[Ent] = []
    for i in range(12):
        if i in (2, 6, 9):  # named after a town it is not in
            stem = towns[(i * 5) % 34].title
        elif i == 4:  # the same stem as a school (two organisations on one stem)
            stem = schools[0].title.split()[0]
        else:
            stem = nm.word()
        title = f"{stem} {['Pictures', 'Film Studios', 'Productions', 'Filmworks'][i % 4]}"
        where = rng.choice([t for t in towns if t.title != stem])
        founder = producers[i % len(producers)]
        year = rng.randint(founder.facts["born"] + 26, founder.facts["born"] + 40)  # founded by a grown producer
        s = _org(w, f"studio_{i:02d}.md", title, "studio", where, "studio_in", rng, year=year)
        w.tie("founded_by", s, founder, side(rng))
        studios.append(s)
    festivals = []
    for i in range(8):
        title = f"{nm.word()} {['Film Festival', 'International Film Days', 'Screen Week', 'Cinema Biennale'][i % 4]}"
        where = rng.choice(towns)
        festivals.append(_org(w, f"festival_{i}.md", title, "festival", where, "festival_in", rng, year=1950 + i * 4))
    casters = []
    for i in range(6):
        stem = towns[(i * 7 + 3) % 34].title if i in (1, 4) else nm.word()
        title = f"{stem} {['Television', 'Broadcasting Corporation', 'TV'][i % 3]}"
        where = rng.choice([t for t in towns if t.title != stem])
        casters.append(_org(w, f"caster_{i}.md", title, "caster", where, "based_in", rng, year=1955 + i * 5))
    dirs = [p for p in people if p.facts["role"] == "director"]
    dops = [p for p in people if p.facts["role"] == "cinematographer"]
    eds = [p for p in people if p.facts["role"] == "editor"]
    for i in range(120):
        stem = towns[(i * 3) % 34].title if i % 10 == 6 else nm.word()  # some films bear a town's name
        title = _TITLE_FORMS[i % len(_TITLE_FORMS)].format(w=stem)
        title = f"The {stem} Affair" if title in (t.title for t in towns) else title
        director = rng.choice(dirs)
        year = rng.randint(max(1962, director.facts["born"] + 24), min(2016, director.facts["born"] + 70))
        f = w.add(Ent(f"film_{i:03d}.md", title, "film", facts={"year": year, "genre": rng.choice(GENRES)}))
        f.facts.update(minutes=rng.randint(78, 168), dateline=rng.choice(datelines))
        w.tie("directed_by", f, director, side(rng))
        if rng.random() < 0.8:
            w.tie("shot_by", f, rng.choice([p for p in dops if p.facts["born"] + 20 <= year] or dops), side(rng))
        if rng.random() < 0.5:
            w.tie("edited_by", f, rng.choice([p for p in eds if p.facts["born"] + 20 <= year] or eds), side(rng))
        w.tie(
            "made_at", f, rng.choice([s for s in studios if s.facts["year"] <= year] or studios), side(rng, 70, 12, 18)
        )
        running = [x for x in festivals if x.facts["year"] <= year]  # a festival premieres films once it exists
        if running and rng.random() < 0.45:
            w.tie("premiered_at", f, rng.choice(running), side(rng))
        if rng.random() < 0.3:
            w.tie("aired_by", f, rng.choice(casters), side(rng))
    for e in [*schools, *studios, *festivals, *casters]:
        e.facts["dateline"] = rng.choice(datelines)
    return w


_RECIPE = Recipe(
    names=_names,
    populate=_populate,
    render=render,
    traps=add_traps,
    questions=lambda w, docs, rng: make_questions(w, docs, rng, words),
    seed=41,
)

# The corpus: 358 pages; 36 one-hop, 90 two-hop and 48 three-hop questions; the same for a seed.
build_cloaked = _RECIPE.build
cloaked_world = _RECIPE.world
cloaked_chains = _RECIPE.chains
