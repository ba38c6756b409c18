"""The retrieval subsystem of one process: metadata stores, blobs, the embedder, the vector backend.

Every process builds one (`gateway.bootstrap.build_deps`, a field of its `Runtime`), because both
doors validate `file_search` tools; only the doors that ingest (the HTTP server, the stdio MCP
server) start it (`start()`): it runs ingestion, warms the embedder and opens the vector backend.
The ExtProc never ingests or searches: requests with server-side tools are re-routed to the HTTP
server.

The embedder and backend are built lazily: building them may import heavy libraries or load a
model, which must not happen on the request path nor in a process that never searches.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from gateway.common.errors import APIError, InvalidRequest, ServerError
from gateway.config import Settings
from gateway.knowledge_graph.service import Knowledge
from storage.bundle import Stores
from vectorstore.base import Embedder, VectorBackend

log = logging.getLogger(__name__)


class EmbedderUnavailable(APIError):
    status = 503
    type = "server_error"


class Worker(Protocol):
    """The ingestion worker `start` runs (`gateway.retrieval.ingest.IngestionWorker`, which imports
    this core: named by its shape so the core imports nothing above it)."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def enqueue(self, store_id: str, file_id: str) -> None: ...

    async def cancel(self, store_id: str, file_id: str) -> None: ...

    async def cancel_store(self, store_id: str) -> None: ...


class Retrieval:
    def __init__(self, settings: Settings, bundle: Stores, knowledge: Knowledge | None = None) -> None:
        """`bundle` is the process's stores (`gateway.bootstrap.build_stores`): file metadata, bytes,
        vector-store metadata and the graph on SQLite or PostgreSQL; nothing here names a backend."""
        self.settings = settings
        self.bundle = bundle
        self.files, self.blobs = bundle.files, bundle.blobs
        self.stores = bundle.vector_stores
        self._embedder: Embedder | None = None
        self._warmup: asyncio.Task[Embedder] | None = None
        self._backend: VectorBackend | None = None
        self._backend_lock: asyncio.Lock | None = None
        self.worker: Worker | None = None  # the IngestionWorker, in the doors that ingest only
        # the knowledge graph capability (#12): cheap to build, its extractor model loads on first use
        self.kg = knowledge if knowledge is not None else Knowledge.build(settings, bundle, embed=self._embed)
        self.started = False

    @property
    def extract_limits(self) -> Any:
        """What one file may expand into when its text is extracted (`vectorstore.extract.Limits`)."""
        from vectorstore.extract import Limits

        s = self.settings
        return Limits(expanded_bytes=s.expanded_bytes_cap, ratio=s.max_expansion_ratio, chars=s.extracted_chars_cap)

    # -- lazily built parts ------------------------------------------------------------------------
    async def _build_embedder(self) -> Embedder:
        if self._embedder is None:
            from vectorstore.embedders import build_embedder

            built = await asyncio.to_thread(build_embedder, self.settings)
            if self._embedder is None:
                self._embedder = built
        return self._embedder

    async def _warm(self) -> Embedder:
        embedder = await self._build_embedder()
        warmup = getattr(embedder, "warmup", None)
        if warmup is not None:
            await warmup()
        return embedder

    async def embedder(self) -> Embedder:
        """The process's embedder, warmed up (one shared warm-up; a failed one is retried next call)."""
        if self._warmup is None or (self._warmup.done() and self._warmup.exception() is not None):
            self._warmup = asyncio.get_running_loop().create_task(self._warm(), name="embedder-warmup")
        try:
            return await asyncio.shield(self._warmup)
        except Exception as exc:
            log.warning("the embedder is unavailable: %s: %s", type(exc).__name__, exc)
            raise EmbedderUnavailable(
                f"The embedding model is unavailable: {type(exc).__name__}: {exc}", code="embedder_unavailable"
            ) from exc

    async def embedder_identity(self) -> tuple[str, int]:
        """Name and dimension, without waiting for a warm-up when the embedder already knows them."""
        try:
            embedder = await self._build_embedder()
        except Exception as exc:
            raise EmbedderUnavailable(
                f"The embedding model is unavailable: {type(exc).__name__}: {exc}", code="embedder_unavailable"
            ) from exc
        try:
            dimension = int(embedder.dimension)
        except (AttributeError, RuntimeError):  # a remote embedder learns it from its first answer
            dimension = 0
        if not dimension:
            embedder = await self.embedder()
            dimension = int(embedder.dimension)
        return embedder.name, dimension

    async def backend(self) -> VectorBackend:
        if self._backend is not None:
            return self._backend
        if self._backend_lock is None:
            self._backend_lock = asyncio.Lock()
        async with self._backend_lock:
            if self._backend is None:
                from vectorstore.backends import build_vector_backend

                try:
                    backend = build_vector_backend(
                        self.settings, self.bundle.local_sqlite, checkpoint=self.bundle.local_sqlite_unmanaged
                    )
                    await backend.open()
                except Exception as exc:
                    log.exception("the vector backend could not be opened")
                    raise ServerError(
                        f"The vector store backend is unavailable: {type(exc).__name__}", code="vector_backend_error"
                    ) from exc
                self._backend = backend
        return self._backend

    async def knowledge(self) -> Knowledge:
        """The knowledge graph capability (#12): graph store, extractor, `kg` ranker."""
        return self.kg

    async def _embed(self, texts: list[str]) -> list[list[float]]:
        """The process's embedder, for the knowledge graph's relation phrases."""
        return list(await (await self.embedder()).embed(texts))

    async def forget_graph(self, store_id: str, file_id: str | None = None) -> None:
        """Remove a file's (or a whole store's) graph rows, with its chunks; never fails the caller."""
        try:
            knowledge = await self.knowledge()
            if file_id is None:
                await knowledge.drop_store(store_id)
            else:
                await knowledge.delete_file(store_id, file_id)
        except Exception:
            log.exception("removing the knowledge graph rows of %s/%s failed", store_id, file_id)

    async def check_embedder(self, store_id: str, param: str = "vector_store_id") -> None:
        """Refuse work on a store whose vectors came from another embedder than this process's."""
        recorded = await self.stores.store_embedder(store_id)
        if recorded is None:
            return
        name, _dimension = await self.embedder_identity()
        if recorded[0] != name:
            raise InvalidRequest(
                f"Vector store '{store_id}' was built with the embedder '{recorded[0]}', but this gateway "
                f"embeds with '{name}'; its vectors are not comparable. Re-create the vector store.",
                param=param,
                code="embedder_mismatch",
            )

    # -- lifecycle (HTTP server only) --------------------------------------------------------------
    async def start(self, worker: Worker) -> None:
        """Warm the embedder in the background and start `worker` (the IngestionWorker, made by the
        HTTP server's wiring so this core imports neither ingestion nor files: no import cycle)."""
        self.started = True
        warm = asyncio.get_running_loop().create_task(self.embedder(), name="embedder-warmup-start")
        warm.add_done_callback(_log_failure)
        self.worker = worker
        await self.worker.start()

    async def stop(self) -> None:
        if self.worker is not None:
            await self.worker.stop()
        if self._warmup is not None and not self._warmup.done():
            self._warmup.cancel()
        close = getattr(self._embedder, "close", None)
        if close is not None:
            try:
                await close()
            except Exception:
                log.exception("closing the embedder failed")
        if self._backend is not None:
            backend, self._backend = self._backend, None
            try:
                await backend.close()
            except Exception:
                log.exception("closing the vector backend failed")


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("embedder warm-up failed: %s", task.exception())
