"""The question's grammar for the `kg` walk (#28): which relation words name which hop of the chain,
innermost first (the relation applied to the entity the question names first, the one whose target
is the answer last), one group per step. Fictional names; no corpus's wording."""

from __future__ import annotations

import pytest

from gateway.knowledge_graph.question import as_question, hop_cues, hop_words, steps


@pytest.mark.parametrize(
    ("question", "hops"),
    [
        # "of" chains read outer-first: the walk takes them from the end
        ("What is the birthplace of the founder of Tarvel Mills?", [["founder"], ["birthplace"]]),
        # a relative clause's verb comes after its subject: the subject's relation is inner
        (
            "In which province is the town where the founder of Acme Yard was born?",
            [["founder"], ["town"], ["province"]],
        ),
        # possessives read inner-first
        ("What is Acme's founder's birthplace?", [["founder"], ["birthplace"]]),
        ("Where was the Orrin Garden's designer raised?", [["designer"], ["raised"]]),
        # a subject relative clause: its verb is its relation, its head noun the kind of its target
        ("Which mentor trained the potter who glazed the Ulm Vase?", [["potter", "glazed"], ["mentor", "trained"]]),
        # the question's own verb after a clause's subject closes the outermost clause
        (
            "In which town did the physician who cured Dorn Vell grow up?",
            [["physician", "cured"], ["town", "grow"]],
        ),
    ],
)
def test_hop_words_are_grouped_innermost_first(question: str, hops: list[list[str]]) -> None:
    assert hop_words(question) == hops
    assert len(hop_words(question)) == steps(question)


@pytest.mark.parametrize(
    "question",
    [
        "Who founded Kestle Paper?",
        "Where was the mentor of the Kvostbird Infirmary's founder raised?",
        "What was the birthplace of the teacher under whom the painter who decorated the Grell Hall first studied?",
        "How do I set the timeout for Nginx?",
        "control information of a PostgreSQL database cluster",
        "What is " + "Ab's " * 50 + "birthplace?",
    ],
)
def test_one_group_per_step(question: str) -> None:
    groups = hop_words(question)
    assert len(groups) == steps(question) >= 1
    assert all(w.islower() for g in groups for w in g)


@pytest.mark.parametrize("text", ["", "?!"])
def test_text_with_no_word_has_one_empty_hop_per_step(text: str) -> None:
    assert hop_words(text) == [[]] * steps(text)
    assert hop_cues(text) == [set()] * steps(text)


@pytest.mark.parametrize(
    ("question", "count"),
    [
        # a contact relative clause (no relative word): a noun, a noun phrase, a verb, a stranded
        # preposition; one relation of its own
        ("Who chaired the guild the weaver Oska Brell belonged to?", 2),
        ("In which valley is the mill the brewer of Tamsin Ale grinds for?", 3),
        ("Which county holds the hamlet Dorrit Vane wandered to?", 2),
        ("Where was the cooper the tutor of Ilse Marrow studied under raised?", 3),
        # ... not an apposition ("the trawler X") nor a passive's subject
        ("In which town was the captain of the brig Salt Wren born?", 2),
        ("Where was the keeper who rowed the skiff Dell Moth raised?", 2),
        # a copular "is <noun> to": its own relation
        ("Which county is kin to the guild that hired Pell Osk?", 2),
        ("Which valley is cradle to the mill that grinds for Orrin Fell?", 2),
        # ... whatever link follows it, and in any case
        ("Who is heir to the founder of Acme?", 2),
        ("Who is heir to the man who founded Acme?", 2),
        ("Who is heir TO the founder of Acme?", 2),
        # a phrasal verb's object before "of" is a relation noun, plural or singular
        ("Who bought out the owners of Acme Corp?", 2),
        ("Who took over the subsidiaries of Enron?", 2),
        ("Who set up the maker of the Brannock Arch?", 2),
        # a name ending in a possessive after a noun is an apposition owning what follows ("the singer
        # Adele's real name"), no contact clause's subject: one relation
        ("What is the singer Adele's real name?", 1),
        ("Who is the novelist Stephen King's eldest son?", 1),
        ("What is the painter Frida Kahlo's birth name?", 1),
        # a copular question whose "of" carries its relation, ending on a verb
        ("What was the birthplace of the tutor under whom the carver who gilded Wem Court first worked?", 3),
        # a "where" after "of" is a clause of its own
        ("Where was the founder of the mill where the Orrin Loaf was baked born?", 3),
    ],
)
def test_steps_counted_by_clause_shape(question: str, count: int) -> None:
    assert steps(question) == count
    assert len(hop_words(question)) == count


