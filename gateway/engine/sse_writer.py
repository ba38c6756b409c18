"""Server-sent-event framing of the engine's Responses events.

Both doors write the same bytes for the same event: the HTTP server on its stream, the ExtProc in
the body it hands back to Envoy. Framing lives here, beside the event grammar, so neither door
imports the other.
"""

from __future__ import annotations

from typing import Any

from gateway.common.jsonutil import dumps
from gateway.engine.events import FramedEvent


def sse_frame(event: dict[str, Any]) -> bytes:
    """One `event: <type>` / `data: <json>` frame, blank-line terminated (a delta event brings its
    own, encoded the same way when it was emitted: `gateway.engine.events.DeltaFrame`)."""
    if type(event) is FramedEvent:
        return event.sse
    return b"event: " + event["type"].encode() + b"\ndata: " + dumps(event) + b"\n\n"
