"""One conformance suite for vector-store metadata (stores, their files, batches, the ingestion
backlog) on SQLite and on PostgreSQL, where every replica shares it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from storage.bundle import Stores

CHUNKING = {"type": "static", "static": {"max_chunk_size_tokens": 800, "chunk_overlap_tokens": 400}}


@pytest.fixture
def stores(stores: Stores) -> Any:
    """The vector-store metadata store of each backend's bundle (conftest `stores`)."""
    return stores.vector_stores


def _entries(*ids: str, **attrs: Any) -> list[dict[str, Any]]:
    return [{"file_id": i, "attributes": attrs, "chunking_strategy": CHUNKING} for i in ids]


async def test_stores_lifecycle_and_pages(stores: Any) -> None:
    for i in range(5):
        await stores.create_store(
            f"vs_{i}", embedder="e", dimension=3, data={"name": f"s{i}", "metadata": {"i": str(i)}}
        )
    got = await stores.get_store("vs_2")
    assert got["name"] == "s2" and got["status"] == "completed" and got["file_counts"]["total"] == 0
    assert await stores.store_embedder("vs_2") == ("e", 3)
    assert await stores.existing(["vs_1", "vs_9"]) == {"vs_1"}
    page = await stores.list_stores(limit=2, order="asc", after=None, before=None)
    assert [s["id"] for s in page.data] == ["vs_0", "vs_1"] and page.has_more
    page = await stores.list_stores(limit=2, order="asc", after="vs_1", before=None)
    assert [s["id"] for s in page.data] == ["vs_2", "vs_3"]
    page = await stores.list_stores(limit=2, order="desc", after=None, before="vs_2")
    assert [s["id"] for s in page.data] == ["vs_4", "vs_3"]
    assert (await stores.list_stores(limit=2, order="asc", after="vs_nope", before=None)).data == []
    updated = await stores.update_store(
        "vs_2", {"name": "renamed", "expires_after": {"anchor": "last_active_at", "days": 1}}
    )
    assert updated["name"] == "renamed" and updated["expires_at"] == updated["last_active_at"] + 86400
    await stores.touch(["vs_2"])
    assert await stores.update_store("vs_9", {"name": "x"}) is None
    assert await stores.delete_store("vs_2") and not await stores.delete_store("vs_2")
    assert await stores.get_store("vs_2") is None


async def test_files_statuses_and_backlog(stores: Any) -> None:
    await stores.create_store("vs_a", embedder="e", dimension=3, data={"name": "a"})
    assert await stores.add_files("vs_a", _entries("file-1", "file-2", "file-3", k="v"))
    assert not await stores.add_files("vs_missing", _entries("file-1"))
    assert await stores.pending() == [("vs_a", "file-1"), ("vs_a", "file-2"), ("vs_a", "file-3")]
    assert await stores.finish_file("vs_a", "file-1", "completed", usage_bytes=10)
    assert not await stores.finish_file("vs_a", "file-1", "failed")  # only from in_progress
    await stores.finish_file("vs_a", "file-2", "failed", last_error={"code": "server_error", "message": "m"})
    store = await stores.get_store("vs_a")
    assert store["file_counts"] == {"in_progress": 1, "completed": 1, "failed": 1, "cancelled": 0, "total": 3}
    assert store["usage_bytes"] == 10 and store["status"] == "in_progress"
    one = await stores.get_file("vs_a", "file-2")
    assert one["status"] == "failed" and one["last_error"]["code"] == "server_error" and one["attributes"] == {"k": "v"}
    page = await stores.list_files("vs_a", status=None, limit=2, order="asc", after=None, before=None)
    assert [f["id"] for f in page.data] == ["file-1", "file-2"] and page.has_more
    page = await stores.list_files("vs_a", status="completed", limit=10, order="desc", after=None, before=None)
    assert [f["id"] for f in page.data] == ["file-1"]
    page = await stores.list_files("vs_a", status=None, limit=10, order="asc", after="file-1", before=None)
    assert [f["id"] for f in page.data] == ["file-2", "file-3"]
    assert (await stores.update_attributes("vs_a", "file-3", {"n": 1}))["attributes"] == {"n": 1}
    assert await stores.add_files("vs_a", _entries("file-1"))  # re-added: ingested again, listed last
    page = await stores.list_files("vs_a", status=None, limit=10, order="asc", after=None, before=None)
    assert [f["id"] for f in page.data] == ["file-2", "file-3", "file-1"] and page.data[2]["status"] == "in_progress"
    assert await stores.delete_file("vs_a", "file-2") and not await stores.delete_file("vs_a", "file-2")
    await stores.create_store("vs_b", embedder="e", dimension=3, data={})
    await stores.add_files("vs_b", _entries("file-3"))
    assert sorted(await stores.detach_everywhere("file-3")) == ["vs_a", "vs_b"]
    assert await stores.get_file("vs_a", "file-3") is None


