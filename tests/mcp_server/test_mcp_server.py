"""The knowledge-base MCP server (#14) through the official `mcp` client, over every transport:
streamable HTTP on the HTTP server and through Envoy, and stdio (`responses-gateway mcp` as a
subprocess on the same database).

Tools and their schemas, the search → fetch round trip in deep research's shapes, bad arguments as
tool errors, memory and tag operations, `kb://` resources with pagination, retention, and the
gateway's own `mcp` tool pointed at its own `/mcp`.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from mcp import Client, StdioServerParameters
from openai import OpenAI

from tests.support.procs import (
    KEYS_ENV,
    ROOT,
    SERVICES_HOST,
    VENV_BIN,
    Backend,
    Gateway,
    create_key,
    free_port,
    gateway_env,
    stop,
    wait_http,
)
from tests.support.retrieval_helpers import retrieval_env, wait_ingested

MODEL = "scripted-model"
QUOKKA = b"The quokkazanzibar is a small marsupial that smiles on Rottnest island."
GLACIER = b"# Glaciers\n\nA glaciermoraine forms where a glacier drops the rock it carried."


@pytest.fixture(scope="module")
def kb(http_gateway: Gateway, session_key: str) -> Iterator[dict[str, str]]:
    client = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0)
    quokka = client.files.create(file=("quokka.txt", io.BytesIO(QUOKKA)), purpose="assistants").id
    glacier = client.files.create(file=("glacier.md", io.BytesIO(GLACIER)), purpose="assistants").id
    store = client.vector_stores.create(name="mcp-kb", file_ids=[quokka, glacier])
    memory = client.vector_stores.create(name="mcp-memory")
    wait_ingested(client, store.id)
    yield {"store": store.id, "memory": memory.id, "quokka": quokka, "glacier": glacier}
    client.vector_stores.delete(store.id)
    client.vector_stores.delete(memory.id)


def stdio_params(env: dict[str, str], **extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=str(VENV_BIN / "responses-gateway"), args=["mcp"], env={**env, **extra})


def http_transport(url: str, key: str | None) -> Any:
    """Streamable HTTP with the caller's API key (the session's doors run with GATEWAY_AUTH=keys)."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=30))


@asynccontextmanager
async def connect(
    kind: str, request: pytest.FixtureRequest, key: str | None = "session", **stdio_env: str
) -> AsyncIterator[Client]:
    gw: Gateway = request.getfixturevalue("http_gateway")
    if key == "session":
        key = request.getfixturevalue("session_key")
    target: Any
    if kind == "http":
        target = http_transport(gw.base + "/mcp", key)
    elif kind == "envoy":
        target = http_transport(request.getfixturevalue("envoy").base + "/mcp", key)
    else:
        target = stdio_params(gw.env, **stdio_env)
    async with Client(target, read_timeout_seconds=30) as client:
        yield client


def data(result: Any) -> Any:
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content  # one JSON text block too
    return result.structured_content


