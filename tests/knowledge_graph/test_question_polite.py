"""More forms of a chain question read as the question they ask (#28, session 15): a request asked
politely ("Could you tell me the ...", "do you know the ...", "..., please"), a request for
"whoever" did something, a reduced passive relative clause with a preposition other than "by" ("the
opera captured ON X"), a relative "whose" whose noun is its clause's subject ("the person whose firm
introduced X"), and a bare noun phrase holding "whoever" or a present participle. Each was counted
one relation (or one too few) before; their look-alikes keep their reading."""

from __future__ import annotations

import pytest

from gateway.knowledge_graph.question import as_question, hop_words, steps

ASKED = "What is the river the inventor of Brask Lamp settled in?"


@pytest.mark.parametrize(
    "text",
    [
        "Could you tell me the river the inventor of Brask Lamp settled in?",
        "can you please show me the river the inventor of Brask Lamp settled in",
        "do you know the river the inventor of Brask Lamp settled in",
        "Do you know the river the inventor of Brask Lamp settled in?",
        "I'd like to know the river the inventor of Brask Lamp settled in, please.",
        "i'd like to know the river the inventor of Brask Lamp settled in please",
    ],
)
def test_a_polite_request_reads_as_the_question(text: str) -> None:
    """Read as it stands, a polite lead's words were no request and a closing "please" hid the
    contact clause's stranded preposition: one relation."""
    assert as_question(text) == ASKED
    assert steps(text) == steps(ASKED) == 2
    assert hop_words(text) == hop_words(ASKED)


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Could you tell me the hometown of Tove Lind's teacher?", 2),
        ("do you know the alma mater of brask's composer", 2),
    ],
)
def test_a_polite_request_for_a_possessive_chain_counts_it(text: str, count: int) -> None:
    assert as_question(text).startswith("What is ")
    assert steps(text) == count


@pytest.mark.parametrize(
    "text",
    [
        # a content clause after "do you know", a plain phrase, no chain
        "Do you know the inventor of Brask Lamp was born in Leeds?",
        "Do you know the way to the station?",
        "do you know the answer",
        # a modal before a verb that asks for no thing ("send me", "call me"), or no definite object
        "Could you send me the invoice of the shop that sold Brask Lamp?",
        "could you tell me how to set the timeout",
        "can you show me a list of the files",
    ],
)
def test_polite_look_alikes_are_left_as_they_are(text: str) -> None:
    assert as_question(text) == text


@pytest.mark.parametrize(
    ("text", "asked", "count"),
    [
        ("look up whoever set up the label Tove Lind worked for", "Who set up the label Tove Lind worked for?", 2),
        ("Tell me whoever founded Brask Lamp's maker", "Who founded Brask Lamp's maker?", 2),
        ("tell me whoever edited Brask Nights", "Who edited Brask Nights?", 1),
    ],
)
def test_a_request_for_whoever_reads_as_a_who_question(text: str, asked: str, count: int) -> None:
    assert as_question(text) == asked
    assert steps(text) == count


def test_a_command_for_whoever_is_no_request() -> None:
    text = "send whoever set up the label Tove Lind worked for a message"
    assert as_question(text) == text


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Which house first staged the opera captured on Brask Live?", 2),
        ("Who wrote the music for the stage work heard on Brask Sessions?", 2),
        ("What is the place the artist commemorated in Tove Rose hails from?", 2),
        ("Where is the firm that first sold the plant shown on the Brask Service located?", 3),
    ],
)
def test_a_reduced_passive_clause_with_a_preposition_is_a_relation(text: str, count: int) -> None:
    """ "the opera captured ON X" is the opera's relation to X, as "the peak attempted BY X" is."""
    assert steps(text) == count


@pytest.mark.parametrize(
    ("text", "count"),
    [
        # no name after the preposition: a time, a place's common noun, a manner
        ("Who directed the film released in 1999?", 1),
        ("Which studio recorded the album released on vinyl?", 1),
        # the clause's own verb after an auxiliary or a relative
        ("Where was the album recorded in Brask Studio?", 1),
    ],
)
def test_participle_look_alikes_keep_their_count(text: str, count: int) -> None:
    assert steps(text) == count


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Who is the person whose firm introduced Brask Lamp?", 2),
        ("What is the town whose native sings the lead on Brask Nights?", 2),
        ("Which town was the composer whose opera is heard on Brask Nights born in?", 3),
    ],
)
def test_a_whose_clauses_subject_noun_is_a_relation(text: str, count: int) -> None:
    """ "the person WHOSE firm introduced X": the person's firm, and the firm's introducing X."""
    assert steps(text) == count


@pytest.mark.parametrize(
    ("text", "count"),
    [
        # "whose" opening the question: its own rule, unchanged
        ("Whose firm introduced Brask Lamp?", 2),
        # a be-form's subject before no participle: the noun names, no relation of its own
        ("Who is the author whose name is Tove Lind?", 1),
    ],
)
def test_whose_look_alikes_keep_their_count(text: str, count: int) -> None:
    assert steps(text) == count


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("the place whoever set up the club Tove Lind belonged to came from?", 3),
        ("the county containing the place Tove Lind came from?", 2),
    ],
)
def test_a_bare_phrase_with_whoever_or_a_participle_reads_as_the_question(text: str, count: int) -> None:
    assert as_question(text).startswith("What is ")
    assert steps(text) == count


@pytest.mark.parametrize(
    "text",
    ["the kernel panics during boot", "the server handling the requests crashed", "the timeout setting of nginx"],
)
def test_bare_phrase_look_alikes_are_left_as_they_are(text: str) -> None:
    assert as_question(text) == text
    assert steps(text) == 1
