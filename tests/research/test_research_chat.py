"""Research through chat completions and the Responses API (#13), through both doors, against the scripted backend, a
local SearXNG-style search server and local pages (tests/support/web_standins.py)."""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK ships with
import openai
import pytest
from openai import OpenAI

from tests.support.mcp_servers import mcp_servers
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import retrieval_env, wait_ingested
from tests.support.stack import EnvoyStack, envoy_stack
from tests.support.waiting import until
from tests.support.web_standins import Web

pytestmark = pytest.mark.slow
MODEL = "scripted-model"


@pytest.fixture(scope="module")
def web() -> Iterator[Web]:
    with Web() as w:
        w.raw("/robots.txt", b"User-agent: *\nAllow: /\n")
        yield w


@pytest.fixture(scope="module")
def stack(backend: Backend, web: Web, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EnvoyStack]:
    env = {
        "GATEWAY_WEB_SEARCH_PROVIDER": "searxng",
        "GATEWAY_WEB_SEARCH_URL": web.base,
        "GATEWAY_RESEARCH_MAX_STANDARD": "1",
        "GATEWAY_RESEARCH_ITERATIONS_STANDARD": "2",
        "GATEWAY_RUN_LEASE_SECONDS": "3",
        **retrieval_env(backend.url),
    }
    with envoy_stack(backend.url, tmp_path_factory.mktemp("research"), **env) as s:
        yield s


def _client(base: str) -> OpenAI:
    return OpenAI(base_url=base, api_key="k", max_retries=0, timeout=60)


def _site(web: Web, marker: str) -> dict[str, str]:
    """Pages for one test: found for the question, and for the planner's follow-up query."""
    urls = {
        "keeper": web.page(
            f"/{marker}/keeper", "Skerry Light keeper", f"The keeper of Skerry Light {marker} plays the violin."
        ),
        "violin": web.page(f"/{marker}/violin", "The keeper's violin", "The violin was made in Cremona in 1711."),
        "island": web.page(f"/{marker}/island", "Skerry island", "The island has one lighthouse."),
    }
    web.results[f"keeper {marker}"] = [f"/{marker}/keeper", f"/{marker}/island", "http://127.0.0.1:9/internal"]
    web.results[f"violin {marker}"] = [f"/{marker}/violin", f"/{marker}/keeper"]  # keeper again: not re-read
    return urls


def _script(backend: Backend, marker: str, answer: str, *, plans: int = 2, delay: float = 0.0) -> None:
    replies: list[dict[str, Any]] = [{"content": json.dumps([f"violin {marker}"])} for _ in range(plans)]
    replies.append({"content": answer, **({"delay": delay} if delay else {})})
    backend.script(marker, *replies)


@pytest.mark.parametrize("door", ["envoy", "http"])
def test_streamed_research_reasons_then_answers_with_sources(
    stack: EnvoyStack, backend: Backend, web: Web, marker: str, door: str
) -> None:
    urls = _site(web, marker)
    _script(backend, marker, "The keeper plays a violin made in Cremona [1][3].")
    client = _client(stack.url if door == "envoy" else stack.http_url)
    stream = client.chat.completions.create(
        model=MODEL, stream=True, messages=[{"role": "user", "content": f"  Research who is the keeper {marker}?"}]
    )
    kinds, reasoning, content = [], "", ""
    annotations: list[dict[str, Any]] = []
    for chunk in stream:
        assert chunk.object == "chat.completion.chunk" and chunk.model == MODEL
        delta = chunk.choices[0].delta
        annotations += getattr(delta, "annotations", None) or []
        if getattr(delta, "reasoning_content", None):
            kinds.append("reasoning")
            reasoning += delta.reasoning_content  # type: ignore[attr-defined]
        if delta.content:
            kinds.append("content")
            content += delta.content
    assert kinds.index("content") > kinds.index("reasoning") and "reasoning" not in kinds[kinds.index("content") :]
    assert f"keeper {marker}" in reasoning and f"violin {marker}" in reasoning  # each query is reported
    assert "Skipped http://127.0.0.1:9/internal" in reasoning  # the private address was refused
    assert content.startswith("The keeper plays a violin made in Cremona")
    assert "Sources:" in content
    for key in ("keeper", "violin", "island"):
        assert urls[key] in content
    # each cited source carries a url_citation (OpenAI's chat shape) spanning its marker in the text
    cited = [(a["url_citation"]["url"], content[a["url_citation"]["start_index"] : a["url_citation"]["end_index"]])
             for a in annotations]  # fmt: skip
    assert cited == [(urls["keeper"], "[1]"), (urls["violin"], "[3]")]
    assert all(a["type"] == "url_citation" and a["url_citation"]["title"] for a in annotations)
    assert web.fetched(f"/{marker}/keeper") == 1  # read once although found twice
    # the final answer was generated from the question and the numbered notes
    final = [r for r in backend.requests_matching(marker) if r["body"].get("stream")]
    assert len(final) == 1 and "Cremona in 1711" in json.dumps(final[0]["body"]["messages"])


