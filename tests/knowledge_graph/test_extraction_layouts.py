"""Layouts read before extraction (`layouts.py`, #28, the cloaked corpus's diagnosis).

A "Where ...?" question answered by a fragment: a press interview's "Where did you grow up? On
Skarn, until I was ten." or a help page's "Where was Tove Lind trained? At Brask Conservatory."
states the page subject's relation across the two sentences; extraction reads it as the statement
it abbreviates, the subject named. Not an instruction answering a "how" question, a question whose
last word is no verb ("Where do I set the proxy?", "Where are they now?"), a subject that is a noun
phrase or a pronoun that cannot be the page's subject ("I", "we", "they"; "it" on a person's page),
or an answer that is a sentence ("In London I got lost.", "In Berlin, the members run a bar."). A
news-wire dateline (a place in capitals and a date, or a one-word agency in brackets) is no
sentence's subject; a list of names, an apposition or a bracket of several words before a dash is
no dateline. Through the extractor's API, fictional names, the test's own wording; each positive
case fails on the extraction before its rule."""

from __future__ import annotations

from gateway.knowledge_graph.extract import Gazetteer, RuleExtractor, extract
from gateway.knowledge_graph.layouts import answered, undated

PERSON = ("Tove Lind", "person")
EVENT = ("Skarn Regatta", "event")


def _typed(text: str, subject: tuple[str, str], *titles: str) -> set[tuple[str, str, str]]:
    graph = extract(RuleExtractor(), text, known=Gazetteer([subject[0], *titles]), subject=subject)
    return {(s, d, kind) for s, d, kind, _ in graph.relations if kind != "co_occurs"}


def test_an_interviews_fragment_answer_states_the_subjects_relation() -> None:
    text = "Tove Lind talks to the Brask Courier.\n\nQ: Where did you grow up?\nA: On Skarn, until I was ten."
    assert any(s == "tove lind" and d == "skarn" for s, d, _ in _typed(text, PERSON, "Skarn", "Brask Courier"))
    text = "Interview.\nQ: Where were you born?\nA: In Orrin Dale."
    assert ("tove lind", "orrin dale", "born_in") in _typed(text, PERSON, "Orrin Dale")


def test_a_help_pages_fragment_answer_after_its_question_states_the_relation() -> None:
    text = (
        "Where was Lind trained? At Brask Conservatory, which she left in 1960.\n\nWhere did Lind teach? In Orrin Dale."
    )
    got = _typed(text, PERSON, "Brask Conservatory", "Orrin Dale")
    assert any(s == "tove lind" and d == "brask conservatory" for s, d, _ in got)
    assert any(s == "tove lind" and d == "orrin dale" for s, d, _ in got)


def test_it_is_the_subject_of_a_page_that_speaks_of_no_person() -> None:
    got = _typed("Where is it sailed? Near Skarn, each August.", EVENT, "Skarn")
    assert any(s == "skarn regatta" and d == "skarn" for s, d, _ in got)


def test_a_pronoun_that_cannot_be_the_pages_subject_states_nothing() -> None:
    for text, subject in [
        ("Where did they meet? In Paris, in 1990.", PERSON),  # a group
        ("She recalls a storm. Where did it happen? In Berlin.", PERSON),  # a person's page: "it" an event
        ("Where did we leave off? At Chapter Two.", EVENT),  # the asker
        ("Where was I? In Chapter Three.", EVENT),
    ]:
        assert answered(text, subject) == text, text


def test_no_pronoun_leaks_into_the_relation() -> None:
    got = _typed("Q: Where do you work? A: At Brask Works, on lamps.", PERSON, "Brask Works")
    assert ("tove lind", "brask works", "~work at") in got
    assert not any("you" in k for _, _, k in got)


def test_instructions_sentences_and_other_questions_are_left_as_they_are() -> None:
    for text in [
        "How do I change it? In Settings, choose Dark.",  # a "how" question: an instruction
        "Where do I set the proxy? In Settings, under Network.",  # its last word is no verb
        "Where is the file kept? In Settings, under Network.",  # a noun phrase's subject
        "Where was Tove Lind born? She was born in a village.",  # a sentence, no fragment
        "Where were you? In Rome.",  # no verb
        "Is it open? In Summer, yes.",  # a yes-no question
        "Where were you going? In London I got lost.",  # the answer is a sentence
        "Where are they now? In Berlin, the band members run a bar.",  # an adverb, and a sentence
        "Where is it going? In Version 3 we will drop Python 2.",  # a sentence
        "Where do they differ? In Windows, paths use backslashes.",  # a sentence after the comma
    ]:
        for subject in (PERSON, EVENT):
            assert answered(text, subject) == text, text


def test_text_with_no_question_is_returned_unscanned() -> None:
    text = "Tove Lind was born in Skarn. In Brask, she studied."
    assert answered(text, PERSON) is text


def test_a_news_wire_dateline_is_no_subject_of_its_sentence() -> None:
    text = "BRASK, 9 Oct 1971 (Courier) \u2014 Skarn Regatta, the race sailed near Orrin Dale, drew a crowd."
    got = _typed(text, EVENT, "Orrin Dale", "Brask")
    assert any(s == "skarn regatta" and d == "orrin dale" for s, d, _ in got)
    assert not any(s == "brask" for s, _, _ in got)
    for dateline in [
        "OSLO (NTB) \u2014 ",
        "ROME, June 12 \u2014 ",
        "SAN JOSE, 2024-05-01 -- ",
        "LIMA, 12/3/99 \u2013 ",
    ]:
        assert undated(dateline + "Acme said.") == " " * len(dateline) + "Acme said."


def test_names_an_apposition_or_a_word_before_a_dash_are_no_dateline() -> None:
    for text in [
        "NOTE \u2014 this is a draft.",
        "USA \u2014 the country of Tove Lind.",
        "Tove Lind (1941) \u2014 cellist.",
        "- Conductor \u2014 Tove Lind",
        "Tove Lind, 22 Apr \u2014 cellist.",
        "IBM, Microsoft and Google \u2014 the sponsors of Acme \u2014 met in Paris.",
        "USA, Canada \u2014 Acme ships to both.",
        "GNU, Linux and BSD -- all support Acme.",
        "HTTP (RFC 9110) \u2014 the protocol used by Acme.",
        "NATO, the alliance founded in Brussels \u2014 Bob Smith joined it.",
        "CHAPTER ONE, In Which Bob Meets Ann \u2014 Bob lived in Paris.",
    ]:
        assert undated(text) == text, text
