"""The cloaked multi-hop corpus's contract (bench/multihop_cloaked.py, #28): deterministic, its size,
every answer reachable only through its chain (each link stated on a page of its pair, the answer
page not naming the start and sharing no content word with the question, no page off the chain
naming both ends), pages in many genres with each relation worded several ways and stated in
several places, questions as people type them (a quarter in lower case), and its traps present.
It builds the corpus in memory and ingests nothing; it runs no ranker."""

from __future__ import annotations

import itertools
import re
from collections import Counter

from bench.multihop_cloaked import build_cloaked, cloaked_chains, cloaked_world, words
from tests.support.corpus_pages import (
    Pages,
    check_answers_hidden,
    check_deterministic_and_sized,
    check_links_stated,
    check_no_page_off_the_chain_names_both_ends,
    link_sides,
    names,
)

DOCS, QUESTIONS = build_cloaked()
CHAINS = cloaked_chains()
PAGES = Pages(DOCS)
BY_NAME = PAGES.by_name
title = PAGES.title
LOWER = [(q, fs) for q, fs in CHAINS if q.text == q.text.lower()]
CASED = [(q, fs) for q, fs in CHAINS if q.text != q.text.lower()]


def _kind(file: str) -> str:
    return file.split("_")[0]


def test_deterministic_and_sized() -> None:
    check_deterministic_and_sized(build_cloaked, CHAINS, range(350, 401), (36, 90, 48))


def test_answers_exist_and_multihop_answers_share_no_word_with_the_question() -> None:
    check_answers_hidden(PAGES, CASED, words, start_off_answer=True)
    check_answers_hidden(PAGES, LOWER, words, start_off_answer=True, lower=True)  # typed in lower case


def test_each_link_is_stated_on_at_least_one_page_of_its_pair_and_controls_on_the_answer() -> None:
    check_links_stated(PAGES, CHAINS)


def test_links_are_stated_forward_backward_and_both() -> None:
    fwd, back, both, pairs = link_sides(PAGES, CHAINS)
    assert fwd >= 0.35 * pairs and back >= 30 and both >= 30, (fwd, back, both, pairs)


def test_no_page_off_the_chain_names_both_ends() -> None:
    check_no_page_off_the_chain_names_both_ends(PAGES, CHAINS)


def test_questions_are_typed_in_varied_ways() -> None:
    texts = [q.text for q in QUESTIONS if q.hops > 1]
    assert len(LOWER) == len(QUESTIONS) // 4  # a quarter typed all in lower case
    leads = ("find ", "tell me ", "show me ", "looking for ", "i'd like to know ")
    assert sum(t.lower().startswith(leads) for t in texts) >= 20  # instructions
    assert sum(t.endswith("?") for t in texts) >= 40
    assert sum(not t.endswith("?") and not t.lower().startswith(leads) for t in texts) >= 3  # bare noun phrases
    assert sum(len(re.findall(r"'s? [a-zA-Z]", t)) >= 2 for t in texts) >= 2  # possessive chains
    assert sum("'s " in t or "' " in t for t in texts) >= 15
    assert sum(" who " in t or " that " in t or " where " in t for t in texts) >= 30
    assert len({t.split()[0].lower() for t in texts}) >= 8
    for t in [q.text for q in QUESTIONS]:  # no slip of grammar: "is in in", "where is where", "what's the person"
        assert not re.search(r"\b(\w+) \1\b|\bwhere is where\b|\bwhat's the (person|director|mentor)", t.lower()), t
    assert len({q.answer for q in QUESTIONS if q.hops > 1}) >= 50  # the chains end on many different pages
    assert len(Counter((q.hops, _kind(fs[0]), _kind(fs[1])) for q, fs in CHAINS)) >= 25
    assert len({_kind(fs[0]) for q, fs in CHAINS if q.hops == 3}) >= 3  # three-hop chains start on several kinds


