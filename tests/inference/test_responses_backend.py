"""The native `/v1/responses` backend adapter: the gateway keeps the state, the backend stays stateless."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openai import OpenAI

from tests.support.procs import Backend, gateway

MODEL = "scripted-model"


def test_responses_backend_round_trip(backend: Backend, tmp_path: Path, marker: str) -> None:
    with gateway(backend.url, tmp_path, GATEWAY_BACKEND_API="responses") as gw:
        client = OpenAI(base_url=gw.url, api_key="x", max_retries=0)
        first = client.responses.create(model=MODEL, input=f"one {marker}", instructions="be brief")
        assert first.status == "completed" and first.output_text == f"Echo: one {marker}"
        backend.script(marker, {"content": "streamed answer"})
        events = list(
            client.responses.create(model=MODEL, input=f"two {marker}", previous_response_id=first.id, stream=True)
        )
        assert events[-1].type == "response.completed"
        assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == "streamed answer"
        assert client.responses.retrieve(events[-1].response.id).output_text == "streamed answer"
        sent = [r for r in backend.requests_matching(marker) if r["path"] == "/v1/responses"]
        assert len(sent) == 2
        body = sent[-1]["body"]
        assert body["store"] is False and body["stream"] is True
        assert [i.get("role") for i in body["input"]] == ["user", "assistant", "user"]  # history from the gateway
        assert "instructions" not in body  # not inherited across previous_response_id
        backend.script(marker, {"tool_calls": [{"name": "f", "arguments": '{"a": 1}'}]})
        tools = [{"type": "function", "name": "f", "parameters": {"type": "object", "properties": {}}}]
        called = client.responses.create(model=MODEL, input=f"three {marker}", tools=tools)  # type: ignore[arg-type]
        assert [(o.type, o.name, o.arguments) for o in called.output] == [("function_call", "f", '{"a": 1}')]
        # log probabilities are asked for in the backend's own terms and come back on the text
        backend.script(marker, {"content": "x y"}, {"content": "x y"})
        for stream in (False, True):
            kw: dict[str, Any] = {"include": ["message.output_text.logprobs"], "top_logprobs": 1}
            if stream:
                last = list(client.responses.create(model=MODEL, input=f"lp {marker}", stream=True, **kw))[-1]
                got = last.response  # type: ignore[union-attr]
            else:
                got = client.responses.create(model=MODEL, input=f"lp {marker}", **kw)
            sent = [r for r in backend.requests_matching(marker) if r["path"] == "/v1/responses"][-1]["body"]
            assert sent["include"] == ["message.output_text.logprobs"] and sent["top_logprobs"] == 1
            lps = got.output[0].content[0].logprobs  # type: ignore[union-attr]
            assert [lp.token for lp in lps] == ["x", " y"] and all(len(lp.top_logprobs) == 1 for lp in lps)