async def wait_document(client: Client, store: str, doc: str, within: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while True:
        got = data(await client.call_tool("get_document", {"vector_store_id": store, "document_id": doc}))
        if got["status"] != "in_progress":
            assert got["status"] == "completed", got
            return dict(got)
        assert time.monotonic() < deadline, f"{doc} still ingesting"
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("kind", ["http", "envoy", "stdio"])
async def test_tools_search_fetch_and_bad_arguments(
    kind: str, kb: dict[str, str], request: pytest.FixtureRequest
) -> None:
    async with connect(kind, request) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"search", "fetch", "search_knowledge", "list_documents", "get_document", "update_document"} <= set(
            tools
        )
        assert {"delete_document", "tag_document", "untag_document", "list_tags", "export_documents"} <= set(tools)
        search = tools["search"]
        assert search.input_schema["required"] == ["query"]
        assert search.input_schema["properties"]["query"]["maxLength"] == 2000
        assert search.output_schema is not None and "results" in search.output_schema["properties"]
        assert search.annotations is not None and search.annotations.read_only_hint is True
        delete = tools["delete_document"].annotations
        assert delete is not None and delete.destructive_hint is True and delete.read_only_hint is False

        found = data(await client.call_tool("search", {"query": "quokkazanzibar marsupial"}))
        assert set(found) == {"results"}
        first = found["results"][0]
        assert set(first) == {"id", "title", "url"} and all(first.values())
        assert (first["id"], first["title"]) == (kb["quokka"], "quokka.txt")
        assert first["url"].endswith(f"/v1/files/{kb['quokka']}/content")

        doc = data(await client.call_tool("fetch", {"id": first["id"]}))
        assert set(doc) == {"id", "title", "text", "url", "metadata"}
        assert doc["text"] == QUOKKA.decode() and doc["url"] == first["url"]
        assert doc["metadata"]["vector_store_id"] == kb["store"]

        passages = data(
            await client.call_tool(
                "search_knowledge",
                {"query": "glaciermoraine rock", "vector_store_ids": [kb["store"]], "max_results": 1},
            )
        )
        assert len(passages["results"]) == 1 and passages["results"][0]["id"] == kb["glacier"]
        assert passages["results"][0]["score"] > 0 and "glaciermoraine" in passages["results"][0]["text"]

        graph = data(
            await client.call_tool(
                "search_knowledge",
                {"query": "quokkazanzibar Rottnest", "vector_store_ids": [kb["store"]], "ranker": "kg"},
            )
        )
        assert graph["results"][0]["id"] == kb["quokka"] and "score_breakdown" in graph["results"][0]

        bad = [
            ("search_knowledge", {"query": "x", "ranker": "psychic"}, "psychic"),
            ("search", {"query": ""}, "'query'"),
            ("search", {"query": "x" * 2001}, "'query'"),
            ("search", {}, "'query'"),
            ("search_knowledge", {"query": "x", "max_results": 1000}, "'max_results'"),
            ("search_knowledge", {"query": "x", "filters": {"type": "nope"}}, "filters"),
            ("search_knowledge", {"query": "x", "vector_store_ids": ["vs_missing"]}, "vs_missing"),
            ("fetch", {"id": "file-doesnotexist"}, "file-doesnotexist"),
            ("fetch", {"id": 7}, "'id'"),
            ("get_document", {"vector_store_id": kb["store"], "document_id": "file-x", "extra": 1}, "'extra'"),
            ("no_such_tool", {}, "Unknown tool"),
        ]
        for name, args, needle in bad:
            result = await client.call_tool(name, args)
            assert result.is_error, (name, args)
            assert needle in result.content[0].text, result.content[0].text
        # the session is still fine after all of that
        assert data(await client.call_tool("search", {"query": "glaciermoraine"}))["results"]


