"""Pure translation units: SSE framing, chat chunks → events, items → chat messages."""

from __future__ import annotations

from typing import Any

from gateway.engine.events import EventBuilder
from gateway.engine.turn import TurnAssembler
from gateway.inference.base import TurnRequest
from gateway.inference.chat_translate import build_chat_body, chunk_deltas, items_to_messages
from gateway.inference.sse_reader import SSEParser


def test_sse_parser_handles_arbitrary_splits() -> None:
    stream = b'data: {"a":1}\n\nevent: x\ndata: {"b":2}\r\n\r\ndata: [DONE]\n\n'
    for cut in range(1, len(stream)):
        parser = SSEParser()
        events = parser.feed(stream[:cut]) + parser.feed(stream[cut:]) + parser.close()
        assert events == [(None, b'{"a":1}'), ("x", b'{"b":2}'), (None, b"[DONE]")], cut


def test_sse_parser_fast_and_line_paths_agree() -> None:
    """LF-only `data:` runs take the split fast path; comments, `event:` lines, multi-line data,
    a blank-line run and CRLF take the line path; any two-way cut gives the same events."""
    stream = (
        b'data: {"a":1}\n\n: keep-alive\n\ndata: {"b":\ndata: 2}\n\n\n\nevent: e\ndata: x\n\n'
        b'data:no-space\n\ndata: {"c":3}\r\n\r\ndata: [DONE]\n\n'
    )
    want = [(None, b'{"a":1}'), (None, b'{"b":\n2}'), ("e", b"x"), (None, b"no-space"), (None, b'{"c":3}'),
            (None, b"[DONE]")]  # fmt: skip
    for cut in range(len(stream) + 1):
        parser = SSEParser()
        got = parser.feed(stream[:cut]) + parser.feed(stream[cut:]) + parser.close()
        assert got == want, cut
    parser = SSEParser()
    assert [e for i in range(len(stream)) for e in parser.feed(stream[i : i + 1])] + parser.close() == want


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def test_tool_call_deltas_by_index_become_separate_items() -> None:
    events = EventBuilder({"id": "r", "output": []})
    turn = TurnAssembler(events)
    for c in (
        chunk({"role": "assistant", "content": ""}),
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "call_a", "type": "function", "function": {"name": "f", "arguments": ""}}
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"x":'}}]}),
        chunk(
            {
                "tool_calls": [
                    {"index": 1, "id": "call_b", "type": "function", "function": {"name": "g", "arguments": '{"y"'}}
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": " 1}"}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": ": 2}"}}]}),
        chunk({}, "tool_calls"),
        {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}},
    ):
        turn.apply(chunk_deltas(c))
    turn.close()
    calls = turn.function_calls
    assert [(c["call_id"], c["name"], c["arguments"]) for c in calls] == [
        ("call_a", "f", '{"x": 1}'),
        ("call_b", "g", '{"y": 2}'),
    ]
    assert turn.finish_reason == "tool_calls" and turn.usage == {"prompt_tokens": 3, "completion_tokens": 4}
    types = [e["type"] for e in events.drain()]
    assert types.count("response.output_item.added") == 2 and types.count("response.output_item.done") == 2
    assert [e for e in types if e.endswith(".done")][-1] == "response.output_item.done"


def test_server_side_calls_are_hidden_from_the_output() -> None:
    events = EventBuilder({"id": "r", "output": []})
    turn = TurnAssembler(events, frozenset({"search"}))
    turn.apply(
        chunk_deltas(
            chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "search", "arguments": "{}"}}]})
        )
    )
    turn.close()
    assert events.output == [] and turn.server_calls[0]["name"] == "search"


def test_items_to_messages_merges_assistant_turns() -> None:
    items = [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]},
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "q"}, {"type": "input_image", "image_url": "data:x"}],
        },
        {"type": "reasoning", "summary": []},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "let me check"}]},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "r1"},
        {"type": "function_call_output", "call_id": "c2", "output": [{"type": "input_text", "text": "r2"}]},
    ]
    messages = items_to_messages("sys", items)
    assert messages[0] == {"role": "system", "content": "sys"}
    assert messages[1] == {"role": "system", "content": "rules"}
    assert messages[2]["content"][1] == {"type": "image_url", "image_url": {"url": "data:x"}}
    assert messages[3]["content"] == "let me check" and len(messages[3]["tool_calls"]) == 2
    assert messages[4:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "r1"},
        {"role": "tool", "tool_call_id": "c2", "content": "r2"},
    ]


def test_tool_choice_mapping() -> None:
    tools = [{"type": "function", "name": "a"}, {"type": "function", "name": "b"}]
    body = build_chat_body(
        TurnRequest(model="m", instructions=None, items=[], tools=tools, tool_choice={"type": "function", "name": "b"})
    )
    assert body["tool_choice"] == {"type": "function", "function": {"name": "b"}}
    body = build_chat_body(
        TurnRequest(
            model="m",
            instructions=None,
            items=[],
            tools=tools,
            tool_choice={"type": "allowed_tools", "mode": "required", "tools": [{"type": "function", "name": "a"}]},
        )
    )
    assert body["tool_choice"] == "required" and [t["function"]["name"] for t in body["tools"]] == ["a"]


def test_citation_markers_become_annotations_even_when_split() -> None:
    from gateway.engine.citations import CitationFilter, CitationSources

    sources = CitationSources()
    doc = sources.add({"type": "file_citation", "file_id": "file_1", "filename": "a.txt"})
    web = sources.add({"type": "url_citation", "url": "https://x.test/p", "title": "X"})
    text = f"Cats purr [{doc}]. They sleep a lot [{web}]. Arrays start at [0] here."
    for cut in range(1, len(text)):
        f = CitationFilter(sources)
        out1, ann1 = f.feed(text[:cut])
        out2, ann2 = f.feed(text[cut:])
        out3, ann3 = f.flush()
        clean = out1 + out2 + out3
        assert clean == "Cats purr. They sleep a lot. Arrays start at [0] here.", cut
        anns = ann1 + ann2 + ann3
        assert anns[0] == {"type": "file_citation", "file_id": "file_1", "filename": "a.txt", "index": 9}
        assert anns[1]["type"] == "url_citation" and anns[1]["url"] == "https://x.test/p"
        assert clean[anns[1]["start_index"] : anns[1]["end_index"]] == "They sleep a lot"
