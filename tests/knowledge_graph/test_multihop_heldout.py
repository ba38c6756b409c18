"""The held-out multi-hop corpus's contract (bench/multihop_heldout.py, #28).

The corpus is the independent check of the `kg` ranker, so what it promises is pinned here, with
checks of its own (not the generator's helpers): it is the same on every run; every answer page
exists; a multi-hop answer shares no content word with its question; each question's chain has as
many links as its hop count says, every link stated on one of the two pages it joins, and no page
of the chain naming a page two or more links away (no shortcut); and the traps it claims are in it.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise

import pytest

from bench.multihop_corpus import Doc, Question
from bench.multihop_heldout import build_heldout, heldout_paths

_FUNCTION_WORDS = set(
    """a an the of in on at by for to and or is was were who whom whose which what where when how did does do
    that this it its from with as be been has had have s his her their he she they""".split()
)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _FUNCTION_WORDS}


def _title(doc: Doc) -> str:
    return doc.text.splitlines()[0].removeprefix("# ")


def _names(text: str, title: str) -> bool:
    """`text` mentions `title` as a name of its own (not as the stem of a longer name: 'Skaldra Observatory')."""
    return re.search(rf"(?<![A-Za-z]){re.escape(title)}(?![A-Za-z]| [A-Z])", text) is not None


@pytest.fixture(scope="module")
def corpus() -> tuple[list[Doc], list[tuple[Question, list[str]]]]:
    return heldout_paths()


def test_the_corpus_is_deterministic_and_sized_as_described() -> None:
    first, second = build_heldout(), build_heldout()
    assert first == second
    assert build_heldout(seed=1) != first
    docs, questions = first
    hops = Counter(q.hops for q in questions)
    assert 360 <= len(docs) <= 440
    assert hops[2] + hops[3] >= 120 and hops[3] >= 40 and hops[1] >= 60
    assert len({d.name for d in docs}) == len(docs)


def test_answers_exist_and_multi_hop_answers_share_no_word_with_the_question(
    corpus: tuple[list[Doc], list[tuple[Question, list[str]]]],
) -> None:
    docs, rows = corpus
    by_name = {d.name: d for d in docs}
    for q, _path in rows:
        assert q.answer in by_name, q
        if q.hops > 1:
            assert not _words(q.text) & _words(by_name[q.answer].text), q


def test_every_chain_has_as_many_links_as_its_hop_count(
    corpus: tuple[list[Doc], list[tuple[Question, list[str]]]],
) -> None:
    docs, rows = corpus
    by_name = {d.name: d for d in docs}
    for q, path in rows:
        pages = [by_name[f] for f in path]
        assert path[-1] == q.answer and len(path) == (q.hops + 1 if q.hops > 1 else 1), q
        assert _title(pages[0]) in q.text, q  # the chain starts at the entity the question names
        for a, b in pairwise(pages):  # each link stated on one of its two pages
            assert _names(a.text, _title(b)) or _names(b.text, _title(a)), (q, a.name, b.name)
        for i, a in enumerate(pages):  # no shortcut: no page names one two or more links away
            for b in pages[i + 2 :]:
                assert not _names(a.text, _title(b)) and not _names(b.text, _title(a)), (q, a.name, b.name)


def test_the_traps_are_there(corpus: tuple[list[Doc], list[tuple[Question, list[str]]]]) -> None:
    docs, rows = corpus
    titles = Counter(_title(d) for d in docs)
    on_chains = {f for _q, path in rows for f in path}
    by_name = {d.name: d for d in docs}
    chain_people = {_title(by_name[f]) for f in on_chains if f.startswith("person_")}
    assert sum(titles[t] > 1 for t in chain_people) >= 5  # namesakes of people on chains
    places = {_title(d) for d in docs if d.name.startswith("place_")}
    orgs = [_title(d) for d in docs if d.name.split("_")[0] in {"org", "care", "work", "side"}]
    assert sum(o.split()[0] in places for o in orgs) >= 10  # named after a place (they are not in)
    stems = Counter(o.split()[0] for o in orgs)
    assert sum(n > 1 for n in stems.values()) >= 5  # two organisations on one stem
    passing = [d for d in docs if d.name.split("_")[0] in {"register", "index", "members", "ledger"}]
    assert len(passing) >= 10 and any("|" in d.text for d in passing)  # lists and tables
