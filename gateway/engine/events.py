"""The event builder: the one place that knows the Responses streaming grammar.

It owns the response snapshot, `sequence_number`, `output_index`/`content_index` and item ids, and
emits events as plain dicts. Streaming clients get them as SSE; non-streaming clients get the final
snapshot of the very same stream, so the two can never disagree.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from typing import Any, Protocol

from gateway.common.ids import function_call_id, message_id, reasoning_id
from gateway.common.jsonutil import dumps

Event = dict[str, Any]


class EventStream(Protocol):
    """A response's events as one client reads them; `aclose` stops reading (a client gone: the
    doors close it, which stops a run the stream owns or leaves a detached one's feed)."""

    def __aiter__(self) -> AsyncIterator[Event]: ...

    def __anext__(self) -> Awaitable[Event]: ...

    def aclose(self) -> Awaitable[None]: ...


class FramedEvent(dict[str, Any]):
    """A delta event that carries its SSE frame, encoded when it was emitted (`DeltaFrame`).
    Everything else (orjson, the stores, the WebSocket door) sees a plain dict."""

    __slots__ = ("sse",)
    sse: bytes


class DeltaFrame:
    """What never changes in one item's delta events (type, ids, indexes), encoded once.

    Deltas are nearly every event of a stream: per token only the text and the sequence number are
    encoded, into the very bytes `sse_frame` makes of the same event (#19: the generic encoding was
    a third of a door's own work per token). Key order follows the generic event: the type, the
    item's fields, `delta`, `logprobs` when the type has them, `sequence_number`.
    """

    __slots__ = ("fields", "head", "logprobs", "tail")

    def __init__(self, type_: str, fields: dict[str, Any], *, logprobs: bool = False) -> None:
        self.fields: dict[str, Any] = {"type": type_, **fields}
        self.logprobs = logprobs
        self.head = b"event: " + type_.encode() + b"\ndata: " + dumps(self.fields)[:-1] + b',"delta":'
        self.tail = b',"logprobs":[],"sequence_number":' if logprobs else b',"sequence_number":'

    def event(self, text: str, seq: int) -> FramedEvent:
        event = FramedEvent(self.fields)
        event["delta"] = text
        if self.logprobs:
            event["logprobs"] = []
        event["sequence_number"] = seq
        event.sse = b"".join((self.head, dumps(text), self.tail, str(seq).encode(), b"}\n\n"))
        return event


class EventBuilder:
    def __init__(self, response: dict[str, Any], *, keep_log: bool = False) -> None:
        self.response = response
        self.output: list[dict[str, Any]] = response["output"]
        self._seq = 0
        self.events: list[Event] = []  # drained by the runner after each step
        # Every event ever emitted, for a stream that must be resumable after it ends (background).
        self.log: list[Event] | None = [] if keep_log else None
        self.wakeup = asyncio.Event()  # set on every emit: lets the runner stream tool progress

    def emit(self, type_: str, payload: dict[str, Any]) -> Event:
        return self._emitted({"type": type_, **payload, "sequence_number": self._seq})

    def emit_delta(self, frame: DeltaFrame, text: str) -> Event:
        """A delta event of `frame`'s item, its SSE frame encoded with it (see `DeltaFrame`)."""
        return self._emitted(frame.event(text, self._seq))

    def _emitted(self, event: Event) -> Event:
        self._seq += 1
        self.events.append(event)
        if self.log is not None:
            self.log.append(event)
        self.wakeup.set()
        return event

    def mark(self) -> int:
        """A point to `retract` to: the next sequence number."""
        return self._seq

    def retract(self, mark: int) -> None:
        """Withdraw the events emitted since `mark` that were not drained yet (a terminal status the
        store refused must not reach anyone); the sequence numbers are reused."""
        kept = [e for e in self.events if e["sequence_number"] < mark]
        if len(self.events) - len(kept) != self._seq - mark:
            raise RuntimeError("cannot retract events that were already drained")
        self.events = kept
        if self.log is not None:
            self.log = [e for e in self.log if e["sequence_number"] < mark]
        self._seq = mark

    def drain(self) -> list[Event]:
        events, self.events = self.events, []
        return events

    def snapshot(self) -> dict[str, Any]:
        return {**self.response, "output": list(self.output)}

    def lifecycle(self, type_: str) -> Event:
        return self.emit(type_, {"response": self.snapshot()})

    def error(self, message: str, code: str | None = None, param: str | None = None) -> Event:
        return self.emit("error", {"code": code, "message": message, "param": param})

    # -- output items ------------------------------------------------------------------------------
    def add_item(self, item: dict[str, Any]) -> int:
        """Append a finished item (e.g. a server-side tool call) with its added/done pair."""
        index = len(self.output)
        self.output.append(item)
        self.emit("response.output_item.added", {"output_index": index, "item": item})
        self.emit("response.output_item.done", {"output_index": index, "item": item})
        return index

    def open_item(self, item: dict[str, Any]) -> int:
        index = len(self.output)
        self.output.append(item)
        self.emit("response.output_item.added", {"output_index": index, "item": _copy_item(item)})
        return index

    def close_item(self, index: int, status: str = "completed") -> None:
        item = self.output[index]
        if "status" in item:
            item["status"] = status
        self.emit("response.output_item.done", {"output_index": index, "item": item})


