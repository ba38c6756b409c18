"""The Responses API through the official `openai` SDK, against a real gateway process.

The same tests run through Envoy's door too (see conftest's `door`), so everything here is what a
client sees on either port.
"""

from __future__ import annotations

import json
import time
from typing import Any

import openai
import pytest
from openai import OpenAI

from tests.support.procs import Backend

MODEL = "scripted-model"


def test_create_non_streaming_is_stored_and_retrievable(client: OpenAI, marker: str) -> None:
    resp = client.responses.create(model=MODEL, input=f"hello {marker}", metadata={"k": "v"}, user="u-1")
    assert resp.object == "response"
    assert resp.id.startswith("resp_")
    assert resp.status == "completed"
    assert resp.output_text == f"Echo: hello {marker}"
    assert resp.metadata == {"k": "v"}
    assert resp.user == "u-1"
    assert resp.usage is not None and resp.usage.output_tokens > 0
    assert resp.usage.total_tokens == resp.usage.input_tokens + resp.usage.output_tokens
    message = resp.output[0]
    assert message.type == "message" and message.id.startswith("msg_") and message.status == "completed"
    again = client.responses.retrieve(resp.id)
    assert again.model_dump() == resp.model_dump()


def test_streaming_grammar_and_snapshot(client: OpenAI, backend: Backend, marker: str) -> None:
    backend.script(marker, {"content": "one two three four", "reasoning": "thinking hard"})
    events = list(client.responses.create(model=MODEL, input=f"go {marker}", stream=True))
    types = [e.type for e in events]
    assert types[0] == "response.created" and types[1] == "response.in_progress"
    assert types[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    # reasoning item first, then the message, each with the full add/part/delta/done grammar
    assert (
        types[2:8]
        == [
            "response.output_item.added",
            "response.content_part.added",
            "response.reasoning_text.delta",
            "response.reasoning_text.delta",
            "response.reasoning_text.done",
            "response.content_part.done",
        ][: len(types[2:8])]
    )
    assert "response.output_text.done" in types
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert deltas == "one two three four"
    reasoning = "".join(e.delta for e in events if e.type == "response.reasoning_text.delta")
    assert reasoning == "thinking hard"
    final = events[-1].response
    assert final.output_text == "one two three four"
    assert final.output[0].type == "reasoning" and final.output[0].content[0].text == "thinking hard"
    stored = client.responses.retrieve(final.id)
    assert stored.model_dump() == final.model_dump()
    # A streaming client's turn streams from the backend too, with usage in the last chunk.
    sent = backend.requests_matching(marker)[-1]["body"]
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert final.usage is not None and final.usage.output_tokens > 0
    done_items = [e.item for e in events if e.type == "response.output_item.done"]
    assert [i.model_dump() for i in done_items] == [o.model_dump() for o in final.output]


def test_previous_response_id_keeps_history_but_not_instructions(client: OpenAI, backend: Backend, marker: str) -> None:
    first = client.responses.create(model=MODEL, input=f"first {marker}", instructions="Be terse.")
    backend.script(marker, {"echo_request": True})
    second = client.responses.create(model=MODEL, input=f"second {marker}", previous_response_id=first.id)
    messages = json.loads(second.output_text)
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[0]["content"] == f"first {marker}"
    assert messages[1]["content"] == f"Echo: first {marker}"
    assert second.previous_response_id == first.id
    assert second.instructions is None


def test_instructions_become_system_message(client: OpenAI, backend: Backend, marker: str) -> None:
    backend.script(marker, {"echo_request": True})
    resp = client.responses.create(model=MODEL, input=f"hi {marker}", instructions="You are a pirate.")
    messages = json.loads(resp.output_text)
    assert messages[0] == {"role": "system", "content": "You are a pirate."}
    assert resp.instructions == "You are a pirate."


def test_store_false_is_not_retrievable(client: OpenAI, marker: str) -> None:
    resp = client.responses.create(model=MODEL, input=f"ephemeral {marker}", store=False)
    assert resp.status == "completed"
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(resp.id)


def test_function_call_round_trip(client: OpenAI, backend: Backend, marker: str) -> None:
    tools = [
        {
            "type": "function",
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        }
    ]
    backend.script(
        marker,
        {
            "tool_calls": [
                {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                {"name": "get_weather", "arguments": '{"city": "Rome"}'},
            ]
        },
        {"content": "Sunny in both."},
    )
    resp = client.responses.create(model=MODEL, input=f"weather {marker}", tools=tools)  # type: ignore[arg-type]
    calls = [o for o in resp.output if o.type == "function_call"]
    assert len(calls) == 2  # parallel calls stay separate items
    assert [json.loads(c.arguments)["city"] for c in calls] == ["Paris", "Rome"]
    assert all(c.id.startswith("fc_") and c.call_id and c.status == "completed" for c in calls)
    sent = backend.requests_matching(marker)[-1]["body"]
    assert sent["tools"][0]["function"]["name"] == "get_weather"
    follow = client.responses.create(
        model=MODEL,
        previous_response_id=resp.id,
        tools=tools,  # type: ignore[arg-type]
        input=[
            {"type": "function_call_output", "call_id": c.call_id, "output": f"sunny-{i}"} for i, c in enumerate(calls)
        ],
    )
    assert follow.output_text == "Sunny in both."
    messages = backend.requests_matching(marker)[-1]["body"]["messages"]
    assert messages[1]["role"] == "assistant" and len(messages[1]["tool_calls"]) == 2
    assert [m["content"] for m in messages if m["role"] == "tool"] == ["sunny-0", "sunny-1"]
    assert messages[2]["tool_call_id"] == calls[0].call_id


def test_streamed_function_call_arguments(client: OpenAI, backend: Backend, marker: str) -> None:
    tools = [{"type": "function", "name": "lookup", "parameters": {"type": "object", "properties": {}}}]
    backend.script(marker, {"tool_calls": [{"name": "lookup", "arguments": '{"q": "a long query string"}'}]})
    events = list(client.responses.create(model=MODEL, input=f"x {marker}", tools=tools, stream=True))  # type: ignore[arg-type]
    deltas = [e.delta for e in events if e.type == "response.function_call_arguments.delta"]
    assert len(deltas) > 1 and "".join(deltas) == '{"q": "a long query string"}'
    done = next(e for e in events if e.type == "response.function_call_arguments.done")
    assert done.arguments == '{"q": "a long query string"}'
    assert events[-1].response.output[0].name == "lookup"


def test_max_output_tokens_gives_incomplete(client: OpenAI, marker: str) -> None:
    resp = client.responses.create(model=MODEL, input=f"a b c d e f g {marker}", max_output_tokens=3)
    assert resp.status == "incomplete"
    assert resp.incomplete_details is not None and resp.incomplete_details.reason == "max_output_tokens"
    assert resp.output[0].status == "incomplete"


def test_sampling_and_structured_output_reach_backend(client: OpenAI, backend: Backend, marker: str) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    resp = client.responses.create(
        model=MODEL,
        input=f"json {marker}",
        temperature=0.2,
        top_p=0.9,
        max_output_tokens=50,
        text={"format": {"type": "json_schema", "name": "thing", "schema": schema, "strict": True}},
        reasoning={"effort": "low"},
        extra_body={"top_k": 7, "repetition_penalty": 1.1},
        safety_identifier="sid",
        prompt_cache_key="pck",
        truncation="disabled",
    )
    body = backend.requests_matching(marker)[-1]["body"]
    assert body["temperature"] == 0.2 and body["top_p"] == 0.9 and body["max_tokens"] == 50
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "thing", "schema": schema, "strict": True},
    }
    assert body["reasoning_effort"] == "low"
    assert body["top_k"] == 7 and body["repetition_penalty"] == 1.1  # vLLM extras forwarded
    # Nobody watches a non-streaming response as it is made: the backend sends one JSON reply.
    assert body["stream"] is False and "stream_options" not in body
    assert resp.text.format.type == "json_schema"
    assert resp.safety_identifier == "sid" and resp.prompt_cache_key == "pck"
    client.responses.create(model=MODEL, input=f"obj {marker}", text={"format": {"type": "json_object"}})
    assert backend.requests_matching(marker)[-1]["body"]["response_format"] == {"type": "json_object"}


