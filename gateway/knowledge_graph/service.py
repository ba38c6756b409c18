"""The knowledge capability of one process: its graph store, its extractor, its ranker.

Built lazily (`Knowledge.of(settings, state)`) because the GLiNER extractor loads a model; the rule
extractor and the SQLite graph cost nothing to build. Ingestion calls `index_file` /
`delete_file`; search calls `rank`; the entities route calls `lookup`. Every method takes a vector
store id that the caller already resolved through the project-scoped vector store lookup.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from gateway.config import Settings
from gateway.knowledge_graph.extract import PHRASE, Extractor, RuleExtractor, normalise
from gateway.knowledge_graph.hops import hop_plan
from gateway.knowledge_graph.index import build_file_graph
from gateway.knowledge_graph.phrases import Embed, PhraseVectors
from gateway.knowledge_graph.question import cue_words, kind_nouns, relation_words
from gateway.knowledge_graph.ranker import Ranker, RankOutcome
from gateway.knowledge_graph.weights import parse_weights
from storage.bundle import Stores
from storage.graph import GraphStore
from vectorstore.base import VectorBackend

log = logging.getLogger(__name__)
# phrase relations of one file embedded at ingestion (a long manual page has hundreds; embedding them
# all halved ingestion): the rest are embedded by the first search that meets them
WARM_PHRASES = 32


def build_extractor(settings: Settings) -> Extractor:
    """GLiNER when configured (or asked for), else the rule-based extractor."""
    use_gliner = settings.kg_extractor == "gliner" or (
        settings.kg_extractor == "auto" and bool(settings.kg_gliner_model)
    )
    if use_gliner:
        from gateway.knowledge_graph.gliner import GlinerExtractor

        if not settings.kg_gliner_model:
            raise ValueError("GATEWAY_KG_EXTRACTOR=gliner needs GATEWAY_KG_GLINER_MODEL")
        labels = [x.strip() for x in settings.kg_gliner_labels.split(",") if x.strip()]
        return GlinerExtractor(settings.kg_gliner_model, labels=labels, threshold=settings.kg_gliner_threshold)
    return RuleExtractor()


def build_graph_store(settings: Settings, stores: Stores) -> GraphStore:
    """Neo4j when chosen, else the bundle's own (SQLite's or PostgreSQL's, beside the vector stores)."""
    if settings.kg_graph_store == "neo4j":
        from gateway.knowledge_graph.neo4j_store import Neo4jGraphStore

        if not settings.kg_neo4j_uri:
            raise ValueError("GATEWAY_KG_GRAPH_STORE=neo4j needs GATEWAY_KG_NEO4J_URI")
        return Neo4jGraphStore(settings.kg_neo4j_uri, settings.kg_neo4j_user, settings.kg_neo4j_password)
    return stores.graph