def test_non_streamed_research_and_what_is_not_research(
    stack: EnvoyStack, backend: Backend, web: Web, marker: str
) -> None:
    _site(web, marker)
    _script(backend, marker, "Violin.", plans=4)  # deep: four rounds (GATEWAY_RESEARCH_ITERATIONS_DEEP)
    client = _client(stack.url)
    done = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": f"deep research: the keeper {marker}"}]
    )
    message = done.choices[0].message
    assert done.object == "chat.completion" and message.content and message.content.startswith("Violin.")
    reasoning = getattr(message, "reasoning_content", None)
    assert isinstance(reasoning, str) and reasoning
    # not research: passed through untouched (one backend call, the body as sent)
    for messages in (
        [{"role": "user", "content": f"please research {marker}"}],
        [
            {"role": "user", "content": f"research the keeper {marker}"},
            {"role": "assistant", "content": "..."},
            {"role": "user", "content": f"thanks {marker}-later"},
        ],
        [{"role": "user", "content": [{"type": "text", "text": f"research {marker}-multi"}]}],
    ):
        before = len(backend.requests_matching(marker))
        client.chat.completions.create(model=MODEL, messages=messages)  # type: ignore[arg-type]
        sent = backend.requests_matching(marker)[before:]
        assert len(sent) == 1 and sent[0]["body"]["messages"] == messages


def test_queue_order_and_disconnect_free_the_slot(stack: EnvoyStack, backend: Backend, web: Web, marker: str) -> None:
    """One standard slot (GATEWAY_RESEARCH_MAX_STANDARD=1): a second run is told its place at once and
    starts when the first ends; a client that leaves stops its run and frees the slot."""
    _site(web, marker)
    _script(backend, marker, "first answer", delay=1.5)
    first: dict[str, Any] = {}

    def run_first() -> None:
        first["result"] = _client(stack.http_url).chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": f"research the keeper {marker}"}]
        )

    t = threading.Thread(target=run_first)
    t.start()
    # the first run holds the slot once it reads its pages (its answer is slow: 1.5 s from then on);
    # a fixed wait here lost the race on a loaded machine, the second run then taking the slot first
    until(lambda: web.fetched(f"/{marker}/keeper"), what="the first run reading its pages")
    second = f"{marker}-b"
    _site(web, second)
    _script(backend, second, "second answer")
    started = time.monotonic()
    body = {"model": MODEL, "stream": True, "messages": [{"role": "user", "content": f"research the keeper {second}"}]}
    with httpx.stream("POST", stack.http_url + "/chat/completions", json=body, timeout=30) as resp:
        lines = resp.iter_lines()
        first_reasoning = next(json.loads(x[5:]) for x in lines if x.startswith("data:") and "reasoning_content" in x)
        assert "place 1 in line" in first_reasoning["choices"][0]["delta"]["reasoning_content"]
        assert time.monotonic() - started < 1.0  # told at once, not when the slot frees
        rest = "".join(
            json.loads(x[5:])["choices"][0]["delta"].get("content") or ""
            for x in lines
            if x.startswith("data:") and x[5:].strip() != "[DONE]"
        )
    t.join(30)
    assert first["result"].choices[0].message.content.startswith("first answer")
    assert "second answer" in rest  # it ran once the first freed the slot

    # disconnect: a run reading a slow page is abandoned; its slot is free again within a second
    gone = f"{marker}-c"
    _site(web, gone)
    web.delay[f"/{gone}/keeper"] = 5.0
    _script(backend, gone, "never")
    body["messages"] = [{"role": "user", "content": f"research the keeper {gone}"}]
    with httpx.stream("POST", stack.http_url + "/chat/completions", json=body, timeout=30) as resp:
        for line in resp.iter_lines():
            if "Searched" in line:
                break
    time.sleep(1.0)
    after = f"{marker}-d"
    _site(web, after)
    _script(backend, after, "fourth answer")
    started = time.monotonic()
    out = _client(stack.http_url).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": f"research the keeper {after}"}]
    )
    assert out.choices[0].message.content.startswith("fourth answer")
    assert "place" not in (getattr(out.choices[0].message, "reasoning_content", "") or "")  # no wait
    assert not backend.requests_matching(f"{gone}") or all(
        not r["body"].get("stream") for r in backend.requests_matching(gone)
    )


