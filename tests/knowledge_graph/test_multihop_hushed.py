"""Contract of the hushed multi-hop corpus (#28, bench/multihop_hushed*.py): a blind check of the kg
ranker, so its rules are pinned here and not by a ranker's score. Nobody tuning a ranker reads it.

Shared checks (tests/support/corpus_pages.py) plus this corpus's own: every walked link stated in a
wording of its relation, the start's page not naming a multi-hop answer, a fifth of the questions in
lower case and the rest not, the question forms, the thirteen page styles and the traps."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

import pytest

from bench.corpus_world import World
from bench.multihop_corpus import Doc
from bench.multihop_hushed import build_hushed, hushed_chains, hushed_world, words
from bench.multihop_hushed_words import CUES
from tests.support.corpus_pages import (
    Chains,
    Pages,
    check_answers_hidden,
    check_deterministic_and_sized,
    check_links_stated,
    check_no_page_off_the_chain_names_both_ends,
    link_sides,
    names,
)


@pytest.fixture(scope="module")
def made() -> tuple[World, list[Doc], Chains]:
    w, docs = hushed_world()
    return w, docs, hushed_chains()


def _lowered(chains: Chains) -> Chains:
    return [(replace(q, text=q.text.lower()), files) for q, files in chains]


def test_deterministic_sized_and_every_question_once(made: tuple[World, list[Doc], Chains]) -> None:
    check_deterministic_and_sized(build_hushed, made[2], range(350, 391), (36, 90, 48))
    starts = [files[0] for _q, files in made[2]]
    assert len(set(starts)) == len(starts)


def test_answers_hidden_links_stated_and_no_page_off_the_chain_names_both_ends(
    made: tuple[World, list[Doc], Chains],
) -> None:
    _w, docs, chains = made
    pages = Pages(docs)
    check_answers_hidden(pages, _lowered(chains), words, start_off_answer=True, lower=True)
    check_links_stated(pages, chains)
    check_no_page_off_the_chain_names_both_ends(pages, chains)
    for q, files in chains:
        if q.hops > 1:  # nor does the start's page name the answer
            assert not names(pages.by_name[files[0]].text, pages.title(files[-1])), q.text


def test_one_entity_fits_each_start_and_each_noun(made: tuple[World, list[Doc], Chains]) -> None:
    """No question starts on a name a namesake's page also bears (two people would fit it), and a
    director's hospital is not called an employer or a workplace (the institute would fit too)."""
    w, docs, chains = made
    directors = set(w.link["directs"].values())
    for q, files in chains:
        start = w.ents[files[0]].title
        assert not [d.name for d in docs if d.text.startswith(f"# {start} (")], q.text
        if any(w.link["works"].get(a) == b and a in directors for a, b in itertools.pairwise(files)):
            assert not re.search(r"employer|workplace", q.text, re.I), q.text


def test_pages_read_as_english(made: tuple[World, list[Doc], Chains]) -> None:
    """No article before a pronoun or another article (a reference slotted into the wrong template),
    and no "he" or "she" right after a sentence led by another person (it could mean either)."""
    w, docs, _chains = made
    bad = re.compile(r"\b(the|a|an) (it|its|the|he|she|him|her|his)\b", re.I)
    assert not [(d.name, m.group(0)) for d in docs for m in bad.finditer(d.text)]
    people = [e.title for e in w.ents.values() if e.kind == "person"]
    for d in docs:
        said = [re.sub(r"^\W*(A\. |GUEST: )?", "", s) for s in _sentences(d.text) if s.strip()]
        for before, s in itertools.pairwise(said):
            led = [p for p in people if before.startswith(p) and not d.text.startswith(f"# {p}\n")]
            assert not (led and re.match(r"(He|She) ", s)), (d.name, before, s)


def _sentences(text: str) -> list[str]:
    return [s for line in text.splitlines() for s in re.split(r"(?<!\bb\.)(?<=\.) (?=[A-Z])", line)]


def test_every_walked_link_is_stated_in_a_wording_of_its_relation(made: tuple[World, list[Doc], Chains]) -> None:
    w, docs, chains = made
    pages = Pages(docs)
    for q, files in chains:
        for a, b in itertools.pairwise(files):
            rels = [r for r, links in w.link.items() if links.get(a) == b]
            assert rels, (q.text, a, b)
            cue = re.compile("|".join(CUES[r] for r in rels), re.I)
            said = [s for s in _sentences(pages.by_name[a].text) if names(s, pages.title(b))]
            said += [s for s in _sentences(pages.by_name[b].text) if names(s, pages.title(a))]
            assert any(cue.search(s) for s in said), (q.text, a, b, said)


def test_links_are_stated_on_either_side_or_both(made: tuple[World, list[Doc], Chains]) -> None:
    subject_only, other_only, both, total = link_sides(Pages(made[1]), made[2])
    assert total > 250 and min(subject_only, other_only, both) >= 40, (subject_only, other_only, both)


def test_questions_as_users_type_them(made: tuple[World, list[Doc], Chains]) -> None:
    texts = [q.text for q, _ in made[2]]
    lower = [t for t in texts if t == t.lower()]
    assert len(texts) // 5 <= len(lower) <= len(texts) // 5 + 1, len(lower)
    forms = {
        "question": [t for t in texts if t.endswith("?")],
        "instruction": [t for t in texts if re.match(r"(find|tell me|look up|i need) ", t, re.I)],
        "possessive chain": [t for t in texts if t.count("'s ") >= 2],
        "bare phrase": [t for t in texts if not re.search(r"\?|'s |\bof\b", t)],
    }
    assert all(len(v) >= 10 for v in forms.values()), {k: len(v) for k, v in forms.items()}