def test_contact_relative_hops_innermost_first() -> None:
    assert hop_words("Who chaired the guild the weaver Oska Brell belonged to?") == [
        ["guild", "belonged"],  # "the weaver Oska Brell": an apposition, the name's kind
        ["chaired"],
    ]
    assert hop_words("Where was the cooper the tutor of Ilse Marrow studied under raised?") == [
        ["tutor"],
        ["cooper", "studied"],
        ["raised"],
    ]
    assert hop_words("Which county is kin to the guild that hired Pell Osk?") == [
        ["guild", "hired"],
        ["county", "kin"],
    ]


@pytest.mark.parametrize(
    ("question", "types"),
    [
        # the words relation_words leaves out ("born", "set up") still name their hop's type
        ("Where was the founder of Dask Mill born?", [{"founded_by"}, {"born_in"}]),
        ("Who set up the guild the weaver Oska Brell belongs to?", [{"part_of"}, {"founded_by"}]),
        ("What is Acme's founder's birthplace?", [{"founded_by"}, {"born_in"}]),
        ("In which town was the captain of the brig Salt Wren born?", [set(), {"born_in"}]),
    ],
)
def test_hop_cues_name_each_hops_type(question: str, types: list[set[str]]) -> None:
    assert hop_cues(question) == types
    assert len(hop_cues(question)) == len(hop_words(question)) == steps(question)


@pytest.mark.parametrize(
    ("text", "count", "hops"),
    [
        # a request for a definite thing asks what the question asks (#28, masked diagnosis): its
        # possessives and relative clauses are links, its object's relation its own
        ("Find Acme's founder's birthplace.", 2, [["founder"], ["birthplace"]]),
        (
            "Give the county the mill that grinds for Orrin Fell stands in.",
            2,
            [["mill", "grinds"], ["county", "stands"]],
        ),
        ("I need the birthplace of the potter who glazed the Ulm Vase.", 2, [["potter", "glazed"], ["birthplace"]]),
        ("Tell me the guild the founder of Acme Mill belonged to.", 2, [["founder"], ["guild", "belonged"]]),
        # an indefinite object asks for an action, and lower-case text is no request: NAME lines
        ("Create an archive of files from a named tree", 1, [["archive", "files", "named", "tree"]]),
        ("copy files and directories", 1, [["files", "directories"]]),
    ],
)
def test_a_request_is_read_as_the_question_it_asks(text: str, count: int, hops: list[list[str]]) -> None:
    assert steps(text) == count
    assert hop_words(text) == hops


@pytest.mark.parametrize(
    ("question", "count"),
    [
        # a copular question's head noun followed by a relative clause: the clause names its relation
        ("What is the town where Ada Kettle grew up?", 1),
        ("What is the mill Orrin Fell grinds for?", 1),
        ("What is the county the mill Orrin Fell grinds for stands in?", 2),
        # "of" before a possessive pronoun or inside a compound noun joins no two relations
        ("Who is the clerk the Tarn Guild made keeper of its ledgers?", 1),
        ("What is the date of birth of Ada Kettle?", 1),
        ("What is the place of burial of the founder of Acme?", 2),
        # "be" with a stranded preposition is a contact clause's verb ("was in", as "stood in")
        ("Who ruled the kingdom the castle of Edda Rane was in?", 3),
        ("Which county does the hamlet Dorrit Vane was in belong to?", 2),
        # ... not with its object after it
        ("Where was Ada Kettle in 1990?", 1),
    ],
)
def test_relative_heads_compound_of_and_be_in(question: str, count: int) -> None:
    assert steps(question) == count
    assert len(hop_words(question)) == count


