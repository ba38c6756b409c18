"""Lines that state a relation on their own (`captions.py`, `layouts.py`; #28, the draped corpus's
diagnosis): a byline under its work's title ("THE LIND LETTERS\\nby Ada Vell"), a list caption whose
participle phrase is each listed name's relation ("People born in Kelby: A and B."), a credit's two
participles ("Founded and owned by N.": each its relation), and an e-mail's inline answer to a quoted
question on a person's page ("> where was he born?\\nIn Kelby."). Each with the look-alikes it must
leave as they were: a heading "By Train", "by default", a "by" line under another line or on a
person's page, a caption with no plural head or with no names listed, "Need ... by N", a title's text
pasted into a sentence, a quoted question answered by a sentence or on an e-mail thread's page. One
test per rule goes through ingestion's `build_file_graph`, whose subject and type guess are
production's. Through the extractor's API, fictional names, the test's own wording."""

from __future__ import annotations

import time

import pytest

from gateway.knowledge_graph.captions import read_captions
from gateway.knowledge_graph.extract import Gazetteer, RuleExtractor, extract
from gateway.knowledge_graph.index import build_file_graph

BOOK = ("The Lind Letters", "title")
TOWN = ("Kelby", "place")
PERSON = ("Tove Lind", "person")


def _typed(text: str, subject: tuple[str, str], *titles: str) -> set[tuple[str, str, str]]:
    graph = extract(RuleExtractor(), text, known=Gazetteer([subject[0], *titles]), subject=subject)
    return {(s, d, kind) for s, d, kind, _ in graph.relations if kind != "co_occurs"}


def _filed(filename: str, text: str, *titles: str) -> set[tuple[str, str, str]]:
    """Typed relations of a one-chunk file as ingestion builds them: the page's subject is its title
    line and the type guessed from it, as in production."""
    graph = build_file_graph(RuleExtractor(), "s", "f", filename, [("c", text)], list(titles))
    return {(r.source, r.target, r.type) for r in graph.relations if r.type != "co_occurs"}


def test_a_byline_under_its_title_names_the_author() -> None:
    text = "Spring catalogue\n\nTHE LIND LETTERS\nby Ada Vell\nNovel, 320 pages"
    assert ("the lind letters", "ada vell", "written_by") in _typed(text, BOOK)
    text = "# The Lind Letters\nby Ada Vell"
    assert ("the lind letters", "ada vell", "written_by") in _typed(text, BOOK)
    text = "Notes from Kelby\nby Ada Vell\n\nA novel of the sea."
    assert ("notes from kelby", "ada vell", "written_by") in _filed("notes.txt", text, "Ada Vell")


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
    text = "Kelby\n\nKelby is a town.\n\nPeople born in Kelby: Ada Vell and Bo Sarn."
    got = _filed("kelby.txt", text, "Ada Vell", "Bo Sarn")
    assert {("ada vell", "kelby", "born_in"), ("bo sarn", "kelby", "born_in")} <= got


@pytest.mark.parametrize(
    "text",
    [
        "Files stored in Docker: see below.",  # no names listed
        "Tickets sold in Paris: 2,000",
        "Note on Paris: Ada Vell",  # no participle, no plural head
        "Ada born in Kelby: Bo Sarn",  # a name, no plural noun, heads it
        "Released in Kelby: Ada Vell and Bo Sarn",  # no head noun
        "Books embed in Kelby: Ada Vell",  # "embed": no participle
        "Songs freed in Kelby: Ada Vell",  # "-eed": none taken
    ],
)
def test_look_alikes_of_a_list_caption_are_left_as_they_are(text: str) -> None:
    assert read_captions(text, TOWN) == text


