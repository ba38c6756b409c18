"""The knowledge graph through the public API (#12), both doors: the `kg` ranker on vector-store
search and in `file_search`, the entities route, deletion, project isolation.

The corpus is a small slice of the multi-hop benchmark's fictional one (bench/multihop_corpus.py):
products name their makers, companies their founders, people their home towns, and no answer page
of a multi-hop question shares a name with the question.
"""

from __future__ import annotations

import asyncio
import io
import json
import signal
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

from bench.multihop_corpus import Question, build
from tests.knowledge_graph.chain_checks import file_search_call
from tests.support.pg import truncate
from tests.support.procs import AUTH, Backend, Gateway, create_key, gateway, start_gateway, stop
from tests.support.retrieval_helpers import retrieval_env, threaded_backend, upload_pages, wait_ingested
from tests.support.waiting import until

MODEL = "scripted-model"
KG: Any = {"ranker": "kg"}


@pytest.fixture(scope="session")
def kg_corpus(http_gateway: Gateway, session_key: str) -> Iterator[dict[str, Any]]:
    client = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0)
    docs, questions = build(n_companies=6, n_fillers=3)
    store = upload_pages(client, "kg", {d.name: d.text for d in docs})
    yield {"store": store.id, "files": store.ids, "names": store.names, "questions": questions}
    client.vector_stores.delete(store.id)


