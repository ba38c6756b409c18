"""The engine's dependencies: what both doors build once (`gateway.bootstrap`) and every engine
operation reads. Its own module so the engine's parts can name it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gateway.backends.base import Backend
from gateway.config import Settings
from gateway.engine.models import ModelCatalog
from gateway.tools.registry import ToolRegistry
from storage.base import StateStore
from storage.bundle import Stores


@dataclass
class EngineDeps:
    settings: Settings
    stores: Stores  # every store family, on the one database of `settings` (gateway.bootstrap.build_stores)
    backend: Backend
    models: ModelCatalog
    tools: ToolRegistry = field(default_factory=ToolRegistry)
    research: Any = None  # gateway.research.service.ResearchService, where research runs (the HTTP server)

    @property
    def store(self) -> StateStore:
        """The state store (responses, items, conversations): what most engine operations read."""
        return self.stores.state
