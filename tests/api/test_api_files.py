"""The Files API through the official SDK, through both front doors (HTTP server and Envoy)."""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.request
from typing import Any

import openai
import pytest
from openai import OpenAI

from tests.support.procs import AUTH
from tests.support.retrieval_helpers import MAX_FILE_BYTES


def test_files_crud_and_content(client: OpenAI, marker: str) -> None:
    data = f"hello {marker}\n".encode() * 3
    created = client.files.create(file=("hello.txt", io.BytesIO(data), "text/plain"), purpose="assistants")
    assert created.id.startswith("file-")
    assert created.object == "file" and created.purpose == "assistants" and created.status == "processed"
    assert created.bytes == len(data) and created.filename == "hello.txt" and created.expires_at is None
    assert client.files.retrieve(created.id).model_dump() == created.model_dump()
    assert client.files.content(created.id).read() == data
    assert client.files.delete(created.id).model_dump() == {"id": created.id, "object": "file", "deleted": True}
    with pytest.raises(openai.NotFoundError) as err:
        client.files.retrieve(created.id)
    assert err.value.body["param"] == "file_id"  # type: ignore[index]
    with pytest.raises(openai.NotFoundError):
        client.files.delete(created.id)
    with pytest.raises(openai.NotFoundError):
        client.files.content(created.id)


def test_files_pagination_purpose_filter_and_expiry(client: OpenAI, marker: str) -> None:
    made = [
        client.files.create(file=(f"{marker}-{i}.jsonl", io.BytesIO(b"{}\n"), "application/jsonl"), purpose="evals")
        for i in range(4)
    ]
    first = client.files.list(purpose="evals", order="asc", after=made[0].id, limit=2)
    assert [f.id for f in first.data] == [made[1].id, made[2].id] and first.has_more
    rest = client.files.list(purpose="evals", order="asc", after=made[2].id, limit=2)
    assert [f.id for f in rest.data] == [made[3].id] and not rest.has_more
    newest = client.files.list(purpose="evals", limit=1)  # default order: newest first
    assert newest.data[0].id == made[3].id
    assert all(f.purpose == "evals" for f in client.files.list(purpose="evals").data)
    assert made[0].id not in {f.id for f in client.files.list(purpose="assistants").data}
    # auto-pagination follows `after` through every page
    walked = [f.id for f in client.files.list(purpose="evals", order="asc", after=made[0].id, limit=1)]
    assert walked[:3] == [m.id for m in made[1:]]

    expiring = client.files.create(
        file=("tmp.txt", io.BytesIO(b"x"), "text/plain"),
        purpose="user_data",
        expires_after={"anchor": "created_at", "seconds": 3600},
    )
    assert expiring.expires_at == expiring.created_at + 3600
    batch = client.files.create(file=("b.jsonl", io.BytesIO(b"{}\n"), "application/jsonl"), purpose="batch")
    assert batch.expires_at == batch.created_at + 30 * 86400  # OpenAI's default for batch files
    for f in [*made, expiring, batch]:
        client.files.delete(f.id)


def test_files_validation(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as err:
        client.files.create(file=("a.txt", io.BytesIO(b"a"), "text/plain"), purpose="nonsense")  # type: ignore[arg-type]
    assert err.value.body["param"] == "purpose"  # type: ignore[index]
    with pytest.raises(openai.BadRequestError) as err:
        client.files.create(
            file=("a.txt", io.BytesIO(b"a"), "text/plain"),
            purpose="user_data",
            expires_after={"anchor": "created_at", "seconds": 10},
        )
    assert err.value.body["param"] == "expires_after.seconds"  # type: ignore[index]
    with pytest.raises(openai.BadRequestError) as err:
        client.files.list(limit=0)
    assert err.value.body["param"] == "limit"  # type: ignore[index]
    # not multipart at all, or no file part: clean 400s, not 500s
    status, body = _post(str(client.base_url) + "files", b'{"purpose": "assistants"}', "application/json")
    assert status == 400 and body["error"]["type"] == "invalid_request_error"
    form = b'--XX\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants\r\n--XX--\r\n'
    status, body = _post(str(client.base_url) + "files", form, "multipart/form-data; boundary=XX")
    assert status == 400 and body["error"]["param"] == "file"


def _post(url: str, data: bytes, content_type: str) -> tuple[int, Any]:
    req = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": content_type, **AUTH})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_upload_over_the_limit_is_413(client: OpenAI, marker: str) -> None:
    with pytest.raises(openai.APIStatusError) as err:
        client.files.create(file=(f"{marker}.bin", io.BytesIO(bytes(MAX_FILE_BYTES + 1)), None), purpose="user_data")
    assert err.value.status_code == 413
    assert err.value.body["code"] == "file_too_large" and err.value.body["param"] == "file"  # type: ignore[index]
    assert marker not in {f.filename.split(".")[0] for f in client.files.list(purpose="user_data").data}
    exact = client.files.create(file=(f"{marker}.bin", io.BytesIO(bytes(MAX_FILE_BYTES)), None), purpose="user_data")
    assert exact.bytes == MAX_FILE_BYTES
    client.files.delete(exact.id)
