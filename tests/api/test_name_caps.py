"""Free-text names and metadata are capped at the boundary, through both doors (#26, round two).

OpenAI's documented limits where there are some (metadata: 16 pairs, keys <= 64 characters, values <=
512), a sensible bound elsewhere (names <= 256 characters, a file name <= 255); past it a 400 with
OpenAI's error body naming the parameter, before anything is stored. Before, a vector store took a
name or a description of any length, a connector's metadata any number of pairs of any length, and
an uploaded file's name was cut silently.
"""

from __future__ import annotations

from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK ships with
import pytest
from openai import OpenAI

LONG = 5_000


def refused(resp: httpx.Response, param: str) -> None:
    assert resp.status_code == 400, resp.text
    error = resp.json()["error"]
    assert error["param"] == param and error["type"] == "invalid_request_error" and error["message"], error


def post(client: OpenAI, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{client.base_url}{path}", json=body, headers={"Authorization": f"Bearer {client.api_key}"})


METADATA_CASES = [
    ({f"k{i}": "v" for i in range(17)}, "metadata"),
    ({"k" * 65: "v"}, "metadata"),
    ({"key": "v" * 513}, "metadata.key"),
]


@pytest.mark.parametrize(("metadata", "param"), METADATA_CASES)
def test_vector_store_and_connector_metadata_follow_openai_limits(
    client: OpenAI, metadata: dict[str, str], param: str
) -> None:
    refused(post(client, "vector_stores", {"name": "ok", "metadata": metadata}), param)
    connector = {"name": "c", "server_url": "https://mcp.example.com/mcp", "metadata": metadata}
    refused(post(client, "connectors", connector), param)
    # the limits themselves are accepted
    at_limit = {f"{i:02d}" + "k" * 62: "v" * 512 for i in range(16)}
    made = post(client, "vector_stores", {"name": "ok", "metadata": at_limit})
    assert made.status_code == 200, made.text
    store = made.json()["id"]
    refused(post(client, f"vector_stores/{store}", {"metadata": metadata}), param)


def test_names_and_descriptions_have_a_bound(client: OpenAI) -> None:
    refused(post(client, "vector_stores", {"name": "n" * LONG}), "name")
    refused(post(client, "vector_stores", {"name": "ok", "description": "d" * LONG}), "description")
    made = post(client, "vector_stores", {"name": "n" * 256})
    assert made.status_code == 200, made.text
    refused(post(client, f"vector_stores/{made.json()['id']}", {"name": "n" * LONG}), "name")
    connector = {"name": "n" * LONG, "server_url": "https://mcp.example.com/mcp"}
    refused(post(client, "connectors", connector), "name")
    many = {f"x-h{i}": "v" for i in range(200)}
    refused(post(client, "connectors", {**connector, "name": "c", "headers": many}), "headers")


def test_a_file_name_too_long_is_refused_not_cut(client: OpenAI) -> None:
    def upload(name: str) -> httpx.Response:
        auth = {"Authorization": f"Bearer {client.api_key}"}
        form = {"purpose": "assistants"}
        return httpx.post(f"{client.base_url}files", headers=auth, data=form, files={"file": (name, b"hi")})

    refused(upload("f" * 300 + ".txt"), "file")
    ok = upload("f" * 200 + ".txt")
    assert ok.status_code == 200 and ok.json()["filename"] == "f" * 200 + ".txt", ok.text
