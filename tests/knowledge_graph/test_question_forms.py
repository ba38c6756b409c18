"""The forms a search box's user puts a chain question in (#28): a definite noun phrase alone that
holds a chain ("The river the inventor of X settled in"), a first-person or gerund lead ("I'd like to
know the ...", "Searching for the ..."), a lower-case request verb addressed to the reader ("tell me
the ..."), and a question word's "'s" ("What's the ..."): each is read as the "What is ...?"
question it asks; statements, headlines, plain phrases, questions and manual-page NAME lines that
only look like them keep the count they had before (one relation: a phrase with no question word
and no link)."""

from __future__ import annotations

import pytest

from gateway.knowledge_graph.hops import hop_plan
from gateway.knowledge_graph.question import as_question, hop_words, steps

ASKED = "What is the river the inventor of Brask Lamp settled in?"


@pytest.mark.parametrize(
    "text",
    [
        "The river the inventor of Brask Lamp settled in",
        "The river the inventor of Brask Lamp settled in?",
        "the river the inventor of Brask Lamp settled in",
        "I'd like to know the river the inventor of Brask Lamp settled in",
        "I want to know the river the inventor of Brask Lamp settled in.",
        "Searching for the river the inventor of Brask Lamp settled in",
        "I am searching for the river the inventor of Brask Lamp settled in",
        "tell me the river the inventor of Brask Lamp settled in",
        "What's the river the inventor of Brask Lamp settled in?",
    ],
)
def test_a_noun_phrase_request_or_contraction_reads_as_the_question(text: str) -> None:
    assert as_question(text) == ASKED
    assert steps(text) == steps(ASKED) == 2
    assert hop_words(text) == hop_words(ASKED)


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Tove Lind's teacher's hometown", 2),
        ("brask's publisher's founder", 2),
        ("The capital of the province of Orrin Dale", 2),
        ("The employer of the engineer who designed Brask Lamp", 2),
        ("The village the teacher of Tove Lind retired to", 2),
    ],
)
def test_a_bare_chain_counts_its_relations(text: str, count: int) -> None:
    assert as_question(text).startswith("What is ")
    assert steps(text) == count


@pytest.mark.parametrize(
    ("text", "asked", "count"),
    [
        ("look up the hometown of Tove Lind's teacher", "What is the hometown of Tove Lind's teacher?", 2),
        (
            "look up the founder of Brask Lamp's maker's publisher",
            "What is the founder of Brask Lamp's maker's publisher?",
            3,
        ),
        ("Dig out the birthplace of Orrin Dale's old boss", "What is the birthplace of Orrin Dale's old boss?", 2),
        # asked politely, or before a possessive noun phrase
        ("please look up the hometown of Tove Lind's teacher", "What is the hometown of Tove Lind's teacher?", 2),
        ("can you track down the hometown of Tove Lind's teacher?", "What is the hometown of Tove Lind's teacher?", 2),
        ("look up Tove Lind's teacher's hometown", "What is Tove Lind's teacher's hometown?", 2),
    ],
)
def test_a_phrasal_verbs_request_reads_as_the_question(text: str, asked: str, count: int) -> None:
    """An imperative phrasal verb before a chain's noun phrase ("look up the ...") asks what "What is
    ...?" asks: its possessives link relations as a question's do (read as text with no question
    word, the possessives counted nothing: one relation)."""
    assert as_question(text) == asked
    assert steps(text) == count
    assert hop_words(text) == hop_words(asked)


@pytest.mark.parametrize(
    "text",
    [
        # a phrasal verb before a phrase holding no chain, or with no definite object
        "set up the timeout of the proxy",
        "look up a word in the dictionary of Tove Lind's school",
        "back up files of the user's home",
        # a possessive determiner's owner is the speaker's: no chain from a name
        "look up my mom's friend's number",
        # a command's phrasal verb (no verb of finding) before a chain-like phrase: an action on it
        "back up the database of the user's account",
        "turn off the notifications of John's account",
        "Set up the proxy of the cluster's ingress",
        "shut down the process of the user's session",
        "look out the window of Ada's car",
    ],
)
def test_a_phrasal_verb_before_no_chain_is_left_as_it_is(text: str) -> None:
    """Only a verb of finding with its particle makes a request of the phrase after it: a command
    holding a possessive chain keeps its reading (one relation, as any text with no question word)."""
    assert as_question(text) == text
    assert steps(text) == 1


@pytest.mark.parametrize(
    "text",
    [
        # statements about a definite noun phrase (it runs into an auxiliary)
        "The inventor of Brask Lamp was born in Leeds.",
        "The gateway was restarted after the upgrade",
        # a question opened by a preposition, a request with a verb before the possessive
        "Under whom did SS Jeaba's commander first serve?",
        # manual pages' NAME lines: a verb and its object before a possessive, no definite object
        "override a package's version of a file",
        "override package's version",
        "looking for files in a directory hierarchy",
        "show me how to set the timeout",
        # a phrase before its own question
        "The composer of Lute Suite: which town?",
        "The founder of Brask Lamp, who was she?",
        # a pronoun's "'s" owns nothing
        "it's the town where Tove Lind was born",
    ],
)
def test_look_alikes_are_left_as_they_are(text: str) -> None:
    assert as_question(text) == text


