"""How a chain question typed in lower case is counted (#28, draped's questions with no start): the
kg ranker looks a lower-case question's word runs up only when its grammar counts two relations or
more (`steps`), so a lower-case question read as one relation is left to hybrid search. The rules:
a contact relative clause read by its shape ("the city acme trust operates from"), a first person's
need and a bare "find" as request leads, a lower-case possessive chain ("vell press's owner's
seat?"), a lower-case name after its title's noun ("the novelist ada brask's") and "behind" as a
noun phrase's link. Each with the look-alikes it must leave as they were: statements, how-to
questions, a relative clause with its own subject, a common noun's contact clause, a participle's phrase,
an infinitive, a verb and its object's possessive, headlines and commands with possessive chains,
a participle after a modified noun, a lower-case name with a gerund in it."""

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
        ("what is the city the owner of vell trust operates from?", 2),  # a determined subject's "of"
        ("what is the city the vell trust's owner operates from?", 2),  # a determined subject's possessive
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
        "what is the name of the file nginx reads from?",  # one undetermined subject word
        # a determined subject with no link of its own: a common noun's clause, one relation
        "what is the name of the file the server reads from?",
        "what is the path of the socket the docker daemon listens on?",
        "what's the name of the hotel the wedding party stayed at?",
        "find the name of the file the nginx server writes to",
        "what is the city that the vell trust board works from?",  # the relative's own subject
        "what is the name of the street the old school building is on?",  # no noun "old" heading a clause
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
        "i need my mom's friend's number",  # a possessive determiner: the speaker's, no name
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
        # headlines and commands, no question asked: a statement's verb after the chain, or none
        # but an imperative before it
        "apple ceo's wife's car was stolen",
        "police chief's son's arrest sparks outrage",
        "tech giant's ceo's pay soars",
        "uk government's health minister's resignation",
        "override package's dependency's version",
        "install node js's npm's latest version",
        "configure nginx proxy's upstream's timeout",
        "delete docker container's volume's data",
        # asked, but a statement's words after the chain's head
        "apple ceo's wife's car was stolen?",
        "tech giant's ceo's pay soars again?",
        "apple ceo's wife's in jail?",
        "apple ceo's wife's been arrested?",
    ],
)
def test_look_alikes_of_a_lower_case_possessive_chain_keep_their_reading(text: str) -> None:
    assert as_question(text) == text
    assert steps(text) == 1


def test_a_determined_possessive_chain_reads_as_before() -> None:
    assert steps("the company's founder's birthplace") == steps("What is the company's founder's birthplace?")


@pytest.mark.parametrize(
    ("question", "count"),
    [
        # a name with its title's noun after "the": one relation, as when capitalised
        ("i need the novelist ada brask's alma mater", 1),
        ("what is the novelist ada brask's alma mater?", 1),
        ("what is the company's headquarters?", 2),  # one word: a common noun, read as before
    ],
)
def test_a_lower_case_name_after_its_title_noun_owns_the_possessive(question: str, count: int) -> None:
    assert steps(question) == count


def test_behind_links_a_noun_phrase_s_relations() -> None:
    assert steps("the body behind the vell inheritance (1994)'s prize") == 2


@pytest.mark.parametrize(
    "question",
    [
        # a participle after a modified noun is a reduced relative clause as often as not; read as one
        # relation (a participle after a modified noun is not a rule: these asked one each)
        "What is the main thread waiting for the lock?",
        "Who is the lead developer working on the Linux kernel?",
        "what is the background process running in the container?",
        "what are the python packages depending on numpy?",
        "who is the famous actor starring in the movie?",
        "What is the new office building in the city?",  # -ing nouns
        "Where is the annual board meeting for the company?",
    ],
)
def test_a_participle_after_a_modified_noun_links_nothing(question: str) -> None:
    assert steps(question) == 1


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


def test_a_hostile_chain_is_read_within_bounds() -> None:
    # a hundred links plan no hundred hops; a contact clause past the parser's words is not read
    assert steps("What is " + "the founder of " * 100 + "Vell Press?") == 8
    contains = "what is the region that contains the city "
    assert steps(contains + "vell " * 90 + "trust operates from?") == 1
    assert steps(contains + "vell " * 9 + "trust operates from?") == 2
