"""Prompt and connector stores: the same cases on SQLite and PostgreSQL (the bundles
`gateway.bootstrap.build_stores` builds)."""

from __future__ import annotations

import asyncio
from typing import Any

from storage.bundle import Stores


async def test_prompt_versions(stores: Stores) -> None:
    store = stores.prompts
    assert store is not None
    created = await store.create("pmpt_a", {"instructions": "v1"})
    assert (created.version, created.default_version, created.latest_version) == (1, 1, 1)
    await asyncio.sleep(0.01)
    await store.create("pmpt_b", {"instructions": "b"})

    def bump(data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "instructions": data["instructions"] + "+"}

    v2 = await store.add_version("pmpt_a", bump, make_default=True)
    v3 = await store.add_version("pmpt_a", bump, make_default=False)
    assert v2 is not None and v3 is not None
    assert (v3.version, v3.default_version, v3.data["instructions"]) == (3, 2, "v1++")
    assert await store.add_version("nope", bump, make_default=True) is None
    got = await store.get("pmpt_a")
    assert got is not None and (got.version, got.latest_version, got.data) == (2, 3, {"instructions": "v1+"})
    assert (await store.get("pmpt_a", 1)).data == {"instructions": "v1"}  # type: ignore[union-attr]
    assert await store.get("pmpt_a", 9) is None and await store.exists("pmpt_a") and not await store.exists("x")
    page, more = await store.list_prompts(limit=1, order="asc", after=None)
    assert [r.id for r in page] == ["pmpt_a"] and more
    page, more = await store.list_prompts(limit=5, order="asc", after="pmpt_a")
    assert [r.id for r in page] == ["pmpt_b"] and not more
    assert await store.list_prompts(limit=5, order="desc", after="unknown") == ([], False)
    listed = await store.versions("pmpt_a", limit=2, order="desc", after=None)
    assert listed is not None and [r.version for r in listed[0]] == [3, 2] and listed[1]
    listed = await store.versions("pmpt_a", limit=5, order="desc", after=2)
    assert listed is not None and [r.version for r in listed[0]] == [1]
    assert await store.versions("nope", limit=5, order="asc", after=None) is None
    made = await store.set_default("pmpt_a", 3)
    assert not isinstance(made, str) and made.default_version == 3
    assert await store.set_default("pmpt_a", 7) == "no_version"
    assert await store.set_default("nope", 1) == "no_prompt"
    assert await store.delete("pmpt_a") and not await store.delete("pmpt_a")
    assert await store.get("pmpt_a") is None


async def test_concurrent_updates_get_distinct_versions(stores: Stores) -> None:
    store = stores.prompts
    assert store is not None
    await store.create("pmpt_c", {"n": 0})
    made = await asyncio.gather(
        *(store.add_version("pmpt_c", lambda d: {"n": d["n"] + 1}, make_default=True) for _ in range(8))
    )
    assert sorted(r.version for r in made if r is not None) == list(range(2, 10))
    latest = await store.get("pmpt_c", 9)
    assert latest is not None and latest.data == {"n": 8}  # no update was lost


async def test_connectors(stores: Stores) -> None:
    store = stores.connectors
    assert store is not None
    for n in range(5):
        await store.create({"id": f"conn_{n}", "object": "connector", "created_at": 1, "name": f"c{n}"}, {"k": n})
    assert (await store.get("conn_2"))["name"] == "c2"  # type: ignore[index]
    assert await store.secrets("conn_3") == (
        {"id": "conn_3", "object": "connector", "created_at": 1, "name": "c3"},
        {"k": 3},
    )
    assert await store.get("nope") is None and await store.secrets("nope") is None

    async def ids(**kw: Any) -> tuple[list[str], bool]:
        page = await store.list(**{"limit": 2, "order": "asc", "after": None, "before": None, **kw})
        return [c["id"] for c in page.data], page.has_more

    assert await ids() == (["conn_0", "conn_1"], True)
    assert await ids(after="conn_1") == (["conn_2", "conn_3"], True)
    assert await ids(order="desc", after="conn_1") == (["conn_0"], False)
    assert await ids(before="conn_2", limit=5) == (["conn_0", "conn_1"], False)
    assert await ids(before="conn_4") == (["conn_2", "conn_3"], True)
    assert await ids(order="desc", before="conn_2") == (["conn_4", "conn_3"], False)
    assert await ids(after="unknown") == ([], False)
    assert await store.delete("conn_0") and not await store.delete("conn_0")
    assert await ids(limit=10) == (["conn_1", "conn_2", "conn_3", "conn_4"], False)
