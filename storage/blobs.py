"""Where uploaded files' bytes live.

Metadata is in SQLite; the bytes are behind this small interface so a deployment can move them to
object storage (S3 and the like) without touching the Files API. The filesystem implementation
keeps one file per blob under `data_dir/files`. Every disk operation runs in a worker thread: an
upload of tens of MiB must not stall the event loop.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import BinaryIO, Protocol

_KEY = re.compile(r"^[A-Za-z0-9_.-]{1,200}\Z")
_FLUSH_BYTES = 1 << 20  # write in ~1 MiB pieces: one thread hop per MiB, not per network read


class BlobTooLarge(Exception):
    """The stream went past `max_bytes`; nothing was kept."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"blob larger than {limit} bytes")
        self.limit = limit


class FileBlobStore(Protocol):
    async def write(self, key: str, chunks: AsyncIterator[bytes], *, max_bytes: int) -> int:
        """Store the stream under `key` (all or nothing) and return its size.

        Raises BlobTooLarge past `max_bytes`, after consuming the rest of the stream, so an HTTP
        client that is still sending gets a clean reply rather than a reset connection.
        """
        ...

    async def read(self, key: str) -> bytes: ...

    def stream(self, key: str, chunk_size: int = 1 << 20) -> AsyncIterator[bytes]: ...

    async def delete(self, key: str) -> None:
        """Remove the blob; a missing blob is not an error (deletes are retried after crashes)."""
        ...


class FilesystemBlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._tmp = root / ".partial"

    def _path(self, key: str) -> Path:
        if not _KEY.match(key):
            raise ValueError(f"invalid blob key {key!r}")
        return self.root / key

    async def write(self, key: str, chunks: AsyncIterator[bytes], *, max_bytes: int) -> int:
        final = self._path(key)
        await asyncio.to_thread(self._tmp.mkdir, parents=True, exist_ok=True)
        partial = self._tmp / f"{key}.{os.getpid()}"
        fh: BinaryIO = await asyncio.to_thread(open, partial, "wb")
        size = 0
        buffered: list[bytes] = []
        pending = 0
        too_large = False
        try:
            async for chunk in chunks:
                size += len(chunk)
                if too_large or size > max_bytes:
                    too_large = True  # keep draining the request body, keep nothing
                    continue
                buffered.append(chunk)
                pending += len(chunk)
                if pending >= _FLUSH_BYTES:
                    await asyncio.to_thread(fh.write, b"".join(buffered))
                    buffered, pending = [], 0
            if not too_large:
                await asyncio.to_thread(_finish, fh, b"".join(buffered), partial, final)
        except BaseException:
            too_large = True
            raise
        finally:
            if too_large:
                await asyncio.to_thread(_discard, fh, partial)
        if size > max_bytes:
            raise BlobTooLarge(max_bytes)
        return size

    async def read(self, key: str) -> bytes:
        return await asyncio.to_thread(self._path(key).read_bytes)

    async def stream(self, key: str, chunk_size: int = 1 << 20) -> AsyncIterator[bytes]:
        fh: BinaryIO = await asyncio.to_thread(open, self._path(key), "rb")
        try:
            while chunk := await asyncio.to_thread(fh.read, chunk_size):
                yield chunk
        finally:
            await asyncio.to_thread(fh.close)

    async def delete(self, key: str) -> None:
        await asyncio.to_thread(self._path(key).unlink, missing_ok=True)


def _finish(fh: BinaryIO, tail: bytes, partial: Path, final: Path) -> None:
    """Write the tail, make the bytes durable, then publish them under their key atomically."""
    fh.write(tail)
    fh.flush()
    os.fsync(fh.fileno())
    fh.close()
    os.replace(partial, final)


def _discard(fh: BinaryIO, partial: Path) -> None:
    fh.close()
    partial.unlink(missing_ok=True)
