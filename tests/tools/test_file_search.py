"""The file_search tool in `responses.create`, through both doors (Envoy re-routes tool requests to the
HTTP server), with the scripted backend playing a model that searches and cites."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import openai
import pytest
from openai import OpenAI
from openai.types.responses import ResponseTextDeltaEvent

from tests.support.procs import Backend, Gateway
from tests.support.retrieval_helpers import wait_ingested

MODEL = "scripted-model"
FRUIT = b"Mangoes ripen in the summer heat and taste sweet."
BIRDS = b"Penguins cannot fly but they swim very fast."


@pytest.fixture(scope="session")
def library(http_gateway: Gateway, session_key: str) -> Iterator[dict[str, str]]:
    client = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0)
    fruit = client.files.create(file=("fruit.txt", io.BytesIO(FRUIT)), purpose="assistants").id
    birds = client.files.create(file=("birds.md", io.BytesIO(BIRDS)), purpose="assistants").id
    store = client.vector_stores.create(name="library", file_ids=[fruit, birds])
    other = client.vector_stores.create(name="library-2", file_ids=[birds])
    wait_ingested(client, store.id)
    wait_ingested(client, other.id)
    yield {"store": store.id, "other": other.id, "fruit": fruit, "birds": birds}
    client.vector_stores.delete(store.id)
    client.vector_stores.delete(other.id)


def _script(backend: Backend, marker: str, queries: list[str], answer: str) -> None:
    call = {"name": "file_search", "arguments": json.dumps({"queries": queries})}
    backend.script(marker, {"tool_calls": [call]}, {"content": answer, "chunk_size": 3})


def test_file_search_non_streaming_cites_and_replays(
    client: OpenAI, backend: Backend, library: dict[str, str], marker: str
) -> None:
    _script(backend, marker, ["mangoes summer"], "Mangoes ripen in summer [1].")
    tool = {"type": "file_search", "vector_store_ids": [library["store"], library["other"]], "max_num_results": 3}
    resp = client.responses.create(model=MODEL, input=f"When do mangoes ripen? {marker}", tools=[tool])  # type: ignore[list-item]
    assert resp.status == "completed"
    call, message = resp.output
    assert call.type == "file_search_call" and call.id.startswith("fs_")
    assert call.status == "completed" and call.queries == ["mangoes summer"] and call.results is None
    assert message.type == "message"
    part = message.content[0]
    assert part.text == "Mangoes ripen in summer."
    assert [a.model_dump() for a in part.annotations] == [
        {"type": "file_citation", "file_id": library["fruit"], "filename": "fruit.txt", "index": len(part.text) - 1}
    ]
    assert resp.tools[0].max_num_results == 3  # the tool as configured, OpenAI's defaults filled in
    # the model saw the passage under its marker, as the result of its own call
    seen = backend.requests_matching(marker)[1]["body"]["messages"]
    tool_msg = next(m for m in seen if m["role"] == "tool")
    assert "[1] fruit.txt" in tool_msg["content"] and FRUIT.decode() in tool_msg["content"]
    assert seen[-2]["tool_calls"][0]["function"]["name"] == "file_search"
    # a later turn replays the stored file_search_call as a call and its result
    follow = client.responses.create(model=MODEL, input=f"and then? {marker}-2", previous_response_id=resp.id)
    replayed = backend.requests_matching(f"{marker}-2")[0]["body"]["messages"]
    assert [m["role"] for m in replayed] == ["user", "assistant", "tool", "assistant", "user"]
    assert follow.status == "completed"


def test_file_search_streaming_events_and_results(
    client: OpenAI, backend: Backend, library: dict[str, str], marker: str
) -> None:
    _script(backend, marker, ["penguins swim", "mangoes"], "Penguins swim fast [1], and mangoes are sweet [2].")
    tool = {"type": "file_search", "vector_store_ids": [library["store"]]}
    events = list(
        client.responses.create(
            model=MODEL,
            input=f"Tell me {marker}",
            tools=[tool],  # type: ignore[list-item]
            include=["file_search_call.results"],
            stream=True,
        )
    )
    types = [e.type for e in events]
    fs = [t for t in types if "file_search_call" in t or t.startswith("response.output_item")][:5]
    assert fs == [
        "response.output_item.added",
        "response.file_search_call.in_progress",
        "response.file_search_call.searching",
        "response.file_search_call.completed",
        "response.output_item.done",
    ]
    added = events[types.index("response.output_item.added")]
    assert added.item.type == "file_search_call" and added.item.status == "in_progress"
    done = events[types.index("response.output_item.done")].item
    assert done.status == "completed" and done.queries == ["penguins swim", "mangoes"]
    assert done.results and {r.file_id for r in done.results} == {library["fruit"], library["birds"]}
    assert all(r.filename and r.text and r.score is not None for r in done.results)
    deltas = "".join(e.delta for e in events if isinstance(e, ResponseTextDeltaEvent))
    assert deltas == "Penguins swim fast, and mangoes are sweet." and "[" not in deltas
    annotations = [e.annotation for e in events if e.type == "response.output_text.annotation.added"]
    first = done.results[0]
    cited = {a["file_id"] if isinstance(a, dict) else a.file_id for a in annotations}
    assert cited == {library["fruit"], library["birds"]} and first.file_id in cited
    final = events[-1].response
    assert final.status == "completed"
    assert final.output[0].results is not None  # kept on the stored item because it was included
    stored = client.responses.retrieve(final.id)
    assert stored.output[0].model_dump() == final.output[0].model_dump()
    assert len(stored.output[1].content[0].annotations) == 2


def test_file_search_tool_validation(client: OpenAI, library: dict[str, str]) -> None:
    cases = [
        ({"type": "file_search", "vector_store_ids": ["vs_nope"]}, "tools[0].vector_store_ids"),
        ({"type": "file_search", "vector_store_ids": []}, "tools[0].vector_store_ids"),
        (
            {"type": "file_search", "vector_store_ids": [library["store"]], "max_num_results": 99},
            "tools[0].max_num_results",
        ),
        (
            {"type": "file_search", "vector_store_ids": [library["store"]], "filters": {"type": "eq"}},
            "tools[0].filters.key",
        ),
    ]
    for tool, param in cases:
        with pytest.raises(openai.BadRequestError) as err:
            client.responses.create(model=MODEL, input="x", tools=[tool])  # type: ignore[list-item]
        assert err.value.body["param"] == param, tool  # type: ignore[index]
