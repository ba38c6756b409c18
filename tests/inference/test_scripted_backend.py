"""Tests for the scripted vLLM stand-in: the official SDK must read its wire format as vLLM's."""

from __future__ import annotations

import asyncio
import json
import math
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import openai
import pytest
from openai import AsyncOpenAI

from tests.support.scripted_backend import ScriptedBackend

MODEL = "scripted-model"
REPO_ROOT = Path(__file__).resolve().parents[2]


def user(text: Any) -> Any:
    """A one-message conversation, typed ``Any`` so the SDK's TypedDict overloads accept it."""
    return [{"role": "user", "content": text}]


USER = user("hello there")


@pytest.fixture
async def backend() -> AsyncIterator[ScriptedBackend]:
    b = ScriptedBackend()
    await b.start()
    yield b
    await b.stop()


@pytest.fixture
async def client(backend: ScriptedBackend) -> AsyncIterator[AsyncOpenAI]:
    c = AsyncOpenAI(base_url=backend.url, api_key="test-key", max_retries=0, timeout=5)
    yield c
    await c.close()


async def raw_post(backend: ScriptedBackend, path: str, body: object) -> tuple[int, str, bytes]:
    async with aiohttp.ClientSession() as s, s.post(backend.url + path, json=body) as r:
        return r.status, r.headers.get("Content-Type", ""), await r.read()


async def test_models_and_health(backend: ScriptedBackend, client: AsyncOpenAI) -> None:
    models = await client.models.list()
    assert [m.id for m in models.data] == [MODEL]
    card = models.data[0].model_dump()
    assert card["owned_by"] == "vllm" and card["max_model_len"] == 4096 and card["root"] == MODEL
    async with aiohttp.ClientSession() as s, s.get(f"http://{backend.host}:{backend.port}/health") as r:
        assert r.status == 200 and await r.read() == b""