def _copy_item(item: dict[str, Any]) -> dict[str, Any]:
    copy = dict(item)
    if "content" in copy:
        copy["content"] = []
    return copy


class TextItem:
    """An assistant message with one output_text part, streamed delta by delta."""

    def __init__(self, events: EventBuilder) -> None:
        self.events = events
        self.id = message_id()
        self.item: dict[str, Any] = {
            "id": self.id,
            "type": "message",
            "status": "in_progress",
            "content": [],
            "role": "assistant",
        }
        self.index = events.open_item(self.item)
        ref = {"item_id": self.id, "output_index": self.index, "content_index": 0}
        self._frame = DeltaFrame("response.output_text.delta", ref, logprobs=True)
        self.chunks: list[str] = []
        self.annotations: list[dict[str, Any]] = []
        self.logprobs: list[dict[str, Any]] = []
        self._unsent = 0  # logprobs not yet carried by a delta (text held back by the citation filter)
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        events.emit(
            "response.content_part.added",
            {"item_id": self.id, "output_index": self.index, "content_index": 0, "part": part},
        )

    def add_logprobs(self, logprobs: list[dict[str, Any]]) -> None:
        """Log probabilities of tokens that arrived; the next delta carries them."""
        self.logprobs.extend(logprobs)
        self._unsent += len(logprobs)

    def delta(self, text: str) -> None:
        self.chunks.append(text)
        if not self._unsent:
            self.events.emit_delta(self._frame, text)
            return
        carried = self.logprobs[len(self.logprobs) - self._unsent :]
        self._unsent = 0
        self.events.emit(
            "response.output_text.delta",
            {"item_id": self.id, "output_index": self.index, "content_index": 0, "delta": text, "logprobs": carried},
        )

    def annotate(self, annotation: dict[str, Any]) -> None:
        self.annotations.append(annotation)
        self.events.emit(
            "response.output_text.annotation.added",
            {
                "item_id": self.id,
                "output_index": self.index,
                "content_index": 0,
                "annotation_index": len(self.annotations) - 1,
                "annotation": annotation,
            },
        )

    def close(self, status: str = "completed") -> None:
        text = "".join(self.chunks)
        part = {"type": "output_text", "annotations": self.annotations, "logprobs": self.logprobs, "text": text}
        self.item["content"] = [part]
        ev = self.events
        ev.emit(
            "response.output_text.done",
            {
                "item_id": self.id,
                "output_index": self.index,
                "content_index": 0,
                "text": text,
                "logprobs": self.logprobs,
            },
        )
        ev.emit(
            "response.content_part.done",
            {"item_id": self.id, "output_index": self.index, "content_index": 0, "part": part},
        )
        ev.close_item(self.index, status)


