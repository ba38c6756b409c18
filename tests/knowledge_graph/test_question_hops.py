"""The question's grammar for the `kg` walk (#28): which relation words name which hop of the chain,
innermost first (the relation applied to the entity the question names first, the one whose target
is the answer last), one group per step. Fictional names; no corpus's wording."""

from __future__ import annotations

import pytest

from gateway.knowledge_graph.question import hop_words, steps


@pytest.mark.parametrize(
    ("question", "hops"),
    [
        # "of" chains read outer-first: the walk takes them from the end
        ("What is the birthplace of the founder of Tarvel Mills?", [["founder"], ["birthplace"]]),
        # a relative clause's verb comes after its subject: the subject's relation is inner
        (
            "In which province is the town where the founder of Acme Yard was born?",
            [["founder"], ["town"], ["province"]],
        ),
        # possessives read inner-first
        ("What is Acme's founder's birthplace?", [["founder"], ["birthplace"]]),
        ("Where was the Orrin Garden's designer raised?", [["designer"], ["raised"]]),
        # a subject relative clause: its verb is its relation, its head noun the kind of its target
        ("Which mentor trained the potter who glazed the Ulm Vase?", [["potter", "glazed"], ["mentor", "trained"]]),
        # the question's own verb after a clause's subject closes the outermost clause
        (
            "In which town did the physician who cured Dorn Vell grow up?",
            [["physician", "cured"], ["town", "grow"]],
        ),
    ],
)
def test_hop_words_are_grouped_innermost_first(question: str, hops: list[list[str]]) -> None:
    assert hop_words(question) == hops
    assert len(hop_words(question)) == steps(question)


@pytest.mark.parametrize(
    "question",
    [
        "Who founded Kestle Paper?",
        "Where was the mentor of the Kvostbird Infirmary's founder raised?",
        "What was the birthplace of the teacher under whom the painter who decorated the Grell Hall first studied?",
        "How do I set the timeout for Nginx?",
        "control information of a PostgreSQL database cluster",
        "What is " + "Ab's " * 50 + "birthplace?",
    ],
)
def test_one_group_per_step(question: str) -> None:
    groups = hop_words(question)
    assert len(groups) == steps(question) >= 1
    assert all(w.islower() for g in groups for w in g)


def test_no_chain_no_hops() -> None:
    assert hop_words("") == []
    assert hop_words("?!") == []
