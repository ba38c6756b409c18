"""Chat Completions / Completions / Embeddings passthrough, models, health and the OpenAPI document."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import httpx2 as httpx
import openai
import pytest
from openai import OpenAI

from tests.support.procs import Backend, Gateway, free_port, gateway
from tests.support.waiting import until

MODEL = "scripted-model"


def test_chat_completions_passthrough(client: OpenAI, backend: Backend, marker: str) -> None:
    chat = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": f"hi {marker}"}])
    assert chat.choices[0].message.content == f"Echo: hi {marker}"
    backend.script(marker, {"content": "a b c", "chunk_delay": 0.2})
    start = time.monotonic()
    stream = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": f"s {marker}"}], stream=True
    )
    arrivals = []
    text = ""
    for chunk in stream:
        arrivals.append(time.monotonic() - start)
        if chunk.choices and chunk.choices[0].delta.content:
            text += chunk.choices[0].delta.content
    assert text == "a b c"
    assert arrivals[0] < arrivals[-1] - 0.3  # chunks are relayed as they come, not buffered


def test_completions_and_embeddings_passthrough(client: OpenAI) -> None:
    comp = client.completions.create(model=MODEL, prompt="say something")
    assert comp.choices[0].text
    emb = client.embeddings.create(model=MODEL, input=["alpha", "beta"])
    assert len(emb.data) == 2 and len(emb.data[0].embedding) == 384


def test_passthrough_backend_errors_keep_status(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(model="no-such-model", messages=[{"role": "user", "content": "x"}])


def test_models_health_ready_openapi(client: OpenAI, http_gateway: Gateway) -> None:
    models = client.models.list()
    assert [m.id for m in models.data] == [MODEL, "research", "deep-research"]  # the backend's, then research's
    assert client.models.retrieve(MODEL).id == MODEL
    assert client.models.retrieve("deep-research").owned_by == "responses-gateway"
    for path in ("/health", "/ready"):
        with urllib.request.urlopen(http_gateway.base + path) as resp:
            assert resp.status == 200
    with urllib.request.urlopen(http_gateway.base + "/openapi.json") as resp:
        doc = json.loads(resp.read())
    assert doc["openapi"].startswith("3.")
    assert "post" in doc["paths"]["/v1/responses"]
    assert "requestBody" in doc["paths"]["/v1/responses"]["post"]
    assert "/v1/conversations/{conv_id}/items/{item_id}" in doc["paths"]


def test_models_cached_while_backend_down(tmp_path: Path) -> None:
    from tests.support.procs import scripted_backend

    with scripted_backend() as b, gateway(b.url, tmp_path, GATEWAY_MODELS_REFRESH_SECONDS="0.2") as gw:
        c = OpenAI(base_url=gw.url, api_key="x", max_retries=0)
        stored = c.responses.create(model=MODEL, input="kept")
        assert [m.id for m in c.models.list().data] == [MODEL, "research", "deep-research"]  # + research (#13)
        b.proc.kill()
        b.proc.wait()
        until(lambda: httpx.get(gw.base + "/ready", timeout=5).status_code == 503, what="/ready failing")
        assert [m.id for m in c.models.list().data] == [MODEL, "research", "deep-research"]  # from the cache
        assert c.responses.retrieve(stored.id).output_text == "Echo: kept"  # state readable
        with pytest.raises(openai.APIStatusError) as failure:
            c.responses.create(model=MODEL, input="fails")
        assert failure.value.status_code == 502


def test_backend_unreachable_is_502_and_failed(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    with gateway(dead, tmp_path) as gw:
        c = OpenAI(base_url=gw.url, api_key="x", max_retries=0)
        with pytest.raises(openai.APIStatusError) as err:
            c.responses.create(model=MODEL, input="x")
        assert err.value.status_code == 502 and err.value.body["type"] == "server_error"  # type: ignore[index]
        events = list(c.responses.create(model=MODEL, input="x", stream=True))
        assert events[-1].type == "response.failed"
        assert c.responses.retrieve(events[-1].response.id).status == "failed"
