"""The event loop the long-running processes run on: uvloop unless `GATEWAY_EVENT_LOOP=asyncio`.

Why it matters: at a GPU's pace each streamed token is a network event of its own (a read from the
backend, an Envoy body chunk that is a gRPC message to the ExtProc), so what an event costs the loop
is most of what a token costs. `bench/bench_stream.py --pace-ms 1` (16 streams, ~10,000 tokens/s):
the ExtProc 114 -> 88 us per token, the HTTP door 64.5 -> 52.9, the Envoy door's added gap p99
3.1 -> 1.4 ms with uvloop; flat out (many tokens per event) the two loops cost the same.
`asyncio` stays selectable for debugging and for platforms without uvloop wheels.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Coroutine
from typing import Any, TypeVar

from gateway.config import Settings

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T], settings: Settings) -> T:
    if settings.event_loop == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)


def settle_heap(thresholds: tuple[int, int, int] | None = None) -> None:
    """Call once a door is built, just before it listens: what start-up made (modules, the app,
    the settings, ~125k objects) moves to the collector's permanent generation (`gc.freeze`),
    which collections no longer walk.

    Why (#31): a full collection walked that whole heap, ~80 ms of the event loop each time. They
    come when enough objects outlive two younger collections; with tracing on, every span waits in
    the export queue for its batch (up to `OTEL_BSP_SCHEDULE_DELAY`), so a request's spans did, and
    a full collection came every few thousand requests: ~30 us a request, measured with
    `gc.callbacks` in the HTTP door (none in the same window with tracing off). Frozen, a full
    collection walks only what was made since. What start-up made and later drops is reclaimed by
    reference counting as before; only start-up's own cycles are kept (made once). Before
    listening, not after: the ~80 ms collection delays no first connection.

    ``thresholds`` (`GATEWAY_GC_THRESHOLDS`, 10000,10,10 by default, Python's 700,10,10) are set
    here too, tracing on or off. Why (#31, twelfth pass): at 700 a young collection came every
    few hundred requests with tracing on, and each one promoted the spans waiting for their batch
    (freed by reference counting seconds later, but by then in an older generation), which set off
    full collections: 1-23 us a request in the collector at the HTTP door, run to run. At 10,000
    the door made no collection at all in a run's ~5,000 requests, on or off; the ExtProc's young
    collections (there with tracing off too) fell ~20x, each ~3 ms instead of ~0.3: about half the
    time in the collector. Memory (`bench.tracing_paired` prints the doors' RSS): the HTTP server's
    unchanged within 1 MB, the ExtProc's ~2 MB more; streamed tokens' gap p99 no worse within the
    noise (`bench.bench_stream --pace-ms 1`)."""
    gc.collect()  # start-up's garbage cycles go first, rather than frozen
    gc.freeze()
    if thresholds is not None:
        gc.set_threshold(*thresholds)
