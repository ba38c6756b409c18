"""The `kg` ranker's concurrent tasks (retrieval, a chain's early two-hop expansion) end with the
search: a cancelled search (a timeout, a client gone) leaves no backend search running, and a
failed one leaves no task whose exception nobody reads ("Task exception was never retrieved").

In process, on SQLite, the backend's searches slowed (or failing) and the walk slowed (or failing),
for a one-relation question (no early expansion: retrieval alone runs beside the walk) and a chain.
"""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path
from typing import Any

import pytest

from bench import bench_multihop as bm
from bench.multihop_corpus import Doc
from gateway.bootstrap import build_stores
from gateway.config import load_settings
from gateway.knowledge_graph import ranker
from gateway.retrieval.core import Retrieval
from tests.knowledge_graph.test_knowledge_fuse import PAGES, QUESTION

ONE_STEP = "Where was Hensa Grethm born?"


async def _with_store(tmp_path: Path, body: Any) -> list[str]:
    """Runs `body(rank, backend)` on a store of the fuse test's pages; the loop's error messages."""
    errors: list[str] = []
    asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: errors.append(str(ctx.get("message"))))
    settings = load_settings({}, data_dir=tmp_path / "d", kg_enabled=True)
    settings.data_dir.mkdir(parents=True)
    stores = build_stores(settings)
    await stores.open()
    r = Retrieval(settings, stores)
    try:
        store_id, _ = await bm.ingest(r, [Doc(n, t) for n, t in PAGES.items()], "tasks")
        backend, knowledge, embedder = await r.backend(), await r.knowledge(), await r.embedder()
        assert knowledge is not None

        async def rank(question: str) -> Any:
            vector = (await embedder.embed([question]))[0]
            return await knowledge.rank(backend, store_id, question, vector, k=10, filters=None)

        await body(rank, backend)
        await asyncio.sleep(0.2)
        gc.collect()
        await asyncio.sleep(0.05)
    finally:
        await r.stop()
        await stores.close()
    return errors


@pytest.mark.parametrize("question", [ONE_STEP, QUESTION])
def test_a_cancelled_search_leaves_no_backend_search_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, question: str
) -> None:
    completed: list[str] = []
    left: list[str] = []

    async def body(rank: Any, backend: Any) -> None:
        search = backend.search

        begun = asyncio.Event()

        async def slow_search(*args: Any, **kwargs: Any) -> Any:
            begun.set()
            await asyncio.sleep(0.5)
            completed.append(kwargs.get("mode", ""))
            return await search(*args, **kwargs)

        walk = ranker.walk

        async def slow_walk(*args: Any, **kwargs: Any) -> Any:
            await asyncio.sleep(0.3)
            return await walk(*args, **kwargs)

        monkeypatch.setattr(backend, "search", slow_search)
        monkeypatch.setattr(ranker, "walk", slow_walk)
        before = set(asyncio.all_tasks())
        task = asyncio.ensure_future(rank(question))
        await begun.wait()  # retrieval under way, the (slowed) walk beside it
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0.05)
        left.extend(t.get_coro().__qualname__ for t in set(asyncio.all_tasks()) - before if not t.done())
        await asyncio.sleep(0.8)  # a search left running would complete by now

    errors = asyncio.run(_with_store(tmp_path, body))
    assert left == [] and completed == [], (left, completed)
    assert errors == [], errors


def test_a_failed_search_leaves_no_unread_task_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def body(rank: Any, backend: Any) -> None:
        async def failing_search(*_args: Any, **_kwargs: Any) -> Any:
            await asyncio.sleep(0.1)
            raise RuntimeError("backend down")

        async def failing_walk(*_args: Any, **_kwargs: Any) -> Any:
            raise RuntimeError("graph down")

        monkeypatch.setattr(backend, "search", failing_search)
        monkeypatch.setattr(ranker, "walk", failing_walk)
        with pytest.raises(RuntimeError, match="graph down"):
            await rank(ONE_STEP)

    errors = asyncio.run(_with_store(tmp_path, body))
    assert errors == [], errors
