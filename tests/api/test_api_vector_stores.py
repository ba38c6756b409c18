"""Vector stores through the official SDK and both front doors: real ingestion of every supported
format, exact file counts, attributes and filters, thresholds, static chunking, batches, errors.

Embeddings come from the scripted backend (bag-of-words vectors), so a query shares words with the
document it should find and the expected ranking is deterministic.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import openai
import pytest
from openai import OpenAI

from storage.sqlite.conn import sqlite3
from tests.support.procs import Gateway
from tests.support.retrieval_helpers import DOCUMENTS, UNSUPPORTED, wait_ingested


@dataclass
class Corpus:
    store_id: str
    file_ids: dict[str, str]  # filename → file id
    unsupported_id: str


@pytest.fixture(scope="session")
def corpus(http_gateway: Gateway, session_key: str) -> Iterator[Corpus]:
    """One store with a document of every format plus an unsupported one, ingested once per session."""
    client = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0)
    ids = {
        name: client.files.create(file=(name, io.BytesIO(data)), purpose="assistants").id
        for name, (data, _word) in DOCUMENTS.items()
    }
    bad = client.files.create(file=(UNSUPPORTED[0], io.BytesIO(UNSUPPORTED[1])), purpose="assistants").id
    store = client.vector_stores.create(name="corpus", file_ids=[*ids.values(), bad])
    assert store.status == "in_progress" and store.file_counts.total == len(ids) + 1
    wait_ingested(client, store.id)
    yield Corpus(store.id, ids, bad)
    client.vector_stores.delete(store.id)


def test_ingestion_statuses_counts_and_content(client: OpenAI, corpus: Corpus) -> None:
    store = client.vector_stores.retrieve(corpus.store_id)
    assert store.status == "completed" and store.object == "vector_store" and store.name == "corpus"
    counts = store.file_counts.model_dump()
    assert counts == {"in_progress": 0, "completed": len(DOCUMENTS), "failed": 1, "cancelled": 0, "total": 7}
    assert store.usage_bytes > 0
    failed = client.vector_stores.files.list(corpus.store_id, filter="failed").data
    assert [f.id for f in failed] == [corpus.unsupported_id]
    assert failed[0].last_error is not None and failed[0].last_error.code == "unsupported_file"
    assert failed[0].last_error.message
    for name, (_data, word) in DOCUMENTS.items():
        vs_file = client.vector_stores.files.retrieve(corpus.file_ids[name], vector_store_id=corpus.store_id)
        assert vs_file.status == "completed" and vs_file.last_error is None and vs_file.usage_bytes > 0
        assert vs_file.chunking_strategy is not None and vs_file.chunking_strategy.type == "static"
        content = client.vector_stores.files.content(corpus.file_ids[name], vector_store_id=corpus.store_id)
        text = " ".join(part.text or "" for part in content.data)
        assert word in text.lower(), (name, text)
        assert "var x" not in text  # HTML scripts are not text
        hits = client.vector_stores.search(corpus.store_id, query=f"{word} {word}").data
        assert hits and hits[0].file_id == corpus.file_ids[name] and hits[0].filename == name, (name, hits)
        assert hits[0].content[0].type == "text" and word in hits[0].content[0].text.lower()
    assert [s for s in (h.score for h in hits)] == sorted((h.score for h in hits), reverse=True)


def test_attributes_update_and_filtered_search(client: OpenAI, corpus: Corpus) -> None:
    sid = corpus.store_id
    mango, penguins = corpus.file_ids["data.json"], corpus.file_ids["notes.txt"]
    updated = client.vector_stores.files.update(mango, vector_store_id=sid, attributes={"kind": "food", "year": 2024})
    assert updated.attributes == {"kind": "food", "year": 2024}
    client.vector_stores.files.update(penguins, vector_store_id=sid, attributes={"kind": "animal", "year": 2020})
    only_food = client.vector_stores.search(
        sid, query="penguins mango", filters={"type": "eq", "key": "kind", "value": "food"}
    )
    assert {h.file_id for h in only_food.data} == {mango}
    assert only_food.data[0].attributes == {"kind": "food", "year": 2024}
    recent = client.vector_stores.search(
        sid,
        query="penguins mango",
        filters={
            "type": "and",
            "filters": [
                {"type": "in", "key": "kind", "value": ["food", "animal"]},
                {"type": "lt", "key": "year", "value": 2022},
            ],
        },
    )
    assert {h.file_id for h in recent.data} == {penguins}
    listed = client.vector_stores.files.list(sid, filter="completed", limit=100).data
    assert {f.id: f.attributes for f in listed}[mango] == {"kind": "food", "year": 2024}


def test_search_threshold_limits_and_errors(client: OpenAI, corpus: Corpus) -> None:
    sid = corpus.store_id
    everything = client.vector_stores.search(sid, query="violin mango lighthouse", max_num_results=50).data
    assert len(everything) >= 3
    one = client.vector_stores.search(sid, query="violin mango lighthouse", max_num_results=1).data
    assert len(one) == 1 and one[0].score == everything[0].score
    cut = (everything[0].score + everything[-1].score) / 2
    above = client.vector_stores.search(
        sid, query="violin mango lighthouse", max_num_results=50, ranking_options={"score_threshold": cut}
    ).data
    assert 0 < len(above) < len(everything) and all(h.score >= cut for h in above)
    weighted = {"hybrid_search": {"embedding_weight": 0.7, "text_weight": 0.3}}
    blended = client.vector_stores.search(sid, query="violin", ranking_options=weighted).data  # type: ignore[typeddict-unknown-key]
    assert blended[0].file_id == corpus.file_ids["table.csv"] and 0 < blended[0].score <= 1
    several = client.vector_stores.search(sid, query=["violin", "saffron"], rewrite_query=True).data
    assert {corpus.file_ids["table.csv"], corpus.file_ids["report.pdf"]} <= {h.file_id for h in several[:4]}

    for kwargs, param in (
        ({"filters": {"type": "near", "key": "k", "value": 1}}, "filters.type"),
        ({"filters": {"type": "in", "key": "k", "value": "x"}}, "filters.value"),
        ({"max_num_results": 0}, "max_num_results"),
        ({"ranking_options": {"score_threshold": 2}}, "ranking_options.score_threshold"),
        ({"ranking_options": {"ranker": "best"}}, "ranking_options.ranker"),
        (
            {"ranking_options": {"hybrid_search": {"embedding_weight": 0, "text_weight": 0}}},
            "ranking_options.hybrid_search",
        ),
    ):
        with pytest.raises(openai.BadRequestError) as err:
            client.vector_stores.search(sid, query="x", **kwargs)  # type: ignore[arg-type]
        assert err.value.body["param"] == param  # type: ignore[index]
    with pytest.raises(openai.NotFoundError):
        client.vector_stores.search("vs_missing", query="x")


def test_vector_store_crud_and_pagination(client: OpenAI, marker: str) -> None:
    made = [
        client.vector_stores.create(
            name=f"{marker}-{i}", metadata={"m": marker}, expires_after={"anchor": "last_active_at", "days": 7}
        )
        for i in range(3)
    ]
    first = made[0]
    assert first.id.startswith("vs_") and first.status == "completed" and first.usage_bytes == 0
    assert first.file_counts.total == 0 and first.metadata == {"m": marker}
    assert first.expires_after is not None and first.expires_after.days == 7
    assert first.expires_at == (first.last_active_at or 0) + 7 * 86400
    page = client.vector_stores.list(order="asc", after=made[0].id, limit=1)
    assert [s.id for s in page.data] == [made[1].id] and page.has_more
    back = client.vector_stores.list(order="asc", before=made[2].id, limit=1)
    assert [s.id for s in back.data] == [made[1].id]
    renamed = client.vector_stores.update(first.id, name="renamed", metadata={"m": "2"}, expires_after=None)
    assert renamed.name == "renamed" and renamed.metadata == {"m": "2"} and renamed.expires_at is None
    for store in made:
        assert client.vector_stores.delete(store.id).model_dump() == {
            "id": store.id,
            "object": "vector_store.deleted",
            "deleted": True,
        }
    with pytest.raises(openai.NotFoundError):
        client.vector_stores.retrieve(first.id)
    with pytest.raises(openai.BadRequestError) as err:
        client.vector_stores.create(file_ids=["file-nope"])
    assert err.value.body["param"] == "file_ids"  # type: ignore[index]
    with pytest.raises(openai.BadRequestError) as err:
        client.vector_stores.create(expires_after={"anchor": "created_at", "days": 1})  # type: ignore[typeddict-item]
    assert err.value.body["param"] == "expires_after.anchor"  # type: ignore[index]


def test_static_chunking_and_file_lifecycle(client: OpenAI, marker: str) -> None:
    words = " ".join(f"word{i}" for i in range(600))
    fid = client.files.create(file=("long.txt", io.BytesIO(words.encode())), purpose="assistants").id
    store = client.vector_stores.create(name=marker)
    for bad, param in (
        ({"max_chunk_size_tokens": 200, "chunk_overlap_tokens": 150}, "chunking_strategy.static.chunk_overlap_tokens"),
        ({"max_chunk_size_tokens": 50, "chunk_overlap_tokens": 0}, "chunking_strategy.static.max_chunk_size_tokens"),
    ):
        with pytest.raises(openai.BadRequestError) as err:
            client.vector_stores.files.create(
                store.id, file_id=fid, chunking_strategy={"type": "static", "static": bad}
            )  # type: ignore[typeddict-item]
        assert err.value.body["param"] == param  # type: ignore[index]
    with pytest.raises(openai.NotFoundError):
        client.vector_stores.files.create(store.id, file_id="file-missing")
    vs_file = client.vector_stores.files.create_and_poll(
        file_id=fid,
        vector_store_id=store.id,
        chunking_strategy={"type": "static", "static": {"max_chunk_size_tokens": 100, "chunk_overlap_tokens": 20}},
    )
    assert vs_file.status == "completed"
    assert vs_file.chunking_strategy.model_dump() == {  # type: ignore[union-attr]
        "type": "static",
        "static": {"max_chunk_size_tokens": 100, "chunk_overlap_tokens": 20},
    }
    chunks = client.vector_stores.files.content(fid, vector_store_id=store.id).data
    assert len(chunks) > 3
    assert client.vector_stores.files.delete(fid, vector_store_id=store.id).deleted
    assert client.vector_stores.retrieve(store.id).file_counts.total == 0
    assert client.vector_stores.search(store.id, query="word5").data == []
    # deleting a File removes it from every vector store
    client.vector_stores.files.create_and_poll(file_id=fid, vector_store_id=store.id)
    client.files.delete(fid)
    assert client.vector_stores.retrieve(store.id).file_counts.total == 0
    client.vector_stores.delete(store.id)


def test_file_batches_and_cancel(client: OpenAI, marker: str) -> None:
    fids = [
        client.files.create(file=(f"b{i}.txt", io.BytesIO(f"batch {marker} item{i}".encode())), purpose="assistants").id
        for i in range(12)
    ]
    store = client.vector_stores.create(name=marker)
    batch = client.vector_stores.file_batches.create_and_poll(
        vector_store_id=store.id,
        files=[{"file_id": fids[0], "attributes": {"n": 0}}, {"file_id": fids[1], "attributes": {"n": 1}}],
    )
    assert batch.id.startswith("vsfb_") and batch.object == "vector_store.files_batch"
    assert batch.status == "completed" and batch.file_counts.completed == 2 and batch.file_counts.total == 2
    listed = client.vector_stores.file_batches.list_files(batch.id, vector_store_id=store.id)
    assert {f.id: f.attributes for f in listed.data} == {fids[0]: {"n": 0}, fids[1]: {"n": 1}}

    big = client.vector_stores.file_batches.create(vector_store_id=store.id, file_ids=fids[2:])
    cancelled = client.vector_stores.file_batches.cancel(big.id, vector_store_id=store.id)
    counts = cancelled.file_counts
    assert cancelled.status == "cancelled" and counts.in_progress == 0 and counts.total == 10
    assert counts.cancelled >= 1 and counts.completed + counts.cancelled == 10
    time.sleep(0.3)  # nothing cancelled comes back to life
    again = client.vector_stores.file_batches.retrieve(big.id, vector_store_id=store.id)
    assert again.file_counts.model_dump() == counts.model_dump()
    assert client.vector_stores.retrieve(store.id).file_counts.cancelled == counts.cancelled
    only = client.vector_stores.file_batches.list_files(big.id, vector_store_id=store.id, filter="cancelled", limit=100)
    assert len(only.data) == counts.cancelled and all(f.status == "cancelled" for f in only.data)
    with pytest.raises(openai.BadRequestError):
        client.vector_stores.file_batches.create(vector_store_id=store.id, file_ids=[])
    with pytest.raises(openai.NotFoundError):
        client.vector_stores.file_batches.retrieve("vsfb_missing", vector_store_id=store.id)
    client.vector_stores.delete(store.id)
    for fid in fids:
        client.files.delete(fid)


def test_store_built_with_another_embedder_is_refused(client: OpenAI, data_dir: Path, marker: str) -> None:
    store = client.vector_stores.create(name=marker)
    with sqlite3.connect(data_dir / "gateway.db") as db:
        db.execute("UPDATE vector_stores SET embedder = 'other-embedder' WHERE id = ?", (store.id,))
    fid = client.files.create(file=("e.txt", io.BytesIO(b"embedder")), purpose="assistants").id
    with pytest.raises(openai.BadRequestError) as err:
        client.vector_stores.files.create(store.id, file_id=fid)
    assert err.value.body["code"] == "embedder_mismatch"  # type: ignore[index]
    assert "other-embedder" in err.value.message
    with pytest.raises(openai.BadRequestError):
        client.vector_stores.search(store.id, query="embedder")
    client.vector_stores.delete(store.id)
    client.files.delete(fid)
