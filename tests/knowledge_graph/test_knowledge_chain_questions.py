"""Questions whose chain is written with possessives and reduced relative clauses (#28), through the
search endpoint and `file_search`: "Where was the Orrin Physic Garden's designer raised?" is two
relations (the design, the upbringing) though it has no "of" or "who"; "the mentor of the Orrin
Physic Garden's designer" adds a third, and "the garden laid out by the pupil of X" links by a
participle. The walk must read as many steps as the question has, match each to the text's own
words for it ("mentor" to "trained under", "raised"/"grow up" to "was raised in"/"spent her
childhood in") and go three hops when the question has three. Each answer page shares no word with
its question, so hybrid search does not find it.
"""

from __future__ import annotations

from pathlib import Path

from openai import OpenAI

from tests.knowledge_graph.chain_checks import assert_chain_answers_first
from tests.knowledge_graph.test_knowledge_graph import KG, MODEL
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import upload_pages

GARDENS = {
    "orrin.md": "# Orrin Physic Garden\n\nThe Orrin Physic Garden is a walled herb garden of four acres. "
    "It was designed by Mabel Quist in 1881.",
    "quist.md": "# Mabel Quist\n\nMabel Quist is a botanist and garden maker. Quist trained under Edda Harrow. "
    "Quist was raised in Pellby.",
    "harrow.md": "# Edda Harrow\n\nEdda Harrow is a plant collector. Harrow spent her childhood in Dunmere. "
    "She catalogued the ferns of the Selk Hills.",
    "pellby.md": "# Pellby\n\nPellby is a fishing village with a stone harbour and a weekly market.",
    "dunmere.md": "# Dunmere\n\nDunmere is a hamlet of slate cottages at the head of a long lake.",
    # distractors: another garden, its own maker and her town; a page sharing the question's words
    "tessa.md": "# Brae Rose Garden\n\nThe Brae Rose Garden was designed by Ilse Marrow in 1902.",
    "marrow.md": "# Ilse Marrow\n\nIlse Marrow is a landscape architect. Marrow was raised in Crail.",
    "crail.md": "# Crail\n\nCrail is a market town on a sandy bay.",
    "note.md": "# Garden notes\n\nA designer of physic gardens is often raised among herbs; a mentor teaches "
    "the pupil to grow them.",
}

QUESTIONS = {
    # a possessive: two relations, the design and the upbringing
    "Where was the Orrin Physic Garden's designer raised?": "pellby.md",
    # a possessive inside an "of": three relations (design, training, childhood)
    "Where did the mentor of the Orrin Physic Garden's designer grow up?": "dunmere.md",
}


def test_possessive_and_three_step_questions_are_walked_as_chains(
    backend: Backend, tmp_path: Path, marker: str
) -> None:
    """Before #28's question reading, the possessive counted no link: the first question was one
    step (its answer, two hops out, was never reached) and the second two (the walk stopped at the
    mentor); both answers now come first through the search endpoint and through file_search,
    where hybrid search ranks neither first."""
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-possessives", GARDENS)
        via = "Where did the mentor of the Orrin Physic Garden's designer grow up?"
        assert_chain_answers_first(own, backend, marker, store, QUESTIONS, via_file_search=via, model=MODEL, kg=KG)


# the same chains asked politely (#28, session 15): a modal's request lead and a closing "please"
# are no words of the chain ("please" hid the contact clause's stranded "in")
POLITE = {
    "Could you tell me the village the Orrin Physic Garden's designer was raised in, please?": "pellby.md",
    "do you know the hamlet the mentor of the Orrin Physic Garden's designer grew up in": "dunmere.md",
}


def test_polite_requests_are_walked_as_the_chains_they_ask(backend: Backend, tmp_path: Path, marker: str) -> None:
    """A polite lead ("Could you tell me", "do you know") before a chain's noun phrase and a closing
    "please" read as the question asked: both answers first through the search endpoint and through
    file_search, where hybrid search ranks neither first."""
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-polite", GARDENS)
        via = "Could you tell me the village the Orrin Physic Garden's designer was raised in, please?"
        assert_chain_answers_first(own, backend, marker, store, POLITE, via_file_search=via, model=MODEL, kg=KG)
