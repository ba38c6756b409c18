"""Background ingestion: extract → chunk → embed → upsert, with honest statuses, resumed after a restart.

The backlog is the database itself: a vector store file is `in_progress` until a worker moves it to
`completed` or `failed` (a conditional update, so a file cancelled or removed meanwhile stays so, and
its chunks are removed again). Every process that ingests (each HTTP worker, each replica) claims
files from that backlog for a lease (`claim_files`), renews its claims while it lives and gives them
back when it stops; the claims of a process that died run out and another claims the files. So N
processes share the work, a file is lost with no process, and none is ingested twice at once. Each
job first deletes the file's chunks, so a job cut short by a crash never leaves half a file behind.

The knowledge graph (#12) of a file is extracted after its chunks are written and before it is
marked `completed`, so it resumes the same way.

Extraction and chunking are CPU-bound and run in threads; embeddings go in batches so a large file
neither holds the whole model input at once nor starves other files.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from gateway.engine.owner import OWNER
from gateway.retrieval.core import Retrieval
from gateway.telemetry import metrics, tracing
from vectorstore.base import Chunk

log = logging.getLogger(__name__)

EMBED_BATCH = 32
EMBED_ATTEMPTS = 3
SWEEP_SECONDS = 300.0
CLAIM_POLL_SECONDS = 1.0  # how often an idle worker looks for unclaimed files (a local add wakes it at once)


class IngestionFailed(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class IngestionWorker:
    def __init__(
        self, retrieval: Retrieval, remove_file: Callable[[str], Awaitable[Any]], concurrency: int = 2
    ) -> None:
        self.r = retrieval
        self.remove_file = remove_file  # deletes an expired file and its bytes (FilesService.remove)
        self.concurrency = concurrency
        self.queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self.queued: set[tuple[str, str]] = set()
        self.running: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._loops: list[asyncio.Task[None]] = []
        self.lease = retrieval.settings.run_lease_seconds
        self._wake = asyncio.Event()

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._loops = [loop.create_task(self._loop(), name=f"ingest-{i}") for i in range(self.concurrency)]
        self._loops.append(loop.create_task(self._claim(), name="ingest-claims"))
        self._loops.append(loop.create_task(self._renew(), name="ingest-renew"))
        self._loops.append(loop.create_task(self._sweep_expired(), name="files-expiry"))
        if self.r.settings.kg_enabled:
            self._loops.append(loop.create_task(self._backfill_graph(), name="kg-backfill"))

    async def stop(self) -> None:
        for task in [*self._loops, *self.running.values()]:
            task.cancel()
        for task in [*self._loops, *self.running.values()]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._loops = []
        try:  # what this process held goes back at once, not when its claims run out
            await self.r.stores.release_file_claims(OWNER)
        except Exception:
            log.exception("could not release ingestion claims")

    def enqueue(self, store_id: str, file_id: str) -> None:
        """A file was added here: claim it (and whatever else waits) now rather than at the next poll."""
        self._wake.set()

    def _take(self, key: tuple[str, str]) -> None:
        if key not in self.queued and key not in self.running:
            self.queued.add(key)
            self.queue.put_nowait(key)
        self._report()

    async def _claim(self) -> None:
        """Keep a few claimed files queued beyond the ones running, so the job loops never wait on a poll."""
        while True:
            free = 2 * self.concurrency - len(self.queued) - len(self.running)
            claimed: list[tuple[str, str]] = []
            if free > 0:
                try:
                    claimed = await self.r.stores.claim_files(OWNER, free, self.lease)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("claiming ingestion work failed")
                for key in claimed:
                    self._take(key)
            if free > 0 and len(claimed) == free:
                continue  # more may be waiting
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), CLAIM_POLL_SECONDS)

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self.lease / 3)
            try:
                await self.r.stores.renew_file_claims(OWNER, [*self.queued, *self.running], self.lease)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("renewing ingestion claims failed")

    def _report(self) -> None:
        metrics.ingestion_backlog(len(self.queued) + len(self.running))

    async def cancel(self, store_id: str, file_id: str) -> None:
        """Stop the job of one file, if it runs (its status was already changed by the caller)."""
        self.queued.discard((store_id, file_id))
        task = self.running.get((store_id, file_id))
        if task is not None:
            task.cancel()
            await asyncio.wait({task})

    async def cancel_store(self, store_id: str) -> None:
        for key in [k for k in self.running if k[0] == store_id]:
            await self.cancel(*key)
        self.queued = {k for k in self.queued if k[0] != store_id}
        self._report()

    async def _loop(self) -> None:
        while True:
            key = await self.queue.get()
            if key not in self.queued:
                continue  # cancelled while waiting
            self.queued.discard(key)
            task = asyncio.get_running_loop().create_task(self._job(*key), name=f"ingest-{key[1]}")
            self.running[key] = task
            try:
                await asyncio.wait({task})  # a cancelled job must not cancel the loop
            finally:
                self.running.pop(key, None)
                self._report()
                self._wake.set()  # room for another claim

    async def _job(self, store_id: str, file_id: str) -> None:
        try:
            await self._ingest(store_id, file_id)
        except IngestionFailed as exc:
            await self._fail(store_id, file_id, exc.code, exc.message)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("ingesting %s into %s failed", file_id, store_id)
            await self._fail(store_id, file_id, "server_error", f"Ingestion failed: {type(exc).__name__}: {exc}")

    async def _fail(self, store_id: str, file_id: str, code: str, message: str) -> None:
        await self.r.stores.finish_file(store_id, file_id, "failed", last_error={"code": code, "message": message})
        with contextlib.suppress(Exception):  # chunks of a previous attempt must not stay searchable
            await (await self.r.backend()).delete_file(store_id, file_id)
        await self.r.forget_graph(store_id, file_id)

    async def _ingest(self, store_id: str, file_id: str) -> None:
        from vectorstore.chunking import chunk_text
        from vectorstore.extract import ExtractionError, UnsupportedFileType, extract_text

        vs_file = await self.r.stores.get_file(store_id, file_id)
        recorded = await self.r.stores.store_embedder(store_id)
        if vs_file is None or vs_file["status"] != "in_progress" or recorded is None:
            return
        embedder = await self.r.embedder()
        if recorded[0] != embedder.name:
            raise IngestionFailed(
                "server_error",
                f"The vector store was built with the embedder '{recorded[0]}'; this gateway embeds with "
                f"'{embedder.name}'.",
            )
        file = await self.r.files.get(file_id)
        if file is None:
            raise IngestionFailed("invalid_file", f"File '{file_id}' no longer exists.")
        data = await self.r.blobs.read(file["blob"])
        try:
            text = await asyncio.to_thread(
                extract_text, file["filename"], data, file.get("content_type"), self.r.extract_limits
            )
        except UnsupportedFileType as exc:
            raise IngestionFailed("unsupported_file", str(exc) or "Unsupported file type.") from exc
        except ExtractionError as exc:
            raise IngestionFailed("invalid_file", str(exc) or "The file could not be read.") from exc
        del data
        static = vs_file["chunking_strategy"]["static"]
        texts = await asyncio.to_thread(
            chunk_text,
            text,
            embedder.count_tokens,
            max_tokens=static["max_chunk_size_tokens"],
            overlap=static["chunk_overlap_tokens"],
        )
        texts = [t for t in texts if t.strip()]
        if not texts:
            raise IngestionFailed("invalid_file", "The file contains no text to index.")

        backend = await self.r.backend()
        await backend.delete_file(store_id, file_id)  # an earlier, interrupted attempt
        attributes = vs_file["attributes"]
        usage = 0
        for start in range(0, len(texts), EMBED_BATCH):
            batch = texts[start : start + EMBED_BATCH]
            vectors = await self._embed(embedder, batch)
            chunks = [
                Chunk(
                    id=f"{store_id}:{file_id}:{start + i}",
                    store_id=store_id,
                    file_id=file_id,
                    filename=file["filename"],
                    index=start + i,
                    text=t,
                    vector=v,
                    attributes=attributes,
                )
                for i, (t, v) in enumerate(zip(batch, vectors, strict=True))
            ]
            await backend.upsert(chunks)
            # what the store holds: the chunks' text and their float32 vectors
            usage += sum(len(t.encode()) + 4 * len(v) for t, v in zip(batch, vectors, strict=True))
        if self.r.settings.kg_enabled:
            await self._index_graph(store_id, file_id, file["filename"], texts)
        if not await self.r.stores.finish_file(store_id, file_id, "completed", usage_bytes=usage):
            await backend.delete_file(store_id, file_id)  # cancelled or removed while we worked
            await self.r.forget_graph(store_id, file_id)
            return
        latest = await self.r.stores.get_file(store_id, file_id)
        if latest is not None and latest["attributes"] != attributes:  # updated while we worked
            await backend.update_attributes(store_id, file_id, latest["attributes"])

    async def _index_graph(self, store_id: str, file_id: str, filename: str, texts: list[str]) -> None:
        """The file's knowledge graph (#12), before the file is `completed`: a crash before that point
        re-runs the whole job, and the graph rows are replaced in one transaction. A failing extractor
        leaves the file searchable without its graph (logged), rather than failing the file."""
        chunks = [(f"{store_id}:{file_id}:{i}", t) for i, t in enumerate(texts)]
        try:
            knowledge = await self.r.knowledge()
            await knowledge.index_file(store_id, file_id, filename, chunks)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("knowledge-graph extraction of %s in %s failed", file_id, store_id)

    async def _backfill_graph(self) -> None:
        """Once per start: extract the graph of completed files that have none (a store ingested before
        the graph existed or while it was off), from their stored chunks; no re-embedding. Another
        process doing the same file at once only repeats work (a file's rows are replaced whole)."""
        tried: set[tuple[str, str]] = set()
        try:
            knowledge = await self.r.knowledge()
            while True:
                todo = [k for k in await knowledge.graph.unextracted(len(tried) + 50) if k not in tried]
                if not todo:
                    return
                for store_id, file_id in todo:
                    tried.add((store_id, file_id))
                    await self._backfill_file(knowledge, store_id, file_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("knowledge-graph backfill failed")

    async def _backfill_file(self, knowledge: Any, store_id: str, file_id: str) -> None:
        file = await self.r.files.get(file_id)
        chunks = await (await self.r.backend()).file_chunks(store_id, file_id)
        if file is None or not chunks:
            return
        await self._index_graph(store_id, file_id, file["filename"], [h.text for h in chunks])
        latest = await self.r.stores.get_file(store_id, file_id)
        if latest is None or latest["status"] != "completed":  # removed or re-added meanwhile
            await self.r.forget_graph(store_id, file_id)

    @staticmethod
    async def _embed(embedder: Any, texts: list[str]) -> list[list[float]]:
        """A batch's vectors; with tracing on, an `embeddings {model}` span (GenAI conventions)."""
        if not tracing.ON:
            return await IngestionWorker._embed_batch(embedder, texts)
        name = str(getattr(embedder, "name", "embedder"))
        attributes = {"gen_ai.operation.name": "embeddings", "gen_ai.request.model": name, "gateway.inputs": len(texts)}
        with tracing.span(f"embeddings {name}", "client", attributes):
            return await IngestionWorker._embed_batch(embedder, texts)

    @staticmethod
    async def _embed_batch(embedder: Any, texts: list[str]) -> list[list[float]]:
        for attempt in range(EMBED_ATTEMPTS):
            try:
                vectors: list[list[float]] = await embedder.embed(texts)
                if len(vectors) != len(texts):
                    raise ValueError(f"the embedder returned {len(vectors)} vectors for {len(texts)} texts")
                return vectors
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if attempt + 1 == EMBED_ATTEMPTS:
                    raise IngestionFailed("server_error", f"Embedding failed: {type(exc).__name__}: {exc}") from exc
                log.warning("embedding failed (attempt %d): %s", attempt + 1, exc)
                await asyncio.sleep(0.5 * 2**attempt)
        raise AssertionError("unreachable")

    async def _sweep_expired(self) -> None:
        """Delete files past their `expires_at` (already invisible to the API) and their bytes."""
        while True:
            try:
                for file_id in await self.r.files.expired(int(time.time())):
                    await self.remove_file(file_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("sweeping expired files failed")
            await asyncio.sleep(SWEEP_SECONDS)
