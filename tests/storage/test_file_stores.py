"""File metadata and bytes: the same cases on SQLite + the filesystem and on PostgreSQL."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from storage.blobs import BlobTooLarge
from storage.bundle import Stores


async def chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for p in parts:
        yield p


def row(i: int, *, purpose: str = "assistants", expires_at: int | None = None) -> dict[str, Any]:
    return {
        "id": f"file-{i}",
        "created_at": 100 + i,
        "expires_at": expires_at,
        "purpose": purpose,
        "filename": f"f{i}.txt",
        "bytes": 10 * i,
        "content_type": "text/plain",
        "blob": f"blob-{i}",
    }


async def test_file_metadata(stores: Stores) -> None:
    files = stores.files
    for i in range(5):
        await files.insert(row(i, purpose="batch" if i == 3 else "assistants"))
    await files.insert(row(9, expires_at=int(time.time()) - 5))  # expired: invisible at once
    got = await files.get("file-2")
    assert got is not None and (got["filename"], got["bytes"], got["blob"], got["object"]) == (
        "f2.txt",
        20,
        "blob-2",
        "file",
    )
    assert await files.get("file-9") is None and await files.get("nope") is None
    assert sorted(await files.get_many(["file-1", "file-9", "x"])) == ["file-1"]

    async def ids(**kw: Any) -> tuple[list[str], bool]:
        page = await files.list_files(**{"purpose": None, "limit": 2, "order": "asc", "after": None, **kw})
        return [f["id"] for f in page.data], page.has_more

    assert await ids() == (["file-0", "file-1"], True)
    assert await ids(after="file-1") == (["file-2", "file-3"], True)
    assert await ids(order="desc", limit=10) == (["file-4", "file-3", "file-2", "file-1", "file-0"], False)
    assert await ids(purpose="batch") == (["file-3"], False)
    assert await ids(after="unknown") == ([], False)
    assert await files.expired(int(time.time())) == ["file-9"]
    assert await files.delete("file-2") == "blob-2" and await files.delete("file-2") is None


async def test_blobs_all_or_nothing(stores: Stores) -> None:
    blobs = stores.blobs
    big = bytes(range(256)) * 9000  # 2.3 MB: several parts on PostgreSQL
    assert await blobs.write("k1", chunks(big[:1000], big[1000:]), max_bytes=10_000_000) == len(big)
    assert await blobs.read("k1") == big
    assert b"".join([c async for c in blobs.stream("k1", 300_000)]) == big
    assert await blobs.write("empty", chunks(), max_bytes=10) == 0 and await blobs.read("empty") == b""
    with pytest.raises(BlobTooLarge):
        await blobs.write("k2", chunks(b"x" * 600, b"y" * 600), max_bytes=1000)
    with pytest.raises(FileNotFoundError):
        await blobs.read("k2")  # nothing kept
    await blobs.delete("k1")
    await blobs.delete("k1")  # a missing blob is not an error
    with pytest.raises(FileNotFoundError):
        await blobs.read("k1")
