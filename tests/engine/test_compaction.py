"""`POST /v1/responses/compact` through both doors, with the SDK's own types: the history's user
messages and one compaction item come back; sent as input later, the item gives the model the
summary in place of the turns it replaced."""

from __future__ import annotations

import openai
import pytest
from openai import OpenAI

from tests.support.procs import Backend

MODEL = "scripted-model"


def test_compact_then_continue(client: OpenAI, backend: Backend, marker: str) -> None:
    summary = f"SUMMARY {marker}: the user is Ada and likes tea"
    backend.script(marker, {"content": "hello Ada"}, {"content": "tea noted"}, {"content": summary})
    first = client.responses.create(model=MODEL, input=f"my name is Ada {marker}")
    second = client.responses.create(model=MODEL, input="I like tea", previous_response_id=first.id)
    compacted = client.responses.compact(model=MODEL, previous_response_id=second.id)
    assert compacted.object == "response.compaction" and compacted.id.startswith("resp_")
    kinds = [(o.type, getattr(o, "role", None)) for o in compacted.output]
    assert kinds == [("message", "user"), ("message", "user"), ("compaction", None)]
    item = compacted.output[-1]
    assert item.id.startswith("cmp_") and summary not in item.encrypted_content  # type: ignore[union-attr,operator]
    assert compacted.usage.output_tokens > 0

    later = f"what do I like {marker}-later"
    backend.script(f"{marker}-later", {"content": "tea"})
    # user messages come back as input messages (what is sent back), which the SDK types as output ones
    replayed = [o.model_dump(exclude_none=True, warnings=False) for o in compacted.output]
    answer = client.responses.create(model=MODEL, input=[*replayed, {"role": "user", "content": later}])  # type: ignore[list-item]
    assert answer.output_text == "tea"
    sent = backend.requests_matching(f"{marker}-later")[-1]["body"]["messages"]
    texts = [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"] for m in sent]
    assert any(summary in t for t in texts)  # the summary stands in for the history
    assert not any("hello Ada" in t for t in texts)  # the replaced assistant turns are gone


def test_compact_needs_a_model_and_refuses_foreign_items(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.post("/responses/compact", body={"input": "x"}, cast_to=dict)
    assert info.value.body["param"] == "model"  # type: ignore[index]
    foreign = {"type": "compaction", "encrypted_content": "gAAAAABforeign"}
    with pytest.raises(openai.BadRequestError):
        client.responses.create(model=MODEL, input=[foreign, {"role": "user", "content": "x"}])  # type: ignore[list-item]
