"""Lines that state a relation on their own (`captions.py`, `layouts.py`; #28, the draped corpus's
diagnosis): a byline under its work's title ("THE LIND LETTERS\\nby Ada Vell"), a list caption whose
participle phrase is each listed name's relation ("People born in Kelby: A and B."), and an e-mail's
inline answer to a quoted question ("> where was he born?\\nIn Kelby."). Each with the look-alikes
it must leave as they were: a heading "By Train", "by default", a "by" line under another line or on
a person's page, a caption with no plural head or with no names listed, a quoted question answered
by a sentence. Through the extractor's API, fictional names, the test's own wording."""

from __future__ import annotations

import time

import pytest

from gateway.knowledge_graph.captions import read_captions
from gateway.knowledge_graph.extract import Gazetteer, RuleExtractor, extract

BOOK = ("The Lind Letters", "title")
TOWN = ("Kelby", "place")
PERSON = ("Tove Lind", "person")


def _typed(text: str, subject: tuple[str, str], *titles: str) -> set[tuple[str, str, str]]:
    graph = extract(RuleExtractor(), text, known=Gazetteer([subject[0], *titles]), subject=subject)
    return {(s, d, kind) for s, d, kind, _ in graph.relations if kind != "co_occurs"}


def test_a_byline_under_its_title_names_the_author() -> None:
    text = "Spring catalogue\n\nTHE LIND LETTERS\nby Ada Vell\nNovel, 320 pages"
    assert ("the lind letters", "ada vell", "written_by") in _typed(text, BOOK)
    text = "# The Lind Letters\nby Ada Vell"
    assert ("the lind letters", "ada vell", "written_by") in _typed(text, BOOK)


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Getting there\n\nBy Train\nby Ada Vell", BOOK),  # a "by" line under another line
        ("THE LIND LETTERS\nby default the first page", BOOK),  # no name
        ("THE LIND LETTERS\nby Ada", BOOK),  # one word: no person's name
        ("TOVE LIND\nby Ada Vell", PERSON),  # a person's page: the page's writer, no work's author
        ("THE LIND LETTERS\nBy Train", BOOK),  # a heading
    ],
)
def test_look_alikes_of_a_byline_are_no_byline(text: str, subject: tuple[str, str]) -> None:
    assert "written by" not in read_captions(text, subject)


def test_a_list_caption_gives_each_name_its_participles_relation() -> None:
    text = "Kelby is a town.\n\nPeople born in Kelby: Ada Vell and Bo Sarn."
    got = _typed(text, TOWN, "Ada Vell", "Bo Sarn")
    assert {("ada vell", "kelby", "born_in"), ("bo sarn", "kelby", "born_in")} <= got
    text = "Notable people born in Kelby: Ada Vell."
    assert ("ada vell", "kelby", "born_in") in _typed(text, TOWN, "Ada Vell")


@pytest.mark.parametrize(
    "text",
    [
        "Files stored in Docker: see below.",  # no names listed
        "Tickets sold in Paris: 2,000",
        "Note on Paris: Ada Vell",  # no participle, no plural head
        "Ada born in Kelby: Bo Sarn",  # a name, no plural noun, heads it
        "Released in Kelby: Ada Vell and Bo Sarn",  # no head noun
    ],
)
def test_look_alikes_of_a_list_caption_are_left_as_they_are(text: str) -> None:
    assert read_captions(text, TOWN) == text


def test_an_emails_inline_answer_to_a_quoted_question_states_the_relation() -> None:
    text = "Subject: Re: bio for Tove Lind\n\nAnswers inline.\n\n> where was he born?\nIn Kelby.\n\nHis agent: Bo Sarn."
    assert ("tove lind", "kelby", "born_in") in _typed(text, PERSON, "Kelby", "Bo Sarn")


@pytest.mark.parametrize(
    "text",
    [
        "Answers inline.\n\n> where was he born?\nIn Kelby he met Bo Sarn at a party.",  # a sentence answers
        "Answers inline.\n\n> where do we meet?\nIn Kelby.",  # the asker
        "Answers inline.\n\n> how was he born?\nIn Kelby.",  # no "where"
    ],
)
def test_look_alikes_of_an_inline_answer_state_nothing(text: str) -> None:
    assert not any(d == "kelby" and kind == "born_in" for _, d, kind in _typed(text, PERSON, "Kelby", "Bo Sarn"))


def test_a_credit_sentence_credits_the_pages_subject() -> None:
    text = "A novel of the sea. Edited for this edition by Ada Vell. A Brask hardback."
    assert any(s == "the lind letters" and d == "ada vell" for s, d, _ in _typed(text, BOOK, "Ada Vell"))
    text = "THE LIND LETTERS\nAcquired and edited by Ada Vell"
    got = _typed(text, BOOK, "Ada Vell")
    assert any(s == "the lind letters" and d == "ada vell" and "edited" in kind for s, d, kind in got)
    assert not any(kind == "part_of" for _, _, kind in got)  # "acquired" is no ownership here


@pytest.mark.parametrize(
    "text",
    [
        "Directed by Ada Vell, this film is her best.",  # a fronted phrase: the sentence goes on
        "Surrounded by Ada Vell's friends.",  # the name owns more words
        "Used by NASA.",  # a one-word name
        "He was Born by Ada Vell.",  # no sentence opens on the participle
    ],
)
def test_look_alikes_of_a_credit_are_left_as_they_are(text: str) -> None:
    assert read_captions(text, BOOK) == text


@pytest.mark.parametrize(
    "text",
    [
        "Restored by Alpha Hall" + " " * 100_000 + ", the Beta Mill grinds rye.",
        "People born in Kelby: Ada Vell" + " " * 100_000 + "x",
        "People born in Kelby: " + "Ada Vell, " * 10_000 + "x",
        "THE LIND LETTERS\nby Ada Vell" + " " * 100_000 + "x",
        "Edited " + "for " * 30_000 + "by Ada Vell.",
        "My text. I wrote it.\n\u2014 Ada Vell" + " " * 100_000 + "x",
        "I " * 50_000 + "\n\u2014 " + "Ada " * 30_000,
    ],
)
def test_the_rewrites_are_linear_on_hostile_text(text: str) -> None:
    started = time.process_time()
    read_captions(text, BOOK)
    assert time.process_time() - started < 2


def test_a_first_person_text_signed_at_its_end_is_written_by_its_signer() -> None:
    text = "Acknowledgments\n\nMy thanks to my editor, who read every draft. I owe her a dinner.\n\n\u2014 Ada Vell"
    assert ("the lind letters", "ada vell", "written_by") in _typed(text, BOOK, "Ada Vell")


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("A triumph, says the critic. A great read.\n\n\u2014 Bo Sarn", BOOK),  # a third person's quotation
        ("My thanks to my editor. I am grateful.\n\n\u2014 Ada Vell\n\nMore text here.", BOOK),  # not the end
        ("My thanks to my editor. I am grateful.\n\n\u2014 Ada Vell", PERSON),  # a letter on a person's page
        ("My thanks to my editor. I am grateful.\n\n\u2014 Ada", BOOK),  # one word: no person's name
    ],
)
def test_look_alikes_of_a_signature_sign_nothing(text: str, subject: tuple[str, str]) -> None:
    assert read_captions(text, subject) == text
