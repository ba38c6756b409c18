"""The `kg` ranker's relation-aware walk through the public API (#28), both doors: chains on a slice
of the hard benchmark corpus (bench/multihop_hard.py), aliases (a surname after the full name),
colliding names (two people called the same, a company named after a town), what was extracted
from one file (the entities route's `file_id`), and deletion.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

from bench.multihop_hard import build_hard
from tests.knowledge_graph.chain_checks import assert_chain_answers_first, file_search_call
from tests.knowledge_graph.test_knowledge_graph import KG, MODEL, _entities, _rank
from tests.support.procs import Backend, Gateway, gateway
from tests.support.retrieval_helpers import upload_pages

TOWNS = {
    "keldholm.md": "# Keldholm\n\nKeldholm is a settlement on the Esk estuary. Its economy rests on salt.",
    "sundby.md": "# Sundby\n\nSundby is a settlement of 9,000 people with a weekly market.",
    "varnholt.md": "# Varnholt\n\nVarnholt is a settlement on a river delta known for glassworks.",
}
PEOPLE = {
    # the full name once, the surname after: one person, with "Moravec" as an alias
    "moravec_engineer.md": "# Ana Moravec\n\nAna Moravec is an engineer. Moravec was born in Keldholm. "
    "Moravec set up Tarrow Optics in 1990.",
    # another Ana Moravec, born elsewhere, who founded nothing: the same entity (names are keys), but
    # her birthplace is stated in a page that does not name the company
    "moravec_painter.md": "# Ana Moravec\n\nAna Moravec is a painter of landscapes. Moravec was born in Varnholt.",
    "tarrow.md": "# Tarrow Optics\n\nTarrow Optics is an industrial company based in Sundby. "
    "It was founded by Ana Moravec.",
    # a company named after a town, founded by someone born in another one
    "varnholt_works.md": "# Varnholt Works\n\nVarnholt Works is an industrial company based in Keldholm. "
    "It was started by Per Lindqvist.",
    "lindqvist.md": "# Per Lindqvist\n\nPer Lindqvist is a chemist. Lindqvist hails from Sundby. "
    'He wrote "The Quiet Harbour" in 1988.',
}


@pytest.fixture(scope="module")
def hard(http_gateway: Gateway, session_key: str) -> Iterator[dict[str, Any]]:
    client = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0)
    docs, questions = build_hard(n_companies=5)
    store = upload_pages(client, "kg-hard", {d.name: d.text for d in docs})
    yield {"store": store.id, "files": store.ids, "names": store.names, "questions": questions}
    client.vector_stores.delete(store.id)
    for fid in store.ids.values():
        client.files.delete(fid)


@pytest.fixture(scope="module")
def people(http_gateway: Gateway, session_key: str) -> Iterator[dict[str, Any]]:
    client = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0)
    store = upload_pages(client, "kg-people", {**TOWNS, **PEOPLE})
    yield {"store": store.id, "files": store.ids, "names": store.names}
    client.vector_stores.delete(store.id)


def test_the_walk_follows_chains_the_hybrid_search_cannot(client: OpenAI, hard: dict[str, Any]) -> None:
    """Two- and three-hop questions whose answer page shares no word with them: the kg ranker puts
    it in the top 10 for at least 80 % (MRR@10 at least 0.30), hybrid search hardly ever does; every
    one-hop control stays in the top 10."""
    store, names = hard["store"], hard["names"]
    ranks: dict[str, list[int]] = {"kg": [], "hybrid": []}
    for q in hard["questions"]:
        kg = _rank(client.vector_stores.search(store, query=q.text, ranking_options=KG).data, names, q.answer)
        if q.hops == 1:
            assert kg, q.text
            continue
        ranks["kg"].append(kg)
        ranks["hybrid"].append(_rank(client.vector_stores.search(store, query=q.text).data, names, q.answer))
    n = len(ranks["kg"])
    hit = sum(r > 0 for r in ranks["kg"]) / n
    mrr = sum(1 / r for r in ranks["kg"] if r) / n
    assert hit >= 0.8 and mrr >= 0.3, (hit, mrr, ranks)
    assert sum(r > 0 for r in ranks["hybrid"]) / n < hit / 2
    three = [r for r, q in zip(ranks["kg"], [q for q in hard["questions"] if q.hops > 1], strict=True) if q.hops == 3]
    assert three and all(three), three


def test_a_chain_through_aliases_and_colliding_names(client: OpenAI, door: str, people: dict[str, Any]) -> None:
    store, names = people["store"], people["names"]
    # the founder is "Ana Moravec", the birthplace is stated of "Moravec": one person, one chain
    page = client.vector_stores.search(
        store, query="In which town was the founder of Tarrow Optics born?", ranking_options=KG
    )
    ranked = list(dict.fromkeys(names[h.file_id] for h in page.data))
    assert ranked.index("keldholm.md") <= 2, ranked
    assert ranked.index("keldholm.md") < ranked.index("varnholt.md"), ranked  # the namesake's is not it
    expanded = [e["name"] for e in page.model_dump()["entities"]["expanded"]]
    assert expanded[0] == "Keldholm" and "Moravec" not in expanded
    # "Varnholt Works" is the company, not the town it is named after
    page = client.vector_stores.search(
        store, query="In which town was the founder of Varnholt Works born?", ranking_options=KG
    )
    ranked = list(dict.fromkeys(names[h.file_id] for h in page.data))
    assert ranked[0] == "sundby.md", ranked
    assert [e["name"] for e in page.model_dump()["entities"]["query"]] == ["Varnholt Works"]
    # the entity, with its alias; the surname is no entity of its own
    status, body = _entities(door, store, "moravec")
    assert status == 200, body
    (ana,) = body["data"]
    assert ana["name"] == "Ana Moravec" and "Moravec" in ana["aliases"]
    relations = {(n["relation"], n["name"]) for n in ana["neighbours"]}
    assert {("born_in", "Keldholm"), ("founded_by", "Tarrow Optics")} <= relations


PHRASED = {
    # relations in words no pattern of gateway/knowledge_graph/patterns.py knows (#28's honest check)
    "miro.md": "# Miro Nights\n\nMiro Nights is a folk album issued on the Pell Records label in 1990.",
    "pell.md": "# Pell Records\n\nPell Records owes its existence to Ivo Tarn. The firm keeps its offices in Sundby.",
    "tarn.md": "# Ivo Tarn\n\nIvo Tarn is a songwriter. Tarn came into the world in Keldholm, then took a degree "
    "at Varn Academy.",
    "academy.md": "# Varn Academy\n\nVarn Academy teaches 900 students in a former customs house.",
}


def test_a_chain_in_words_no_pattern_knows(backend: Backend, tmp_path: Path) -> None:
    """Relations phrased as no pattern knows ("owes its existence to", "came into the world in") are
    stored as their words; the walk follows those most like the relation types the question asks
    for, by the embedder's likeness (so this gateway runs the local MiniLM, not the session's
    bag-of-words embeddings): the birthplace's page first, not the academy the founder attended nor
    the label's office town. A one-step question puts the page stating the relation first."""
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        docs = {**PHRASED, "keldholm.md": TOWNS["keldholm.md"], "sundby.md": TOWNS["sundby.md"]}
        store = upload_pages(own, "kg-phrased", docs)
        names = store.names
        question = "In which town was the founder of Pell Records born?"
        page = own.vector_stores.search(store.id, query=question, ranking_options=KG)
        ranked = list(dict.fromkeys(names[h.file_id] for h in page.data))
        assert ranked[0] == "keldholm.md", ranked
        assert page.data[0].model_dump()["score_breakdown"]["graph"] == 1.0
        assert ranked.index("academy.md") > 0 and ranked.index("sundby.md") > 0
        hybrid = own.vector_stores.search(store.id, query=question)
        assert names[hybrid.data[0].file_id] != "keldholm.md"
        status, body = _entities(gw.url, store.id, "pell records")
        near = {(n["relation"], n["name"]) for n in body["data"][0]["neighbours"]}
        assert status == 200 and ("~owes its existence to", "Ivo Tarn") in near, body
        page = own.vector_stores.search(store.id, query="Who founded Pell Records?", ranking_options=KG)
        assert names[page.data[0].file_id] == "pell.md", [names[h.file_id] for h in page.data]


