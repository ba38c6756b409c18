"""A client-chosen item id never makes the gateway use another item's content (both doors)."""

from __future__ import annotations

from typing import Any

from openai import OpenAI

from tests.support.procs import Backend

MODEL = "scripted-model"


def user(text: str, item_id: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "id": item_id, "content": text}


def sent_texts(backend: Backend, marker: str) -> list[str]:
    body = backend.requests_matching(marker)[-1]["body"]
    return [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"] for m in body["messages"]]


def test_reused_ids_with_other_content_do_not_alias(client: OpenAI, backend: Backend, marker: str) -> None:
    iid = f"msg_{marker.replace('-', '')}"
    first = client.responses.create(model=MODEL, input=[user(f"first {marker}", iid)])  # type: ignore[list-item]
    second = client.responses.create(model=MODEL, input=[user(f"second {marker}", iid)])  # type: ignore[list-item]
    assert second.output_text == f"Echo: second {marker}"
    stored = list(client.responses.input_items.list(second.id))
    assert [i.content[0].text for i in stored] == [f"second {marker}"]  # type: ignore[union-attr]
    assert stored[0].id != iid  # a new id: the stored item under `iid` keeps its own content
    assert next(iter(client.responses.input_items.list(first.id))).id == iid
    third = client.responses.create(model=MODEL, input=f"third {marker}", previous_response_id=second.id)
    assert third.status == "completed"
    history = sent_texts(backend, f"third {marker}")
    assert f"second {marker}" in history and f"first {marker}" not in history
    # two items with one id in one request: both reach the model as sent
    both = client.responses.create(model=MODEL, input=[user(f"a {marker}", "dup1"), user(f"b {marker}", "dup1")])  # type: ignore[list-item]
    assert [i.content[0].text for i in client.responses.input_items.list(both.id, order="asc")] == [  # type: ignore[union-attr]
        f"a {marker}",
        f"b {marker}",
    ]


def test_echoed_output_items_stay_references(client: OpenAI, marker: str) -> None:
    first = client.responses.create(model=MODEL, input=f"echo {marker}")
    echoed = [o.model_dump(exclude_none=True) for o in first.output]
    again = client.responses.create(model=MODEL, input=[*echoed, {"role": "user", "content": f"more {marker}"}])  # type: ignore[list-item]
    ids = [i.id for i in client.responses.input_items.list(again.id, order="asc")]
    assert ids[0] == first.output[0].id  # the same item, not a copy