# -- the Responses API: OpenAI's deep-research shape ------------------------------------------------
@pytest.mark.parametrize("door", ["envoy", "http"])
def test_research_model_output_items_and_citations(
    stack: EnvoyStack, backend: Backend, web: Web, marker: str, door: str
) -> None:
    urls = _site(web, marker)
    _script(backend, marker, "The keeper plays the violin [1], made in Cremona [3].")
    client = _client(stack.url if door == "envoy" else stack.http_url)
    assert {"research", "deep-research"} <= {m.id for m in client.models.list()}
    out = client.responses.create(
        model="research", input=f"Who is the keeper {marker}?", tools=[{"type": "web_search"}]
    )
    assert out.status == "completed" and out.model == "research"
    types = [i.type for i in out.output]
    assert types[-1] == "message" and "reasoning" in types and "web_search_call" in types
    actions = [i.action.type for i in out.output if i.type == "web_search_call"]  # type: ignore[union-attr]
    assert "search" in actions and "open_page" in actions
    opened = {i.action.url for i in out.output if i.type == "web_search_call" and i.action.type == "open_page"}  # type: ignore[union-attr]
    assert urls["keeper"] in opened and "http://127.0.0.1:9/internal" not in opened
    text = out.output[-1].content[0]  # type: ignore[union-attr]
    assert text.text.startswith("The keeper plays the violin [1]")
    cited = {(a.url, text.text[a.start_index : a.end_index]) for a in text.annotations}  # type: ignore[union-attr]
    assert cited == {(urls["keeper"], "[1]"), (urls["violin"], "[3]")}
    assert out.output_text.endswith(urls["violin"]) or "Sources:" in out.output_text
    assert client.responses.retrieve(out.id).output[-1].id == out.output[-1].id  # stored like any response


def test_research_streams_background_resumes_and_needs_a_source(
    stack: EnvoyStack, backend: Backend, web: Web, marker: str
) -> None:
    client = _client(stack.url)
    with pytest.raises(openai.BadRequestError) as refused:
        client.responses.create(model="deep-research", input=f"q {marker}")
    assert refused.value.body["param"] == "tools"  # type: ignore[index]
    assert backend.requests_matching(marker) == []  # no backend call
    _site(web, marker)
    _script(backend, marker, "Streamed answer [1].")
    events = list(
        client.responses.create(
            model="research", input=f"the keeper {marker}", tools=[{"type": "web_search_preview"}], stream=True
        )
    )
    types = [e.type for e in events]
    assert types[0] == "response.created" and types[-1] == "response.completed"
    assert types.index("response.web_search_call.in_progress") < types.index("response.web_search_call.searching")
    assert types.index("response.web_search_call.searching") < types.index("response.web_search_call.completed")
    assert "response.output_text.delta" in types and "response.output_text.annotation.added" in types
    assert [e.sequence_number for e in events] == list(range(len(events)))
    # background: retrieve, then the stream again from any event
    other = f"{marker}-bg"
    _site(web, other)
    _script(backend, other, "Background answer.")
    bg = client.responses.create(
        model="research", input=f"the keeper {other}", tools=[{"type": "web_search"}], background=True
    )
    assert bg.status in ("queued", "in_progress")
    deadline = time.monotonic() + 30
    while (got := client.responses.retrieve(bg.id)).status in ("queued", "in_progress"):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert got.status == "completed" and got.output_text.startswith("Background answer.")
    replay = list(client.responses.retrieve(bg.id, stream=True, starting_after=3))
    assert replay[0].sequence_number == 4 and replay[-1].type == "response.completed"


