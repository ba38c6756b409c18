"""Conversations through the SDK, and responses that read from and append to them."""

from __future__ import annotations

import json

import openai
import pytest
from openai import OpenAI

from tests.support.procs import Backend

MODEL = "scripted-model"


def test_conversation_crud(client: OpenAI) -> None:
    conv = client.conversations.create(items=[{"role": "user", "content": "seed"}], metadata={"topic": "t"})
    assert conv.id.startswith("conv_") and conv.object == "conversation" and conv.metadata == {"topic": "t"}
    assert client.conversations.retrieve(conv.id).model_dump() == conv.model_dump()
    updated = client.conversations.update(conv.id, metadata={"topic": "u"})
    assert updated.metadata == {"topic": "u"}
    deleted = client.conversations.delete(conv.id)
    assert deleted.deleted and deleted.id == conv.id
    with pytest.raises(openai.NotFoundError):
        client.conversations.retrieve(conv.id)


def test_conversation_items(client: OpenAI) -> None:
    conv = client.conversations.create()
    added = client.conversations.items.create(
        conv.id, items=[{"type": "message", "role": "user", "content": f"i{i}"} for i in range(5)]
    )
    assert len(added.data) == 5
    page = client.conversations.items.list(conv.id, limit=2, order="asc")
    assert [i.content[0].text for i in page.data] == ["i0", "i1"] and page.has_more
    assert [i.content[0].text for i in client.conversations.items.list(conv.id, order="asc")] == [
        f"i{i}" for i in range(5)
    ]
    item = client.conversations.items.retrieve(added.data[2].id, conversation_id=conv.id)
    assert item.content[0].text == "i2"
    client.conversations.items.delete(added.data[2].id, conversation_id=conv.id)
    with pytest.raises(openai.NotFoundError):
        client.conversations.items.retrieve(added.data[2].id, conversation_id=conv.id)
    assert [i.content[0].text for i in client.conversations.items.list(conv.id, order="asc")] == [
        "i0",
        "i1",
        "i3",
        "i4",
    ]


def test_responses_in_a_conversation(client: OpenAI, backend: Backend, marker: str) -> None:
    conv = client.conversations.create(items=[{"role": "user", "content": f"seed {marker}"}])
    first = client.responses.create(model=MODEL, input=f"one {marker}", conversation=conv.id)
    assert first.conversation is not None and first.conversation.id == conv.id
    backend.script(marker, {"echo_request": True})
    second = client.responses.create(model=MODEL, input=f"two {marker}", conversation={"id": conv.id})
    sent = json.loads(second.output_text)
    assert [m["content"] for m in sent] == [f"seed {marker}", f"one {marker}", f"Echo: one {marker}", f"two {marker}"]
    items = list(client.conversations.items.list(conv.id, order="asc"))
    assert len(items) == 5 and items[-1].role == "assistant"


def test_conversation_and_previous_response_id_conflict(client: OpenAI) -> None:
    conv = client.conversations.create()
    first = client.responses.create(model=MODEL, input="x")
    with pytest.raises(openai.BadRequestError) as err:
        client.responses.create(model=MODEL, input="y", conversation=conv.id, previous_response_id=first.id)
    assert err.value.status_code == 400


def test_unknown_conversation_is_404(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError):
        client.responses.create(model=MODEL, input="x", conversation="conv_missing")