@pytest.mark.parametrize("kind", ["http", "stdio"])
async def test_memory_and_tags(kind: str, kb: dict[str, str], request: pytest.FixtureRequest) -> None:
    store, word = kb["memory"], f"memo{uuid.uuid4().hex[:8]}"
    async with connect(kind, request) as client:
        added = data(
            await client.call_tool(
                "add_document",
                {
                    "vector_store_id": store,
                    "text": f"The {word} meeting is on Tuesday.",
                    "title": "Meeting",
                    "tags": ["work"],
                },
            )
        )
        doc = await wait_document(client, store, added["id"])
        assert doc["title"] == "Meeting" and doc["tags"] == ["work"] and word in doc["text"]
        assert doc["uri"] == f"kb://{store}/{added['id']}"

        tagged = data(
            await client.call_tool(
                "tag_document", {"vector_store_id": store, "document_id": added["id"], "tags": ["urgent", "q3"]}
            )
        )
        assert tagged["tags"] == ["q3", "urgent", "work"]
        untagged = data(
            await client.call_tool(
                "untag_document", {"vector_store_id": store, "document_id": added["id"], "tags": ["q3"]}
            )
        )
        assert untagged["tags"] == ["urgent", "work"]
        tags = data(await client.call_tool("list_tags", {"vector_store_id": store}))["tags"]
        assert {"tag": "urgent", "documents": 1} in tags

        # tags are attributes: a search can filter on them
        tag_filter = {"type": "eq", "key": "tag:urgent", "value": True}
        hits = data(
            await client.call_tool(
                "search_knowledge", {"query": f"{word} meeting", "vector_store_ids": [store], "filters": tag_filter}
            )
        )["results"]
        assert [h["id"] for h in hits] == [added["id"]]
        listed = data(await client.call_tool("list_documents", {"vector_store_id": store, "tag": "urgent"}))
        assert [d["id"] for d in listed["documents"]] == [added["id"]]

        # new text: re-ingested as a new document that replaces the old one, title and tags kept
        updated = data(
            await client.call_tool(
                "update_document",
                {"vector_store_id": store, "document_id": added["id"], "text": f"The {word} meeting moved to Friday."},
            )
        )
        assert updated["replaces"] == added["id"] and updated["id"] != added["id"]
        doc = await wait_document(client, store, updated["id"])
        assert "Friday" in doc["text"] and doc["tags"] == ["urgent", "work"] and doc["title"] == "Meeting"
        gone = await client.call_tool("get_document", {"vector_store_id": store, "document_id": added["id"]})
        assert gone.is_error

        exported = data(await client.call_tool("export_documents", {"vector_store_id": store, "tag": "work"}))
        assert exported["documents"] == 1 and "# Meeting" in exported["content"] and "Friday" in exported["content"]
        as_json = data(await client.call_tool("export_documents", {"vector_store_id": store, "format": "json"}))
        docs = json.loads(as_json["content"])["documents"]
        assert any(d["id"] == updated["id"] and "Friday" in d["text"] for d in docs)

        bad_tag = await client.call_tool(
            "tag_document", {"vector_store_id": store, "document_id": updated["id"], "tags": ["no spaces"]}
        )
        assert bad_tag.is_error and "Invalid tag" in bad_tag.content[0].text

        data(await client.call_tool("delete_document", {"vector_store_id": store, "document_id": updated["id"]}))
        listed = data(await client.call_tool("list_documents", {"vector_store_id": store}))
        assert updated["id"] not in [d["id"] for d in listed["documents"]]
        found = data(await client.call_tool("search", {"query": f"{word} meeting"}))["results"]
        assert updated["id"] not in [r["id"] for r in found]


async def test_resources_paginated_and_read(
    kb: dict[str, str], http_gateway: Gateway, session_key: str, request: pytest.FixtureRequest
) -> None:
    api = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0)
    many = [api.files.create(file=(f"n{i}.txt", f"note {i}".encode()), purpose="assistants").id for i in range(60)]
    store = api.vector_stores.create(name="mcp-many")
    api.vector_stores.file_batches.create(vector_store_id=store.id, file_ids=many)
    wait_ingested(api, store.id)
    async with connect("http", request) as client:
        uris: list[str] = []
        cursor = None
        pages = 0
        while True:
            page = await client.list_resources(cursor=cursor) if cursor else await client.list_resources()
            uris.extend(str(r.uri) for r in page.resources)
            pages += 1
            cursor = page.next_cursor
            if not cursor:
                break
            assert pages < 100
        assert len(uris) == len(set(uris)) and pages >= 2  # 50 per page
        assert {f"kb://{store.id}/{f}" for f in many} <= set(uris)
        api.vector_stores.delete(store.id)
        quokka = f"kb://{kb['store']}/{kb['quokka']}"
        assert quokka in uris and f"kb://{kb['store']}/{kb['glacier']}" in uris
        read = await client.read_resource(quokka)
        assert read.contents[0].text == QUOKKA.decode()  # type: ignore[union-attr]
        templates = await client.list_resource_templates()
        assert templates.resource_templates[0].uri_template == "kb://{vector_store_id}/{file_id}"
        with pytest.raises(Exception, match="kb://"):
            await client.read_resource("kb://nope")


