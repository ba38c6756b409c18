"""What a research run needs, built once per process: the backend session, the page reader, the
web search provider, the knowledge base and the deployment-wide slots."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gateway.config import Settings
from gateway.engine.models import ModelCatalog
from gateway.inference.client import BackendClient
from gateway.mcp_server.knowledge_base import KnowledgeBase
from gateway.mcp_server.memory import Memory
from gateway.net.netguard import AddressPolicy
from gateway.net.webpages import Page, PageReader
from gateway.research.llm import ChatModel
from gateway.research.orchestrator import Event, KnowledgeSearch, PageSink, Research, Source, WebSearch
from gateway.research.queue import Slots
from gateway.retrieval.core import Retrieval
from gateway.retrieval.search import search_stores
from gateway.tools.web_search.providers import SearchQuery, configuration_problem, make_provider

if TYPE_CHECKING:  # the bundle's family types exist for the type checker only
    from storage.bundle import ResearchQueues

log = logging.getLogger(__name__)

KINDS = ("standard", "deep")
KB_RESULTS = 5
WEB_RESULTS = 8


@dataclass
class Queued:
    place: int


class ResearchService:
    def __init__(
        self,
        settings: Settings,
        http: BackendClient,
        models: ModelCatalog,
        retrieval: Retrieval | None,
        queue: ResearchQueues,
    ) -> None:
        self.settings = settings
        self.http = http
        self.models = models
        self.retrieval = retrieval
        self.slots = Slots(
            queue,
            {"standard": settings.research_max_standard, "deep": settings.research_max_deep},
            settings.run_lease_seconds,
        )
        self.reader = PageReader(AddressPolicy.from_setting(settings.crawl_allowed_hosts))

    def default_store_ids(self) -> list[str]:
        raw = self.settings.research_vector_store_ids or ""
        return [s.strip() for s in raw.split(",") if s.strip()]

    def web_search(self) -> WebSearch | None:
        if configuration_problem(self.settings) is not None:
            return None
        provider = make_provider(self.settings)

        async def search(query: str) -> list[Source]:
            hits = await provider.search(SearchQuery(query=query, count=WEB_RESULTS))
            return [Source(title=h.title or h.url, url=h.url, snippet=h.snippet) for h in hits]

        return search

    def knowledge(
        self, store_ids: list[str], extra: list[tuple[str, KnowledgeSearch]] | None
    ) -> list[tuple[str, KnowledgeSearch]]:
        """The non-web sources of a run: the vector stores, then any MCP servers."""
        kb = self.knowledge_search(store_ids)
        return ([("file", kb)] if kb is not None else []) + list(extra or [])

    def knowledge_search(self, store_ids: list[str]) -> KnowledgeSearch | None:
        retrieval = self.retrieval
        if not store_ids or retrieval is None:
            return None
        public = f"http://{self.settings.host}:{self.settings.envoy_port}"

        async def search(queries: list[str]) -> list[Source]:
            ranker = self.settings.research_ranker if self.settings.kg_enabled else "auto"
            hits = await search_stores(retrieval, store_ids, queries, k=KB_RESULTS, ranker=ranker)
            return [
                Source(
                    title=h.filename,
                    url=str(h.attributes.get("source_url") or f"{public}/v1/files/{h.file_id}/content"),
                    snippet=h.text,
                    kind="file",
                    file_id=h.file_id,
                )
                for h in hits
            ]

        return search

    def saver(self) -> PageSink | None:
        """GATEWAY_RESEARCH_SAVE_TO: pages read become documents of that vector store (ingested in
        the background, cited by their URL), through the MCP server's memory, the one writer of
        documents."""
        store_id = self.settings.research_save_to
        if not store_id or self.retrieval is None:
            return None
        memory = Memory(KnowledgeBase(self.retrieval, self.settings))

        async def save(page: Page) -> None:
            await memory.add(
                store_id, page.text, title=page.title, tags=["research"], extra={"source_url": page.final_url}
            )

        return save

    def context_tokens(self, model: str) -> int:
        for entry in getattr(self.models, "models", []) or []:
            if entry.get("id") == model and isinstance(entry.get("max_model_len"), int):
                return int(entry["max_model_len"])
        return self.settings.research_context_tokens

    async def events(
        self,
        kind: str,
        question: str,
        model: str,
        *,
        web: bool = True,
        store_ids: list[str] | None = None,
        extra: list[tuple[str, KnowledgeSearch]] | None = None,
    ) -> AsyncGenerator[Event | Queued, None]:
        """The run's events, after waiting for a slot (`Queued` while waiting); the slot is freed
        however the run ends, a client going away included (the consumer closes this generator)."""
        run_id = self.slots.new_run_id()
        try:
            async for place in self.slots.wait_turn(run_id, kind):
                yield Queued(place)
            research = Research(
                ChatModel(self.http, model),
                self.reader,
                web=self.web_search() if web else None,
                knowledge=self.knowledge(self.default_store_ids() if store_ids is None else store_ids, extra),
                iterations=self.settings.research_iterations_deep
                if kind == "deep"
                else self.settings.research_iterations_standard,
                pages_per_round=self.settings.research_pages_per_round,
                context_tokens=self.context_tokens(model),
                save=self.saver(),
            )
            async for event in research.run(question):
                yield event
        finally:
            await self.slots.release(run_id)

    async def close(self) -> None:
        await self.reader.close()
