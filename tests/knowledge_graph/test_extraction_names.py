"""What is a name (#28, session 15, the shrouded corpus's diagnosis). A firm's name joined by an
ampersand to a firm-name ending ("Geithen & Co.", "Dombey & Sons") is one name (before, "Geithen &
Co." was read as "Geithen" and "Co", so no link met the page titled "Geithen & Co."), while names
joined by one otherwise ("Anna Vik & Bo Sarn"; "Alice & Bob": test_extraction_guards) stay two. A
past participle opening a sentence before a preposition, a name and a comma ("Trained at N, D
designed ...") heads a phrase fronted before its subject, no name (before, "Trained" was taken for
one and the phrase said nothing of D), while a name the text writes mid-sentence too stays one
("Jared in Paris, ... married Jared"; "Alfred", "-ed" after two consonants, is no participle:
test_extraction_shapes). Pinned through the entities route with `file_id`; the texts are this
test's own, and the first and third tests fail on the extraction before them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from openai import OpenAI

from tests.knowledge_graph.test_knowledge_graph import _entities
from tests.support.procs import Backend, Gateway, gateway
from tests.support.retrieval_helpers import upload_pages


@pytest.fixture(scope="module")
def door(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    with gateway(backend.url, tmp_path_factory.mktemp("kg-names"), GATEWAY_AUTH="none") as gw:
        yield gw


def _out(door: Gateway, name: str, text: str) -> set[tuple[str, str, str]]:
    """The typed relations (co-occurrence aside) stated by one file, from its subject outward."""
    own = OpenAI(base_url=door.url, api_key="unused", max_retries=0)
    store = upload_pages(own, name, {name: text})
    status, body = _entities(door.url, store.id, "", None, file_id=store.ids[name], limit="100")
    assert status == 200, body
    return {
        (e["name"], n["relation"], n["name"])
        for e in body["data"]
        for n in e["neighbours"]
        if n["relation"] != "co_occurs" and n["direction"] == "out"
    }


def test_an_ampersand_before_a_firm_ending_joins_one_name(door: Gateway) -> None:
    page = "# Hedda Moor\n\nHedda Moor is a tailor. Hedda Moor designed for Geithen & Co. from 1962."
    assert ("Hedda Moor", "~designed for", "Geithen & Co") in _out(door, "moor.md", page)


def test_two_full_names_joined_by_an_ampersand_stay_two(door: Gateway) -> None:
    page = "# Kelby Suite\n\nKelby Suite is a song. Kelby Suite was written by Anna Vik & Bo Sarn."
    out = _out(door, "suite.md", page)
    assert {b for _, _, b in out} == {"Anna Vik", "Bo Sarn"}, out


def test_a_participle_opening_a_fronted_phrase_is_no_name(door: Gateway) -> None:
    page = (
        "# Hedda Moor\n\nHedda Moor is a tailor. Trained at Vurvel Academy of Dress, Hedda Moor designed "
        "for Geithen & Co. from 1962."
    )
    out = _out(door, "moor2.md", page)
    assert ("Hedda Moor", "studied_at", "Vurvel Academy of Dress") in out, out
    assert not any(b == "Trained" for _, _, b in out), out


def test_a_name_opening_a_sentence_before_a_preposition_stays_a_name(door: Gateway) -> None:
    page = (
        "# Vell Press\n\nVell Press is a printer. Jared in Paris, with Bo Sarn, founded Vell Press. "
        "Later Bo Sarn married Jared."
    )
    out = _out(door, "vell.md", page)
    assert ("Vell Press", "founded_by", "Jared") in out, out
