"""The composition root: one typed `Runtime` per process, entered by every door.

`Runtime.build(settings, door)` wires everything a process needs from `gateway.bootstrap`'s
builders without I/O; `async with runtime.run()` opens the parts in ONE order (`Runtime.steps`)
and closes them in reverse in ONE teardown, also when a start step fails half way (what was
opened is closed, the usage recorder flushed, the store closed last). `Runtime.start(settings,
door)` is both at once. The doors enter it:

    the HTTP server        gateway/http/app.py     `app.cleanup_ctx` (aiohttp's lifespan)
    the ExtProc            extproc/server.py       `async with Runtime.start(...)` around the gRPC server
    the stdio MCP server   gateway/mcp_server/stdio.py
    CLI commands           gateway/auth/cli.py     (`keys`), on the same store

Optional capabilities are typed fields that are None when off for the door: `responses` (doors
that serve turns), `ingestion` (doors that ingest documents), `research` (the HTTP server).
docs/ARCHITECTURE.md's "Wiring" table lists the fields and steps; tests/ops/test_runtime.py checks it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from enum import StrEnum

from gateway.auth.authenticator import Authenticator
from gateway.auth.keys import KeyStore
from gateway.bootstrap import Usage, build_auth, build_deps, build_stores, build_usage
from gateway.config import Settings
from gateway.engine.conversations import ConversationsService
from gateway.engine.deps import EngineDeps
from gateway.engine.models import ModelCatalog
from gateway.engine.service import ResponsesService
from gateway.inference.base import Backend
from gateway.inference.client import BackendClient
from gateway.knowledge_graph.service import Knowledge
from gateway.research.service import ResearchService
from gateway.retrieval.core import Retrieval
from gateway.retrieval.files import FilesService
from gateway.retrieval.ingest import IngestionWorker
from gateway.retrieval.stores import VectorStoresService
from gateway.telemetry import tracing
from gateway.telemetry.logs import announce
from gateway.tools.mcp.client import SessionPool
from gateway.tools.registry import ToolRegistry
from storage.base import StateStore
from storage.bundle import Stores

log = logging.getLogger(__name__)


class Door(StrEnum):
    """Which process enters the runtime: it decides the optional capabilities."""

    HTTP = "http"
    EXTPROC = "extproc"
    MCP = "mcp"  # the stdio MCP server
    CLI = "cli"  # a command on the store (`keys`)


SERVES_TURNS = frozenset({Door.HTTP, Door.EXTPROC})
INGESTS = frozenset({Door.HTTP, Door.MCP})
RESEARCHES = frozenset({Door.HTTP})


@dataclass
class Step:
    """One part of the start order: `open` runs at start, `close` at teardown (reverse order)."""

    name: str
    open: Callable[[], Awaitable[object]] | None
    close: Callable[[], Awaitable[object]] | None


@dataclass(eq=False)
class Runtime:
    settings: Settings
    door: Door
    stores: Stores  # every store family on one database (storage/bundle.py); `store` is its state store
    backend_client: BackendClient
    backend: Backend
    models: ModelCatalog
    tools: ToolRegistry
    retrieval: Retrieval
    knowledge: Knowledge
    mcp_sessions: SessionPool
    authenticator: Authenticator
    keys: KeyStore
    usage: Usage
    engine: EngineDeps
    conversations: ConversationsService
    files: FilesService
    vector_stores: VectorStoresService
    responses: ResponsesService | None  # None: the door serves no turns (stdio MCP, CLI)
    ingestion: IngestionWorker | None  # None: the door ingests nothing (ExtProc, CLI)
    research: ResearchService | None  # None: research runs in the HTTP server only
    tracing: bool  # OpenTelemetry on in this process (set up by the CLI before the runtime)
    opened: list[str] = field(default_factory=list)  # the steps opened, in order
    closed: list[str] = field(default_factory=list)  # the steps closed, in order

    @classmethod
    def build(cls, settings: Settings, door: Door) -> Runtime:
        """Every part, wired, nothing opened (no I/O: a door may build it before its loop runs)."""
        stores = build_stores(settings)
        engine, http = build_deps(settings, stores, research=door in RESEARCHES)
        authenticator, keys = build_auth(settings, stores)
        files = FilesService(engine.retrieval)
        return cls(
            settings=settings,
            door=door,
            stores=stores,
            backend_client=http,
            backend=engine.backend,
            models=engine.models,
            tools=engine.tools,
            retrieval=engine.retrieval,
            knowledge=engine.retrieval.kg,
            mcp_sessions=engine.mcp_sessions,
            authenticator=authenticator,
            keys=keys,
            usage=build_usage(settings, stores),
            engine=engine,
            conversations=ConversationsService(stores.state),
            files=files,
            vector_stores=VectorStoresService(engine.retrieval),
            responses=ResponsesService(engine) if door in SERVES_TURNS else None,
            ingestion=IngestionWorker(engine.retrieval, files.remove) if door in INGESTS else None,
            research=engine.research,
            tracing=tracing.ON,
        )

    @classmethod
    @asynccontextmanager
    async def start(cls, settings: Settings, door: Door) -> AsyncIterator[Runtime]:
        """Build and run: `async with Runtime.start(settings, Door.EXTPROC) as runtime: ...`."""
        async with cls.build(settings, door).run() as runtime:
            yield runtime

    def steps(self) -> list[Step]:
        """The start order; teardown is its reverse. Each step's close runs only if it opened."""
        ingestion, research, responses = self.ingestion, self.research, self.responses
        return [
            Step("stores", self.stores.open, self.stores.close),
            Step("usage", self._start_usage, self.usage.stop),  # flushed after everything that records
            Step("backend", None, self.backend.close),  # the one backend client's connections
            Step("models", self._start_models if self.door in SERVES_TURNS else None, self.models.stop),
            Step("mcp_sessions", None, self.mcp_sessions.close),
            Step("knowledge", None, self.knowledge.close),  # after retrieval stops: ingestion writes the graph
            Step("retrieval", None, self.retrieval.stop),  # the vector backend and embedder, if built
            Step("ingestion", (lambda: self.retrieval.start(ingestion)) if ingestion else None, None),
            Step("research", None, research.close if research else None),
            Step("responses", responses.start if responses else None, responses.shutdown if responses else None),
        ]

    @property
    def store(self) -> StateStore:
        """The state store (responses, items, conversations)."""
        return self.stores.state

    async def _start_usage(self) -> None:
        self.usage.install()

    async def _start_models(self) -> None:
        self.models.start()

    @asynccontextmanager
    async def run(self) -> AsyncIterator[Runtime]:
        """Open every step in order; on exit (or a failed step) close those opened, in reverse."""
        try:
            async with AsyncExitStack() as stack:
                for step in self.steps():
                    if step.open is not None:
                        await step.open()
                    self.opened.append(step.name)
                    if step.close is not None:
                        stack.push_async_callback(self._close, step.name, step.close)
                announce(f"runtime ({self.door}) opened: {', '.join(self.opened)}")
                yield self
        finally:
            announce(f"runtime ({self.door}) closed: {', '.join(self.closed)}")

    async def _close(self, name: str, close: Callable[[], Awaitable[object]]) -> None:
        """One step's close; a failure is logged and the teardown goes on with the next."""
        try:
            await close()
        except Exception:
            log.exception("closing %s failed", name)
        self.closed.append(name)
