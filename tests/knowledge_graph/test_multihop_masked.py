"""The masked multi-hop corpus's contract (bench/multihop_masked.py, #28): deterministic, its size,
every answer reachable only through its chain (each link stated on a page of its pair, the answer
page not naming the start and sharing no content word with the question, no page off the chain
naming both ends), pages in many genres with each relation worded several ways and stated in
several places, questions in many shapes, and its traps present. Fast: it builds the corpus in
memory and ingests nothing; it runs no ranker."""

from __future__ import annotations

import re
from collections import Counter

from bench.multihop_masked import build_masked, masked_chains, words
from tests.support.corpus_pages import (
    Pages,
    check_answers_hidden,
    check_deterministic_and_sized,
    check_links_stated,
    check_no_page_off_the_chain_names_both_ends,
    link_sides,
    names,
)

DOCS, QUESTIONS = build_masked()
CHAINS = masked_chains()
PAGES = Pages(DOCS)
BY_NAME = PAGES.by_name
title = PAGES.title


def _kind(file: str) -> str:
    return file.split("_")[0]


def test_deterministic_and_sized() -> None:
    check_deterministic_and_sized(build_masked, CHAINS, range(350, 421), (36, 84, 54))


def test_answers_exist_and_multihop_answers_share_no_word_with_the_question() -> None:
    check_answers_hidden(PAGES, CHAINS, words, start_off_answer=True)
    assert all(len(set(files)) == len(files) for _q, files in CHAINS)  # no chain visits a page twice


def test_each_link_is_stated_on_at_least_one_page_of_its_pair_and_controls_on_the_answer() -> None:
    check_links_stated(PAGES, CHAINS)


def test_links_are_stated_forward_backward_and_both() -> None:
    fwd, back, both, pairs = link_sides(PAGES, CHAINS)
    assert fwd >= 0.4 * pairs and back >= 30 and both >= 30, (fwd, back, both, pairs)


def test_no_page_off_the_chain_names_both_ends() -> None:
    check_no_page_off_the_chain_names_both_ends(PAGES, CHAINS)


def test_questions_are_phrased_in_varied_ways() -> None:
    texts = [q.text for q in QUESTIONS if q.hops > 1]
    assert sum(t.startswith(("Name ", "I need ", "Tell me ", "Find ", "Give ")) for t in texts) >= 25  # imperatives
    assert sum(t.endswith("?") for t in texts) >= 40
    assert sum(len(re.findall(r"'s? [a-z]", t)) >= 2 for t in texts) >= 2  # possessive chains
    assert sum("'s " in t or "' " in t for t in texts) >= 15  # possessives
    contact = r"the (shed|company|line|works|firm|shops|master|town|place|one|person|railway|area|district) [A-Z]"
    assert sum(re.search(contact, t) is not None for t in texts) >= 15  # "the works X trained at"
    assert sum(" who " in t or " that " in t or " where " in t or " whose " in t for t in texts) >= 40
    assert len({t.split()[0] for t in texts}) >= 10
    assert len({q.answer for q in QUESTIONS if q.hops > 1}) >= 50  # the chains end on many different pages
    patterns = Counter((q.hops, _kind(fs[0]), _kind(fs[1])) for q, fs in CHAINS)
    assert len(patterns) >= 25
    assert len({_kind(fs[0]) for q, fs in CHAINS if q.hops == 3}) >= 3  # three-hop chains start on several kinds


def test_pages_are_written_in_many_genres() -> None:
    texts = [d.text for d in DOCS]
    assert sum("\n| " in t for t in texts) >= 60  # tables: infoboxes, registers, works lists
    assert sum(len(re.findall(r"\n- \d{4}: ", t)) >= 3 for t in texts) >= 30  # dated timelines
    assert sum("OBITUARY." in t for t in texts) >= 10
    assert sum("Letter to the editor" in t for t in texts) >= 8
    assert sum("Minutes of the directors" in t for t in texts) >= 3
    assert sum("Catalogue card." in t for t in texts) >= 15
    towns = [BY_NAME[f] for f in BY_NAME if f.startswith("town_")]
    assert all(d.text.split("\n\n")[1].startswith(title(d.name).upper() + ",") for d in towns)  # gazetteer