async def test_batches_cancel_only_what_is_in_progress(stores: Any) -> None:
    await stores.create_store("vs_a", embedder="e", dimension=3, data={})
    await stores.add_files("vs_a", _entries("file-1", "file-2"), batch_id="vsfb_1")
    await stores.finish_file("vs_a", "file-1", "completed")
    batch = await stores.get_batch("vs_a", "vsfb_1")
    assert batch["status"] == "in_progress" and batch["file_counts"]["total"] == 2
    assert await stores.cancel_batch("vs_a", "vsfb_1") == ["file-2"]
    batch = await stores.get_batch("vs_a", "vsfb_1")
    assert batch["status"] == "cancelled" and batch["file_counts"]["cancelled"] == 1
    assert await stores.get_batch("vs_b", "vsfb_1") is None and await stores.cancel_batch("vs_a", "vsfb_9") is None
    page = await stores.list_files(
        "vs_a", batch_id="vsfb_1", status=None, limit=10, order="asc", after=None, before=None
    )
    assert [f["status"] for f in page.data] == ["completed", "cancelled"]
    assert await stores.delete_store("vs_a")
    assert await stores.pending() == []
    await asyncio.sleep(0)


async def test_claims_share_the_backlog_and_expire(stores: Any) -> None:
    await stores.create_store("vs_a", embedder="e", dimension=3, data={})
    await stores.add_files("vs_a", _entries(*(f"file-{i}" for i in range(5))))
    first = await stores.claim_files("owner-1", 2, 30.0)
    second = await stores.claim_files("owner-2", 10, 30.0)
    assert first == [("vs_a", "file-0"), ("vs_a", "file-1")]
    assert second == [("vs_a", "file-2"), ("vs_a", "file-3"), ("vs_a", "file-4")]
    assert await stores.claim_files("owner-3", 10, 30.0) == []  # everything is held
    await stores.finish_file("vs_a", "file-2", "completed")
    await stores.release_file_claims("owner-2")  # a process stopping gives its claims back
    assert await stores.claim_files("owner-3", 10, 30.0) == [("vs_a", "file-3"), ("vs_a", "file-4")]
    # owner-1 dies: its claims (0.2 s here) run out unless renewed, then another process takes them
    await stores.renew_file_claims("owner-1", [("vs_a", "file-0")], 0.2)
    await stores.renew_file_claims("owner-1", [("vs_a", "file-1")], 30.0)
    await asyncio.sleep(0.5)
    assert await stores.claim_files("owner-4", 10, 30.0) == [("vs_a", "file-0")]
    # a file added again is unclaimed: ingested anew by whoever claims it first
    await stores.add_files("vs_a", _entries("file-1"))
    assert await stores.claim_files("owner-4", 10, 30.0) == [("vs_a", "file-1")]


async def test_searchable_stores_of_an_embedder(stores: Any) -> None:
    """The MCP server's `search` covers these (#14): unexpired, same embedder, newest first."""
    from storage.scope import project_scope

    for i, embedder in enumerate(["e", "other", "e", "e"]):
        await stores.create_store(f"vs_s{i}", embedder=embedder, dimension=3, data={"name": f"s{i}"})
    await stores.update_store("vs_s2", {"expires_after": {"anchor": "last_active_at", "days": 1}})
    assert await stores.searchable("e", 10) == ["vs_s3", "vs_s2", "vs_s0"]
    assert await stores.searchable("e", 1) == ["vs_s3"]
    with project_scope("someone-else"):
        assert await stores.searchable("e", 10) == []
        await stores.create_store("vs_theirs", embedder="e", dimension=3, data={"name": "t"})
        assert await stores.searchable("e", 10) == ["vs_theirs"]
    with project_scope("default"):
        assert "vs_theirs" not in await stores.searchable("e", 10)