def test_pages_are_written_in_many_genres() -> None:
    texts = [d.text for d in DOCS]
    assert sum("CREDITS\n" in t and "\u2014 " in t for t in texts) >= 15  # credit blocks
    dateline = r"\n[A-Z]{4,}, \d{1,2} [A-Z][a-z]{2} \d{4} \([A-Za-z]+\) \u2014 "
    assert sum(re.search(dateline, t) is not None for t in texts) >= 30  # news-wire items
    assert sum("\nQ: " in t and "\nA: " in t for t in texts) >= 10  # interview transcripts
    assert sum("REVIEW." in t for t in texts) >= 15
    assert sum("Programme note." in t for t in texts) >= 15
    assert sum("Thread: " in t and "Posted by " in t for t in texts) >= 20  # forum threads
    assert sum("CURRICULUM VITAE" in t and "\n- " in t for t in texts) >= 10
    assert sum("Frequently asked questions" in t or "FAQ" in t for t in texts) >= 15
    assert sum("PRESS RELEASE." in t for t in texts) >= 5
    assert sum("LOCATION GUIDE" in t for t in texts) >= 5


def test_relations_are_worded_in_several_ways() -> None:
    text = "\n".join(d.text for d in DOCS)
    nominal = ["The production of ", "The direction by ", "The photography of ", "The editing by ", "Its premiere at "]
    assert all(text.count(n) >= 3 for n in nominal), [(n, text.count(n)) for n in nominal]
    passives = ["Directed by ", ", shot by ", "was taken on as an assistant by ", "The cut was made by "]
    assert all(text.count(p) >= 3 for p in passives), [(p, text.count(p)) for p in passives]
    relative = [", who cut the picture", ", which produced it", " who was born in "]
    assert all(text.count(r) >= 2 for r in relative), [(r, text.count(r)) for r in relative]
    credit = ["Director \u2014 ", "Director of photography \u2014 ", "Production company \u2014 ", "Education: "]
    assert all(text.count(k) >= 5 for k in credit), [(k, text.count(k)) for k in credit]


def test_people_are_named_by_surname_and_pronoun_after_the_first_mention() -> None:
    people = [BY_NAME[f] for f in BY_NAME if f.startswith("person_")]
    surname_only = sum(
        d.text.count(f"{title(d.name).split()[-1]} ") > d.text.count(f"{title(d.name)} ") for d in people
    )
    assert surname_only >= 15
    assert sum(re.search(r"\b(He|She|he|she|his|her|I)\b", d.text) is not None for d in people) >= 30


def test_traps_present() -> None:
    w, _docs = cloaked_world()
    titles = [title(d.name) for d in DOCS]
    person_titles = [title(f) for f in BY_NAME if f.startswith("person_")]
    towns = {title(f) for f in BY_NAME if f.startswith("town_")}
    # namesakes: the same full name with another trade, and surnames borne by two people
    assert sum(any(t.startswith(p + " (") for t in titles) for p in person_titles) >= 10
    assert sum(n >= 2 for n in Counter(p.split()[-1] for p in person_titles).values()) >= 6
    # films bearing a town's name, and remakes and sequels reusing a core film's title
    films = {title(f) for f in BY_NAME if f.startswith("film_")}
    assert sum(bool(set(t.split()) & towns) for t in films) >= 8
    assert sum(any(title(f).startswith(t + " ") for t in films) for f in BY_NAME if f.startswith("remake_")) >= 10
    # studios, schools and broadcasters named after a town they are not in
    located = {"studio": "studio_in", "school": "school_in", "caster": "based_in"}
    misnamed = [
        e
        for e in w.ents.values()
        if e.kind in located
        and e.title.split()[0] in towns
        and w.ents[w.link[located[e.kind]][e.file]].title != e.title.split()[0]
    ]
    assert len(misnamed) >= 5
    # two organisations on one stem
    stems = Counter(e.title.split()[0] for e in w.ents.values() if e.kind in ("studio", "school", "caster"))
    assert any(n >= 2 for s, n in stems.items() if s not in towns)
    # hub pages naming many entities in passing
    hubs = [d for d in DOCS if d.name.startswith(("lineup_", "programme_", "roster_", "schedule_", "directory_"))]
    assert len(hubs) >= 25
    assert sum(len(re.findall(r"\n- ", d.text)) >= 5 for d in hubs) >= 20
    assert sum(f.startswith("notice_") for f in BY_NAME) >= 20
    # notes sharing the questions' relation words, naming no entity
    notes = [d for d in DOCS if d.name.startswith("note_")]
    relation_words = ("founded", "born", "premiere", "assistant", "studied", "based")
    assert len(notes) >= 12 and sum(any(r in d.text for r in relation_words) for d in notes) >= 6
    entity_titles = [title(f) for f in BY_NAME if not f.startswith("note_")]
    assert not any(names(d.text, t) for d in notes for t in entity_titles)


