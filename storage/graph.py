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


MAX_ALIASES = 8


def merge_aliases(stored: Sequence[str], found: Sequence[str]) -> list[str]:
    """An entity's aliases: those stored, then the new ones of a file, at most `MAX_ALIASES`."""
    return list(dict.fromkeys([*stored, *found]))[:MAX_ALIASES]