async def test_retention_sweep_stdio(
    http_gateway: Gateway, session_key: str, kb: dict[str, str], request: pytest.FixtureRequest
) -> None:
    """A store with a 2 s retention loses its documents to the sweep (stdio server, sweeping every 0.3 s)."""
    client_api = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0)
    store = client_api.vector_stores.create(name="mcp-retention").id
    try:
        async with connect("stdio", request, GATEWAY_MCP_SERVER_RETENTION_SWEEP_SECONDS="0.3") as client:
            bad = await client.call_tool("set_retention", {"vector_store_id": store, "retention": "forever"})
            assert bad.is_error and "permanent" in bad.content[0].text
            added = data(
                await client.call_tool("add_document", {"vector_store_id": store, "text": "ephemeral", "title": "e"})
            )
            await wait_document(client, store, added["id"])
            assert data(await client.call_tool("set_retention", {"vector_store_id": store, "retention": "2s"}))
            assert client_api.vector_stores.retrieve(store).metadata == {"retention": "2s"}
            deadline = time.monotonic() + 15
            while data(await client.call_tool("list_documents", {"vector_store_id": store}))["documents"]:
                assert time.monotonic() < deadline, "the sweep did not delete the expired document"
                await asyncio.sleep(0.2)
        with pytest.raises(Exception):  # noqa: B017 (the file itself is gone too)
            client_api.files.retrieve(added["id"])
    finally:
        client_api.vector_stores.delete(store)


@pytest.fixture(scope="module")
def services_gateway(backend: Backend, data_dir: Path, http_gateway: Gateway, session_key: str) -> Iterator[Gateway]:
    """A second HTTP server on the same database, listening on the allowlisted services address, so
    its own `mcp` tool may call its own /mcp (the session gateway's address stays refused, as
    tests/net/test_netguard.py wants)."""
    port = free_port()
    env = gateway_env(
        backend.url,
        data_dir,
        GATEWAY_HTTP_PORT=str(port),
        GATEWAY_HOST=SERVICES_HOST,
        **retrieval_env(backend.url),
        **KEYS_ENV,
    )
    proc = subprocess.Popen([str(VENV_BIN / "responses-gateway"), "serve"], cwd=ROOT, env=env)
    try:
        wait_http(f"http://{SERVICES_HOST}:{port}/health", proc=proc)
        gw = Gateway(proc, port, data_dir, env)
        gw.base, gw.url = f"http://{SERVICES_HOST}:{port}", f"http://{SERVICES_HOST}:{port}/v1"
        yield gw
    finally:
        stop(proc)


@pytest.mark.slow
def test_responses_mcp_tool_uses_own_knowledge_base(
    backend: Backend, kb: dict[str, str], services_gateway: Gateway, session_key: str, marker: str
) -> None:
    """`responses.create` with an `mcp` tool pointed at the gateway's own /mcp: the model searches the
    knowledge base and fetches a document through the gateway's MCP client."""
    http_gateway = services_gateway
    server_url = http_gateway.base + "/mcp"
    backend.script(
        marker,
        {"tool_calls": [{"name": "kb__search", "arguments": json.dumps({"query": "quokkazanzibar"})}]},
        {"tool_calls": [{"name": "kb__fetch", "arguments": json.dumps({"id": kb["quokka"]})}]},
        {"content": "Quokkas smile."},
    )
    client = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0, timeout=60)
    tool = {
        "type": "mcp",
        "server_label": "kb",
        "server_url": server_url,
        "authorization": session_key,  # the gateway's own /mcp wants the caller's key, like /v1
        "require_approval": "never",
        "allowed_tools": ["search", "fetch"],
    }
    resp = client.responses.create(model=MODEL, input=f"What smiles? {marker}", tools=[tool])  # type: ignore[list-item]
    assert resp.status == "completed", resp.error
    kinds = [o.type for o in resp.output]
    assert kinds == ["mcp_list_tools", "mcp_call", "mcp_call", "message"], kinds
    listing, search, fetch = resp.output[0], resp.output[1], resp.output[2]
    assert {t.name for t in listing.tools} == {"search", "fetch"}  # type: ignore[union-attr]
    assert search.error is None and json.loads(search.output)["results"][0]["id"] == kb["quokka"]  # type: ignore[union-attr,arg-type]
    assert fetch.error is None and json.loads(fetch.output)["text"] == QUOKKA.decode()  # type: ignore[union-attr,arg-type]
    assert resp.output_text == "Quokkas smile."