async def test_chat_non_stream_default_echo(client: AsyncOpenAI) -> None:
    parts = [{"type": "text", "text": "hello"}, {"type": "text", "text": "there"}]
    multimodal = user(parts)
    for messages in (USER, multimodal):
        r = await client.chat.completions.create(model=MODEL, messages=messages)
        assert r.id.startswith("chatcmpl-") and r.object == "chat.completion"
        assert r.choices[0].message.content == "Echo: hello there"
        assert r.choices[0].finish_reason == "stop" and r.choices[0].message.tool_calls is None
        usage = r.usage.model_dump() if r.usage else {}
        assert (usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"]) == (2, 3, 5)


async def test_chat_stream_wire_format(backend: ScriptedBackend, client: AsyncOpenAI) -> None:
    status, ctype, raw = await raw_post(
        backend, "/chat/completions", {"model": MODEL, "messages": USER, "stream": True}
    )
    assert status == 200 and ctype.startswith("text/event-stream")
    frames = raw.decode().split("\n\n")
    assert frames[-2:] == ["data: [DONE]", ""] and all(f.startswith("data: ") for f in frames[:-1])
    chunks = [json.loads(f[6:]) for f in frames[:-2]]
    assert len({c["id"] for c in chunks}) == 1 and all("usage" not in c for c in chunks)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert [c["choices"][0]["delta"].get("content") for c in chunks[1:-1]] == ["Echo:", " hello", " there"]
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"

    backend.script("chunky", [{"content": "abcdefghij", "chunk_size": 4}])
    stream = await client.chat.completions.create(model=MODEL, messages=user("chunky"), stream=True)
    pieces = [c.choices[0].delta.content async for c in stream if c.choices and c.choices[0].delta.content]
    assert pieces == ["abcd", "efgh", "ij"]


async def test_tool_calls_stream_and_non_stream(backend: ScriptedBackend, client: AsyncOpenAI) -> None:
    calls = [
        {"name": "get_weather", "arguments": '{"city": "Paris", "unit": "celsius"}'},
        {"name": "get_time", "arguments": '{"tz": "Europe/Paris"}', "id": "chatcmpl-tool-fixed"},
    ]
    backend.script("weather", [{"tool_calls": calls}, {"tool_calls": calls[:1], "content": "Let me check."}])
    messages = user("weather and time?")
    stream = await client.chat.completions.create(model=MODEL, messages=messages, stream=True)
    got: dict[int, dict[str, str]] = {}
    finish, deltas = None, 0
    async for chunk in stream:
        choice = chunk.choices[0]
        finish = choice.finish_reason or finish
        for tc in choice.delta.tool_calls or []:
            deltas += 1
            entry = got.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
            entry["id"] += tc.id or ""
            entry["name"] += (tc.function and tc.function.name) or ""
            entry["arguments"] += (tc.function and tc.function.arguments) or ""
    assert finish == "tool_calls" and deltas > 4  # arguments arrive in several pieces
    assert [(got[i]["name"], got[i]["arguments"]) for i in (0, 1)] == [(c["name"], c["arguments"]) for c in calls]
    assert got[0]["id"].startswith("chatcmpl-tool-") and got[1]["id"] == "chatcmpl-tool-fixed"

    r = await client.chat.completions.create(model=MODEL, messages=messages)
    msg = r.choices[0].message
    assert msg.content == "Let me check." and r.choices[0].finish_reason == "tool_calls"
    assert msg.tool_calls and msg.tool_calls[0].model_dump()["function"]["arguments"] == calls[0]["arguments"]
    r = await client.chat.completions.create(model=MODEL, messages=messages)
    assert r.choices[0].message.content == "Echo: weather and time?"  # queue drained: default again


async def test_reasoning(backend: ScriptedBackend, client: AsyncOpenAI) -> None:
    backend.script("think", [{"reasoning": "Let me think hard.", "content": "42"}] * 2)
    messages = user("think")
    r = await client.chat.completions.create(model=MODEL, messages=messages)
    extra = r.choices[0].message.model_extra or {}
    assert extra["reasoning_content"] == extra["reasoning"] == "Let me think hard."
    assert r.choices[0].message.content == "42"
    stream = await client.chat.completions.create(model=MODEL, messages=messages, stream=True)
    reasoning, content = "", ""
    async for chunk in stream:
        delta = chunk.choices[0].delta
        reasoning += (delta.model_extra or {}).get("reasoning_content") or ""
        content += delta.content or ""
    assert (reasoning, content) == ("Let me think hard.", "42")


async def test_usage_chunk_and_override(backend: ScriptedBackend, client: AsyncOpenAI) -> None:
    stream = await client.chat.completions.create(
        model=MODEL, messages=USER, stream=True, stream_options={"include_usage": True}
    )
    chunks = [c async for c in stream]
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert (chunks[-1].usage.prompt_tokens, chunks[-1].usage.completion_tokens) == (2, 3)
    assert all(c.usage is None for c in chunks[:-1])
    backend.script("", [{"usage": {"prompt_tokens": 100, "completion_tokens": 7}}])
    r = await client.chat.completions.create(model=MODEL, messages=USER)
    assert r.usage is not None and (r.usage.prompt_tokens, r.usage.total_tokens) == (100, 107)


async def test_errors(backend: ScriptedBackend, client: AsyncOpenAI) -> None:
    backend.script("boom", [{"status": 503, "error": "engine overloaded"}, {"error_kind": "context_length"}])
    boom = user("boom")
    with pytest.raises(openai.APIStatusError) as exc:
        await client.chat.completions.create(model=MODEL, messages=boom)
    assert exc.value.status_code == 503
    assert exc.value.body == {"message": "engine overloaded", "type": "InternalServerError", "param": None, "code": 503}
    with pytest.raises(openai.BadRequestError) as bad:
        await client.chat.completions.create(model=MODEL, messages=boom, max_tokens=100)
    message = bad.value.body["message"]  # type: ignore[index]
    assert message.startswith("This model's maximum context length is 4096 tokens. However, you ")
    assert "requested 100 output tokens" in message and bad.value.body["param"] == "input_tokens"  # type: ignore[index]
    with pytest.raises(openai.NotFoundError) as nf:
        await client.chat.completions.create(model="other", messages=USER)
    assert nf.value.body["message"] == "The model `other` does not exist."  # type: ignore[index]
    status, _, raw = await raw_post(backend, "/chat/completions", {"model": MODEL})
    assert status == 400 and json.loads(raw)["error"]["code"] == 400
    status, _, _ = await raw_post(backend, "/chat/completions", {"messages": USER})  # vLLM: model optional
    assert status == 200
    long_prompt = user("word " * 5000)
    with pytest.raises(openai.BadRequestError):
        await client.chat.completions.create(model=MODEL, messages=long_prompt)


async def test_drop_after_chunks(backend: ScriptedBackend, client: AsyncOpenAI) -> None:
    backend.script("drop", [{"drop_after_chunks": 2}, {"drop_after_chunks": 0}])
    drop = user("drop me please")
    stream = await client.chat.completions.create(model=MODEL, messages=drop, stream=True)
    seen = []
    with pytest.raises(openai.APIConnectionError):  # the SDK wraps the truncated chunked body
        async for chunk in stream:
            seen.append(chunk)
    assert len(seen) == 2
    with pytest.raises(openai.APIConnectionError):
        await client.chat.completions.create(model=MODEL, messages=drop)


async def test_max_tokens_length_and_delays(backend: ScriptedBackend, client: AsyncOpenAI) -> None:
    long = user("one two three four five six")
    r = await client.chat.completions.create(model=MODEL, messages=long, max_tokens=3)
    assert r.choices[0].message.content == "Echo: one two" and r.choices[0].finish_reason == "length"
    stream = await client.chat.completions.create(model=MODEL, messages=long, max_completion_tokens=2, stream=True)
    chunks = [c async for c in stream]
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Echo: one"
    assert chunks[-1].choices[0].finish_reason == "length"
    backend.script("", [{"delay": 0.1, "chunk_delay": 0.02}])
    loop = asyncio.get_running_loop()
    start = loop.time()
    stream = await client.chat.completions.create(model=MODEL, messages=USER, stream=True)
    assert loop.time() - start >= 0.1
    assert len([c async for c in stream]) == 5 and loop.time() - start >= 0.18


async def test_responses_api(backend: ScriptedBackend, client: AsyncOpenAI) -> None:
    r = await client.responses.create(model=MODEL, input="hello there")
    assert r.id.startswith("resp_") and r.status == "completed" and r.output_text == "Echo: hello there"
    assert r.usage is not None and r.usage.input_tokens == 2
    backend.script(
        "tool",
        [{"reasoning": "hmm", "content": "Calling.", "tool_calls": [{"name": "lookup", "arguments": '{"q": "x"}'}]}],
    )
    stream = await client.responses.create(model=MODEL, input=user("tool please"), stream=True)
    events = [e async for e in stream]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    types = [e.type for e in events]
    assert types[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    start, end = types.index("response.content_part.added"), types.index("response.content_part.done")
    assert types[start : end + 1] == [
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
    ]
    assert types[-2:] == ["response.output_item.done", "response.completed"]
    dumped = [e.model_dump() for e in events]
    final = dumped[-1]["response"]
    assert [o["type"] for o in final["output"]] == ["reasoning", "message", "function_call"]
    assert final["output"][2]["arguments"] == '{"q": "x"}' and final["status"] == "completed"
    assert "".join(e["delta"] for e in dumped if e["type"] == "response.output_text.delta") == "Calling."
    args = "".join(e["delta"] for e in dumped if e["type"] == "response.function_call_arguments.delta")
    assert args == '{"q": "x"}'


async def test_completions_and_embeddings(client: AsyncOpenAI) -> None:
    r = await client.completions.create(model=MODEL, prompt="say hi")
    assert r.object == "text_completion" and r.choices[0].text == "Echo: say hi"
    stream = await client.completions.create(model=MODEL, prompt="say hi", stream=True)
    assert "".join([c.choices[0].text async for c in stream if c.choices]) == "Echo: say hi"
    e = await client.embeddings.create(model=MODEL, input=["the cat sat", "the cat sat", "quantum flux"])
    vecs = [d.embedding for d in e.data]
    assert len(vecs[0]) == 384 and math.isclose(sum(x * x for x in vecs[0]), 1.0, rel_tol=1e-4)
    assert vecs[0] == vecs[1] and vecs[0] != vecs[2] and e.usage.prompt_tokens == 8
    floats = await client.embeddings.create(model=MODEL, input="the cat sat", encoding_format="float")
    assert floats.data[0].embedding == pytest.approx(vecs[0], abs=1e-6)


async def test_control_endpoints(backend: ScriptedBackend, client: AsyncOpenAI) -> None:
    base = f"http://{backend.host}:{backend.port}"
    async with aiohttp.ClientSession() as s:
        await s.delete(base + "/_requests")
        await s.post(base + "/_script", json={"match": "ping", "replies": [{"content": "pong"}]})
        await s.post(base + "/_script", json={"match": "ping", "replies": [{"content": "second"}]})
        ping = user("ping")
        answers = [
            (await client.chat.completions.create(model=MODEL, messages=ping)).choices[0].message.content
            for _ in range(3)
        ]
        assert answers == ["pong", "second", "Echo: ping"]
        async with s.get(base + "/_requests") as r:
            recorded = await r.json()
        assert len(recorded) == 3 and recorded[0]["path"] == "/v1/chat/completions"
        assert recorded[0]["body"]["messages"] == ping
        assert recorded[0]["headers"]["Authorization"] == "Bearer test-key"
        await s.post(base + "/_script", json={"match": "ping", "replies": [{"content": "never"}]})
        await s.delete(base + "/_script")
        await s.delete(base + "/_requests")
        r2 = await client.chat.completions.create(model=MODEL, messages=ping)
        assert r2.choices[0].message.content == "Echo: ping" and len(backend.requests) == 1
    backend.script("", [{"echo_request": True}])
    r3 = await client.chat.completions.create(model=MODEL, messages=USER)
    assert json.loads(r3.choices[0].message.content or "") == USER


async def test_subprocess_mode() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.support.scripted_backend",
        "--port",
        "0",
        "--model",
        "m2",
        stdout=asyncio.subprocess.PIPE,
        cwd=REPO_ROOT,
    )
    try:
        assert proc.stdout is not None
        line = (await asyncio.wait_for(proc.stdout.readline(), 10)).decode()
        assert line.startswith("READY ")
        c = AsyncOpenAI(base_url=f"http://127.0.0.1:{int(line.split()[1])}/v1", api_key="k", max_retries=0)
        r = await c.chat.completions.create(model="m2", messages=USER)
        assert r.choices[0].message.content == "Echo: hello there"
        await c.close()
    finally:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 5)
