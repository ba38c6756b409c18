"""Layouts read before extraction (`layouts.py`, #28, the cloaked corpus's diagnosis).

A "Where ...?" question answered by a fragment: an interview's "Q: Where were you born? A: In P, a
long time ago." or a FAQ's "Where was N born? In P." states the page subject's relation across the
two sentences; extraction reads it as the statement it abbreviates. Not an instruction answering a
"how" question, a question whose last word is no verb ("Where do I set the proxy?"), a subject that
is a noun phrase, or an answer that is a sentence. A news-wire dateline is no sentence's subject; a
capitalised word and a dash alone are no dateline. Through the extractor's API, fictional names,
the test's own wording; each positive case fails on the extraction before its rule."""

from __future__ import annotations

from gateway.knowledge_graph.extract import Gazetteer, RuleExtractor, extract
from gateway.knowledge_graph.layouts import answered, undated

SUBJECT = ("Ada Vell", "person")


def _typed(text: str, *titles: str) -> set[tuple[str, str, str]]:
    graph = extract(RuleExtractor(), text, known=Gazetteer([SUBJECT[0], *titles]), subject=SUBJECT)
    return {(s, d, kind) for s, d, kind, _ in graph.relations if kind != "co_occurs"}


def test_an_interviews_fragment_answer_states_the_subjects_relation() -> None:
    text = "Ada Vell, painter, in conversation.\n\nQ: Where were you born?\nA: In Dunholt, a long time ago."
    assert ("ada vell", "dunholt", "born_in") in _typed(text, "Dunholt")


def test_a_faqs_fragment_answer_after_its_question_states_the_relation() -> None:
    text = "Where was Vell born? In Dunholt, where she also grew up.\n\nWhere did Vell study? At Kelton Academy."
    got = _typed(text, "Dunholt", "Kelton Academy")
    assert ("ada vell", "dunholt", "born_in") in got
    assert any(s == "ada vell" and d == "kelton academy" for s, d, _ in got)


def test_a_pronoun_subject_is_the_pages() -> None:
    got = _typed("Where is it held? In Dunholt, every year.", "Dunholt")
    assert any(s == "ada vell" and d == "dunholt" for s, d, _ in got)


def test_instructions_and_other_questions_are_left_as_they_are() -> None:
    for text in [
        "How do I change it? In Settings, choose Dark.",  # a "how" question: an instruction
        "Where do I set the proxy? In Settings, under Network.",  # its last word is no verb
        "Where is the file kept? In Settings, under Network.",  # a noun phrase's subject
        "Where was Ada Vell born? She was born in a village.",  # a sentence, no fragment
        "Where were you? In Rome.",  # no verb
        "Is it open? In Summer, yes.",  # a yes-no question
    ]:
        assert answered(text) == text, text


def test_text_with_no_question_is_returned_unscanned() -> None:
    text = "Ada Vell was born in Dunholt. In Kelton, she studied."
    assert answered(text) is text


def test_a_news_wire_dateline_is_no_subject_of_its_sentence() -> None:
    text = "KELTON, 22 Apr 1996 (Wirenews) \u2014 Orrin Fair, the fair held in Dunholt, marked an anniversary."
    got = _typed(text, "Orrin Fair", "Dunholt", "Kelton")
    assert any(s == "orrin fair" and d == "dunholt" for s, d, _ in got)
    assert not any(s == "kelton" for s, _, _ in got)
    for dateline in ["LONDON (Reuters) \u2014 ", "PARIS, March 3 \u2014 ", "NEW YORK, 5 May -- "]:
        assert undated(dateline + "Acme said.") == " " * len(dateline) + "Acme said."


def test_a_capitalised_word_and_a_dash_alone_are_no_dateline() -> None:
    for text in [
        "NOTE \u2014 this is a draft.",
        "USA \u2014 the country of Ada Vell.",
        "Ada Vell (1901) \u2014 painter.",
        "- Director \u2014 Ada Vell",
        "Ada Vell, 22 Apr \u2014 painter.",
    ]:
        assert undated(text) == text, text