def test_relations_are_worded_in_several_ways() -> None:
    text = "\n".join(d.text for d in DOCS)
    nominal = ["The construction of ", "The apprenticeship of ", "The appointment of ", "The foundation of "]
    nominal += ["amalgamation of the ", "preservation at "]
    assert all(text.count(n) >= 2 for n in nominal), [(n, text.count(n)) for n in nominal]
    passives = ["was designed by ", "was taken on as a pupil by ", "be appointed ", "was absorbed by "]
    assert all(text.count(p) >= 2 for p in passives), [(p, text.count(p)) for p in passives]
    relative = [", who served it as chief engineer", ", which bought her new", "whose office had prepared"]
    assert all(text.count(r) >= 1 for r in relative), [(r, text.count(r)) for r in relative]
    assert sum(text.count(r) for r in (", who ", ", which ", " whose ")) >= 25
    keyvalue = ["| Builder | ", "| Designer | ", "Maker: ", "Design attributed to: ", "| Chief engineer | "]
    assert all(text.count(k) >= 2 for k in keyvalue), [(k, text.count(k)) for k in keyvalue]


def test_people_are_named_by_surname_and_pronoun_after_the_first_mention() -> None:
    people = [BY_NAME[f] for f in BY_NAME if f.startswith("person_")]
    surname_only = sum(
        d.text.count(f"{title(d.name).split()[-1]} ") > d.text.count(f"{title(d.name)} ") for d in people
    )
    assert surname_only >= 20
    assert sum(re.search(r"\b(He|She|he|she|his|her)\b", d.text) is not None for d in people) >= 40


def test_traps_present() -> None:
    titles = [title(d.name) for d in DOCS]
    person_titles = [title(f) for f in BY_NAME if f.startswith("person_")]
    towns = {title(f) for f in BY_NAME if f.startswith("town_")}
    # namesakes: the same full name with another trade, and surnames borne by two people
    assert sum(any(t.startswith(p + " (") for t in titles) for p in person_titles) >= 10
    surnames = Counter(p.split()[-1] for p in person_titles)
    assert sum(n >= 2 for n in surnames.values()) >= 6
    # engines named after a town
    assert sum(t.split(" ", 2)[-1] in towns for t in titles if t.startswith("No. ")) >= 10
    # rebuilt engines carrying a core engine's name under another number
    core = {title(f).split(" ", 2)[-1] for f in BY_NAME if f.startswith("loco_")}
    assert sum(title(f).split(" ", 2)[-1] in core for f in BY_NAME if f.startswith("rebuilt_")) >= 10
    # works and companies named after towns whose page does not house them
    named = [f for f in BY_NAME if f.startswith(("works_", "railway_")) and set(title(f).split()) & towns]
    housed = [f for f in named if any(names(BY_NAME[t].text, title(f)) for t in BY_NAME if t.startswith("town_"))]
    assert len(named) >= 10 and len(named) - len(housed) >= 5
    # hub pages naming many entities in passing
    hubs = [d for d in DOCS if d.name.startswith(("register_", "timetable_", "roll_", "directory_", "trail_"))]
    assert len(hubs) >= 25
    assert all(len(re.findall(r"No\. \d+|\n\| |\n- ", d.text)) >= 5 for d in hubs)
    assert sum(f.startswith("handbill_") for f in BY_NAME) >= 20
    # notes sharing the questions' relation words, naming no entity
    notes = [d for d in DOCS if d.name.startswith("note_")]
    assert len(notes) >= 12 and sum(("born" in d.text or "founded" in d.text or "pupil" in d.text) for d in notes) >= 4
    entity_titles = [title(f) for f in BY_NAME if not f.startswith("note_")]
    assert not any(names(d.text, t) for d in notes for t in entity_titles)


def test_a_question_naming_a_shared_name_says_which_person_it_means() -> None:
    shared = {title(d.name).split(" (")[0] for d in DOCS if d.name.startswith("namesake_")}
    asked = 0
    for q in QUESTIONS:
        for name in shared:
            if names(q.text, name):
                asked += 1
                assert re.search(rf"the [a-z' ]+ {re.escape(name)}", q.text), q.text  # "the locomotive engineer X"
    assert asked >= 1
