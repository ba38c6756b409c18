"""One conformance suite for every vector backend (sqlite-vec, milvus-lite, pgvector), each on its own store.

Vectors are small (8-d) and chosen so the expected order is known; filter results are checked
against `vectorstore.filters.matches`, the reference semantics every backend must follow.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gateway.config import Settings
from vectorstore.backends import build_vector_backend
from vectorstore.base import Chunk, Filter, VectorBackend
from vectorstore.filters import FilterError, matches
from vectorstore.fusion import Fusion

DIM = 8


def unit(*components: float) -> list[float]:
    v = np.zeros(DIM, dtype=np.float64)
    v[: len(components)] = components
    return (v / np.linalg.norm(v)).tolist()


def axis(i: int, noise: float = 0.0, seed: int = 0) -> list[float]:
    rng = np.random.default_rng(seed)
    v = np.zeros(DIM) + rng.normal(0, noise, DIM)
    v[i] += 1.0
    return (v / np.linalg.norm(v)).tolist()


def chunk(store: str, file_id: str, index: int, text: str, vector: list[float], **attributes: Any) -> Chunk:
    return Chunk(
        id=f"{file_id}-{index}",
        store_id=store,
        file_id=file_id,
        filename=f"{file_id}.txt",
        index=index,
        text=text,
        vector=vector,
        attributes=attributes,
    )


@pytest.fixture(scope="module", params=["sqlite-vec", "milvus", "pgvector"])
async def backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Any]:
    data_dir: Path = tmp_path_factory.mktemp(f"vectors-{request.param}")
    url = request.getfixturevalue("postgres_url") if request.param == "pgvector" else None
    settings = Settings(data_dir=data_dir, vector_backend=request.param, database_url=url)
    b: Any = build_vector_backend(settings, data_dir / "gateway.db", checkpoint=True)  # standalone: checkpoints here
    await b.open()
    yield b
    await b.close()


@pytest.fixture
async def store(backend: VectorBackend) -> str:
    store_id = f"vs_{uuid.uuid4().hex[:12]}"
    await backend.create_store(store_id, DIM)
    return store_id


async def ids(backend: VectorBackend, store: str, **kw: Any) -> list[str]:
    kw.setdefault("vector", axis(0))
    kw.setdefault("query", "")
    kw.setdefault("k", 10)
    return [h.chunk_id for h in await backend.search(store, **kw)]


async def test_create_upsert_drop(backend: VectorBackend, store: str) -> None:
    await backend.upsert([chunk(store, "f1", 0, "alpha beta", axis(0)), chunk(store, "f1", 1, "gamma", axis(1))])
    assert await ids(backend, store, mode="vector") == ["f1-0", "f1-1"]
    await backend.drop_store(store)
    assert await ids(backend, store, mode="vector") == []
    assert await backend.file_chunks(store, "f1") == []
    await backend.drop_store(store)  # dropping twice is harmless


async def test_upsert_replaces_same_chunk_id(backend: VectorBackend, store: str) -> None:
    await backend.upsert([chunk(store, "f1", 0, "old words", axis(0))])
    await backend.upsert([chunk(store, "f1", 0, "new words", axis(0))])
    hits = await backend.search(store, vector=axis(0), query="words", k=10, mode="hybrid")
    assert [(h.chunk_id, h.text) for h in hits] == [("f1-0", "new words")]
    assert await ids(backend, store, mode="keyword", query="old") == []


async def test_partition_isolation(backend: VectorBackend) -> None:
    a, b = f"vs_a{uuid.uuid4().hex[:8]}", f"vs_b{uuid.uuid4().hex[:8]}"
    for s in (a, b):
        await backend.create_store(s, DIM)
        await backend.upsert(
            [chunk(s, "shared", 0, f"common text of {s}", axis(0)), chunk(s, f"own-{s}", 0, "x", unit(1, 1))]
        )
    hits = await backend.search(a, vector=axis(0), query="common text", k=10, mode="hybrid")
    assert {h.chunk_id for h in hits} == {"shared-0", f"own-{a}-0"}
    assert all(s not in h.text for h in hits for s in (b,))
    await backend.delete_file(a, "shared")
    assert await ids(backend, a, mode="vector") == [f"own-{a}-0"]
    assert sorted(await ids(backend, b, mode="vector")) == sorted(["shared-0", f"own-{b}-0"])


async def test_delete_file_and_file_chunks_order(backend: VectorBackend, store: str) -> None:
    chunks = [chunk(store, "f1", i, f"part {i}", axis(i % DIM)) for i in range(6)]
    random.Random(1).shuffle(chunks)
    await backend.upsert([*chunks, chunk(store, "f2", 0, "other", axis(2))])
    listed = await backend.file_chunks(store, "f1")
    assert [h.chunk_id for h in listed] == [f"f1-{i}" for i in range(6)]
    assert [h.text for h in listed] == [f"part {i}" for i in range(6)]
    assert {h.filename for h in listed} == {"f1.txt"}
    await backend.delete_file(store, "f1")
    assert await backend.file_chunks(store, "f1") == []
    assert await ids(backend, store, mode="vector") == ["f2-0"]


async def test_chunks_by_id_in_file_order(backend: VectorBackend, store: str) -> None:
    """`chunks` (the kg ranker's one read of the chunks only its graph found): the chunks named and no
    others, grouped by file in the order the refs first name each file, a file's in its own order;
    an id no longer there (its file deleted) is left out, another store's never read."""
    parts = [chunk(store, f, i, f"{f} part {i}", axis(i % DIM)) for f in ("f1", "f2", "f3") for i in range(4)]
    random.Random(2).shuffle(parts)
    await backend.upsert(parts)
    other = f"vs_o{uuid.uuid4().hex[:8]}"
    await backend.create_store(other, DIM)
    await backend.upsert([chunk(other, "f9", 0, "elsewhere", axis(0))])
    refs = [("f2", "f2-3"), ("f1", "f1-2"), ("f2", "f2-0"), ("f1", "f1-0"), ("f9", "f9-0"), ("f3", "gone")]
    got = await backend.chunks(store, refs)
    assert [h.chunk_id for h in got] == ["f2-0", "f2-3", "f1-0", "f1-2"]
    assert [(h.file_id, h.filename, h.text) for h in got[:1]] == [("f2", "f2.txt", "f2 part 0")]
    await backend.delete_file(store, "f2")
    assert [h.chunk_id for h in await backend.chunks(store, refs)] == ["f1-0", "f1-2"]
    assert await backend.chunks(store, []) == []
    assert await backend.chunks(f"vs_none{uuid.uuid4().hex[:6]}", refs) == []


async def test_update_attributes(backend: VectorBackend, store: str) -> None:
    await backend.upsert([chunk(store, "f1", i, f"text {i}", axis(i), team="red") for i in range(3)])
    red: Filter = {"type": "eq", "key": "team", "value": "red"}
    blue: Filter = {"type": "eq", "key": "team", "value": "blue"}
    assert len(await ids(backend, store, mode="vector", filters=red)) == 3
    await backend.update_attributes(store, "f1", {"team": "blue", "n": 1})
    assert await ids(backend, store, mode="vector", filters=red) == []
    hits = await backend.search(store, vector=axis(0), query="", k=10, mode="vector", filters=blue)
    assert len(hits) == 3 and all(h.attributes == {"team": "blue", "n": 1} for h in hits)
    assert [h.attributes for h in await backend.file_chunks(store, "f1")] == [{"team": "blue", "n": 1}] * 3


async def test_vector_search_order_and_scores(backend: VectorBackend, store: str) -> None:
    query = unit(1, 0)
    await backend.upsert(
        [
            chunk(store, "near", 0, "a", unit(1, 0.1)),
            chunk(store, "mid", 0, "b", unit(1, 1)),
            chunk(store, "far", 0, "c", unit(0, 1)),
            chunk(store, "opposite", 0, "d", unit(-1, 0.2)),
        ]
    )
    hits = await backend.search(store, vector=query, query="", k=3, mode="vector")
    assert [h.file_id for h in hits] == ["near", "mid", "far"]
    assert hits[0].score == pytest.approx(float(np.dot(query, unit(1, 0.1))), abs=1e-4)
    assert hits[1].score == pytest.approx(0.7071, abs=1e-3)
    assert hits[2].score == pytest.approx(0.0, abs=1e-4)
    all_hits = await backend.search(store, vector=query, query="", k=10, mode="vector")
    assert all(0.0 <= h.score <= 1.0 for h in all_hits) and all_hits[-1].score == 0.0  # negative cosine clamps


KEYWORD_DOCS = [
    ("f1", "Error E1042: connection refused when the replica at 10.0.0.7 restarts."),
    ("f2", "The quarterly report covers revenue, churn and hiring plans."),
    ("f3", "Kubernetes pods restart after an out-of-memory kill; raise the memory limit."),
    ("f4", "Bananas are rich in potassium and easy to digest."),
]


async def test_keyword_search_and_punctuation(backend: VectorBackend, store: str) -> None:
    await backend.upsert([chunk(store, f, 0, t, axis(i)) for i, (f, t) in enumerate(KEYWORD_DOCS)])
    for query in [
        'What does "E1042" mean?? (seen at 10.0.0.7) AND/OR NOT -x* NEAR(',
        "e1042",
        "error: E1042!!!",
        "'10.0.0.7' -- replica*",
        'quote " unbalanced ( [ { ^ : OR AND e1042 NOT',
    ]:
        hits = await backend.search(store, vector=None, query=query, k=3, mode="keyword")
        assert hits and hits[0].file_id == "f1", query
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert all(0.0 < h.score < 1.0 for h in hits)
    assert await backend.search(store, vector=None, query="?!... ---", k=3, mode="keyword") == []
    assert await ids(backend, store, mode="keyword", query="zeppelin") == []


async def test_hybrid_fuses_both_modes(backend: VectorBackend, store: str) -> None:
    await backend.upsert([chunk(store, f, 0, t, axis(i)) for i, (f, t) in enumerate(KEYWORD_DOCS)])
    # The vector points at f4; the words point at f3; a chunk strong in both would lead.
    hits = await backend.search(store, vector=axis(3), query="memory limit pods", k=4, mode="hybrid")
    assert {hits[0].file_id, hits[1].file_id} == {"f3", "f4"}
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    rrf = Fusion.openai(embedding_weight=1.0, text_weight=1.0)
    both = await backend.search(store, vector=axis(2), query="memory limit pods", k=4, mode="hybrid", fusion=rrf)
    assert both[0].file_id == "f3" and both[0].score == pytest.approx(1.0)  # first in both rankings
    assert all(0.0 <= h.score <= 1.0 for h in both)
    blend = await backend.search(store, vector=axis(2), query="memory limit", k=2, mode="hybrid")
    # default blend: 0.75 x cosine (1.0 here) + 0.25 x keyword score (in (0, 1))
    assert blend[0].file_id == "f3" and 0.75 < blend[0].score < 1.0
    # A question with no searchable word degrades to a vector search instead of failing.
    assert (await backend.search(store, vector=axis(1), query="?!", k=1, mode="hybrid"))[0].file_id == "f2"


ATTRS = [
    {"author": "ann", "year": 2001, "score": 4.5, "draft": False, "lang": "en"},
    {"author": "bob", "year": 2010, "score": 3.0, "draft": True, "lang": "en"},
    {"author": "cy", "year": 2015, "score": 4.9, "draft": False},
    {"author": "ann", "year": 2020, "score": 2.5, "draft": True, "lang": "de"},
    {"author": "dee", "year": "2012", "lang": "fr"},  # year as a string: never compares with numbers
    {"year": 1999, "score": 5, "draft": False, "lang": "en"},  # no author
    {},
    {"author": "bob", "year": 2024, "score": 1.0, "draft": False, "lang": "en"},
]
FILTERS: list[Filter] = [
    {"type": "eq", "key": "author", "value": "ann"},
    {"type": "ne", "key": "author", "value": "ann"},
    {"type": "eq", "key": "draft", "value": True},
    {"type": "ne", "key": "draft", "value": True},
    {"type": "eq", "key": "year", "value": 2015},
    {"type": "eq", "key": "score", "value": 5.0},
    {"type": "gt", "key": "year", "value": 2010},
    {"type": "gte", "key": "year", "value": 2010},
    {"type": "lt", "key": "score", "value": 3.0},
    {"type": "lte", "key": "score", "value": 3.0},
    {"type": "gt", "key": "author", "value": "bob"},
    {"type": "in", "key": "author", "value": ["ann", "cy"]},
    {"type": "nin", "key": "author", "value": ["ann", "cy"]},
    {"type": "in", "key": "lang", "value": ["de", "fr", "xx"]},
    {"type": "eq", "key": "missing", "value": "x"},
    {
        "type": "and",
        "filters": [
            {"type": "gte", "key": "year", "value": 2001},
            {
                "type": "or",
                "filters": [
                    {"type": "eq", "key": "lang", "value": "en"},
                    {"type": "eq", "key": "draft", "value": True},
                ],
            },
        ],
    },
    {
        "type": "or",
        "filters": [
            {
                "type": "and",
                "filters": [
                    {"type": "eq", "key": "author", "value": "bob"},
                    {"type": "lt", "key": "year", "value": 2020},
                ],
            },
            {"type": "nin", "key": "lang", "value": ["en"]},
        ],
    },
]


@pytest.fixture
async def attr_store(backend: VectorBackend, store: str) -> str:
    chunks = []
    for i, attrs in enumerate(ATTRS):
        for j in range(2):
            chunks.append(
                chunk(store, f"file{i}", j, f"shared words file{i} part{j}", axis((i + j) % DIM, 0.2, i), **attrs)
            )
    await backend.upsert(chunks)
    return store


@pytest.mark.parametrize("mode", ["vector", "keyword", "hybrid"])
async def test_every_filter_operator(backend: VectorBackend, attr_store: str, mode: str) -> None:
    for f in FILTERS:
        hits = await backend.search(attr_store, vector=axis(0), query="shared words", k=50, filters=f, mode=mode)  # type: ignore[arg-type]
        expected = {f"file{i}" for i, a in enumerate(ATTRS) if matches(f, a)}
        assert {h.file_id for h in hits} == expected, f
        assert len(hits) == 2 * len(expected), f
        assert all(matches(f, h.attributes) for h in hits), f


@pytest.mark.parametrize("far_count", [12, 30])  # 23% and 43% of the store: narrow and broad filters
async def test_filtered_search_returns_up_to_k(backend: VectorBackend, store: str, far_count: int) -> None:
    # 40 "near" chunks without the attribute and some "far" ones with it: the filter must act inside
    # the search, not on the unfiltered top k (which would hold only near chunks and leave nothing).
    near = [chunk(store, f"n{i}", 0, "common term", axis(0, 0.1, i)) for i in range(40)]
    far = [chunk(store, f"f{i}", 0, "common term", axis(5, 0.1, i), wanted=True) for i in range(far_count)]
    await backend.upsert(near + far)
    wanted: Filter = {"type": "eq", "key": "wanted", "value": True}
    for mode in ("vector", "keyword", "hybrid"):
        hits = await backend.search(store, vector=axis(0), query="common term", k=5, filters=wanted, mode=mode)  # type: ignore[arg-type]
        assert len(hits) == 5 and all(h.file_id.startswith("f") for h in hits), mode
    hits = await backend.search(store, vector=axis(0), query="", k=50, filters=wanted, mode="vector")
    assert len(hits) == far_count


async def test_invalid_filters_rejected(backend: VectorBackend, store: str) -> None:
    for bad in [
        {"type": "regex", "key": "a", "value": "x"},
        {"type": "eq", "key": "", "value": "x"},
        {"type": "eq", "key": 'we"ird', "value": "x"},
        {"type": "in", "key": "a", "value": "notalist"},
        {"type": "gt", "key": "a", "value": True},
        {"type": "and", "filters": []},
        {"type": "eq", "key": "a", "value": {"nested": 1}},
    ]:
        with pytest.raises(FilterError):
            await backend.search(store, vector=axis(0), query="x", k=3, filters=bad)


async def test_dimension_mismatch_rejected(backend: VectorBackend, store: str) -> None:
    with pytest.raises(ValueError):
        await backend.upsert([chunk(store, "f", 0, "x", [1.0, 0.0])])
