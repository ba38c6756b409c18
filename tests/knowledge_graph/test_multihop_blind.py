"""The blind multi-hop corpus's contract (bench/multihop_blind.py, #28): deterministic, its size, every
answer reachable only through its chain (each link stated on at least one page of its pair, no page
naming both ends of a multi-hop chain, no content word shared by a multi-hop answer and its question),
and its traps present. Fast: it builds the corpus in memory and ingests nothing."""

from __future__ import annotations

import re
from collections import Counter

from bench.multihop_blind import blind_chains, build_blind, words
from tests.support.corpus_pages import (
    Pages,
    check_answers_hidden,
    check_deterministic_and_sized,
    check_links_stated,
    link_sides,
    names,
)

DOCS, QUESTIONS = build_blind()
CHAINS = blind_chains()
PAGES = Pages(DOCS)
BY_NAME = PAGES.by_name
title = PAGES.title


def test_deterministic_and_sized() -> None:
    check_deterministic_and_sized(build_blind, CHAINS, range(370, 401), (36, 90, 45))


def test_answers_exist_and_multihop_answers_share_no_word_with_the_question() -> None:
    check_answers_hidden(PAGES, CHAINS, words, start_off_answer=False)


def test_each_link_is_stated_on_at_least_one_page_of_its_pair_and_controls_on_the_answer() -> None:
    check_links_stated(PAGES, CHAINS)


def test_links_are_mostly_stated_on_the_subjects_page_and_sometimes_only_on_the_other() -> None:
    fwd, only_back, both, pairs = link_sides(PAGES, CHAINS)
    assert fwd + both >= 0.7 * pairs and only_back >= 10, (fwd, only_back, both, pairs)


def test_no_page_names_both_ends_of_a_multihop_chain() -> None:
    for q, files in CHAINS:
        if q.hops > 1:
            start, end = title(files[0]), title(files[-1])
            assert not [d.name for d in DOCS if names(d.text, start) and names(d.text, end)], q.text


def test_questions_are_phrased_in_varied_ways() -> None:
    texts = [q.text for q in QUESTIONS if q.hops > 1]
    assert sum("'s " in t or "' " in t for t in texts) >= 5  # possessives
    assert sum(" by " in t or " under " in t for t in texts) >= 3  # passives and prepositional relatives
    assert sum(" who " in t or " that " in t or " where " in t for t in texts) >= 40  # relative clauses
    assert len({t.split()[0] for t in texts}) >= 6
    assert len({q.answer for q in QUESTIONS if q.hops > 1}) >= 55  # the chains end on many different pages


def test_traps_present() -> None:
    titles = [title(d.name) for d in DOCS]
    people = [BY_NAME[f].text for f in BY_NAME if f.startswith("person_")]
    person_titles = [title(f) for f in BY_NAME if f.startswith("person_")]
    # namesakes: the same full name (a title with the occupation) or the same surname
    assert sum(any(t.startswith(p + " (") for t in titles) for p in person_titles) >= 8
    surnames = Counter(
        t.split()[1] for t in titles if len(t.split()) == 2 and t.split()[1] in {p.split()[1] for p in person_titles}
    )
    assert sum(n >= 2 for n in surnames.values()) >= 12
    # firms (and schools) named after a town whose page is not where they are
    towns = {title(f) for f in BY_NAME if f.startswith("town_")}
    named = [f for f in BY_NAME if f.startswith(("company_", "school_")) and title(f).split()[0] in towns]
    assert len(named) >= 5
    # two firms on one stem
    stems = Counter(title(f).split()[0] for f in BY_NAME if f.startswith("company_"))
    assert sum(n >= 2 for n in stems.values()) >= 4
    # revivals named after an original, by another designer and maker
    assert sum(f.startswith("revival_") for f in BY_NAME) >= 12
    # pages naming many entities in passing (tables)
    assert sum(d.text.count("\n| ") >= 8 for d in DOCS) >= 15
    # notes sharing the questions' relation words, naming no chain page
    notes = [d for d in DOCS if d.name.startswith("note_")]
    assert len(notes) >= 10 and sum("born" in d.text or "founder" in d.text for d in notes) >= 4
    assert len(people) >= 60


def test_a_question_naming_a_shared_name_says_which_person_it_means() -> None:
    shared = {title(d.name).split(" (")[0] for d in DOCS if title(d.name).endswith(")")}
    asked = 0
    for q in QUESTIONS:
        for name in shared:
            if names(q.text, name):
                asked += 1
                assert re.search(rf"the [a-z ]+ {re.escape(name)}", q.text), q.text  # "the perfumer X"
    assert asked >= 1
