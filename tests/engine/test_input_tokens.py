"""`POST /v1/responses/input_tokens` counts what a request's model call would cost, history and
tools included, with the backend's tokenizer (vLLM's `/tokenize`), through both doors."""

from __future__ import annotations

from typing import Any

import openai
import pytest
from openai import OpenAI

from tests.support.procs import Backend

MODEL = "scripted-model"


def count(client: OpenAI, **body: Any) -> Any:
    return client.post("/responses/input_tokens", body={"model": MODEL, **body}, cast_to=dict)


def test_counts_input_history_and_tools(client: OpenAI, backend: Backend, marker: str) -> None:
    plain = count(client, input=f"one two three {marker}")
    assert plain == {"object": "response.input_tokens", "input_tokens": 4}
    first = client.responses.create(model=MODEL, input=f"alpha beta {marker}")  # echo: "Echo: alpha beta mk"
    chained = count(client, input="gamma", previous_response_id=first.id, instructions="be brief")
    assert chained["input_tokens"] == 3 + 4 + 1 + 2  # history in, history out, input, instructions
    tools = [{"type": "function", "name": "f", "parameters": {"type": "object", "properties": {}}}]
    assert count(client, input=f"tools {marker}", tools=tools)["input_tokens"] == 3
    asked = [r.get("path") for r in backend.requests_matching(f"tools {marker}")]
    assert asked == ["/tokenize"]  # counted by the backend, nothing generated


def test_bad_requests_are_400(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        count(client, input="x", previous_response_id="resp_missing")
    assert info.value.body["code"] == "previous_response_not_found"  # type: ignore[index]
