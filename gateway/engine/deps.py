"""The engine's dependencies: the part of the process's `Runtime` (`gateway.runtime`) that every
engine operation and tool reads. Its own module so the engine's parts can name it without
importing each other; built only by the composition root (`gateway.bootstrap.build_deps`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from gateway.config import Settings
from gateway.engine.models import ModelCatalog
from gateway.inference.base import Backend
from gateway.research.service import ResearchService
from gateway.retrieval.core import Retrieval
from gateway.tools.mcp.client import SessionPool
from gateway.tools.registry import ToolRegistry
from storage.base import StateStore
from storage.bundle import Stores


@dataclass
class EngineDeps:
    settings: Settings
    stores: Stores  # every store family, on the one database of `settings` (gateway.bootstrap.build_stores)
    backend: Backend
    models: ModelCatalog
    retrieval: Retrieval  # both doors validate `file_search` tools; only doors that ingest start it
    mcp_sessions: SessionPool  # the process's cached MCP sessions (the `mcp` tool and research's MCP sources)
    tools: ToolRegistry = field(default_factory=ToolRegistry)
    research: ResearchService | None = None  # None: research runs in another door (the HTTP server)

    @property
    def store(self) -> StateStore:
        """The state store (responses, items, conversations): what most engine operations read."""
        return self.stores.state
