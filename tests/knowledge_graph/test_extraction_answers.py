"""A "Where ...?" question answered by a fragment (#28, the cloaked corpus's diagnosis): an interview's
"Q: Where were you born? A: In P, a long time ago." or a FAQ's "Where was N born? In P." states the
page subject's relation across the two sentences; extraction reads it as the statement it
abbreviates. Not an instruction answering a "how" question, a question whose last word is no verb
("Where do I set the proxy?"), a subject that is a noun phrase, or an answer that is a sentence.
Through the extractor's API, fictional names, the test's own wording; each positive case fails on
the extraction before the rule."""

from __future__ import annotations

from gateway.knowledge_graph.answers import answered
from gateway.knowledge_graph.extract import Gazetteer, RuleExtractor, extract

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
