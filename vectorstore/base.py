"""The retrieval interfaces the engine depends on.

`Embedder` turns text into vectors; `VectorBackend` stores chunks with their vectors and searches
them (vector, keyword or hybrid) inside one vector store's partition, applying attribute filters
inside the backend query so a filtered search still returns up to k hits. One conformance suite
(`tests/vectorstore/test_vector_conformance.py`) runs against every backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from vectorstore.fusion import Fusion

SearchMode = Literal["vector", "keyword", "hybrid"]
# OpenAI's filter grammar: {"type": "eq"|"ne"|"gt"|"gte"|"lt"|"lte"|"in"|"nin", "key", "value"}
# or {"type": "and"|"or", "filters": [...]}
Filter = dict[str, Any]


@dataclass(slots=True)
class Chunk:
    id: str
    store_id: str
    file_id: str
    filename: str
    index: int  # position of the chunk within its file
    text: str
    vector: list[float]
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Hit:
    chunk_id: str
    file_id: str
    filename: str
    text: str
    score: float  # higher is better, in [0, 1] for vector and hybrid results
    attributes: dict[str, Any] = field(default_factory=dict)


class Embedder(Protocol):
    name: str  # recorded on each vector store; stores never mix embedders
    dimension: int

    async def embed(self, texts: list[str]) -> list[list[float]]: ...

    def count_tokens(self, text: str) -> int: ...

    async def warmup(self) -> None: ...  # load the model / learn the dimension, off the request path

    async def close(self) -> None: ...


class VectorBackend(Protocol):
    name: str

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def create_store(self, store_id: str, dimension: int) -> None: ...

    async def drop_store(self, store_id: str) -> None: ...

    async def upsert(self, chunks: list[Chunk]) -> None: ...

    async def delete_file(self, store_id: str, file_id: str) -> None: ...

    async def update_attributes(self, store_id: str, file_id: str, attributes: dict[str, Any]) -> None: ...

    async def file_chunks(self, store_id: str, file_id: str) -> list[Hit]: ...

    async def chunks(self, store_id: str, refs: Sequence[tuple[str, str]]) -> list[Hit]:
        """The chunks `refs` names, as (file id, chunk id), in one read: grouped by file in the
        order `refs` first names each file, a file's in its own order (`file_chunks`'); ids not
        there (deleted since) are left out."""
        ...

    async def search(
        self,
        store_id: str,
        *,
        vector: list[float] | None,
        query: str,
        k: int,
        filters: Filter | None = None,
        mode: SearchMode = "hybrid",
        fusion: Fusion | None = None,  # hybrid only; None: the backend's default, see fusion.py
    ) -> list[Hit]: ...