def test_input_items_list_paginates(client: OpenAI, marker: str) -> None:
    items = [{"role": "user", "content": f"m{i} {marker}"} for i in range(5)]
    resp = client.responses.create(model=MODEL, input=items)  # type: ignore[arg-type]
    page = client.responses.input_items.list(resp.id, limit=2, order="asc")
    assert [i.content[0].text for i in page.data] == [f"m0 {marker}", f"m1 {marker}"]
    assert page.has_more and page.first_id == page.data[0].id and page.last_id == page.data[1].id
    everything = list(client.responses.input_items.list(resp.id, limit=2, order="asc"))
    assert [i.content[0].text for i in everything] == [f"m{i} {marker}" for i in range(5)]
    desc = client.responses.input_items.list(resp.id)
    assert desc.data[0].content[0].text == f"m4 {marker}"
    before = client.responses.input_items.list(resp.id, order="asc", extra_query={"before": everything[3].id})
    assert [i.content[0].text for i in before.data] == [f"m{i} {marker}" for i in range(3)]


def test_delete_response(client: OpenAI, marker: str) -> None:
    resp = client.responses.create(model=MODEL, input=f"bye {marker}")
    client.responses.delete(resp.id)
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(resp.id)
    with pytest.raises(openai.NotFoundError):
        client.responses.delete(resp.id)