@pytest.mark.parametrize(
    ("question", "hops"),
    [
        # a name's possessive after a noun is a contact clause's subject when a verb group follows what
        # it owns (an auxiliary, a verb before a stranded preposition) ...
        (
            "Which county holds the yard Ada Vell's tutor was apprenticed to?",
            [["tutor"], ["yard", "apprenticed"], ["county", "holds"]],
        ),
        (
            "What is the town the firm Ada Vell's tutor trained at stands in?",
            [["tutor"], ["firm", "trained"], ["town", "stands"]],
        ),
        # ... else an apposition owning what follows ("the singer Adele's real name")
        ("What is the singer Adele's real name?", [["real", "name"]]),
    ],
)
def test_a_possessive_name_opens_a_contact_clause_before_a_verb(question: str, hops: list[list[str]]) -> None:
    assert hop_words(question) == hops
    assert steps(question) == len(hops)


@pytest.mark.parametrize(
    ("text", "count"),
    [
        # a question put without its question word, or opened by a closed-class word, is no request
        ("Does the gateway cache embeddings?", 1),
        ("Was the founder of Acme born in Leeds?", 1),
        ("After the fall of Rome, who ruled Gaul?", 1),
        ("If the founder of Acme died, who inherited it?", 1),
        # "I <verb>" with a content clause after it ("... the founder of Acme WAS born ...") asks nothing
        ("I think the founder of Acme was born in Leeds.", 1),
    ],
)
def test_a_question_or_a_statement_is_no_request(text: str, count: int) -> None:
    assert as_question(text) == text
    assert steps(text) == count


@pytest.mark.parametrize(
    "question",
    [
        # "of" before a bare noun with no "of" after it names an entity: its relation is a step
        "Which university did the inventor of penicillin attend?",
        "Where did the author of numpy study?",
        "Where was the creator of linux born?",
        "Where was the author of books on Rome born?",
    ],
)
def test_of_before_a_bare_noun_is_a_step(question: str) -> None:
    assert steps(question) == 2
    assert len(hop_words(question)) == 2


@pytest.mark.parametrize(
    ("question", "hops"),
    [
        # the copular head's check and the read agree on a possessive that opens a contact clause
        ("What is the company Ada Vell's brother works for?", [["brother"], ["company", "works"]]),
        ("What is the museum Ada Vell's portrait is in?", [["portrait"], ["museum"]]),
        ("Name the firm Reuben Tweessman's teacher trained at.", [["teacher"], ["firm", "trained"]]),
    ],
)
def test_a_copular_head_before_a_possessive_clause_adds_no_step(question: str, hops: list[list[str]]) -> None:
    assert steps(question) == len(hops)
    assert hop_words(question) == hops


@pytest.mark.parametrize("text", ["which province is the town the studio is based in part of", "of", "the capital of"])
def test_a_stranded_of_ending_the_text_is_read_as_with_a_question_mark(text: str) -> None:
    """A typed question often has no "?": a last "of" has no object, and is read as "of?" is (it
    raised IndexError in `plain_of`, a failed search, before)."""
    assert steps(text) == steps(text + "?")
    assert len(hop_words(text)) == steps(text)


@pytest.mark.parametrize(
    ("question", "count"),
    [
        # "at" and a determiner before no name: a place or a position, no relation of its own
        ("What is the price of the ticket at the door?", 1),
        ("Who is the author of the book at the top?", 1),
        ("What is the status of the job at the head of the queue?", 2),
        ("Where is the config of the server at the edge stored?", 2),
        ("what does the cache at the proxy store?", 1),
        ("Where was the player at the club born?", 1),
        # a name within the phrase after "at": the noun's relation
        ("Where did the chef at the restaurant Vask Kitchen train?", 2),
        ("Where did the chef at Vask Kitchen train?", 2),
    ],
)
def test_a_nouns_at_counts_a_step_only_before_a_name(question: str, count: int) -> None:
    assert steps(question) == count
    assert len(hop_words(question)) == count
