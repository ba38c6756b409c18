"""How a chain question typed in lower case is counted (#28, draped's questions with no start): the
kg ranker looks a lower-case question's word runs up only when its grammar counts two relations or
more (`steps`), so a lower-case question read as one relation is left to hybrid search. The rules:
a contact relative clause read by its shape ("the city acme trust operates from"), a first person's
need and a bare "find" as request leads, a lower-case possessive chain ("vell press's owner's
seat"), a participle after a noun with a modifier ("the literary agency acting for N") and "behind"
as a noun phrase's link. Each with the look-alikes it must leave as they were: statements, how-to
questions, a relative clause with its own subject, a participle's phrase, an infinitive, a verb and
its object's possessive, a lower-case name with a gerund in it."""

from __future__ import annotations

import pytest

from gateway.knowledge_graph.question import as_question, steps


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("what is the region that contains the city vell trust operates from?", 2),
        ("show me the town the alma mater of the editor ada brask is in", 2),
        ("the place the person who directed tarn nights trained at?", 2),
        ("the area that contains the place brask television is run from?", 2),
        ("what's the campus town of the academy ada brask graduated from?", 2),
    ],
)
def test_a_lower_case_contact_clause_is_read_by_its_shape(question: str, count: int) -> None:
    assert steps(question) == count
    # as the same question with its names capitalised
    assert steps(question) == steps(
        question.replace("vell trust", "Vell Trust")
        .replace("ada brask", "Ada Brask")
        .replace("tarn nights", "Tarn Nights")
        .replace("brask television", "Brask Television")
    )


@pytest.mark.parametrize(
    "question",
    [
        "what is the city vell trust operates from?",  # the head noun's own clause: one relation
        "what is the company that the founder works for?",  # the relative's own subject
        "what is the place to go to?",  # an infinitive
        "what is the flag used for?",  # a participle's phrase, no subject
        "what is the port the server listens on?",  # one subject word: a compound noun as often
        "how do i find the file the server reads from?",  # a how-to question: no entity's relation
        "the file the server reads from",  # no question, no request
        "which town is the founder of vell press from?",  # a kind's copula: its own preposition
    ],
)
def test_look_alikes_of_a_lower_case_contact_clause_keep_their_count(question: str) -> None:
    assert steps(question) == {"which town is the founder of vell press from?": 2}.get(question, 1)


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("i need the region that contains the city vell trust operates from", 2),
        ("i want the hometown of the person who founded vell press", 2),
        ("find the area that contains the place the person who started vell films comes from", 3),
        ("find the hometown of the person who founded vell press", 2),
    ],
)
def test_a_first_persons_need_and_find_lead_a_request(text: str, count: int) -> None:
    assert as_question(text).startswith("What is ")
    assert steps(text) == count


@pytest.mark.parametrize(
    "text",
    [
        "find - search for files in a directory hierarchy",  # a manual page's NAME line
        "find files by name",  # no definite object
        "i need to restart the server",  # no noun phrase after the lead
        "I think the founder of Acme was born in Leeds",  # another verb: a content clause
        "I need Of Mice and Men's publisher",  # capitalised: `_REQUEST`'s, read as before
    ],
)
def test_look_alikes_of_a_request_lead_are_no_request(text: str) -> None:
    assert as_question(text) == text


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("vell medal's awarding body's headquarters?", 2),
        ("find vell library's parent company's founder", 2),
        ("what is vell press's owner's seat?", 2),
    ],
)
def test_a_lower_case_possessive_chain_opens_a_noun_phrase(question: str, count: int) -> None:
    assert steps(question) == count


@pytest.mark.parametrize(
    "text",
    [
        "override package's version",  # a verb and its object's possessive: one possessive
        "the company's founder's birthplace",  # a determined phrase: read as before
    ],
)
def test_look_alikes_of_a_lower_case_possessive_chain_keep_their_reading(text: str) -> None:
    if text.startswith("override"):
        assert as_question(text) == text
    else:
        assert steps(text) == steps("What is the company's founder's birthplace?")


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("where is the literary agency acting for the writer of the novel brask lamp based?", 3),
        ("The city the literary agency acting for the novelist Ada Brask operates from?", 2),
        ("the body behind the vell inheritance (1994)'s prize", 2),
    ],
)
def test_a_participle_after_a_modified_noun_and_behind_link_relations(question: str, count: int) -> None:
    assert steps(question) == count


@pytest.mark.parametrize(
    ("text", "count"),
    [
        # a lower-case name with a gerund in it: no participle's clause
        ("looking for the area that contains the city vell broadcasting corporation broadcasts from", 2),
        ("The man behind the curtain", 1),  # one link: a headline, read as it is
        ("The man running for office", 1),
    ],
)
def test_look_alikes_of_a_participle_and_behind_keep_their_count(text: str, count: int) -> None:
    assert steps(text) == count