def test_entities_extracted_from_one_file(door: str, people: dict[str, Any]) -> None:
    store, files = people["store"], people["files"]
    status, body = _entities(door, store, "", file_id=files["lindqvist.md"])
    assert status == 200, body
    found = {e["name"]: e["type"] for e in body["data"]}
    assert set(found) == {"Per Lindqvist", "Sundby", "The Quiet Harbour"}
    assert found["The Quiet Harbour"] == "work"  # a title in quotes is an entity, written by its author
    per = next(e for e in body["data"] if e["name"] == "Per Lindqvist")
    assert ("written_by", "The Quiet Harbour", "in") in {
        (n["relation"], n["name"], n["direction"]) for n in per["neighbours"]
    }
    # heading, full name, surname: counted in this file (the company page names him once more)
    assert per["aliases"] == ["Lindqvist"] and per["mention_count"] == 3
    status, body = _entities(door, store, "lindqvist")
    assert status == 200 and body["data"][0]["mention_count"] == 4
    status, body = _entities(door, store, "sund", file_id=files["lindqvist.md"])
    assert status == 200 and [e["name"] for e in body["data"]] == ["Sundby"]
    status, body = _entities(door, store, "", file_id="file-missing")
    assert status == 404 and body["error"]["param"] == "file_id", body
    status, body = _entities(door, store, "")  # no query, no file: the most mentioned first (#32)
    counts = [e["mention_count"] for e in body["data"]]
    assert status == 200 and counts and counts == sorted(counts, reverse=True), body


