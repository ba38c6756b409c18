"""Fields the Open Responses specification marks required on every Response (both doors):
`presence_penalty` and `frequency_penalty` echoed from the request (or their defaults, and sent to
the backend), and `strict` on every function tool."""

from __future__ import annotations

import openai
import pytest
from openai import OpenAI

from tests.support.procs import Backend

MODEL = "scripted-model"
TOOL = {"type": "function", "name": "lookup", "parameters": {"type": "object", "properties": {}}}


def test_penalties_and_strict_are_echoed_and_forwarded(client: OpenAI, backend: Backend, marker: str) -> None:
    r = client.responses.create(
        model=MODEL,
        input=f"pen {marker}",
        tools=[TOOL],  # type: ignore[list-item]
        extra_body={"presence_penalty": 0.5, "frequency_penalty": -0.25},
    )
    for shown in (r.model_dump(), client.responses.retrieve(r.id).model_dump()):
        assert (shown["presence_penalty"], shown["frequency_penalty"]) == (0.5, -0.25)
        assert shown["tools"][0]["strict"] is True
    sent = backend.requests_matching(f"pen {marker}")[-1]["body"]
    assert (sent["presence_penalty"], sent["frequency_penalty"]) == (0.5, -0.25)
    plain = client.responses.create(model=MODEL, input=f"plain {marker}").model_dump()
    assert (plain["presence_penalty"], plain["frequency_penalty"]) == (0.0, 0.0)
    assert "presence_penalty" not in backend.requests_matching(f"plain {marker}")[-1]["body"]


@pytest.mark.parametrize("field", ["presence_penalty", "frequency_penalty"])
def test_penalties_out_of_range_are_400(client: OpenAI, field: str) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(model=MODEL, input="x", extra_body={field: 3})
    assert info.value.body["param"] == field  # type: ignore[index]
