"""The queue of ended spans and its export thread (split from `gateway.telemetry.lean_tracer`,
which re-exports `Recorder`): the SDK's `BatchSpanProcessor` semantics and `OTEL_BSP_*` settings,
a deque instead of its locks. A span's end only appends its record (or its bytes) to the deque
(`gateway.telemetry.span_records`); a full queue drops the span, so a slow or dead collector never
holds the event loop (#31)."""

from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

log = logging.getLogger(__name__)


class Recorder:
    """Ended spans, queued and exported in batches by a daemon thread (the SDK's
    `BatchSpanProcessor` semantics and `OTEL_BSP_*` settings, a deque instead of its locks)."""

    def __init__(self, export: Callable[[list[Any]], Any], *, delay_s: float, max_queue: int, max_batch: int) -> None:
        self.queue: collections.deque[Any] = collections.deque()  # bytes, or records (`span_records`)
        self.export = export
        self.delay_s = delay_s
        self.max_queue = max_queue
        self.max_batch = max_batch
        self.dropped = 0
        self.wake = threading.Event()
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="otel-export", daemon=True)
        self.thread.start()

    def put(self, item: Any) -> None:
        """Queue an ended span's record (`span_records.queue_span`, encoded by the export thread) or
        its bytes (`add`), waking the export thread when a full batch waits; a full queue drops it
        (rather than grow or wait). `span_records.queue_span` writes this out for a record (the hot
        path, a call less a span): change both together."""
        queue = self.queue
        if len(queue) >= self.max_queue:
            self.dropped += 1
            return
        queue.append(item)
        if len(queue) >= self.max_batch and not self.wake.is_set():
            self.wake.set()

    def add(self, span: Any, encode: Callable[[Any], bytes]) -> None:
        """Queue an ended span as its bytes (`span_records.queue_span`) through `put`. Room is
        checked first too, so a full queue (a dead or slow collector) drops the span before any
        encoding work; one that fails to encode is logged and counted as dropped."""
        if len(self.queue) >= self.max_queue:
            self.dropped += 1
            return
        try:
            body = encode(span)
        except Exception:  # never fail a request over its span
            log.exception("encoding span %r failed", getattr(span, "name", "?"))
            self.dropped += 1
            return
        self.put(body)

    def lost(self) -> None:
        """A queued record that failed to encode in the export thread (`otlp_encode.encode_batch`):
        counted with the spans a full queue dropped. (The export thread's `+= 1` may now and then
        race the loop's and lose one count: a statistic, not worth a lock.)"""
        self.dropped += 1

    def _run(self) -> None:
        while not self.stopping:
            full = self.wake.wait(self.delay_s)  # True: woken because a full batch waits
            self.wake.clear()
            if not self.stopping:
                self.drain(everything=False, one=not full)

    def drain(self, *, everything: bool = True, one: bool = False) -> None:
        """Export what is queued in batches of `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`: every span
        (``everything``, the final flush), or full batches only, after one batch of whatever waits
        when ``one`` (the schedule's tick): the SDK's `BatchSpanProcessor` strategies.

        Why not "until the queue is empty": under load spans keep arriving while a batch is on the
        wire, and draining to empty then sent a stream of exports of a few spans each, ~2.5 ms of
        CPU apiece whatever their size (the exporter's HTTP request), which cost the HTTP door
        +100-190 us a request and took the GIL from its event loop (#31)."""
        queue, take, size = self.queue, self.queue.popleft, self.max_batch
        while queue and (everything or one or len(queue) >= size):
            one = False
            batch = [take() for _ in range(min(len(queue), size))]
            try:
                self.export(batch)
            except Exception:  # the exporter logs its own failures; nothing may kill this thread
                log.exception("exporting %d spans failed", len(batch))

    def stop(self) -> None:
        self.stopping = True
        self.wake.set()
        self.thread.join(5)
        if not self.thread.is_alive():  # a slow export still running keeps the queue: never two drainers
            self.drain()


def number(env: Mapping[str, str], name: str, default: int) -> int:
    """A positive whole number from ``env`` (the SDK's `OTEL_BSP_*`, `OTEL_*_COUNT_LIMIT`), else ``default``."""
    try:
        value = int(env.get(name, "").strip() or default)
    except ValueError:
        return default
    return value if value > 0 else default


def from_env(env: Mapping[str, str], door: str, default_service: str, scope: str) -> tuple[Recorder, Any]:
    """The process's `Recorder` and the OTLP exporter under it, as the environment configures them
    (`OTEL_BSP_*`, the exporters' `OTEL_EXPORTER_OTLP_*`; `gateway.telemetry.tracing.setup`). The
    `Resource` is the SDK's (`Resource.create`: `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, its
    detectors), ``door`` added; the process has one resource and one scope, so their encodings are
    made here once."""
    from opentelemetry.sdk.resources import Resource

    from gateway.telemetry import otlp_encode, otlp_exporter

    attributes: dict[str, Any] = {"gateway.door": door}
    named = env.get("OTEL_SERVICE_NAME") or "service.name=" in env.get("OTEL_RESOURCE_ATTRIBUTES", "")
    if not named:
        attributes["service.name"] = default_service
    resource = Resource.create(attributes)
    encoded_resource = otlp_encode.resource_part(resource.attributes, resource.schema_url or "")
    encoded_scope = otlp_encode.scope_part(scope)
    recorder: Recorder  # (made below, around the exporter: a record that fails to encode is dropped)
    exporter = otlp_exporter.exporter(
        env, lambda spans: otlp_encode.encode_batch(spans, encoded_resource, encoded_scope, recorder.lost)
    )
    recorder = Recorder(
        exporter.export,
        delay_s=number(env, "OTEL_BSP_SCHEDULE_DELAY", 5000) / 1000,
        max_queue=number(env, "OTEL_BSP_MAX_QUEUE_SIZE", 2048),
        max_batch=number(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512),
    )
    return recorder, exporter
