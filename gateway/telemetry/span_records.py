"""How an ended `gateway.telemetry.lean_tracer.LeanSpan` is queued for export (split from
`lean_tracer`, which binds `queue_span` as `LeanSpan._queue`): as its record, a flat tuple of what it
holds that the export thread encodes (`otlp_encode.record_bytes`), or as its OTLP bytes made at its
end (`otlp_encode.span_bytes`), never as itself.

Why (#31): a span waits in the queue for its batch up to `OTEL_BSP_SCHEDULE_DELAY`. Queued as itself
(a slotted object holding dicts, a `Preset`, a `TraceState`, lists), it and its containers outlived
the young collections and were promoted to the oldest generation, so tracing on fed the full
collections that walk it (~31 us a request in the HTTP door). A record holds only atoms (ints,
strings, the preset's encoded bytes), the span's attribute keys and values as two tuples when its
dict holds only atoms (an untracked dict; a tuple holding any dict is never untracked), and its lone
first-chunk event's name and time: the collector untracks those two tuples at the first young
collection and the record (one level above them) at the next collection of its generation, before
any reaches the oldest, so nothing a request leaves in the queue reaches an older generation; the
span itself is freed by reference counting. Encoding at the end, on the event loop, cost ~15 us a
span in place (3-8 hot); here the loop only builds one tuple (the encoding moved to the export
thread, it did not vanish).

A record holds the attribute values by reference and is encoded later, so it may only hold values
nothing can change after the end: immutable atoms (str, bool, int, float, bytes, exactly those
types) and tuples of them. A span with links, an event list, or any other value (a list, which also
keeps its dict tracked for good; a `bytearray`, which the collector does not track, so only its type
tells) is encoded at its end, as before: its bytes are what it held then.
"""

from __future__ import annotations

import gc
from typing import Any

from gateway.telemetry.otlp_encode import preset_bytes, span_bytes

_ATOMS = frozenset({str, bool, int, float, bytes})  # exact types: a subclass may be mutable
_is_tracked = gc.is_tracked


def queue_span(span: Any) -> None:
    """`LeanSpan._queue`: put the ended ``span`` on its recorder's queue as its record, or as its
    bytes when it holds containers or values that could change before the export (see the module).

    The test of the values (exact atoms, or tuples of them) and `Recorder.put` are written out here: this runs at every
    span's end on the event loop, three times a request, and each call of ours there costs several
    times its hot-loop time (#31)."""
    attributes, events, recorder = span.attributes, span.events, span.recorder
    if span.links is None and (events is None or type(events) is tuple) and not _is_tracked(attributes):
        values = tuple(attributes.values())
        for value in values:  # (each an atom or a tuple of atoms, else the bytes now)
            kind = type(value)
            if kind not in _ATOMS:
                if kind is not tuple:
                    break
                for item in value:
                    if type(item) not in _ATOMS:
                        break
                else:
                    continue
                break
        else:
            queue = recorder.queue  # (`Recorder.put`)
            if len(queue) >= recorder.max_queue:
                recorder.dropped += 1
                return
            preset = span.preset
            queue.append(
                (
                    span.trace_id,
                    span.span_id,
                    span.parent_id,
                    span.parent_remote,
                    span.trace_state_header,
                    span.name,
                    span.kind,
                    span.start,
                    span.end_ns,
                    None if preset is None else (preset.encoded or preset_bytes(preset)),
                    tuple(attributes),  # keys and values: a tuple holding a dict is never untracked
                    values,
                    span.dropped_attributes,
                    None if events is None else events[0][0],  # (one event: `end_with`'s)
                    0 if events is None else events[0][1],
                    span.status_code,
                    span.status_message,
                )
            )
            if len(queue) >= recorder.max_batch and not recorder.wake.is_set():
                recorder.wake.set()
            return
    recorder.add(span, span_bytes)
