"""The fresh multi-hop corpus's contract (bench/multihop_fresh.py, #28): deterministic, its size, every
answer reachable only through its chain (each link stated on one of its two pages, no page naming both
ends of a multi-hop chain, no content word shared by answer and question), and its traps present.
Fast: it builds the corpus in memory and ingests nothing."""

from __future__ import annotations

import itertools
from collections import Counter

from bench.multihop_fresh import build_fresh, fresh_chains, words
from tests.support.corpus_pages import Pages, names

DOCS, QUESTIONS = build_fresh()
CHAINS = fresh_chains()
PAGES = Pages(DOCS)
BY_NAME = PAGES.by_name
title = PAGES.title


def test_deterministic_and_sized() -> None:
    again_docs, again_questions = build_fresh()
    assert again_docs == DOCS and again_questions == QUESTIONS
    other_docs, _ = build_fresh(seed=29)
    assert other_docs != DOCS
    assert 350 <= len(DOCS) <= 400
    assert len({d.name for d in DOCS}) == len(DOCS)
    assert [sum(q.hops == h for q in QUESTIONS) for h in (1, 2, 3)] == [36, 90, 45]
    assert [q for q, _ in CHAINS] == QUESTIONS
    assert len({q.text for q in QUESTIONS}) == len(QUESTIONS)


def test_answers_exist_and_share_no_word_with_multihop_questions() -> None:
    for q, files in CHAINS:
        assert q.answer == files[-1] and q.answer in BY_NAME and len(files) == q.hops + 1
        assert names(q.text, title(files[0])), q.text  # the question names where the chain starts
        if q.hops > 1:
            assert not words(q.text) & words(BY_NAME[q.answer].text), q.text


def test_each_link_is_stated_on_one_of_its_two_pages() -> None:
    for q, files in CHAINS:
        for a, b in itertools.pairwise(files):
            assert names(BY_NAME[a].text, title(b)) or names(BY_NAME[b].text, title(a)), (q.text, a, b)


def test_one_hop_controls_answer_with_the_page_naming_their_entity() -> None:
    for q, files in CHAINS:
        if q.hops == 1:
            assert names(BY_NAME[q.answer].text, title(files[0])), q.text


def test_no_page_names_both_ends_of_a_multihop_chain() -> None:
    for q, files in CHAINS:
        if q.hops > 1:
            start, end = title(files[0]), title(files[-1])
            assert not [d.name for d in DOCS if names(d.text, start) and names(d.text, end)], q.text


def test_questions_are_phrased_in_varied_ways() -> None:
    texts = [q.text for q in QUESTIONS if q.hops > 1]
    assert sum("'s " in t or "' " in t for t in texts) >= 5  # possessives
    assert sum(" by " in t for t in texts) >= 5  # passives
    assert sum(" who " in t or " that " in t for t in texts) >= 20  # relative clauses
    assert len({t.split()[0] for t in texts}) >= 4


def test_traps_present() -> None:
    titles = [title(d.name) for d in DOCS]
    body = {title(d.name): d.text.split("\n\n", 1)[1] for d in DOCS}
    people = [t for t in titles if len(t.split()) == 2 and body[t].startswith((f"{t} was a ", f"{t} ("))]
    surnames = Counter(t.split()[1] for t in people)
    assert sum(n >= 2 for n in surnames.values()) >= 10  # namesakes: two people, one surname
    single = {t for t in titles if " " not in t}
    orgs = [t for t in titles if t.endswith(("Shipyard", "Players", "Seed Bank"))]
    assert sum(t.split()[0] in single for t in orgs) >= 3  # organisations named after a town
    assert sum(d.text.count("\n| ") >= 10 for d in DOCS) >= 5  # registers: many names in passing
    assert sum(title(d.name).startswith("Note on") for d in DOCS) >= 8  # relation words off every chain