class Knowledge:
    def __init__(
        self, settings: Settings, graph: GraphStore, extractor: Extractor | None = None, embed: Embed | None = None
    ) -> None:
        self.settings = settings
        # the question's likeness to relations no pattern typed (gateway/knowledge_graph/phrases.py)
        self.phrases = PhraseVectors(embed) if embed is not None else None
        self.graph = graph
        self.weights = parse_weights(settings.kg_weights)
        self.chain_weights = parse_weights(settings.kg_chain_weights)
        self._extractor = extractor
        self._lock = asyncio.Lock()

    @classmethod
    def build(cls, settings: Settings, stores: Stores, embed: Embed | None = None) -> Knowledge:
        """Cheap: the extractor (a model, with GLiNER) is loaded on first use, so deleting a file's
        graph rows never waits for or depends on it."""
        return cls(settings, build_graph_store(settings, stores), embed=embed)

    async def close(self) -> None:
        """Close a graph store with connections of its own (Neo4j's driver); the bundle's graph
        runs on the bundle's connections and closes with it (the runtime's teardown)."""
        close = getattr(self.graph, "close", None)
        if close is not None:
            await close()

    async def extractor(self) -> Extractor:
        if self._extractor is None:
            async with self._lock:
                if self._extractor is None:
                    self._extractor = await asyncio.to_thread(build_extractor, self.settings)
        return self._extractor

    @property
    def enabled(self) -> bool:
        return self.settings.kg_enabled

    async def index_file(self, store_id: str, file_id: str, filename: str, chunks: Sequence[tuple[str, str]]) -> None:
        """Extract one file's graph (in a thread) and replace the file's rows with it."""
        extractor = await self.extractor()
        titles = await self.graph.titles(store_id)
        graph = await asyncio.to_thread(build_file_graph, extractor, store_id, file_id, filename, chunks, titles)
        await self.graph.replace_file(graph)
        if self.phrases is not None:  # the phrases' vectors, so searches need not embed them
            try:
                phrases = list(dict.fromkeys(r.type for r in graph.relations if r.type.startswith(PHRASE)))
                await self.phrases.warm(phrases[:WARM_PHRASES])
            except Exception:  # the embedder failing costs the walk a step, never the file
                log.exception("embedding the relation phrases of %s failed", file_id)

    async def delete_file(self, store_id: str, file_id: str) -> None:
        await self.graph.delete_file(store_id, file_id)

    async def drop_store(self, store_id: str) -> None:
        await self.graph.drop_store(store_id)

    async def rank(
        self,
        backend: VectorBackend,
        store_id: str,
        query: str,
        vector: list[float] | None,
        *,
        k: int,
        filters: dict[str, Any] | None,
    ) -> RankOutcome:
        ranker = Ranker(self.graph, await self.extractor(), self.weights, self.chain_weights)
        relate = None
        if self.phrases is not None and vector is not None:
            relate = self.phrases.relate(
                vector, relation_words(query), kind_nouns(query) | cue_words(query), lambda: _plan(query)
            )
        return await ranker.rank(backend, store_id, query, vector, k=k, filters=filters, relate=relate)

    async def names(self, store_id: str, keys: Sequence[str]) -> dict[str, dict[str, str]]:
        found = await self.graph.entities(store_id, keys)
        return {k: {"name": e.name, "type": e.type} for k, e in found.items()}

    async def lookup(
        self, store_id: str, query: str, limit: int, *, file_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Entities whose name contains `query` (with `file_id`: mentioned in that file; an empty
        query matches all): type, aliases, mention count (in the file, with `file_id`) and neighbours."""
        matches = await self.graph.search_entities(store_id, normalise(query), limit, file_id)
        keys = [e.key for e, _ in matches]
        edges = await self.graph.edges(store_id, keys, per_entity=10)
        other = {e.target if e.source in keys else e.source for e in edges}
        names = await self.graph.entities(store_id, list(other | set(keys)))
        out = []
        for entity, count in matches:
            near = []
            for e in edges:
                if entity.key not in (e.source, e.target) or e.source == e.target:
                    continue
                peer = e.target if e.source == entity.key else e.source
                if peer not in names:
                    continue
                near.append(
                    {
                        "name": names[peer].name,
                        "type": names[peer].type,
                        "relation": e.type,
                        "direction": "out" if e.source == entity.key else "in",
                        "weight": round(e.weight, 4),
                    }
                )
            near.sort(  # patterns' types, then phrases, then co-occurrence
                key=lambda x: (x["relation"] == "co_occurs", str(x["relation"]).startswith(PHRASE), -float(x["weight"]))  # type: ignore[arg-type]
            )
            out.append(
                {
                    "object": "vector_store.entity",
                    "name": entity.name,
                    "id": entity.key,
                    "type": entity.type,
                    "aliases": list(entity.aliases),
                    "mention_count": count,
                    "neighbours": near[:10],
                }
            )
        return out


def _plan(query: str) -> tuple[list[list[str]], dict[str, int]]:
    """The question's hops (`hops.hop_plan`), read when the walk starts: a question answered by
    hybrid search is never parsed for them."""
    plan = hop_plan(query)
    return plan.words, plan.types
