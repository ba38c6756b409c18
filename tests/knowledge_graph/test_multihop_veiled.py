"""The veiled multi-hop corpus's contract (bench/multihop_veiled.py, #28): deterministic, its size,
every answer reachable only through its chain (each link stated on a page of its pair, the answer
page not naming the start and sharing no content word with the question, no page off the chain
naming both ends), links stated in many ways and places, and its traps present. Fast: it builds the
corpus in memory and ingests nothing; it runs no ranker."""

from __future__ import annotations

import re
from collections import Counter

from bench.multihop_veiled import build_veiled, veiled_chains, words
from tests.support.corpus_pages import (
    Pages,
    check_answers_hidden,
    check_deterministic_and_sized,
    check_links_stated,
    check_no_page_off_the_chain_names_both_ends,
    link_sides,
    names,
)

DOCS, QUESTIONS = build_veiled()
CHAINS = veiled_chains()
PAGES = Pages(DOCS)
BY_NAME = PAGES.by_name
title = PAGES.title


def test_deterministic_and_sized() -> None:
    check_deterministic_and_sized(build_veiled, CHAINS, range(350, 401), (36, 90, 45))


def test_answers_exist_and_multihop_answers_share_no_word_with_the_question() -> None:
    check_answers_hidden(PAGES, CHAINS, words, start_off_answer=True)


def test_each_link_is_stated_on_at_least_one_page_of_its_pair_and_controls_on_the_answer() -> None:
    check_links_stated(PAGES, CHAINS)


def test_links_are_stated_forward_backward_and_both() -> None:
    fwd, back, both, pairs = link_sides(PAGES, CHAINS)
    assert fwd >= 0.5 * pairs and back >= 25 and both >= 25, (fwd, back, both, pairs)


def test_no_page_off_the_chain_names_both_ends() -> None:
    check_no_page_off_the_chain_names_both_ends(PAGES, CHAINS)


def test_questions_are_phrased_in_varied_ways() -> None:
    texts = [q.text for q in QUESTIONS if q.hops > 1]
    assert sum("'s " in t or "' " in t for t in texts) >= 10  # possessives
    assert sum(" by " in t or " under " in t or " from " in t for t in texts) >= 10  # passives, prepositions
    assert sum(" who " in t or " that " in t or " where " in t for t in texts) >= 40  # relative clauses
    assert sum(t.count(" of ") >= 2 for t in texts) >= 5  # nested "of"s
    assert len({t.split()[0] for t in texts}) >= 8
    assert len({q.answer for q in QUESTIONS if q.hops > 1}) >= 55  # the chains end on many different pages
    patterns = Counter((q.hops, BY_NAME[f].name.split("_")[0]) for q, fs in CHAINS for f in fs[:1])
    assert len(patterns) >= 10


def test_pages_are_written_in_varied_styles() -> None:
    texts = [d.text for d in DOCS]
    assert sum("\n| " in t for t in texts) >= 40  # markdown tables
    assert sum("\n- " in t for t in texts) >= 40  # bullet lists
    assert sum(" was laid down at " in t or " was drawn up by " in t for t in texts) >= 20  # passives
    assert sum(", who " in t or ", which " in t or ", whose " in t for t in texts) >= 10  # relative clauses
    assert sum(" she " in t.lower() or " he " in t for t in texts) >= 100  # pronouns
    people = [BY_NAME[f] for f in BY_NAME if f.startswith("person_")]
    surname_only = 0
    for d in people:
        sur = title(d.name).split()[-1]
        surname_only += d.text.count(f"{sur} ") > d.text.count(f"{title(d.name)} ")
    assert surname_only >= 20


def test_traps_present() -> None:
    titles = [title(d.name) for d in DOCS]
    person_titles = [title(f) for f in BY_NAME if f.startswith("person_")]
    # namesakes: the same full name (a title with the occupation), and surnames borne by two mariners
    assert sum(any(t.startswith(p + " (") for t in titles) for p in person_titles) >= 10
    surnames = Counter(p.split()[-1] for p in person_titles)
    assert sum(n >= 2 for n in surnames.values()) >= 6
    # ships named after a town
    towns = {title(f) for f in BY_NAME if f.startswith("port_")}
    assert sum(t.split(" ", 1)[-1] in towns for t in titles if t.startswith(("SS ", "MV "))) >= 6
    # later ships of a name
    assert sum(f.startswith("later_") for f in BY_NAME) >= 10
    # firms and academies named after a town whose page is not where they are
    named = [f for f in BY_NAME if f.startswith(("yard_", "line_", "academy_")) and title(f).split()[0] in towns]
    assert len(named) >= 6
    # a yard and a line on one stem
    stems = Counter(title(f).split()[0] for f in BY_NAME if f.startswith(("yard_", "line_")))
    assert sum(n >= 2 for n in stems.values()) >= 4
    # pages naming many entities in passing (registers, logs, regattas)
    assert sum(d.text.count("\n| ") >= 7 for d in DOCS if not d.name.startswith(("person_", "ship_"))) >= 15
    # notes sharing the questions' relation words, naming no entity
    notes = [d for d in DOCS if d.name.startswith("note_")]
    assert len(notes) >= 10 and sum("born" in d.text or "founded" in d.text for d in notes) >= 4


def test_a_question_naming_a_shared_name_says_which_person_it_means() -> None:
    shared = {title(d.name).split(" (")[0] for d in DOCS if d.name.startswith("namesake_")}
    asked = 0
    for q in QUESTIONS:
        for name in shared:
            if names(q.text, name):
                asked += 1
                assert re.search(rf"the [a-z' ]+ {re.escape(name)}", q.text), q.text  # "the sea captain X"
    assert asked >= 1
