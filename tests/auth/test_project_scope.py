"""Project scoping at the store boundary (#16): one suite for SQLite and PostgreSQL.

What a project writes, another project's scope cannot read, change, list or delete; system work
(no project set) sees everything; a key lookup works across projects (it decides the project).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from storage.bundle import Stores
from storage.scope import project_scope
from storage.sqlite.state import SQLiteStore


def _msg(i: str) -> dict[str, Any]:
    return {"id": i, "type": "message", "role": "user", "content": [{"type": "input_text", "text": i}]}


def _resp(i: str, conv: str | None = None) -> dict[str, Any]:
    conversation = {"id": conv} if conv else None
    return {
        "id": i,
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "output": [],
        "conversation": conversation,
    }


async def test_responses_items_and_conversations(state: Any) -> None:
    with project_scope("alpha"):
        await state.create_conversation({"id": "conv_a", "created_at": 1, "metadata": {}}, [_msg("msg_c")])
        await state.write_response(
            _resp("resp_a", "conv_a"), inputs=[_msg("msg_a")], outputs=[], conversation_append=[_msg("msg_x")]
        )
    with project_scope("beta"):
        assert await state.get_response("resp_a") is None
        assert await state.response_history("resp_a") is None
        assert (await state.list_input_items("resp_a", limit=10, order="asc", after=None, before=None)).data == []
        assert await state.get_items(["msg_a", "msg_c"]) == {}
        assert await state.get_conversation("conv_a") is None
        assert await state.update_conversation("conv_a", {"k": "v"}) is None
        assert not await state.add_conversation_items("conv_a", [_msg("msg_evil")])
        assert await state.conversation_items("conv_a") == []
        assert await state.get_conversation_item("conv_a", "msg_c") is None
        assert not await state.delete_conversation_item("conv_a", "msg_c")
        assert not await state.delete_conversation("conv_a")
        assert not await state.delete_response("resp_a")
    with project_scope("alpha"):
        assert (await state.get_response("resp_a")) is not None
        assert set(await state.get_items(["msg_a", "msg_c"])) == {"msg_a", "msg_c"}
        assert [i["id"] for i in await state.conversation_items("conv_a")] == ["msg_c", "msg_x"]
        assert await state.get_conversation("conv_a") is not None
    assert await state.get_response("resp_a") is not None  # system work sees every project


async def test_files_prompts_connectors_and_vector_stores(stores: Stores) -> None:
    files, prompts, connectors = stores.files, stores.prompts, stores.connectors
    vector_stores = stores.vector_stores
    row = {"id": "file-a", "created_at": 1, "expires_at": None, "purpose": "assistants", "filename": "a.txt",
           "bytes": 1, "content_type": "text/plain", "blob": "k"}  # fmt: skip
    with project_scope("alpha"):
        await files.insert(row)
        await prompts.create("pmpt_a", {"instructions": "x"})
        await connectors.create({"id": "conn_a", "created_at": 1}, {})
        await vector_stores.create_store("vs_a", embedder="e", dimension=3, data={"name": "a"})
    with project_scope("beta"):
        assert await files.get("file-a") is None and await files.get_many(["file-a"]) == {}
        assert (await files.list_files(purpose=None, limit=10, order="asc", after=None)).data == []
        assert await files.delete("file-a") is None
        assert await prompts.get("pmpt_a") is None and not await prompts.exists("pmpt_a")
        assert (await prompts.list_prompts(limit=10, order="asc", after=None))[0] == []
        assert not await prompts.delete("pmpt_a")
        assert await connectors.get("conn_a") is None and await connectors.secrets("conn_a") is None
        assert (await connectors.list(limit=10, order="asc", after=None, before=None)).data == []
        assert not await connectors.delete("conn_a")
        assert await vector_stores.get_store("vs_a") is None and await vector_stores.existing(["vs_a"]) == set()
        assert (await vector_stores.list_stores(limit=10, order="asc", after=None, before=None)).data == []
        assert not await vector_stores.add_files("vs_a", [{"file_id": "file-b", "chunking_strategy": {}}])
        assert not await vector_stores.delete_store("vs_a")
    with project_scope("alpha"):
        assert await files.get("file-a") is not None
        assert await prompts.get("pmpt_a") is not None
        assert (await connectors.list(limit=10, order="asc", after=None, before=None)).data
        assert await vector_stores.get_store("vs_a") is not None


async def test_keys_resolve_across_projects(stores: Stores) -> None:
    keys = stores.keys
    with project_scope("alpha"):
        await keys.create({"id": "key_1", "project": "beta", "name": "", "prefix": "sk-gw-abc", "hash": "h1",
                           "created_at": 1, "expires_at": None})  # fmt: skip
    found = await keys.lookup("h1")
    assert found is not None and found.project == "beta" and found.revoked_at is None
    await keys.revoke("key_1", 5)
    found = await keys.lookup("h1")
    assert found is not None and found.revoked_at == 5
    assert [k["id"] for k in (await keys.list("beta", limit=10, after=None)).data] == ["key_1"]
    assert (await keys.list("alpha", limit=10, after=None)).data == []
    for n in (2, 3):
        await keys.create({"id": f"key_{n}", "project": "beta", "name": "", "prefix": "sk-gw-x", "hash": f"h{n}",
                           "created_at": n, "expires_at": None})  # fmt: skip
    page = await keys.list("beta", limit=2, after=None)
    assert [k["id"] for k in page.data] == ["key_1", "key_2"] and page.has_more
    page = await keys.list(None, limit=2, after="key_2")
    assert [k["id"] for k in page.data] == ["key_3"] and not page.has_more
    assert (await keys.list(None, limit=2, after="key_9")).data == []


async def test_a_database_from_before_projects_moves_to_the_default_project(tmp_path: Path) -> None:
    """Upgrade: rows written by a gateway without projects (schema version 7) belong to 'default',
    with nothing lost; versions are then applied by set, so one that lands late is applied too."""
    from storage.schema import migrations, statements
    from storage.sqlite.conn import sqlite3

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    for number, sql in migrations("sqlite"):
        if number <= 7:
            for statement in statements(sql):
                db.execute(statement)
    db.execute("PRAGMA user_version=7")
    db.execute(
        "INSERT INTO responses (id, created_at, updated_at, status, data) VALUES "
        '(\'resp_old\', 1, 1, \'completed\', \'{"id": "resp_old", "object": "response"}\')'
    )
    db.execute("INSERT INTO conversations (id, created_at, updated_at, metadata) VALUES ('conv_old', 1, 1, '{}')")
    db.commit()
    db.close()
    store = SQLiteStore(path)
    await store.open()
    try:
        with project_scope("default"):
            assert (await store.get_response("resp_old"))["id"] == "resp_old"
            assert await store.get_conversation("conv_old") is not None
        with project_scope("other"):
            assert await store.get_response("resp_old") is None
        applied = await store.reader.run(lambda c: [r[0] for r in c.execute("SELECT version FROM schema_migrations")])
        assert applied == [n for n, _sql in migrations("sqlite")]
    finally:
        await store.close()
