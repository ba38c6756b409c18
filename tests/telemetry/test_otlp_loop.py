"""The export from the door's event loop (`gateway.telemetry.otlp_loop`, #31): spans queued as the
doors queue them reach an OTLP/HTTP receiver from the loop, as the library's exporter settings say;
a dead collector changes nothing for the loop's other work and the queue stays bounded; the loop's
end flushes what is left."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import pytest

from tests.support.otlp_receiver import http_receiver
from tests.support.procs import free_port
from tests.telemetry.test_tracing import lean_spans
from tests.telemetry.test_tracing_records import _queued


def _wired(monkeypatch: pytest.MonkeyPatch, endpoint: str, **env: str) -> tuple[Any, Any]:
    """The recorder and exporter `tracing.setup` makes for ``endpoint`` (its thread stopped at once)."""
    from gateway.telemetry import span_queue

    for name in [n for n in os.environ if n.startswith("OTEL_")]:
        monkeypatch.delenv(name)
    for name, value in {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, **env}.items():
        monkeypatch.setenv(name, value)
    recorder, exporter = span_queue.from_env(os.environ, "http", "svc", "gateway")
    recorder.hand_over()
    return recorder, exporter


def test_spans_reach_the_receiver_from_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """A full batch is sent when complete, the rest at the schedule's tick, over one connection,
    with the exporter's headers; nothing of it is awaited by the loop's other tasks; gzip if asked."""
    from gateway.telemetry import otlp_loop

    spans = _queued(lean_spans)
    with http_receiver() as receiver:
        recorder, exporter = _wired(
            monkeypatch, receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY="200", OTEL_EXPORTER_OTLP_COMPRESSION="gzip"
        )
        recorder.max_batch = 4

        async def run() -> tuple[int, int]:
            loop = asyncio.get_running_loop()
            sender = otlp_loop.loop_exporter(recorder, exporter, loop)
            assert sender is not None and sender.compression == "gzip"
            sender.start()
            for body in spans:
                recorder.put(body)
            await asyncio.sleep(0.1)  # full batches only, before the tick
            early = len(receiver.spans())
            deadline = time.monotonic() + 5
            while len(receiver.spans()) < len(spans) and time.monotonic() < deadline:  # noqa: ASYNC110 (another thread's list)
                await asyncio.sleep(0.02)
            await sender.close(3)
            return early, sender.sent

        early, sent = asyncio.run(run())
    assert early == len(spans) - len(spans) % 4 and early > 0
    assert sorted(s.name for s in receiver.spans()) == sorted(s.name for s in lean_spans())
    assert sent == -(-len(spans) // 4) and not recorder.queue


def test_a_dead_collector_changes_nothing_and_the_queue_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing listens: sends fail and are retried, the loop keeps its pace, the queue never holds
    more than its bound (the surplus dropped and counted), and `close` returns within its bound."""
    from gateway.telemetry import otlp_loop

    recorder, exporter = _wired(
        monkeypatch, f"http://127.0.0.1:{free_port()}", OTEL_BSP_SCHEDULE_DELAY="20", OTEL_BSP_MAX_QUEUE_SIZE="50"
    )
    recorder.max_batch = 10
    body = _queued(lean_spans)[-1]

    async def run() -> tuple[float, float, int]:
        loop = asyncio.get_running_loop()
        sender = otlp_loop.loop_exporter(recorder, exporter, loop)
        assert sender is not None
        sender.start()
        worst, longest = 0.0, 0
        for _ in range(100):  # 0.5 s of "traffic": 10 spans every 5 ms
            before = time.monotonic()
            await asyncio.sleep(0.005)
            worst = max(worst, time.monotonic() - before)
            for _ in range(10):
                recorder.put(body)
            longest = max(longest, len(recorder.queue))
        start = time.monotonic()
        await sender.close(0.5)
        return worst, time.monotonic() - start, longest

    worst, closing, longest = asyncio.run(run())
    assert worst < 0.25, worst  # the loop was never held by the export
    assert longest <= 50 and recorder.dropped > 0
    assert closing < 1.5


def test_close_flushes_what_is_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spans under a batch and before the tick are sent by `close` (the loop's end)."""
    from gateway.telemetry import otlp_loop

    spans = _queued(lean_spans)
    with http_receiver() as receiver:
        recorder, exporter = _wired(monkeypatch, receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY="60000")

        async def run() -> None:
            sender = otlp_loop.loop_exporter(recorder, exporter, asyncio.get_running_loop())
            assert sender is not None
            sender.start()
            for body in spans:
                recorder.put(body)
            await asyncio.sleep(0.05)
            assert receiver.spans() == []
            await sender.close(3)

        asyncio.run(run())
        assert len(receiver.spans()) == len(spans) and not recorder.queue


def test_other_exporters_keep_the_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """grpc, https or a proxy: no loop exporter (the thread exports)."""
    from gateway.telemetry import otlp_loop

    cases: list[dict[str, str]] = [
        {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
        {"HTTP_PROXY": "http://proxy:3128"},
    ]
    for extra in cases:
        recorder, exporter = _wired(monkeypatch, "http://127.0.0.1:4318", **extra)

        async def make() -> Any:
            return otlp_loop.loop_exporter(recorder, exporter, asyncio.get_running_loop())  # noqa: B023

        assert asyncio.run(make()) is None, extra
        monkeypatch.delenv("HTTP_PROXY", raising=False)
    recorder, exporter = _wired(monkeypatch, "https://127.0.0.1:4318")

    async def make_https() -> Any:
        return otlp_loop.loop_exporter(recorder, exporter, asyncio.get_running_loop())

    assert asyncio.run(make_https()) is None
