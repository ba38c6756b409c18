"""How a chain question's count and hop words read a role and a clause's shape (#28, the muffled
corpus's diagnosis): a determined noun and "at" before a name where the noun phrase is a clause's
subject or an "of" phrase's ("where the chef at X trained": a relation, as "the chef of X" is; after
a verb, "won the race at X", the "at" may be the verb's), a fused relative opening a question
("Whoever set up ...?"), a copula's bare noun and stranded "of" closing a contact clause ("the
region X's seat is part of"), a kind's noun before a name after "where" ("where chef X trained") or
in a request ("I need chef X's ..."), an owned compound before a verb group ("the footballer X's
youth academy is based in"), a possessive after "where" ("the college where X's chef trained"), a
title's "The" ("The Old Mill's owner's base?"). Each with the look-alikes it must leave as they
were. Fictional names."""

from __future__ import annotations

import pytest

from gateway.knowledge_graph.question import hop_words, steps


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("Where did the coach at Orrin Rovers train?", 2),
        ("The college where the chef at Vask Kitchen learned to cook", 2),
        ("Looking for the hometown of the cook that the chef at the restaurant Vask Kitchen learned under", 3),
        ("The shire the hometown of the chef at the restaurant Vask Kitchen lies in", 3),
    ],
)
def test_a_determined_noun_at_a_name_is_a_relation(question: str, count: int) -> None:
    assert steps(question) == count


def test_the_noun_at_a_name_is_the_first_hops_word() -> None:
    assert hop_words("The college where the chef at Vask Kitchen learned to cook") == [
        ["chef"],
        ["college", "learned", "cook"],
    ]


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("Who trained at Vask Kitchen?", 1),  # a verb's "at"
        ("Which firm runs the trains stopping at Kelby station?", 2),  # a participle's
        ("Which engineer laid out the tracks that stop at Kelby station?", 2),  # a relative clause's verb
        ("Who taught the person running the kitchen at Vask Kitchen?", 2),  # a participle's object
        ("When is the show at 8 in Kelby?", 1),  # a time
        ("Who won the race at Monza?", 1),  # a verb's object: "at" may be where it was won
        ("Give me the chef who taught the chef at Vask Kitchen", 1),  # likewise, taught there
    ],
)
def test_at_after_a_verb_or_a_participle_or_before_a_time_is_no_new_relation(question: str, count: int) -> None:
    assert steps(question) == count


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("Whoever set up the club Ada Vell played for?", 2),  # as "Who set up the club ...?"
        ("Find the region the location of Kelby Mill is part of", 2),
        ("What's the region Vask Kitchen's base is part of?", 2),
        ("Give me the location of the college where chef Ada Vell learned to cook", 2),
        ("What's the college where chef Ada Vell learned to cook?", 1),
        ("Tell me the town the footballer Ada Vell's youth academy is based in", 2),
        ("The college where The Vask Arms' chef learned to cook", 2),
        ("The Old Kelby's owner's base?", 2),
        ("I need chef Ada Vell's teacher's alma mater", 2),
    ],
)
def test_a_questions_clauses_and_titles_are_counted_once(question: str, count: int) -> None:
    assert steps(question) == count


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("Which band is Ada Vell a member of?", 1),  # a kind's copula: its own reading, unchanged
        ("Who set up the club Ada Vell played for?", 2),
        ("What is the company Ada Vell's brother works for?", 2),  # a one-word owned noun, as before
        ("The Old Kelby was sold in 1990", 1),  # a statement, no possessive chain
        ("Tell me the town the firm Ada Vell founded is based in", 2),  # a verb before "is": counted
    ],
)
def test_look_alikes_keep_their_count(question: str, count: int) -> None:
    assert steps(question) == count