def test_background_lifecycle_and_cancel(client: OpenAI, backend: Backend, marker: str) -> None:
    backend.script(marker, {"content": "slow reply here", "delay": 0.5})
    resp = client.responses.create(model=MODEL, input=f"bg {marker}", background=True)
    assert resp.status == "queued" and resp.background is True
    deadline = time.monotonic() + 10
    while (resp := client.responses.retrieve(resp.id)).status in ("queued", "in_progress"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert resp.status == "completed" and resp.output_text == "slow reply here"
    with pytest.raises(openai.BadRequestError):
        client.responses.cancel(resp.id)  # cannot cancel a completed response

    backend.script(marker, {"content": "never finished", "delay": 5})
    slow = client.responses.create(model=MODEL, input=f"bg2 {marker}", background=True)
    cancelled = client.responses.cancel(slow.id)
    assert cancelled.status == "cancelled"
    assert client.responses.retrieve(slow.id).status == "cancelled"


def test_background_stream_resumes_after_a_sequence_number(client: OpenAI, backend: Backend, marker: str) -> None:
    backend.script(marker, {"content": "one two three four five six", "chunk_delay": 0.05})
    stream = client.responses.create(model=MODEL, input=f"resume {marker}", background=True, stream=True)
    seen = []
    for event in stream:
        seen.append(event)
        if event.type == "response.output_text.delta":
            break
    stream.close()  # the connection drops mid-stream; the background run carries on
    rid = seen[0].response.id  # type: ignore[union-attr]
    cut = seen[-1].sequence_number
    rest = list(client.responses.retrieve(rid, stream=True, starting_after=cut))
    assert [e.sequence_number for e in rest] == list(range(cut + 1, cut + 1 + len(rest)))
    assert rest[-1].type == "response.completed"
    text = "".join(e.delta for e in seen + rest if e.type == "response.output_text.delta")
    assert text == "one two three four five six"
    # Once it has ended the stream is replayed from storage: the same events, from any point.
    stored = client.responses.retrieve(rid)
    assert stored.status == "completed" and stored.output_text == text
    whole = list(client.responses.retrieve(rid, stream=True))
    assert [e.model_dump() for e in whole] == [e.model_dump() for e in seen + rest]
    tail = list(client.responses.retrieve(rid, stream=True, starting_after=whole[-2].sequence_number))
    assert [e.type for e in tail] == ["response.completed"]


def test_only_background_responses_stream_on_retrieve(client: OpenAI, marker: str) -> None:
    resp = client.responses.create(model=MODEL, input=f"plain {marker}")
    with pytest.raises(openai.BadRequestError) as err:
        client.responses.retrieve(resp.id, stream=True)
    assert err.value.body["param"] == "stream"  # type: ignore[index]
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve("resp_does_not_exist", stream=True)
    for query, param in (
        ({"stream": "maybe"}, "stream"),
        ({"stream": "true", "starting_after": "x"}, "starting_after"),
    ):
        with pytest.raises(openai.BadRequestError) as err:
            client.get(f"/responses/{resp.id}", cast_to=object, options={"params": query})
        assert err.value.body["param"] == param  # type: ignore[index]


def test_background_requires_store(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as err:
        client.responses.create(model=MODEL, input="x", background=True, store=False)
    assert err.value.body["param"] == "background"  # type: ignore[index]


def test_backend_reasoning_usage_reported(client: OpenAI, backend: Backend, marker: str) -> None:
    backend.script(marker, {"content": "ok", "usage": {"prompt_tokens": 11, "completion_tokens": 7}})
    resp = client.responses.create(model=MODEL, input=f"u {marker}")
    assert resp.usage is not None
    assert (resp.usage.input_tokens, resp.usage.output_tokens, resp.usage.total_tokens) == (11, 7, 18)


def test_item_reference_resolves_stored_items(client: OpenAI, backend: Backend, marker: str) -> None:
    first = client.responses.create(model=MODEL, input=f"remember {marker}")
    backend.script(marker, {"echo_request": True})
    resp = client.responses.create(
        model=MODEL,
        input=[{"type": "item_reference", "id": first.output[0].id}, {"role": "user", "content": f"and {marker}"}],  # type: ignore[misc,list-item]
    )
    messages = json.loads(resp.output_text)
    assert messages[0] == {"role": "assistant", "content": f"Echo: remember {marker}"}


def test_truncation_auto_drops_the_oldest_turns_to_fit(client: OpenAI, backend: Backend, marker: str) -> None:
    # The scripted backend counts words against max_model_len 4096, as vLLM counts tokens.
    long = " ".join(["filler"] * 1000)  # the backend echoes it: a turn is ~2000 words
    first = client.responses.create(model=MODEL, input=f"one {marker} {long}")
    second = client.responses.create(model=MODEL, input=f"two {marker} {long}", previous_response_id=first.id)
    third_input = f"three {marker} {long}"
    with pytest.raises(openai.BadRequestError) as err:  # "disabled" (the default) lets the error stand
        client.responses.create(model=MODEL, input=third_input, previous_response_id=second.id)
    assert err.value.body["code"] == "context_length_exceeded"  # type: ignore[index]

    third = client.responses.create(model=MODEL, input=third_input, previous_response_id=second.id, truncation="auto")
    assert third.status == "completed" and third.truncation == "auto"
    sent = backend.requests_matching(marker)[-1]["body"]["messages"]
    # Only whole turns went, oldest first: the context starts at a user message and ends with the input.
    assert sent[0]["role"] == "user" and not sent[0]["content"].startswith("one ")
    assert sent[-1]["content"] == third_input
    assert sum(len(str(m["content"]).split()) for m in sent) <= 4096
    # The stored conversation is whole: a later turn still sees everything it may.
    assert [i.content[0].text for i in client.responses.input_items.list(third.id).data] == [third_input]  # type: ignore[union-attr]

    with pytest.raises(openai.BadRequestError) as err:  # the latest turn alone does not fit: nothing to drop
        client.responses.create(model=MODEL, input=f"huge {marker} " + " ".join(["x"] * 5000), truncation="auto")
    assert err.value.body["code"] == "context_length_exceeded"  # type: ignore[index]


@pytest.mark.parametrize("stream", [False, True])
def test_output_text_logprobs_when_included(client: OpenAI, backend: Backend, marker: str, stream: bool) -> None:
    backend.script(marker, {"content": "alpha beta gamma"})
    kwargs: dict[str, Any] = {"include": ["message.output_text.logprobs"], "top_logprobs": 2}
    if stream:
        events = list(client.responses.create(model=MODEL, input=f"lp {marker}", stream=True, **kwargs))
        final = events[-1].response  # type: ignore[union-attr]
        deltas = [e for e in events if e.type == "response.output_text.delta"]
        streamed = [lp for e in deltas for lp in e.logprobs]
    else:
        final = client.responses.create(model=MODEL, input=f"lp {marker}", **kwargs)
    sent = backend.requests_matching(marker)[-1]["body"]
    assert sent["logprobs"] is True and sent["top_logprobs"] == 2
    part = final.output[0].content[0]  # type: ignore[union-attr]
    assert part.text == "alpha beta gamma"
    assert "".join(lp.token for lp in part.logprobs) == part.text  # one entry per token, in order
    assert all(lp.logprob < 0 and len(lp.top_logprobs) == 2 for lp in part.logprobs)
    assert bytes(part.logprobs[0].bytes) == part.logprobs[0].token.encode()
    if stream:
        assert [lp.token for lp in streamed] == [lp.token for lp in part.logprobs]
    assert client.responses.retrieve(final.id).output[0].content[0].logprobs == part.logprobs  # type: ignore[union-attr]

    plain = client.responses.create(model=MODEL, input=f"plain {marker}")
    assert "logprobs" not in backend.requests_matching(marker)[-1]["body"]
    assert plain.output[0].content[0].logprobs == []  # type: ignore[union-attr]
