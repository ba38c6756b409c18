"""The event builder's own guarantees (`gateway/engine/events.py`): numbering, retraction, and an
added item that does not yet carry the content its deltas will bring."""

from __future__ import annotations

from gateway.engine.events import EventBuilder, TextItem


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