def test_deleting_a_file_cuts_the_chain(client: OpenAI, door: str, session_key: str, http_gateway: Gateway) -> None:
    own = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0)
    docs = {"keldholm.md": TOWNS["keldholm.md"], **{k: PEOPLE[k] for k in ("moravec_engineer.md", "tarrow.md")}}
    store = upload_pages(own, "kg-cut", docs)
    ids = store.ids
    try:
        question = "In which town was the founder of Tarrow Optics born?"
        page = client.vector_stores.search(store.id, query=question, ranking_options=KG)
        assert page.data[0].file_id == ids["keldholm.md"]
        assert page.data[0].model_dump()["score_breakdown"]["graph"] == 1.0
        own.vector_stores.files.delete(ids["moravec_engineer.md"], vector_store_id=store.id)
        status, body = _entities(door, store.id, "", file_id=ids["moravec_engineer.md"])
        assert status == 404, body
        page = client.vector_stores.search(store.id, query=question, ranking_options=KG)
        town = [h for h in page.data if h.file_id == ids["keldholm.md"]]
        assert not town or town[0].model_dump()["score_breakdown"]["graph"] == 0.0
        assert "Keldholm" not in [e["name"] for e in page.model_dump()["entities"]["expanded"]]
    finally:
        own.vector_stores.delete(store.id)
        for fid in ids.values():
            own.files.delete(fid)


def test_file_search_follows_a_three_hop_chain(
    client: OpenAI, backend: Backend, hard: dict[str, Any], marker: str
) -> None:
    three = next(q for q in hard["questions"] if q.hops == 3)
    _, fs = file_search_call(client, backend, marker, model=MODEL, store_id=hard["store"], kg=KG, question=three.text)
    assert hard["files"][three.answer] in [r.file_id for r in fs.results[:3]]
    seen = backend.requests_matching(marker)[1]["body"]["messages"]
    assert three.answer in next(m for m in seen if m["role"] == "tool")["content"]


# Chains whose question names fewer relation types than it has steps, or names them in other words
# than the text (#28's generalisation): a label "owes its existence to" its founder while the question
# asks for "the person behind" it; a biography says "was born in" while the question asks where the
# person was "raised"; the founder's page also names the school they attended, and the label its seat.
CHAINS = {
    "kessel.md": "# Kessel Tide\n\nKessel Tide is a folk album issued on the Marrow Sound label in 1990.",
    "marrow.md": "# Marrow Sound\n\nMarrow Sound owes its existence to Lio Brandt. The firm is based in Tarsby.",
    "brandt.md": "# Lio Brandt\n\nLio Brandt is a drummer. Brandt was born in Sundby, then studied at Varn Academy.",
    "drift.md": "# Sola Drift\n\nSola Drift is a jazz album issued on the Brenn Sound label in 1994.",
    "brenn.md": "# Brenn Sound\n\nBrenn Sound was launched by Oda Vikstrom. The firm keeps its offices in Tarsby.",
    "vikstrom.md": "# Oda Vikstrom\n\nOda Vikstrom is a singer. Vikstrom was raised in Keldholm, then took a "
    "degree at Varn Academy.",
    "tarsby.md": "# Tarsby\n\nTarsby is a settlement of 9,000 people with a weekly market.",
    "academy.md": PHRASED["academy.md"],
}


def test_chains_the_question_names_in_other_words(backend: Backend, tmp_path: Path, marker: str) -> None:
    """The walk matches each hop to what the question still asks once the path's relations are
    accounted for (the question's vector with theirs projected out), lets a relation type the
    question did not name be a step its grammar has but its wording named no type for, and lets a
    phrase stand for an asked type nearly as like it as its likest type. Each question's answer
    page (sharing no word with it) comes first through the search endpoint, and through
    file_search; the relation-aware walk before these ranked the first two questions' answers
    out of the top 10 or below the founder's page."""
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        docs = {**CHAINS, "keldholm.md": TOWNS["keldholm.md"], "sundby.md": TOWNS["sundby.md"]}
        store = upload_pages(own, "kg-other-words", docs)
        questions = {
            # "behind" asks for made_by; the text's "owes its existence to" is likest founded_by
            "What is the birthplace of the person behind Marrow Sound?": "sundby.md",
            # three steps, one type named (founded_by); "was born in" is a step the wording did not name
            "Where was the person who started the label that released Kessel Tide raised?": "sundby.md",
            "Where was the person who started the label that released Sola Drift raised?": "keldholm.md",
            "Where did the person behind Brenn Sound grow up?": "keldholm.md",
            # a step named by its type: the school, not the birthplace beside it
            "At which school was the creator of Brenn Sound educated?": "academy.md",
        }
        via = "What is the birthplace of the person behind Marrow Sound?"
        assert_chain_answers_first(own, backend, marker, store, questions, via_file_search=via, model=MODEL, kg=KG)