def _get(url: str, key: str | None = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {key}"} if key else dict(AUTH)
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _entities(door: str, store_id: str, query: str, key: str | None = None, **extra: str) -> tuple[int, Any]:
    qs = urllib.parse.urlencode({"query": query, **extra})
    return _get(f"{door}/vector_stores/{store_id}/entities?{qs}", key)


def _rank(hits: list[Any], names: dict[str, str], answer: str) -> int:
    ranked = list(dict.fromkeys(names[h.file_id] for h in hits))
    return ranked.index(answer) + 1 if answer in ranked else 0


def test_kg_ranker_answers_multi_hop_questions(client: OpenAI, kg_corpus: dict[str, Any]) -> None:
    multi: list[Question] = [q for q in kg_corpus["questions"] if q.hops > 1]
    store = kg_corpus["store"]
    found = 0
    for q in multi:
        page = client.vector_stores.search(store, query=q.text, ranking_options=KG)
        found += _rank(page.data, kg_corpus["names"], q.answer) > 0
    assert found / len(multi) >= 0.8, f"{found}/{len(multi)} multi-hop answers in the top 10"

    three = next(q for q in multi if q.hops == 3 and "hometown" in q.text)
    page = client.vector_stores.search(store, query=three.text, ranking_options=KG, max_num_results=5)
    assert 0 < _rank(page.data, kg_corpus["names"], three.answer) <= 5
    first = page.data[0].model_dump()
    assert set(first["score_breakdown"]) == {"vector", "graph", "keyword", "recency", "title"}
    assert all(0 <= v <= 1 for v in first["score_breakdown"].values())
    assert [h.score for h in page.data] == sorted((h.score for h in page.data), reverse=True)
    extra = page.model_dump()["entities"]
    product = three.text.rsplit("the ", 1)[1].rstrip("?")
    assert [e["name"] for e in extra["query"]] == [product]
    assert extra["expanded"] and all({"name", "type", "weight"} <= set(e) for e in extra["expanded"])
    # the default ranker is unchanged: no breakdown, no entities
    plain = client.vector_stores.search(store, query=three.text)
    assert "score_breakdown" not in plain.data[0].model_dump() and "entities" not in plain.model_dump()


def test_kg_ranker_keeps_one_hop_answers_and_filters(client: OpenAI, kg_corpus: dict[str, Any]) -> None:
    store, names = kg_corpus["store"], kg_corpus["names"]
    for q in [q for q in kg_corpus["questions"] if q.hops == 1][:4]:
        hybrid = _rank(client.vector_stores.search(store, query=q.text).data, names, q.answer)
        kg = _rank(client.vector_stores.search(store, query=q.text, ranking_options=KG).data, names, q.answer)
        assert kg and (not hybrid or kg <= max(hybrid, 2)), (q.text, hybrid, kg)
    three = next(q for q in kg_corpus["questions"] if q.hops == 3)
    only = {"type": "eq", "key": "nothing", "value": "matches"}  # no file has this attribute
    page = client.vector_stores.search(store, query=three.text, ranking_options=KG, filters=only)  # type: ignore[arg-type]
    assert page.data == []


def test_kg_ranker_rejects_unknown_rankers(client: OpenAI, kg_corpus: dict[str, Any]) -> None:
    from openai import BadRequestError

    with pytest.raises(BadRequestError) as err:
        client.vector_stores.search(kg_corpus["store"], query="x", ranking_options={"ranker": "graph"})  # type: ignore[typeddict-item]
    assert err.value.body["param"] == "ranking_options.ranker"  # type: ignore[index]


def test_file_search_with_the_kg_ranker(
    client: OpenAI, backend: Backend, kg_corpus: dict[str, Any], marker: str
) -> None:
    three = next(q for q in kg_corpus["questions"] if q.hops == 3 and "hometown" in q.text)
    resp, fs = file_search_call(
        client, backend, marker, model=MODEL, store_id=kg_corpus["store"], kg=KG, question=three.text
    )
    assert resp.tools[0].ranking_options.ranker == "kg"  # type: ignore[union-attr,comparison-overlap]
    answer_file = kg_corpus["files"][three.answer]
    assert answer_file in [r.file_id for r in fs.results]
    assert all(set(r.model_dump()["score_breakdown"]) >= {"graph", "vector"} for r in fs.results)
    seen = backend.requests_matching(marker)[1]["body"]["messages"]
    tool_msg = next(m for m in seen if m["role"] == "tool")
    assert three.answer in tool_msg["content"]  # the model read the answer page


def test_entities_route(door: str, kg_corpus: dict[str, Any]) -> None:
    company_q = next(q for q in kg_corpus["questions"] if q.text.startswith("Who founded"))
    company = company_q.text.removeprefix("Who founded ").rstrip("?")
    status, body = _entities(door, kg_corpus["store"], company.split()[0].lower())
    assert status == 200, body
    match = next(e for e in body["data"] if e["name"] == company)
    assert match["type"] == "organization" and match["mention_count"] >= 2
    relations = {n["relation"] for n in match["neighbours"]}
    assert "founded_by" in relations and "made_by" in relations
    founder = next(n for n in match["neighbours"] if n["relation"] == "founded_by")
    assert founder["type"] == "person" and founder["direction"] == "out"
    status, body = _entities(door, kg_corpus["store"], company, limit="1")
    assert status == 200 and len(body["data"]) == 1
    # without a query: the most-mentioned entities (where the console's graph starts, #32)
    status, body = _entities(door, kg_corpus["store"], "", limit="5")
    counts = [e["mention_count"] for e in body["data"]]
    assert status == 200 and len(counts) == 5 and counts == sorted(counts, reverse=True), body
    for query, extra, param in (
        ("x" * 257, {}, "query"),
        ("x", {"limit": "0"}, "limit"),
        ("x", {"limit": "a"}, "limit"),
    ):
        status, body = _entities(door, kg_corpus["store"], query, **extra)
        assert status == 400 and body["error"]["param"] == param, body
    status, body = _entities(door, "vs_missing", "x")
    assert status == 404 and body["error"]["type"] == "invalid_request_error"


def test_graph_follows_file_deletion_and_projects(
    client: OpenAI, door: str, backend: Backend, data_dir: Path, http_gateway: Gateway
) -> None:
    text = b"# Brindle Optics\n\nBrindle Optics makes lenses. It was founded by Tamsin Quorrow in 1961."
    store = upload_pages(client, "kg-delete", {"brindle.md": text})
    fid = store.ids["brindle.md"]
    try:
        status, body = _entities(door, store.id, "quorrow")
        assert status == 200 and [e["name"] for e in body["data"]] == ["Tamsin Quorrow"]
        assert body["data"][0]["neighbours"][0] == {
            "name": "Brindle Optics",
            "type": "organization",
            "relation": "founded_by",
            "direction": "in",
            "weight": 1.0,
        }
        # another project's key does not reach this store's graph
        other = str(create_key(backend.url, data_dir, "kg-other", "--name", "kg")["value"])
        status, body = _entities(door, store.id, "quorrow", key=other)
        assert status == 404, body
        client.vector_stores.files.delete(fid, vector_store_id=store.id)
        status, body = _entities(door, store.id, "quorrow")
        assert status == 200 and body["data"] == []
        page = client.vector_stores.search(store.id, query="Who founded Brindle Optics?", ranking_options=KG)
        assert page.data == []
    finally:
        client.vector_stores.delete(store.id)
        client.files.delete(fid)


@pytest.mark.slow
def test_graph_extraction_resumes_after_a_crash(backend: Backend, tmp_path: Path) -> None:
    """Files caught mid-ingestion by a SIGKILL get their graph after the restart, exactly once."""
    docs = [
        (f"maker{i}.md", f"# Kestrel Unit {i}\n\nThe Kestrel Unit {i} is a pump made by Harrow Foundry.".encode())
        for i in range(6)
    ]
    with threaded_backend(delay=0.4) as slow:
        env = retrieval_env(slow.url)
        gw = start_gateway(backend.url, tmp_path, **env)
        try:
            client = OpenAI(base_url=gw.url, api_key="k", max_retries=0)
            fids = [client.files.create(file=(n, io.BytesIO(t)), purpose="assistants").id for n, t in docs]
            store = client.vector_stores.create(name="kg-resume", file_ids=fids)
            # killed once the store shows a file completed (its chunks and graph written by this process)
            # with others still in progress (two at a time, 0.4 s an embedding): the restart must neither
            # extract a completed file again nor keep two graphs of a file it re-runs
            counts = until(
                lambda: client.vector_stores.retrieve(store.id).file_counts,
                lambda c: c.completed >= 1,
                timeout=30,
                what="a completed file",
            )
            assert counts.in_progress > 0, counts
        finally:
            stop(gw.proc, signal.SIGKILL)
        gw = start_gateway(backend.url, tmp_path, **env)
        try:
            client = OpenAI(base_url=gw.url, api_key="k", max_retries=0)
            assert wait_ingested(client, store.id, timeout=30).file_counts.completed == 6
            status, body = _entities(gw.url, store.id, "harrow foundry", key="k")
            assert status == 200, body
            (maker,) = body["data"]
            assert maker["mention_count"] == 6  # one mention per file: no file was extracted twice
            made = [n for n in maker["neighbours"] if n["relation"] == "made_by"]
            assert len(made) == 6 and all(n["weight"] == 1.0 and n["direction"] == "in" for n in made)
            page = client.vector_stores.search(store.id, query="Who makes the Kestrel Unit 3?", ranking_options=KG)
            assert page.data[0].file_id == fids[3]
        finally:
            stop(gw.proc)


@pytest.mark.slow
def test_graph_backfill_of_files_ingested_without_it(backend: Backend, tmp_path: Path) -> None:
    """A store ingested while the graph was off gets its graph at the next start, from its chunks."""
    env = retrieval_env(backend.url)
    text = b"# Pell Harbour Works\n\nPell Harbour Works builds cranes. It was founded by Idra Wenlock."
    with gateway(backend.url, tmp_path, **env, GATEWAY_KG_ENABLED="false") as gw:
        client = OpenAI(base_url=gw.url, api_key="k", max_retries=0)
        store = upload_pages(client, "kg-backfill", {"pell.md": text})
        assert _entities(gw.url, store.id, "wenlock", key="k") == (200, _empty())
    with gateway(backend.url, tmp_path, **env) as gw:
        deadline = time.monotonic() + 20
        while (found := _entities(gw.url, store.id, "wenlock", key="k"))[1]["data"] == []:
            assert time.monotonic() < deadline, "the backfill did not extract the file"
            time.sleep(0.1)
        (person,) = found[1]["data"]
        assert person["name"] == "Idra Wenlock"
        first = person["neighbours"][0]
        assert (first["name"], first["relation"]) == ("Pell Harbour Works", "founded_by")


def _empty() -> dict[str, Any]:
    return {"object": "list", "data": [], "first_id": None, "last_id": None, "has_more": False}


@pytest.mark.slow
def test_replicas_on_postgresql_share_the_graph(backend: Backend, tmp_path: Path, postgres_url: str) -> None:
    """With GATEWAY_DATABASE_URL the graph is in PostgreSQL: a file ingested by one replica is found by
    the other replica's kg ranker and entities route, and deleting it on the other removes its graph."""
    asyncio.run(truncate(postgres_url))
    env = {"GATEWAY_DATABASE_URL": postgres_url, **retrieval_env(backend.url)}
    docs, questions = build(n_companies=3, n_fillers=1)
    with gateway(backend.url, tmp_path / "a", **env) as a, gateway(backend.url, tmp_path / "b", **env) as b:
        ca = OpenAI(base_url=a.url, api_key="k", max_retries=0)
        cb = OpenAI(base_url=b.url, api_key="k", max_retries=0)
        store = upload_pages(ca, "kg-pg", {d.name: d.text for d in docs})
        ids = store.ids
        three = next(q for q in questions if q.hops == 3 and "hometown" in q.text)
        page = cb.vector_stores.search(store.id, query=three.text, ranking_options=KG)
        assert ids[three.answer] in [h.file_id for h in page.data]
        assert page.model_dump()["entities"]["query"]
        bio = docs[[d.name for d in docs].index(three.answer)]
        person = bio.text.splitlines()[0].removeprefix("# ")
        status, body = _entities(b.url, store.id, person, key="k")
        assert status == 200 and [e["name"] for e in body["data"]] == [person]
        before = body["data"][0]["mention_count"]
        cb.vector_stores.files.delete(ids[three.answer], vector_store_id=store.id)
        status, body = _entities(a.url, store.id, person, key="k")
        # the company page still names the founder; the bio's mentions (and its born_in) are gone
        assert status == 200 and 0 < body["data"][0]["mention_count"] < before, body
        assert "born_in" not in {n["relation"] for n in body["data"][0]["neighbours"]}
        page = ca.vector_stores.search(store.id, query=three.text, ranking_options=KG)
        assert ids[three.answer] not in [h.file_id for h in page.data]