def test_research_searches_the_knowledge_base_of_file_search(stack: EnvoyStack, backend: Backend, marker: str) -> None:
    client = _client(stack.http_url)
    f = client.files.create(
        file=("notes.txt", io.BytesIO(f"The keeper {marker} keeps bees on the island.".encode())), purpose="assistants"
    )
    store = client.vector_stores.create(name="kb", file_ids=[f.id])
    wait_ingested(client, store.id)
    _script(backend, marker, "Bees [1].")
    out = client.responses.create(
        model="research",
        input=f"What does the keeper {marker} keep?",
        tools=[{"type": "file_search", "vector_store_ids": [store.id]}],
    )
    assert out.status == "completed"
    calls = [i for i in out.output if i.type == "file_search_call"]
    assert calls and all(c.status == "completed" for c in calls)
    assert "web_search_call" not in {i.type for i in out.output}  # no web tool: the web is not searched
    final = [r for r in backend.requests_matching(marker) if r["body"].get("stream")]
    assert "keeps bees on the island" in json.dumps(final[-1]["body"]["messages"])
    annotation = out.output[-1].content[0].annotations[0]  # type: ignore[union-attr]
    assert annotation.type == "url_citation" and f.id in annotation.url


def test_a_context_overflow_still_ends_in_an_answer(stack: EnvoyStack, backend: Backend, web: Web, marker: str) -> None:
    _site(web, marker)
    overflow = {"status": 400, "error": "This model's maximum context length is 2048 tokens. Please reduce the length."}
    plans = [{"content": json.dumps([f"violin {marker}"])} for _ in range(2)]
    backend.script(marker, *plans, overflow, {"content": "Short answer [1]."})
    out = _client(stack.http_url).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": f"research the keeper {marker}"}]
    )
    message = out.choices[0].message
    assert (message.content or "").startswith("Short answer [1].")
    (note,) = message.annotations or []  # non-streamed: the message's own annotations
    span = (note.url_citation.start_index, note.url_citation.end_index)
    assert span == (len("Short answer "), len("Short answer [1]"))
    assert note.url_citation.url in (message.content or "")
    assert "did not fit the model's context: retrying with" in (getattr(message, "reasoning_content", "") or "")
    answers = [r for r in backend.requests_matching(marker) if r["body"].get("stream")]
    assert len(answers) == 2 and len(json.dumps(answers[1]["body"])) < len(json.dumps(answers[0]["body"]))


def test_pages_read_are_saved_into_the_knowledge_base(backend: Backend, web: Web, marker: str, tmp_path: Path) -> None:
    """GATEWAY_RESEARCH_SAVE_TO: the knowledge base grows with each run (pages as documents, cited by URL)."""
    urls = _site(web, marker)
    env = {"GATEWAY_WEB_SEARCH_PROVIDER": "searxng", "GATEWAY_WEB_SEARCH_URL": web.base, **retrieval_env(backend.url)}
    with gateway(backend.url, tmp_path, **env) as gw:
        store = _client(gw.url).vector_stores.create(name="research memory").id
    with gateway(backend.url, tmp_path, GATEWAY_RESEARCH_SAVE_TO=store, **env) as gw:
        client = _client(gw.url)
        _script(backend, marker, "Saved [1].")
        client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": f"research the keeper {marker}"}]
        )
        wait_ingested(client, store)
        files = client.vector_stores.files.list(store).data
        assert {f.attributes["source_url"] for f in files} == {urls["keeper"], urls["island"], urls["violin"]}  # type: ignore[index]
        hits = client.vector_stores.search(store, query="Cremona violin 1711").data
        assert hits and hits[0].attributes["source_url"] == urls["violin"]  # type: ignore[index]


def test_research_searches_mcp_servers_with_search_and_fetch(stack: EnvoyStack, backend: Backend, marker: str) -> None:
    """An `mcp` tool is a data source the deep-research way: the server's search(query), then fetch(id)."""
    with mcp_servers() as servers:
        _script(backend, marker, "Strings from Cremona [1].")
        out = _client(stack.url).responses.create(
            model="research",
            input=f"What did the keeper order {marker}? violin strings",
            tools=[
                {
                    "type": "mcp",
                    "server_label": "library",
                    "server_url": servers.url("library"),
                    "require_approval": "never",
                }
            ],
        )
    assert out.status == "completed"
    calls = [i for i in out.output if i.type == "mcp_call"]
    assert calls and all(c.name == "search" for c in calls)  # type: ignore[union-attr]
    assert "web_search_call" not in {i.type for i in out.output}
    final = [r for r in backend.requests_matching(marker) if r["body"].get("stream")]
    assert "violin strings from Cremona every spring" in json.dumps(final[-1]["body"]["messages"])
    annotation = out.output[-1].content[0].annotations[0]  # type: ignore[union-attr]
    assert annotation.url == "https://library.example/ledger"
