"""The forms a search box's user puts a chain question in (#28): a definite noun phrase alone ("The
town the founder of X was born in"), a first-person or gerund lead ("I'd like to know the ...",
"Looking for the ..."), a lower-case imperative addressed to the reader ("show me the ..."), and a
question word's "'s" ("What's the ..."): each is read as the "What is ...?" question it asks; the
statements, questions and manual-page NAME lines that only look like them are left as they are."""

from __future__ import annotations

import pytest

from gateway.knowledge_graph.question import as_question, hop_words, steps

ASKED = "What is the town the founder of Acme Yard was born in?"


@pytest.mark.parametrize(
    "text",
    [
        "The town the founder of Acme Yard was born in",
        "The town the founder of Acme Yard was born in?",
        "the town the founder of Acme Yard was born in",
        "I'd like to know the town the founder of Acme Yard was born in",
        "I would like to know the town the founder of Acme Yard was born in.",
        "Looking for the town the founder of Acme Yard was born in",
        "I'm looking for the town the founder of Acme Yard was born in",
        "show me the town the founder of Acme Yard was born in",
        "What's the town the founder of Acme Yard was born in?",
    ],
)
def test_a_noun_phrase_request_or_contraction_reads_as_the_question(text: str) -> None:
    assert as_question(text) == ASKED
    assert steps(text) == steps(ASKED) == 2
    assert hop_words(text) == hop_words(ASKED)


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Acme Yard's founder's birthplace", 2),
        ("jenzo's editor's birthplace", 2),
        ("The birthplace of the founder of Acme Yard", 2),
        ("The alma mater of the producer who set up Acme Pictures", 2),
    ],
)
def test_a_bare_chain_counts_its_relations(text: str, count: int) -> None:
    assert as_question(text).startswith("What is ")
    assert steps(text) == count


@pytest.mark.parametrize(
    "text",
    [
        # statements about a definite noun phrase (it runs into an auxiliary)
        "The founder of Acme was born in Leeds.",
        "The gateway was restarted after the upgrade",
        # a question opened by a preposition, a request with a verb before the possessive
        "Under whom did SS Jeaba's commander first serve?",
        # manual pages' NAME lines: a verb and its object before a possessive, no definite object
        "override a package's version of a file",
        "override package's version",
        "looking for files in a directory hierarchy",
        "show me how to set the timeout",
        # a phrase before its own question
        "The composer of Lute Suite: which town?",
        "The founder of Acme Yard, who was she?",
        # a pronoun's "'s" owns nothing
        "it's the town where Ada Vell was born",
    ],
)
def test_look_alikes_are_left_as_they_are(text: str) -> None:
    assert as_question(text) == text


def test_a_question_words_contraction_counts_as_the_copula() -> None:
    assert steps("who's the person who started the firm Acme Yard was built by?") == steps(
        "who is the person who started the firm Acme Yard was built by?"
    )


@pytest.mark.parametrize(
    ("question", "count"),
    [
        # a kind asked with a copula whose subject ends on a stranded preposition: that preposition is
        # the question's own relation, the subject's "of"/clause/possessive another
        ("Which region is the birthplace of Ada Vell in?", 2),
        ("Which town is the founder of Acme Yard from?", 2),
        ("Which region is Acme Yard's workshop in?", 2),
        ("Which region is the town that hosts the Orrin Fair in?", 2),
        # the kind's own "of" joins nothing: "What part of the country" is the answer's kind
        ("What part of the country is Acme Yard's home town in?", 2),
        # a particle's "out of" at the end is the contact clause's preposition, counted once
        ("What is the town the firm behind Acme Yard works out of?", 2),
    ],
)
def test_a_kinds_copula_and_a_particles_of_count_once(question: str, count: int) -> None:
    assert steps(question) == count


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("Which region is Acme Yard in?", 1),  # one relation: the preposition's
        ("Which town is the capital of Norway?", 1),  # no stranded preposition: the copula's head
        ("What is the province it is part of?", 1),  # a stranded "of" after no particle
        ("Which county is Ada Vell's birthplace?", 1),  # no stranded preposition, a possessive's head
    ],
)
def test_look_alikes_of_the_kinds_copula_keep_their_count(question: str, count: int) -> None:
    assert steps(question) == count
