"""`/v1/connectors` through both front doors: CRUD, use as an `mcp` tool, and write-only credentials.

The SDK has no connectors resource, so its generic `post`/`get`/`delete` are used: the same client,
auth and OpenAI error parsing as every other call.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from openai import OpenAI

from tests.support.mcp_servers import BEARER_TOKEN, McpServers, mcp_servers
from tests.support.procs import SERVICES_HOST, Backend, gateway

MODEL = "scripted-model"
SECRET_HEADER = "hdr-secret-0815"


@pytest.fixture(scope="module")
def servers() -> Iterator[McpServers]:
    with mcp_servers() as s:
        yield s


def create(client: OpenAI, body: dict[str, Any]) -> dict[str, Any]:
    return client.post("/connectors", body=body, cast_to=dict)  # type: ignore[no-any-return]


def test_crud_never_echoes_credentials(client: OpenAI, servers: McpServers) -> None:
    body = {
        "name": "team wiki",
        "server_url": servers.url("bearer"),
        "authorization": BEARER_TOKEN,
        "headers": {"X-Api-Key": SECRET_HEADER},
        "description": "the wiki",
        "metadata": {"team": "a"},
    }
    made = create(client, body)
    assert made["id"].startswith("conn_") and made["object"] == "connector"
    assert (made["name"], made["server_url"], made["description"]) == ("team wiki", servers.url("bearer"), "the wiki")
    assert set(made["headers"]) == {"X-Api-Key"} and made["authorization"]  # shown redacted
    got = client.get(f"/connectors/{made['id']}", cast_to=dict)
    listed = client.get("/connectors", cast_to=dict, options={"params": {"limit": 100, "order": "desc"}})
    assert got == made
    assert listed["object"] == "list" and made in listed["data"]
    for reply in (made, got, listed):
        text = json.dumps(reply)
        assert BEARER_TOKEN not in text and SECRET_HEADER not in text
    deleted = client.delete(f"/connectors/{made['id']}", cast_to=dict)
    assert deleted == {"id": made["id"], "object": "connector.deleted", "deleted": True}
    with pytest.raises(openai.NotFoundError):
        client.get(f"/connectors/{made['id']}", cast_to=dict)
    with pytest.raises(openai.NotFoundError):
        client.delete(f"/connectors/{made['id']}", cast_to=dict)


def test_connector_as_mcp_tool(client: OpenAI, backend: Backend, marker: str, servers: McpServers) -> None:
    made = create(client, {"name": "guarded", "server_url": servers.url("bearer"), "authorization": BEARER_TOKEN})
    backend.script(marker, {"tool_calls": [{"name": "wiki__whoami", "arguments": "{}"}]}, {"content": "done"})
    tool = {"type": "mcp", "server_label": "wiki", "connector_id": made["id"], "require_approval": "never"}
    response = client.responses.create(model=MODEL, input=marker, tools=[tool])
    assert [o.type for o in response.output] == ["mcp_list_tools", "mcp_call", "message"]
    assert response.output[1].output == "authenticated caller"
    assert BEARER_TOKEN not in response.model_dump_json(warnings=False)

    client.delete(f"/connectors/{made['id']}", cast_to=dict)
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(model=MODEL, input=marker, tools=[tool])
    assert info.value.body["param"] == "tools[0].connector_id"


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"server_url": "http://127.0.0.1:1/mcp"}, "name"),
        ({"name": "x"}, "server_url"),
        ({"name": "x", "server_url": "file:///etc/passwd"}, "server_url"),
        ({"name": "x", "server_url": "http://127.0.0.1:1/mcp", "headers": {"a": 1}}, "headers"),
        ({"name": "x", "server_url": "http://127.0.0.1:1/mcp", "colour": "red"}, "colour"),
    ],
)
def test_invalid_connector_is_400(client: OpenAI, body: dict[str, Any], param: str) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        create(client, body)
    assert info.value.body["param"] == param and info.value.body["type"] == "invalid_request_error"


def test_mcp_allowlist_refuses_other_hosts(backend: Backend, tmp_path: Path, servers: McpServers) -> None:
    allowed = f"{SERVICES_HOST}:{servers.ports['bearer']}"
    with gateway(backend.url, tmp_path, GATEWAY_MCP_ALLOWED_HOSTS=f"*.example.com, {allowed}") as gw:
        client = OpenAI(base_url=gw.url, api_key="x", max_retries=0)
        backend.script("allow-ok", {"tool_calls": [{"name": "wiki__whoami", "arguments": "{}"}]}, {"content": "done"})
        tool = {
            "type": "mcp",
            "server_label": "wiki",
            "server_url": servers.url("bearer"),
            "authorization": BEARER_TOKEN,
            "require_approval": "never",
        }
        ok = client.responses.create(model=MODEL, input="allow-ok", tools=[tool])  # type: ignore[list-item]
        assert [o.type for o in ok.output] == ["mcp_list_tools", "mcp_call", "message"]
        for url in (servers.down, "http://169.254.169.254/latest/meta-data", "http://localhost:8082/mcp"):
            with pytest.raises(openai.BadRequestError) as info:
                client.responses.create(model=MODEL, input="x", tools=[{**tool, "server_url": url}])  # type: ignore[list-item]
            assert info.value.body["param"] == "tools[0].server_url"  # type: ignore[index]
            assert info.value.body["code"] == "url_not_allowed"  # type: ignore[index]
            with pytest.raises(openai.BadRequestError) as info:
                create(client, {"name": "internal", "server_url": url})
            assert info.value.body["param"] == "server_url"  # type: ignore[index]
        assert create(client, {"name": "ok", "server_url": "https://mcp.example.com/mcp"})["id"].startswith("conn_")