def _child_with_env(marker: bytes) -> int:
    """The pid of this process's child whose environment contains `marker` (the stdio server)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            environ = (entry / "environ").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and marker in environ:
            return int(entry.name)
    raise AssertionError("the stdio MCP server process was not found")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_tools_follow_configuration_and_changes_are_announced(
    mode: str, http_gateway: Gateway, tmp_path: Path
) -> None:
    """Read-only hides the writing tools; a reload (SIGHUP) that changes the list announces it:
    over `subscriptions/listen` (2026-07-28) and as `notifications/tools/list_changed` (handshake era)."""
    config = tmp_path / "gateway.yaml"
    config.write_text("mcp_server_read_only: true\n")
    announced = asyncio.Event()

    async def on_message(message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            announced.set()

    params = stdio_params(http_gateway.env, GATEWAY_CONFIG=str(config))
    async with Client(params, mode=mode, message_handler=on_message, read_timeout_seconds=30) as client:  # type: ignore[arg-type]
        names = {t.name for t in (await client.list_tools()).tools}
        assert "search" in names and "fetch" in names and "add_document" not in names
        refused = await client.call_tool("add_document", {"vector_store_id": "vs_x", "text": "t", "title": "t"})
        assert refused.is_error and "Unknown tool" in refused.content[0].text
        pid = _child_with_env(str(config).encode())
        config.write_text("mcp_server_read_only: false\n")
        if mode == "legacy":
            os.kill(pid, signal.SIGHUP)
            await asyncio.wait_for(announced.wait(), 10)
        else:
            async with client.listen(tools_list_changed=True) as sub:
                os.kill(pid, signal.SIGHUP)
                event = await asyncio.wait_for(anext(aiter(sub)), 10)
                assert type(event).__name__ == "ToolsListChanged"
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"add_document", "delete_document", "tag_document"} <= names


async def test_http_needs_the_api_key_and_sees_only_its_project(
    backend: Backend, data_dir: Path, kb: dict[str, str], request: pytest.FixtureRequest
) -> None:
    """/mcp sits behind the same auth as /v1: no key is a 401; another project's key sees none of
    this project's stores or documents."""
    with pytest.raises(Exception):  # noqa: B017 (the SDK wraps the 401 in its own error)
        async with connect("http", request, key=None) as client:
            await client.list_tools()
    other = str(create_key(backend.url, data_dir, f"other-{uuid.uuid4().hex[:6]}")["value"])
    async with connect("http", request, key=other) as client:
        found = data(await client.call_tool("search", {"query": "quokkazanzibar marsupial"}))["results"]
        assert kb["quokka"] not in [r["id"] for r in found]
        hidden = await client.call_tool("fetch", {"id": kb["quokka"]})
        assert hidden.is_error
        listed = await client.call_tool("list_documents", {"vector_store_id": kb["store"]})
        assert listed.is_error and "No vector store" in listed.content[0].text


def _site(base: str) -> web.RouteTableDef:
    routes = web.RouteTableDef()
    page = (
        "<html><head><title>{title}</title></head>"
        "<body><article><h1>{title}</h1><p>{body}</p>{links}</article></body></html>"
    )

    def html(title: str, body: str, links: str = "") -> web.Response:
        text = page.format(title=title, body=body + " " + " ".join([body] * 5), links=links)
        return web.Response(text=text, content_type="text/html")

    @routes.get("/robots.txt")
    async def robots(_: web.Request) -> web.Response:
        return web.Response(text="User-agent: *\nDisallow: /private\n")

    @routes.get("/index.html")
    async def index(_: web.Request) -> web.Response:
        links = (
            '<a href="/a.html">a</a> <a href="b.html#top">b</a> <a href="/private/c.html">c</a> '
            '<a href="http://127.0.0.1:9/elsewhere.html">elsewhere</a>'
        )
        return html("Crawl index", "The crawlindexpage lists the pages of this small site.", links)

    @routes.get("/a.html")
    async def a(_: web.Request) -> web.Response:
        return html("Page A", "The pangolinvelvet is a scaly mammal that rolls into a ball.")

    @routes.get("/b.html")
    async def b(_: web.Request) -> web.Response:
        return html("Page B", "The narwhalspiral has one long tooth that grows in a spiral.")

    @routes.get("/private/c.html")
    async def c(_: web.Request) -> web.Response:
        return html("Secret", "The privatepage must never be crawled.")

    return routes


@asynccontextmanager
async def site() -> AsyncIterator[str]:
    port = free_port()
    app = web.Application()
    app.add_routes(_site(f"http://{SERVICES_HOST}:{port}"))
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, SERVICES_HOST, port).start()
    try:
        yield f"http://{SERVICES_HOST}:{port}"
    finally:
        await runner.cleanup()


