"""More forms of a chain question read as the question they ask (#28, session 15): a request asked
politely ("Could you tell me the ...", "do you know the ...", "..., please"), a request for
"whoever" did something, and a bare noun phrase holding "whoever" or a present participle. Each was
counted one relation (or one too few) before; their look-alikes keep their reading, among them the
docs questions two dropped `question_steps` rules read as chains (review r29r)."""

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


def test_whoever_with_no_clause_is_no_request() -> None:
    # "please" alone after "whoever" is no clause: nothing is asked (it read "Who please?")
    for text in ("find whoever please", "Tell me whoever, please."):
        assert as_question(text) == text


def test_a_command_for_whoever_is_no_request() -> None:
    text = "send whoever set up the label Tove Lind worked for a message"
    assert as_question(text) == text


@pytest.mark.parametrize(
    ("text", "count"),
    [
        # a past participle and a preposition before a name is no relation of its own (a rule reading
        # it as a reduced relative clause was tried and dropped, review r29r: each of these read as
        # a chain then, and kg's ranking of the how-to questions fell)
        ("How do I delete the files stored in S3?", 1),
        ("How do I list the objects stored in Git?", 1),
        ("Which command lists the objects stored in Git?", 1),
        ("Could you tell me the command that lists the objects stored in Git?", 1),
        ("How do I back up the database created in PostgreSQL?", 1),
        ("What is the format of the data stored in Redis?", 1),
        ("Who maintains the package published on PyPI?", 1),
        ("How do I set the random seed in PyTorch?", 1),
        ("How do I change the default character set in MySQL?", 1),
        # no name after the preposition, or the clause's own verb after an auxiliary
        ("Who directed the film released in 1999?", 1),
        ("Where was the album recorded in Brask Studio?", 1),
    ],
)
def test_participle_look_alikes_keep_their_count(text: str, count: int) -> None:
    assert steps(text) == count


@pytest.mark.parametrize(
    ("text", "count"),
    [
        # a mid-sentence "whose" counts its one link, whatever follows its noun (a rule counting the
        # noun as a relation when a word spelt like a verb followed was tried and dropped, review
        # r29r: it took plural nouns, adjectives and object clauses for that verb)
        ("What is the company whose product lines Acme sells?", 3),
        ("What is the capital of the country whose flag is red?", 2),
        ("Which customers have the orders whose status is shipped?", 2),
        ("Which team maintains the service whose config the admin changed?", 2),
        ("Who is the user whose account was locked by the admin?", 2),
        ("Which server hosts the site whose certificate expired?", 2),
        # "whose" opening the question: its own rule
        ("Whose firm introduced Brask Lamp?", 2),
    ],
)
def test_whose_look_alikes_keep_their_count(text: str, count: int) -> None:
    assert steps(text) == count


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("tell me the producer of the album Please", "What is the producer of the album Please?"),
        ("Show me the tracks of the album Please", "What is the tracks of the album Please?"),
        ("I'd like to know the singer of Please Please Please", "What is the singer of Please Please Please?"),
    ],
)
def test_a_titles_closing_please_is_kept(text: str, asked: str) -> None:
    """Only a lower-case closing "please" is said to the reader; a capitalised one is a title's."""
    assert as_question(text) == asked


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
