"""How a chain question's count reads a work's title (#28, draped's diagnosis): a bracketed qualifier
before a possessive ("Brask Lamp (1994)'s editor"), a title's lower-case connector ("Notes from
Vell's editor", "the novel The House on Tarn Lane's editor"), a plural title's possessive ("The Lind
Letters' editor's birthplace"), a compound noun between two possessives ("Brask Works' parent
company's founder") and a kind's copula ending on a noun's stranded "of" ("Which region is X part
of?"). Each rule with the look-alikes it must leave as they were: statements, headlines, phrases,
other brackets, a verb's preposition between two names."""

from __future__ import annotations

import pytest

from gateway.knowledge_graph.question import as_question, hop_words, steps


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("Where is Brask Lamp (1994)'s printer based?", 2),
        ("I need the alma mater of Notes from Vell (2005)'s author", 2),
        ("Tell me the person who founded Brask Lamp (1987)'s imprint's owner", 3),
        ("What is the birthplace of Acme (UK)'s founder?", 2),
    ],
)
def test_a_bracketed_qualifier_before_a_possessive_is_the_names(question: str, count: int) -> None:
    assert steps(question) == count


@pytest.mark.parametrize(
    "text",
    [
        "What is f(x)'s value?",  # no space before the bracket: part of the word
        "Acme (UK) was founded in 1990",  # no possessive after the bracket
        "Brask Lamp (a novel) is set in Tarn",
        "The 1994 edition (revised)",
    ],
)
def test_other_brackets_are_left_as_they_are(text: str) -> None:
    assert "(" in as_question(text)


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("I need the novel The House on Tarn Lane's illustrator's birthplace", 2),
        ("The place Salt for Vell's translator comes from", 2),
        ("I want to know Notes from Vell's writer's agent", 2),
        ("I'm looking for Notes from Vell's writer's agent", 2),
        ("Tell me the novel The Lind Letters' writer's birthplace", 2),
        ("What is the Skiers' captain's birthplace?", 2),
    ],
)
def test_a_titles_connector_and_a_plural_possessive_stay_in_the_name(question: str, count: int) -> None:
    assert steps(question) == count


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Check Paris for Ada's files", 1),  # an imperative's preposition, no title: not read as a request
        ("The house on Ash Lane is old", 1),  # a statement
        ("The trip to Paris's museums", 1),  # a lower-case word before the connector: no title
        ("What is the yard Tove Lind worked at?", 1),
        ("What is the company Tove Lind's brother works for?", 2),
    ],
)
def test_look_alikes_of_a_titles_connector_keep_their_count(text: str, count: int) -> None:
    assert steps(text) == count


def test_an_imperatives_preposition_is_no_titles_connector() -> None:
    assert as_question("Check Paris for Ada's files") == "Check Paris for Ada's files"
    assert as_question("I want to know Notes from Vell's editor").startswith("What is Notes from Vell's editor")


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("I sent Ada to Bo's office", 1),  # a verb's preposition between two names: no request, no title
        ("I asked Bo for Ada's number", 1),
        ("I met Ada at Bo's party", 1),
        ("I need Of Mice and Men's publisher", 1),  # no request lead of `_REQUEST_LEAD`'s: read as before
    ],
)
def test_a_first_persons_other_verbs_join_no_title(text: str, count: int) -> None:
    assert steps(text) == count
    assert as_question(text) == text


@pytest.mark.parametrize(
    ("question", "count", "groups"),
    [
        ("Brask Works' parent company's headquarters?", 2, [["parent", "company"], ["headquarters"]]),
        ("What is Tove Lind's home town's region?", 2, [["home", "town"], ["region"]]),
    ],
)
def test_a_compound_noun_between_two_possessives_is_one_relation(
    question: str, count: int, groups: list[list[str]]
) -> None:
    assert steps(question) == count
    assert hop_words(question) == groups


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("What region is the hometown of the novelist Tove Lind part of?", 2),
        ("What region is Tove Lind's hometown part of?", 2),
        ("Which band is Tove Lind a member of?", 1),
        ("Which region is the seat of the firm that printed Brask Lamp part of?", 3),
    ],
)
def test_a_kinds_copula_ending_on_a_nouns_stranded_of_is_the_questions_relation(question: str, count: int) -> None:
    assert steps(question) == count


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("What is the province it is part of?", 1),  # no kind asked
        ("Which region is the hometown of Tove Lind in?", 2),  # a stranded preposition, as before
        ("What is the hometown of Tove Lind?", 1),
        ("Which member of the band is the song about?", 2),
    ],
)
def test_look_alikes_of_the_stranded_of_keep_their_count(question: str, count: int) -> None:
    assert steps(question) == count