_STYLES = {
    "museum plaque": "Please do not touch the glass",
    "service bulletin": "SERVICE BULLETIN",
    "patent abstract": "Patent abstract",
    "release notes": "Release notes:",
    "slide deck": "Slide 1:",
    "social thread": " · ",
    "inquiry record": "Record of the inquiry",
    "radio transcript": "PRESENTER:",
    "conference programme": "Conference programme",
    "job posting": "Vacancy:",
    "yearbook entry": "Yearbook entry:",
    "letter of recommendation": "I am writing in support",
    "hospital newsletter": "Ward Round",
}


def test_thirteen_styles_and_the_first_person(made: tuple[World, list[Doc], Chains]) -> None:
    w, docs, _chains = made
    core = [d for d in docs if d.name in w.ents]
    used = {style: sum(mark in d.text for d in core) for style, mark in _STYLES.items()}
    assert min(used.values()) >= 8, used
    assert sum(bool(re.search(r"\n(A\. )?(I|We|Our) ", d.text)) for d in core) >= 60


def test_traps(made: tuple[World, list[Doc], Chains]) -> None:
    w, docs, chains = made
    people = [e for e in w.ents.values() if e.kind == "person"]
    titles = {d.name: Pages(docs).title(d.name) for d in docs}
    # namesakes: another page of a chain person's name, stating a birthplace not theirs
    namesakes = [d for d in docs if d.name.startswith("namesake_")]
    assert len(namesakes) >= 10 and all(
        any(titles[d.name].startswith(p.title + " (") for p in people) for d in namesakes
    )
    walked = {f for _q, files in chains for f in files}
    assert any(titles[d.name].split(" (")[0] in {w.ents[f].title for f in walked} for d in namesakes)
    # shared surnames
    surnames = [p.title.split()[-1] for p in people]
    assert sum(surnames.count(s) > 1 for s in set(surnames)) >= 5
    # organisations named after a town they are not in
    towns = {e.title: e for e in w.ents.values() if e.kind == "town"}
    misnamed = [e for e in w.ents.values() if e.kind != "town" and e.title.split()[0] in towns]
    assert len(misnamed) >= 5 and all(w.target("in", e) is not towns[e.title.split()[0]] for e in misnamed)
    # two organisations on one stem
    orgs = [e for e in w.ents.values() if e.kind not in ("person", "town", "region", "aircraft")]
    stems = [e.title.split()[0] for e in orgs]
    assert sum(stems.count(s) == 2 for s in set(stems)) >= 3
    # renamed organisations, listings naming many entities, notes sharing the relation words
    renamed = [d for d in docs if d.name.startswith("renamed_")]
    assert len(renamed) >= 10 and all("renamed" in d.text for d in renamed)
    listings = [d for d in docs if re.match(r"(board|rota|airshow|friends|switchboard|careers|hangar)_", d.name)]
    ent_titles = [e.title for e in w.ents.values()]
    assert len(listings) >= 40 and all(sum(names(d.text, t) for t in ent_titles) >= 5 for d in listings)
    # a listing names people in passing: it never calls them a school's alumni or graduates (most are not)
    assert not [d.name for d in listings if re.search(r"alumni|graduat", d.text, re.I)]
    # a renamed organisation never moved (its own page says where it has always been)
    assert not [d.name for d in renamed if re.search(r"\bmov(e|ed)\b|stood then", d.text)]
    notes = [d for d in docs if d.name.startswith("note_")]
    assert len(notes) >= 12
    for d in notes:
        assert not any(names(d.text, t) for t in ent_titles)
        assert sum(bool(re.search(c, d.text, re.I)) for c in CUES.values()) >= 2, d.name


def test_mentors_older_than_their_pupils(made: tuple[World, list[Doc], Chains]) -> None:
    w = made[0]
    for pupil, mentor in w.link["mentor"].items():
        assert int(w.ents[mentor].facts["year"]) <= int(w.ents[pupil].facts["year"]) - 10


def test_dates_agree(made: tuple[World, list[Doc], Chains]) -> None:
    """Organisations founded by grown-ups under seventy, aircraft first flown by pilots of 25 to 60
    after their maker began and after the pilot's wings, chief test pilots appointed after their
    wings, surgeons' posts, registrar years and directorships after they qualified, organisations
    renamed after they were founded, and no page dated past 2025."""
    w, docs, _chains = made
    year = {f: int(e.facts["year"]) for f, e in w.ents.items()}
    assert all(25 <= year[org] - year[founder] <= 70 for org, founder in w.link["founded"].items())
    assert all(25 <= year[a] - year[p] <= 60 for a, p in w.link["first_flight"].items())
    assert all(year[a] > year[m] for a, m in w.link["maker"].items())
    fact = {f: e.facts for f, e in w.ents.items()}
    assert all(year[a] > fact[p]["y_flying_school"] for a, p in w.link["first_flight"].items())
    assert all(fact[p]["y_chief_pilot"] > fact[p]["y_flying_school"] for p in w.link["chief_pilot"])
    for rel in ("works", "mentor"):
        for s, other in w.link[rel].items():
            assert fact[s][f"y_{rel}"] > fact[s]["y_studied"], (rel, s)
            assert rel != "mentor" or fact[s]["y_mentor"] > fact[other]["y_studied"], s
    assert all(fact[i]["y_directs"] > fact[s]["y_studied"] for i, s in w.link["directs"].items())
    titles = {e.title: f for f, e in w.ents.items()}
    for d in docs:
        if d.name.startswith("renamed_"):
            m = re.search(r"was the name of (.+) until (\d{4})", d.text)
            assert m and int(m.group(2)) > year[titles[m.group(1)]], d.text
    assert max(int(y) for d in docs for y in re.findall(r"\b(1[89]\d\d|20\d\d)\b", d.text)) <= 2025