def test_an_emails_inline_answer_to_a_quoted_question_states_the_relation() -> None:
    text = "Tove Lind\n\nAnswers inline.\n\n> where was he born?\nIn Kelby.\n\nHis agent: Bo Sarn."
    assert ("tove lind", "kelby", "born_in") in _filed("tove_lind.txt", text, "Kelby", "Bo Sarn")
    text = "Answers inline.\n\n>\twhere was he born?\nIn Kelby."  # a tab after the quote mark too
    assert ("tove lind", "kelby", "born_in") in _typed(text, PERSON, "Kelby")


@pytest.mark.parametrize(
    ("text", "titles"),
    [
        (
            "Subject: Re: bio for Tove Lind\n\nAnswers inline.\n\n> where was he born?\nIn Kelby.\n\n"
            "His agent: Bo Sarn.",
            ("Tove Lind", "Kelby", "Bo Sarn"),
        ),
        (
            "Subject: Re: visit from Tom Hart\n\nHi all.\n\n> where is he staying?\nAt Grand Hotel.",
            ("Tom Hart", "Grand Hotel"),
        ),
    ],
)
def test_a_threads_quoted_question_credits_no_thread(text: str, titles: tuple[str, ...]) -> None:
    # the page's subject is the e-mail thread, not a person: "he" is whoever the thread is about
    assert not any(d in ("kelby", "grand hotel") for _, d, _ in _filed("mail.txt", text, *titles))


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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Founded and owned by Ada Vell.", {"founded_by", "part_of"}),
        ("Founded and run by Ada Vell.", {"founded_by", "led_by"}),
        ("Written and illustrated by Ada Vell.", {"written_by"}),
        ("Acquired and edited by Ada Vell.", {"part_of"}),  # "acquired by N": N owns it, as in English
    ],
)
def test_two_participles_credit_the_pages_subject_each_with_its_relation(text: str, expected: set[str]) -> None:
    got = _filed("works.txt", f"Kelby Lamp Works\n\nA lamp works in Kelby. {text}", "Ada Vell", "Kelby")
    assert expected <= {kind for s, d, kind in got if {s, d} == {"kelby lamp works", "ada vell"}}


@pytest.mark.parametrize(
    "text",
    [
        "Directed by Ada Vell, this film is her best.",  # a fronted phrase: the sentence goes on
        "Surrounded by Ada Vell's friends.",  # the name owns more words
        "Founded and run by NASA.",  # a one-word name
        "He was Born and raised by Ada Vell.",  # no sentence opens on the participle
        "Need help? Need more by Jane Doe.",  # "-eed": no participle
        "Seed and feed by Jane Doe.",
        "Shed and embed by Jane Doe.",  # a two-letter stem; "embed"
    ],
)
def test_look_alikes_of_a_credit_are_left_as_they_are(text: str) -> None:
    assert read_captions(text, BOOK) == text


def test_a_rewrite_writes_no_title_into_the_text() -> None:
    # a changelog's title line is no name: a credit, a byline leave the subject elided
    title = ("base-files (12.4+deb12u11) bookworm; urgency=medium", "entity")
    text = "  * Added /run. Requested by Roger Leigh. Added and tested by Roger Leigh."
    assert "urgency" not in read_captions(text, title)
    got = _filed("changelog", f"{title[0]}\n\n{text}", "Roger Leigh")
    assert got and not any("urgency" in kind for _, _, kind in got)


@pytest.mark.parametrize(
    "text",
    [
        "Restored by Alpha Hall" + " " * 100_000 + ", the Beta Mill grinds rye.",
        "People born in Kelby: Ada Vell" + " " * 100_000 + "x",
        "People born in Kelby: " + "Ada Vell, " * 10_000 + "x",
        "THE LIND LETTERS\nby Ada Vell" + " " * 100_000 + "x",
        "Founded and " + "run " * 30_000 + "by Ada Vell.",
    ],
)
def test_the_rewrites_are_linear_on_hostile_text(text: str) -> None:
    started = time.process_time()
    read_captions(text, BOOK)
    assert time.process_time() - started < 2