def test_a_question_naming_a_shared_name_says_which_person_it_means() -> None:
    shared = {title(d.name).split(" (")[0] for d in DOCS if d.name.startswith("namesake_")}
    asked = 0
    for q in QUESTIONS:
        for name in shared:
            if names(q.text.lower(), name.lower()):
                asked += 1
                assert re.search(rf"the (director|cinematographer|editor) {re.escape(name.lower())}", q.text.lower())
    assert asked >= 1


def test_a_remade_film_is_asked_by_its_year() -> None:
    """A remake bears its original's title, with its own studio and crew: a question naming the title
    says which year's film it means, or it would have two right answers."""
    remade = {}
    for d in DOCS:
        if d.name.startswith("remake_"):
            found = re.search(r"a remake of the (\d{4}) picture (.+?), produced", d.text)
            if found:
                remade[found.group(2)] = found.group(1)
    assert len(remade) >= 5
    asked = 0
    for q in QUESTIONS:
        for t, year in remade.items():
            if names(q.text.lower(), t.lower()):
                asked += 1
                assert year in q.text, q.text
    assert asked >= 1


# how each relation a question may ask about is put where a link of it is stated
_CUES = {
    "born_in": r"\bborn\b|\bbirth\b|\bnatives?\b",
    "studio_in": r"\bbased\b|\blocated\b|\boffices\b|\bhome to\b",
    "school_in": r"\bbased\b|\blocated\b|\boffices\b|\bhome to\b",
    "festival_in": r"\bheld\b|\bbased\b|\bhome to\b",
    "based_in": r"\bbased\b|\blocated\b|\boffices\b|\bhome to\b",
}


def _units(text: str) -> list[str]:
    """A page cut into what a reader takes in at once: paragraphs, list lines, Q-and-A pairs, sentences."""
    return re.split(r"\n\n|\n(?=Q: |- |  - )|(?<=[.!]) (?=[A-Z])", text)


def test_each_birthplace_and_location_a_question_walks_is_stated_as_such() -> None:
    """A link asked as "born in" is stated as a birth (not "grew up"), and a link asked as where an
    organisation is, as where it is based (not that it "can lend crew")."""
    w, _docs = cloaked_world()
    checked = 0
    for q, files in CHAINS:
        for a, b in itertools.pairwise(files):
            rel = next(r for r, links in w.link.items() if links.get(a) == b)
            if rel not in _CUES:
                continue
            units = [u for u in _units(BY_NAME[a].text) if names(u, title(b))]
            units += [u for u in _units(BY_NAME[b].text) if names(u, title(a))]
            assert any(re.search(_CUES[rel], u, re.I) for u in units), (q.text, rel, a, b, units)
            checked += 1
    assert checked >= 60


def test_dates_agree() -> None:
    """No page is dated in the future; studios are founded by grown-ups, films made at studios and
    premiered at festivals that already exist, by crews of age, remakes after their originals."""
    w, docs = cloaked_world()
    years = [int(y) for d in docs for y in re.findall(r"\b(?:19|20)\d\d\b", d.text)]
    assert max(years) <= 2026
    born = {f: e.facts["born"] for f, e in w.ents.items() if e.kind == "person"}
    year = {f: e.facts["year"] for f, e in w.ents.items() if "year" in e.facts}
    assert all(year[s] >= born[p] + 21 for s, p in w.link["founded_by"].items())
    assert all(year[f] >= year[x] for f, x in w.link["made_at"].items())
    assert all(year[f] >= year[x] for f, x in w.link["premiered_at"].items())
    for rel in ("directed_by", "shot_by", "edited_by"):
        assert all(year[f] >= born[p] + 20 for f, p in w.link[rel].items()), rel