@pytest.mark.parametrize(
    "text",
    [
        # statements and headlines: the head runs into a verb or a closed-class word, or no link
        "The kernel panics when I plug in the USB stick",
        "the server crashes on startup",
        "The cat sat on the mat.",
        "The API returns 404 when the token expires",
        "Apple's new iPhone sales fell 10% last quarter",
        "John's car broke down",
        "Ubuntu's default shell is dash",
        "Git's reflog saved my work",
        "The server's configuration file",
        "The user's guide",
        "the timeout setting",
        "the troff processor of the groff text formatting system",
        # a possessive with no word before it
        "-'s x",
        "__'s value",
        "..'s y",
        "_'s x",
    ],
)
def test_statements_and_plain_phrases_keep_one_relation(text: str) -> None:
    """A statement, a headline or a phrase holding no chain is no question: one relation, as read
    before the bare noun phrase's rule, and no exception (a possessive with no word before it)."""
    assert as_question(text) == text
    assert steps(text) == 1
    assert isinstance(hop_plan(text).words, list)


@pytest.mark.parametrize(
    "text",
    [
        # a lead whose verb is no request ("send me", "call me"): not read as "What is ...?"
        "send me the invoice of the shop that sold Brask Lamp",
        "call me the day the package arrives",
    ],
)
def test_a_lead_whose_verb_is_no_request_is_left_as_it_is(text: str) -> None:
    assert as_question(text) == text


def test_a_question_words_contraction_counts_as_the_copula() -> None:
    assert steps("who's the engineer who designed the lamp Brask Works was sold to?") == steps(
        "who is the engineer who designed the lamp Brask Works was sold to?"
    )


@pytest.mark.parametrize(
    "text",
    [
        "What's been done about the bug in Firefox?",
        "Who's got the key to the server room?",
        "Who's been elected mayor of the town where Bob was born?",
    ],
)
def test_a_question_words_has_is_not_the_copula(text: str) -> None:
    assert as_question(text) == text


@pytest.mark.parametrize(
    ("question", "count"),
    [
        # a kind asked with a copula whose subject ends on a stranded preposition: that preposition is
        # the question's own relation, the subject's "of"/clause/possessive another
        ("Which county is the workshop of Tove Lind in?", 2),
        ("Which city is the publisher of Brask Lamp from?", 2),
        ("Which district is Brask Works' depot in?", 2),
        ("Which valley is the village that hosts the Lind Regatta in?", 2),
        # a classifier's own "of" joins nothing: "What kind of region" is the answer's kind
        ("What kind of region is Brask Works' home village in?", 2),
        # a particle's "out of" at the end is the contact clause's preposition, counted once
        ("What is the city the maker of Brask Lamp operates out of?", 2),
        # the classifier as a copular question's head before a contact clause, asked or requested
        ("What is the part of the country the hometown of Tove Lind lies in?", 2),
        ("tell me the part of the country the birthplace of the founder of Brask Works lies in", 3),
        ("Looking for the part of the city the founder of Brask Works lives in", 2),
    ],
)
def test_a_kinds_copula_and_a_particles_of_count_once(question: str, count: int) -> None:
    assert steps(question) == count


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("Which county is Brask Works in?", 1),  # one relation: the preposition's
        ("Which town is the capital of Norway?", 1),  # no stranded preposition: the copula's head
        ("What is the province it is part of?", 1),  # a stranded "of" after no particle
        ("Which county is Tove Lind's birthplace?", 1),  # no stranded preposition, a possessive's head
        ("Which member of the band is the song about?", 2),  # "member" is no classifier: its "of" links
        # "member" heading a contact clause: its "of" links too
        ("What is the member of the band the founder of Brask Works hired?", 3),
        # an attribute noun heading a contact clause that ends on no stranded preposition: the
        # genre OF the film the director made, its "of" a relation
        ("What is the genre of the film the director of Brask Works made?", 3),
        ("What is the class of the ship the captain of the Endeavour commanded?", 3),
        ("What is the style of the house the architect of the museum built?", 2),
        ("What is the form of the verb the author of the grammar prefers?", 2),
        ("What is the sort of the fish the chef at Brask Works cooks?", 2),
    ],
)
def test_look_alikes_of_the_kinds_copula_keep_their_count(question: str, count: int) -> None:
    assert steps(question) == count


@pytest.mark.parametrize(
    ("question", "count"),
    [
        # an indirect question ending on its copula: the direct one it embeds (#28, session 13)
        ("any idea what the employer of Ada Vell is?", 1),
        ("do you know who the founder of the maker of the Brask Lamp was?", 2),
        # in any case, with any short lead, ending on a full stop too
        ("Do you know who the founder of Acme was?", 1),
        ("I wonder what the employer of Ada Vell is?", 1),
        ("Any idea who the founder of the maker of the Brask Lamp was?", 2),
        ("I wonder who the founder of Acme was.", 1),
        # a possessed compound's own "of" links nothing, as in "the place of birth of X"
        ("Ada Vell's place of birth?", 1),
        ("What is the place of birth of Ada Vell?", 1),
        # a bare title after an auxiliary is the name's kind, no contact clause
        ("Who does footballer Ada Vell play for?", 1),
        ("Where did the company Ada Vell works for start?", 2),
    ],
)
def test_one_relation_forms_of_the_one_hop_controls(question: str, count: int) -> None:
    assert steps(question) == count, hop_words(question)
