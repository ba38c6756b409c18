"""Test helpers for files, vector stores and file_search: small documents of every supported format,
polling, and an embeddings server that can be made slow (to catch ingestion mid-way)."""

from __future__ import annotations

import asyncio
import io
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from openai import OpenAI

from tests.support.scripted_backend import ScriptedBackend

MAX_FILE_BYTES = 1024 * 1024  # the session gateway's upload limit (small, so the 413 test is cheap)


def retrieval_env(embedding_url: str) -> dict[str, str]:
    """Gateway settings for tests: the scripted backend's deterministic bag-of-words embeddings."""
    return {
        "GATEWAY_EMBEDDING_URL": embedding_url,
        "GATEWAY_EMBEDDING_MODEL": "scripted-model",
        "GATEWAY_MAX_FILE_BYTES": str(MAX_FILE_BYTES),
    }


def tiny_pdf(text: str) -> bytes:
    """A valid one-page PDF showing `text` in Helvetica (built by hand: no PDF writer needed)."""
    safe = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    stream = f"BT /F1 12 Tf 72 720 Td ({safe}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


# One document per supported format, each about a word no other document uses.
DOCUMENTS: dict[str, tuple[bytes, str]] = {
    "notes.txt": (b"Penguins huddle together through the antarctic winter to stay warm.", "penguins"),
    "guide.md": (b"# Volcano guide\n\nA **volcano** erupts when magma pressure builds beneath the crust.", "volcano"),
    "report.pdf": (tiny_pdf("The quarterly report shows saffron exports doubled this year."), "saffron"),
    "page.html": (
        b"<html><head><title>Lighthouse</title><script>var x = 1;</script></head>"
        b"<body><h1>Lighthouse keepers</h1><p>A lighthouse guides ships along the rocky coast.</p></body></html>",
        "lighthouse",
    ),
    "table.csv": (b"city,instrument\nVienna,violin\nSeville,guitar\nCremona,violin\n", "violin"),
    "data.json": (b'{"fruit": "mango", "taste": "mango is sweet and tropical"}', "mango"),
}
UNSUPPORTED = ("picture.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64))


def wait_ingested(client: OpenAI, store_id: str, timeout: float = 20.0) -> Any:
    """Poll the store until no file is in progress; return the store."""
    deadline = time.monotonic() + timeout
    while True:
        store = client.vector_stores.retrieve(store_id)
        if store.file_counts.in_progress == 0:
            return store
        if time.monotonic() > deadline:
            raise TimeoutError(f"vector store {store_id} still ingesting: {store.file_counts}")
        time.sleep(0.05)


@dataclass(frozen=True)
class Uploaded:
    """Pages put in a vector store: the store's id and each page's file id by file name."""

    id: str
    ids: dict[str, str]

    @property
    def names(self) -> dict[str, str]:
        """File name by file id (search hits carry the id)."""
        return {v: k for k, v in self.ids.items()}

    def ranked(self, hits: Iterable[Any]) -> list[str]:
        """The files of search hits (anything with a `file_id`) by name, each once, in rank order."""
        names = self.names
        return list(dict.fromkeys(names[h.file_id] for h in hits))


def upload_pages(
    client: OpenAI,
    name: str,
    pages: Mapping[str, str | bytes],
    *,
    store_id: str | None = None,
    attributes: Mapping[str, dict[str, Any]] | None = None,
    timeout: float = 120.0,
) -> Uploaded:
    """Upload `pages` (file name -> text), put them in a new vector store called `name` (created with
    all of them at once) or in the store `store_id`, and wait until the store has ingested them. With
    `attributes` (by file name) the files are added one by one, each with its own. Every file must be
    ingested (none failed) within `timeout`; if not, what was made here (the files, a store created here)
    is deleted before the error is raised: the caller, not given their ids, could not clean them up."""
    ids = {
        n: client.files.create(file=(n, io.BytesIO(t.encode() if isinstance(t, str) else t)), purpose="assistants").id
        for n, t in pages.items()
    }
    created = store_id is None
    if store_id is None and attributes is None:
        store_id = client.vector_stores.create(name=name, file_ids=list(ids.values())).id
    else:
        if store_id is None:
            store_id = client.vector_stores.create(name=name).id
        for n, file_id in ids.items():
            extra = {"attributes": attributes[n]} if attributes and n in attributes else {}
            client.vector_stores.files.create(store_id, file_id=file_id, **extra)  # type: ignore[arg-type]
    try:
        counts = wait_ingested(client, store_id, timeout=timeout).file_counts
        if counts.failed:
            failed = [f for f in client.vector_stores.files.list(store_id, filter="failed")]
            errors = {f.id: f.last_error.message if f.last_error else None for f in failed}
            raise AssertionError(f"{counts.failed} of the pages put in {store_id} failed to ingest: {errors}")
    except BaseException:
        if created:
            client.vector_stores.delete(store_id)
        for file_id in ids.values():
            client.files.delete(file_id)
        raise
    return Uploaded(store_id, ids)


class SlowEmbeddings(ScriptedBackend):
    """The scripted backend whose embeddings take `delay` seconds each, to catch ingestion mid-way."""

    delay = 0.0

    async def _serve(self, request: web.Request, *, kind: str) -> web.StreamResponse:
        if kind == "embeddings" and self.delay:
            await asyncio.sleep(self.delay)
        return await super()._serve(request, kind=kind)


@contextmanager
def threaded_backend(delay: float) -> Iterator[SlowEmbeddings]:
    """A SlowEmbeddings server on its own thread and loop (so blocking test code cannot stall it)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="slow-embeddings", daemon=True)
    thread.start()
    backend = SlowEmbeddings()
    backend.delay = delay
    asyncio.run_coroutine_threadsafe(backend.start(), loop).result(10)
    try:
        yield backend
    finally:
        asyncio.run_coroutine_threadsafe(backend.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
