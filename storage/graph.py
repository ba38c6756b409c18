"""The knowledge graph of each vector store, whichever database holds it: the `GraphStore` interface
the knowledge package codes against and its records (`storage/sqlite/graph.py`,
`storage/postgres/graph.py` and `gateway/knowledge_graph/neo4j_store.py` implement it; one conformance
suite, `tests/knowledge_graph/test_graph_conformance.py`, runs over each).

Graph rows are reached only through a vector-store id: callers resolve the vector store through its
project-scoped store first, so these methods take ids that were already checked. A file's rows are
replaced in one transaction (`replace_file`): a re-run extraction never leaves half a file behind,
and `delete_file` takes the file's mentions and relations with it (entities no longer mentioned
anywhere go too).
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Entity:
    key: str  # normalised name
    name: str
    type: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Mention:
    entity: str  # Entity.key
    chunk_id: str
    count: int
    subject: bool = False  # the chunk's document is about this entity (its title)


@dataclass(frozen=True, slots=True)
class Relation:
    source: str  # Entity.key
    target: str
    type: str  # founded_by, made_by, born_in, part_of, located_in, led_by, co_occurs, ...
    weight: float
    chunk_id: str = ""


@dataclass(slots=True)
class FileGraph:
    """Everything extracted from one file of one vector store."""

    store_id: str
    file_id: str
    title: str
    extractor: str
    entities: list[Entity] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Edge:
    """A relation aggregated over the files that state it (`files`, sorted)."""

    source: str
    target: str
    type: str
    weight: float
    files: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MentionRow:
    entity: str
    file_id: str
    chunk_id: str
    count: int
    subject: bool


@dataclass(frozen=True, slots=True)
class ChunkSignals:
    """What the `kg` ranker reads about its candidates, in one round (`GraphStore.chunk_signals`)."""

    rows: list[MentionRow]  # `mentions(keys, limit)`: the reached entities' chunks
    chunk_rows: list[MentionRow]  # `chunk_mentions` of the candidates, those of the given entities
    stated: dict[str, set[str]]  # `chunk_relation_types` of the candidates, the given types
    times: dict[str, tuple[str, int]]  # `file_times` of the candidates' files


class GraphStore(Protocol):
    name: str

    async def replace_file(self, graph: FileGraph) -> None: ...

    async def delete_file(self, store_id: str, file_id: str) -> None: ...

    async def drop_store(self, store_id: str) -> None: ...

    async def has_file(self, store_id: str, file_id: str) -> bool: ...

    async def titles(self, store_id: str) -> list[str]: ...

    async def entities(self, store_id: str, keys: Sequence[str]) -> dict[str, Entity]: ...

    async def search_entities(
        self, store_id: str, text: str, limit: int, file_id: str | None = None
    ) -> list[tuple[Entity, int]]: ...

    async def mention_counts(self, store_id: str, keys: Sequence[str]) -> dict[str, int]: ...

    async def edges(self, store_id: str, keys: Sequence[str], per_entity: int = 50) -> list[Edge]: ...

    async def mentions(self, store_id: str, keys: Sequence[str], limit: int = 200) -> list[MentionRow]: ...

    async def chunk_mentions(
        self, store_id: str, chunk_ids: Sequence[str], entities: Collection[str] | None = None
    ) -> list[MentionRow]: ...

    async def chunk_relation_types(
        self, store_id: str, chunk_ids: Sequence[str], types: Collection[str] | None = None
    ) -> dict[str, set[str]]: ...

    async def file_times(self, store_id: str, file_ids: Sequence[str]) -> dict[str, tuple[str, int]]: ...

    async def unextracted(self, limit: int) -> list[tuple[str, str]]: ...

    # Combined reads (#28): what a kg search reads together, in one round. On SQLite every read is
    # a hop to the store's one reader thread, where a query's reads queued one after another; the
    # results are exactly those of the single reads named in each docstring.

    async def entity_counts(self, store_id: str, keys: Sequence[str]) -> tuple[dict[str, Entity], dict[str, int]]:
        """`entities(keys)` and `mention_counts(keys)`."""
        ...

    async def hop(
        self, store_id: str, keys: Sequence[str], per_entity: int, parents: Sequence[str], parent_limit: int
    ) -> tuple[list[Edge], list[MentionRow]]:
        """`edges(keys, per_entity)` and `mentions(parents, parent_limit)` (no rows for no parents)."""
        ...

    async def mentions_each(self, store_id: str, keys: Sequence[str], limit: int) -> list[MentionRow]:
        """`mentions([key], limit)` of each of `keys` in turn, concatenated."""
        ...

    async def chunk_signals(
        self,
        store_id: str,
        keys: Sequence[str],
        limit: int,
        chunk_ids: Sequence[str],
        file_ids: Collection[str],
        entities: Collection[str],
        types: Collection[str],
    ) -> ChunkSignals:
        """`rows = mentions(keys, limit)`; then, for the candidate chunks `chunk_ids` + those of
        `rows` (first seen first) and the files `file_ids` + those of `rows`: `chunk_mentions(...,
        entities)`, `chunk_relation_types(..., types)` and `file_times(...)`."""
        ...


class ComposedReads:
    """The combined reads as the single reads they are made of, run concurrently: for a store whose
    reads do not queue on one thread (PostgreSQL's connection pool, Neo4j's driver)."""

    async def entity_counts(
        self: GraphStore, store_id: str, keys: Sequence[str]
    ) -> tuple[dict[str, Entity], dict[str, int]]:
        entities, counts = await asyncio.gather(self.entities(store_id, keys), self.mention_counts(store_id, keys))
        return entities, counts

    async def hop(
        self: GraphStore, store_id: str, keys: Sequence[str], per_entity: int, parents: Sequence[str], parent_limit: int
    ) -> tuple[list[Edge], list[MentionRow]]:
        edges, mentions = await asyncio.gather(
            self.edges(store_id, keys, per_entity=per_entity),
            self.mentions(store_id, parents, limit=parent_limit) if parents else _nothing(),
        )
        return edges, mentions

    async def mentions_each(self: GraphStore, store_id: str, keys: Sequence[str], limit: int) -> list[MentionRow]:
        parts = await asyncio.gather(*(self.mentions(store_id, [key], limit) for key in keys))
        return [m for part in parts for m in part]

    async def chunk_signals(
        self: GraphStore,
        store_id: str,
        keys: Sequence[str],
        limit: int,
        chunk_ids: Sequence[str],
        file_ids: Collection[str],
        entities: Collection[str],
        types: Collection[str],
    ) -> ChunkSignals:
        rows = await self.mentions(store_id, keys, limit=limit)
        ids, files = candidates(rows, chunk_ids, file_ids)
        chunk_rows, stated, times = await asyncio.gather(
            self.chunk_mentions(store_id, ids, entities=entities),
            self.chunk_relation_types(store_id, ids, types=types),
            self.file_times(store_id, files),
        )
        return ChunkSignals(rows, chunk_rows, stated, times)


def candidates(
    rows: Sequence[MentionRow], chunk_ids: Sequence[str], file_ids: Collection[str]
) -> tuple[list[str], list[str]]:
    """`chunk_signals`' candidate chunks (`chunk_ids`, then those of `rows`, each once) and files."""
    ids = list(dict.fromkeys([*chunk_ids, *(m.chunk_id for m in rows)]))
    files = list(set(file_ids) | {m.file_id for m in rows})
    return ids, files


async def _nothing() -> list[MentionRow]:
    return []


MAX_ALIASES = 8


def merge_aliases(stored: Sequence[str], found: Sequence[str]) -> list[str]:
    """An entity's aliases: those stored, then the new ones of a file, at most `MAX_ALIASES`."""
    return list(dict.fromkeys([*stored, *found]))[:MAX_ALIASES]
