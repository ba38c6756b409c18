"""The Files API as operations: upload, list, retrieve, content, delete.

Uploads stream to the blob store as they arrive (never held whole in memory), are capped at
`settings.max_file_bytes`, and only become visible once their bytes are durable and their row is
committed. Deleting a file also removes it from every vector store, as OpenAI does.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import AsyncIterator
from typing import Any

from gateway.common.errors import InvalidRequest, NotFound, PayloadTooLarge
from gateway.common.ids import new_id
from gateway.retrieval import params
from gateway.retrieval.core import Retrieval
from storage.base import Page
from storage.blobs import BlobTooLarge

log = logging.getLogger(__name__)

BATCH_DEFAULT_EXPIRY = 30 * 86400  # OpenAI: batch files expire after 30 days unless told otherwise


def new_file_id() -> str:
    """`file-…`, time-prefixed like the gateway's other ids (rows land at the B-tree's right edge)."""
    return "file-" + new_id("f")[2:]


class FilesService:
    def __init__(self, retrieval: Retrieval) -> None:
        self.r = retrieval

    async def save(self, chunks: AsyncIterator[bytes]) -> tuple[str, int]:
        """Write an upload's bytes under a new file id; return (id, size)."""
        file_id = new_file_id()
        limit = self.r.settings.max_file_bytes
        try:
            size = await self.r.blobs.write(file_id, chunks, max_bytes=limit)
        except BlobTooLarge:
            raise PayloadTooLarge(
                f"File too large: the maximum file size is {limit} bytes.", param="file", code="file_too_large"
            ) from None
        return file_id, size

    async def discard(self, file_id: str) -> None:
        await self.r.blobs.delete(file_id)

    async def create(
        self,
        file_id: str,
        *,
        size: int,
        filename: str,
        content_type: str | None,
        purpose: str,
        expires_seconds: int | None,
    ) -> dict[str, Any]:
        now = int(time.time())
        if expires_seconds is None and purpose == "batch":
            expires_seconds = BATCH_DEFAULT_EXPIRY
        row = {
            "id": file_id,
            "object": "file",
            "bytes": size,
            "created_at": now,
            "expires_at": now + expires_seconds if expires_seconds else None,
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
            "status_details": None,
            "content_type": content_type,
            "blob": file_id,
        }
        await self.r.files.insert(row)
        return _public(row)

    async def _get(self, file_id: str) -> dict[str, Any]:
        found = await self.r.files.get(file_id)
        if found is None:
            raise NotFound(f"No such File object: {file_id}", param="file_id")
        return found

    async def retrieve(self, file_id: str) -> dict[str, Any]:
        return _public(await self._get(file_id))

    async def list_files(self, *, purpose: str | None, limit: int, order: str, after: str | None) -> Page:
        return await self.r.files.list_files(purpose=purpose, limit=limit, order=order, after=after)

    async def content(self, file_id: str) -> tuple[dict[str, Any], AsyncIterator[bytes]]:
        found = await self._get(file_id)
        return found, self.r.blobs.stream(found["blob"])

    async def delete(self, file_id: str) -> dict[str, Any]:
        if not await self.remove(file_id):
            raise NotFound(f"No such File object: {file_id}", param="file_id")
        return {"id": file_id, "object": "file", "deleted": True}

    async def remove(self, file_id: str) -> bool:
        """Delete the row, detach the file from every vector store (chunks included), drop the bytes."""
        blob = await self.r.files.delete(file_id)
        if blob is None:
            return False
        for store_id in await self.r.stores.detach_everywhere(file_id):
            if self.r.worker is not None:
                await self.r.worker.cancel(store_id, file_id)
            try:
                await (await self.r.backend()).delete_file(store_id, file_id)
            except Exception:
                log.exception("removing the chunks of %s from %s failed", file_id, store_id)
            await self.r.forget_graph(store_id, file_id)
        try:
            await self.r.blobs.delete(blob)
        except OSError:
            log.exception("removing the bytes of %s failed", file_id)
        return True


def _public(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in ("content_type", "blob")}


MAX_FILENAME_CHARS = 255  # a file system's usual limit on one name


def check_filename(name: str) -> str:
    """Refuse (400, param `file`) a file name too long to keep, before any byte is stored."""
    base = os.path.basename(name.replace("\\", "/"))
    if len(base) > MAX_FILENAME_CHARS:
        raise InvalidRequest(
            f"Invalid 'file': the file name is too long. Expected at most {MAX_FILENAME_CHARS} characters, "
            f"got {len(base)}.",
            param="file",
            code="invalid_value",
        )
    return name


def clean_filename(name: str | None) -> str:
    """The client's file name without any directory part (it is shown back, never used as a path)."""
    base = os.path.basename((name or "").replace("\\", "/"))
    # undecodable bytes (surrogates) and control characters would break storage or a header later
    base = base.encode("utf-8", "replace").decode("utf-8")
    base = "".join(ch for ch in base if ch.isprintable()).strip()
    return base[:255] or "upload"


def validate_fields(fields: dict[str, str]) -> tuple[str, int | None]:
    purpose = params.purpose(fields.get("purpose"))
    expires = params.file_expires_after(fields.get("expires_after[anchor]"), fields.get("expires_after[seconds]"))
    return purpose, expires