@pytest.mark.parametrize("kind", ["http", "stdio"])
async def test_crawl_pages_into_a_store_then_find_them(
    kind: str, http_gateway: Gateway, session_key: str, request: pytest.FixtureRequest
) -> None:
    api = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0)
    store = api.vector_stores.create(name=f"mcp-crawl-{kind}").id
    try:
        async with site() as base, connect(kind, request) as client:
            assert {"crawl_url", "crawl_site"} <= {t.name for t in (await client.list_tools()).tools}
            page = data(
                await client.call_tool(
                    "crawl_url", {"url": f"{base}/a.html", "vector_store_id": store, "tags": ["web"]}
                )
            )
            assert page["url"] == f"{base}/a.html" and page["title"] == "Page A" and page["replaces"] is None
            doc = await wait_document(client, store, page["id"])
            assert "pangolinvelvet" in doc["text"] and doc["tags"] == ["web"] and doc["url"] == f"{base}/a.html"
            hits = data(
                await client.call_tool("search_knowledge", {"query": "pangolinvelvet", "vector_store_ids": [store]})
            )["results"]
            assert hits and hits[0]["id"] == page["id"] and hits[0]["url"] == f"{base}/a.html"
            found = data(await client.call_tool("search", {"query": "pangolinvelvet scaly"}))["results"]
            assert {"id": page["id"], "title": "Page A", "url": f"{base}/a.html"} in found

            crawled = data(
                await client.call_tool(
                    "crawl_site", {"url": f"{base}/index.html", "vector_store_id": store, "max_pages": 10}
                )
            )
            urls = sorted(p["url"] for p in crawled["pages"])
            assert urls == [f"{base}/a.html", f"{base}/b.html", f"{base}/index.html"], crawled
            again = next(p for p in crawled["pages"] if p["url"] == f"{base}/a.html")
            assert again["replaces"] == [page["id"]]  # a re-crawled page replaces its document
            assert [s["url"] for s in crawled["skipped"]] == [f"{base}/private/c.html"]  # robots.txt
            for p in crawled["pages"]:
                await wait_document(client, store, p["id"])
            listed = data(await client.call_tool("list_documents", {"vector_store_id": store}))["documents"]
            assert sorted(d["url"] for d in listed) == urls

            refused = await client.call_tool(
                "crawl_url", {"url": "http://127.0.0.1:9/x.html", "vector_store_id": store}
            )
            assert refused.is_error  # 127.0.0.1 is not allowlisted: refused by the address policy
            bad = await client.call_tool("crawl_site", {"url": f"{base}/", "vector_store_id": store, "max_pages": 0})
            assert bad.is_error and "max_pages" in bad.content[0].text
    finally:
        api.vector_stores.delete(store)


async def test_every_call_is_logged_with_its_duration_and_no_text(
    http_gateway: Gateway, kb: dict[str, str], tmp_path: Path
) -> None:
    """One log line per tool call (tool, outcome, argument names, duration), never the query or the
    document's text (stdio server at INFO, its stderr captured)."""
    from mcp.client.stdio import stdio_client

    secret_query = f"quokkazanzibar{uuid.uuid4().hex[:6]}"
    log_path = tmp_path / "stderr.log"
    with open(log_path, "w") as errlog:  # noqa: ASYNC230 (a local file for the child's stderr)
        params = stdio_params(http_gateway.env, GATEWAY_LOG_LEVEL="INFO")
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=30) as client:
            data(await client.call_tool("search", {"query": secret_query}))
            data(await client.call_tool("fetch", {"id": kb["quokka"]}))
            assert (await client.call_tool("search", {"query": ""})).is_error
    text = log_path.read_text()
    lines = [line for line in text.splitlines() if "mcp tool=" in line]
    assert len(lines) == 3, text[-2000:]
    assert "tool=search outcome=ok args=query duration_ms=" in lines[0]
    assert "tool=fetch outcome=ok args=id duration_ms=" in lines[1]
    assert "tool=search outcome=invalid_arguments" in lines[2]
    assert secret_query not in text and "marsupial" not in text  # neither the query nor the document
