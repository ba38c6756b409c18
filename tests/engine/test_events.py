"""The event builder's own guarantees (`gateway/engine/events.py`): numbering, retraction, and an
added item that does not yet carry the content its deltas will bring."""

from __future__ import annotations

from gateway.common.jsonutil import loads
from gateway.engine.events import EventBuilder, FramedEvent, FunctionCallItem, ReasoningItem, TextItem
from gateway.engine.sse_writer import sse_frame


def _builder() -> EventBuilder:
    return EventBuilder({"id": "resp_1", "object": "response", "output": []}, keep_log=True)


def test_retracted_events_are_withdrawn_and_their_numbers_reused() -> None:
    ev = _builder()
    ev.lifecycle("response.created")
    mark = ev.mark()
    ev.lifecycle("response.completed")
    ev.retract(mark)
    drained = ev.drain()
    assert [e["type"] for e in drained] == ["response.created"]
    assert ev.log is not None and [e["type"] for e in ev.log] == ["response.created"]
    assert ev.lifecycle("response.failed")["sequence_number"] == mark


def test_a_streamed_message_is_added_empty_and_done_with_its_text() -> None:
    ev = _builder()
    item = TextItem(ev)
    item.delta("Hel")
    item.delta("lo")
    item.close()
    events = ev.drain()
    added = next(e for e in events if e["type"] == "response.output_item.added")
    done = next(e for e in events if e["type"] == "response.output_item.done")
    assert added["item"]["content"] == [] and added["item"]["status"] == "in_progress"
    assert done["item"]["content"][0]["text"] == "Hello" and done["item"]["status"] == "completed"
    assert [e["sequence_number"] for e in events] == list(range(len(events)))


def _generic(event: dict[str, object]) -> bytes:
    """The generic encoding of an event (what `sse_frame` makes of a plain dict)."""
    return sse_frame(dict(event))


TEXTS = [
    "hi",
    " world",
    "",
    'quote " and \\ back',
    "line\nbreak\r\ttab",
    "\x00\x1f ctl",
    "é ü 中文 🙂",
    "\u2028\u2029",
    '}"delta":{',
]


def test_delta_frames_are_the_bytes_of_the_generic_encoding() -> None:
    """Text, reasoning (with its summary) and function-call deltas carry a frame encoded from a
    template; it must be byte for byte what the generic encoder makes of the same event, for any
    text, at any sequence number (both doors write it)."""
    ev = _builder()
    ev.lifecycle("response.created")
    text = TextItem(ev)
    reasoning = ReasoningItem(ev, summarize=True)
    call = FunctionCallItem(ev, "call_1", "lookup")
    ev.drain()
    for t in TEXTS:
        text.delta(t)
        reasoning.delta(t)
        call.delta(t)
    deltas = ev.drain()
    types = {e["type"] for e in deltas}
    assert types == {
        "response.output_text.delta",
        "response.reasoning_text.delta",
        "response.reasoning_summary_text.delta",
        "response.function_call_arguments.delta",
    }
    assert len(deltas) == 4 * len(TEXTS)
    for e in deltas:
        assert isinstance(e, FramedEvent)
        assert sse_frame(e) == _generic(e)
        assert loads(sse_frame(e).split(b"data: ", 1)[1]) == dict(e)
    first = next(e for e in deltas if e["type"] == "response.output_text.delta")
    assert list(first) == ["type", "item_id", "output_index", "content_index", "delta", "logprobs", "sequence_number"]
    assert first["logprobs"] == []


def test_a_text_delta_that_carries_logprobs_is_encoded_generically() -> None:
    ev = _builder()
    text = TextItem(ev)
    ev.drain()
    text.add_logprobs([{"token": "hi", "logprob": -0.1, "bytes": [104, 105], "top_logprobs": []}])
    text.delta("hi")
    text.delta(" there")
    carried, plain = ev.drain()
    assert carried["logprobs"] == [{"token": "hi", "logprob": -0.1, "bytes": [104, 105], "top_logprobs": []}]
    assert not isinstance(carried, FramedEvent)
    assert plain["logprobs"] == [] and sse_frame(plain) == _generic(plain)