class ReasoningItem:
    """A reasoning item whose `reasoning_text` comes from the backend's `reasoning_content`.

    With `summarize` (the request asked for `reasoning.summary`), the same text is also streamed as
    the item's summary (`response.reasoning_summary_*` events): clients such as Codex show a
    reasoning model's thinking from the summary, and an open reasoning backend (vLLM's reasoning
    parsers) has no separate summary to give.
    """

    def __init__(self, events: EventBuilder, summarize: bool = False) -> None:
        self.events = events
        self.summarize = summarize
        self.id = reasoning_id()
        self.item: dict[str, Any] = {
            "id": self.id,
            "type": "reasoning",
            "summary": [],
            "content": [],
            "status": "in_progress",
        }
        self.index = events.open_item(self.item)
        self.chunks: list[str] = []
        ref = {"item_id": self.id, "output_index": self.index, "content_index": 0}
        self._frame = DeltaFrame("response.reasoning_text.delta", ref)
        self._summary_frame = (
            DeltaFrame("response.reasoning_summary_text.delta", self._summary_ref) if summarize else None
        )
        events.emit(
            "response.content_part.added",
            {
                "item_id": self.id,
                "output_index": self.index,
                "content_index": 0,
                "part": {"type": "reasoning_text", "text": ""},
            },
        )
        if summarize:
            events.emit(
                "response.reasoning_summary_part.added",
                {**self._summary_ref, "part": {"type": "summary_text", "text": ""}},
            )

    @property
    def _summary_ref(self) -> dict[str, Any]:
        return {"item_id": self.id, "output_index": self.index, "summary_index": 0}

    def delta(self, text: str) -> None:
        self.chunks.append(text)
        self.events.emit_delta(self._frame, text)
        if self._summary_frame is not None:
            self.events.emit_delta(self._summary_frame, text)

    def close(self, status: str = "completed") -> None:
        text = "".join(self.chunks)
        part = {"type": "reasoning_text", "text": text}
        self.item["content"] = [part]
        ev = self.events
        ev.emit(
            "response.reasoning_text.done",
            {"item_id": self.id, "output_index": self.index, "content_index": 0, "text": text},
        )
        ev.emit(
            "response.content_part.done",
            {"item_id": self.id, "output_index": self.index, "content_index": 0, "part": part},
        )
        if self.summarize:
            summary = {"type": "summary_text", "text": text}
            self.item["summary"] = [summary]
            ev.emit("response.reasoning_summary_text.done", {**self._summary_ref, "text": text})
            ev.emit("response.reasoning_summary_part.done", {**self._summary_ref, "part": summary})
        ev.close_item(self.index, status)


class FunctionCallItem:
    """A function call whose arguments stream in; `call_id` is what the client answers with."""

    def __init__(self, events: EventBuilder, call_id: str, name: str, namespace: str | None = None) -> None:
        self.events = events
        self.id = function_call_id()
        self.item: dict[str, Any] = {
            "id": self.id,
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": call_id,
            "name": name,
        }
        if namespace:  # a function of a client `namespace` tool
            self.item["namespace"] = namespace
        self.index = events.open_item(self.item)
        self.chunks: list[str] = []
        ref = {"item_id": self.id, "output_index": self.index}
        self._frame = DeltaFrame("response.function_call_arguments.delta", ref)

    @property
    def name(self) -> str:
        return str(self.item["name"])

    def delta(self, text: str) -> None:
        self.chunks.append(text)
        self.events.emit_delta(self._frame, text)

    def close(self, status: str = "completed") -> None:
        args = "".join(self.chunks)
        self.item["arguments"] = args
        self.events.emit(
            "response.function_call_arguments.done",
            {"item_id": self.id, "output_index": self.index, "name": self.name, "arguments": args},
        )
        self.events.close_item(self.index, status)
