"""The ExtProc process: a grpc.aio server with the processor and the gRPC health service.

`responses-gateway extproc` runs this. It opens the same SQLite file as the HTTP server (WAL), so a
response produced here is readable through the HTTP server at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer

from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as ep_grpc
from extproc.processor import ExternalProcessor
from gateway.config import Settings
from gateway.engine.service import ResponsesService
from gateway.process import loop
from gateway.process.loop import settle_heap
from gateway.process.workers import wait_for_siblings
from gateway.runtime import Door, Runtime
from gateway.telemetry import metrics
from gateway.telemetry.logs import announce

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # grpc's 4 MiB default is smaller than a long conversation
SERVICE_NAME = "envoy.service.ext_proc.v3.ExternalProcessor"
SHUTDOWN_GRACE_S = 5.0

SERVER_OPTIONS = [
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    # gRPC binds with SO_REUSEPORT by default: a second process on the same port would silently
    # share its traffic. Fail loudly instead.
    ("grpc.so_reuseport", 0),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
]


class PeerClosedFirst(logging.Filter):
    """Demote grpc's ERROR for a status that could not go out because Envoy had closed the stream.

    Envoy closes an ext_proc stream as soon as it holds the last reply it needs, which races with
    the processor's own end of the RPC; grpc then logs `ExecuteBatchError` on the
    `SendStatusFromServerOperation` with a traceback (seen a few times per thousand requests under
    load). Every reply was delivered, so it is logged at DEBUG; any other failure stays an ERROR.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and record.getMessage().startswith("ExecuteBatchError raised in core"):
            exc = record.exc_info[1] if record.exc_info else None
            if exc is not None and "SendStatusFromServerOperation" in str(exc):
                record.levelno, record.levelname = logging.DEBUG, "DEBUG"
                record.exc_info = record.exc_text = None
                return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


GRPC_CORE_LOGGER = "grpc._cython.cygrpc"


def _bind_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


async def serve(settings: Settings, port: int | None = None, ready: asyncio.Event | None = None) -> None:
    """Serve until SIGINT/SIGTERM (or until the task is cancelled), then shut down cleanly."""
    port = settings.extproc_port if port is None else port
    # The port first: a worker whose port is taken fails at once, before it opens anything, so its
    # pool and `up` stop instead of running with a door Envoy routes to but nobody serves.
    server = grpc.aio.server(options=SERVER_OPTIONS)
    try:
        bound = server.add_insecure_port(_bind_address(settings.host, port))
    except RuntimeError:
        bound = 0
    if not bound:
        raise SystemExit(f"could not bind the ExtProc to {settings.host}:{port} (is the port taken?)")
    core_log = logging.getLogger(GRPC_CORE_LOGGER)
    if not any(isinstance(f, PeerClosedFirst) for f in core_log.filters):
        core_log.addFilter(PeerClosedFirst())
    async with Runtime.start(settings, Door.EXTPROC) as runtime:
        await _serve(settings, server, bound, runtime, ready)


async def _serve(
    settings: Settings, server: grpc.aio.Server, bound: int, runtime: Runtime, ready: asyncio.Event | None
) -> None:
    """Serve inside the runtime: its teardown (runs handed back, usage flushed, store closed) follows."""
    service = runtime.responses
    assert service is not None  # the ExtProc serves turns
    processor = ExternalProcessor(runtime.engine, service, runtime.authenticator, client=runtime.backend_client)
    try:
        ep_grpc.add_ExternalProcessorServicer_to_server(processor, server)  # type: ignore[no-untyped-call]
        health = HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health, server)
        # start-up's objects out of the collector's way, before a stream waits on it; its thresholds
        settle_heap(settings.gc_thresholds)
        await server.start()
        for name in ("", SERVICE_NAME):
            await health.set(name, health_pb2.HealthCheckResponse.SERVING)
        announce(f"gateway ExtProc (gRPC) on {settings.host}:{bound}")
        if ready is not None:
            ready.set()

        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, stop.set)
        try:
            await stop.wait()
            await health.enter_graceful_shutdown()  # NOT_SERVING for health checkers
            await drain(processor, service, settings.drain_seconds)
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.remove_signal_handler(sig)
            await health.enter_graceful_shutdown()
    finally:
        # In-flight streams get the grace period; those still open are cancelled and their
        # responses stored as failed (the processor's finally), which drain() waits for.
        await server.stop(SHUTDOWN_GRACE_S)
        await processor.drain()


async def drain(processor: ExternalProcessor, service: ResponsesService, seconds: float) -> None:
    """Refuse new requests (503 `shutting_down`) and let streams in flight and detached runs finish,
    for at most ``seconds``; what is still running then is ended by the shutdown that follows."""
    processor.draining = True
    service.claiming = False  # a stopping process takes no handed-back runs
    metrics.set_draining(True)
    log.info("draining: %d stream(s) in flight, up to %.0fs", processor.active, seconds)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while (processor.active or service.running) and loop.time() < deadline:  # noqa: ASYNC110 (plain counters)
        await asyncio.sleep(0.05)
    if processor.active or service.running:
        log.warning("drain time over: %d stream(s) still in flight are cut", processor.active + len(service.running))
    await wait_for_siblings(deadline)  # an idle worker's closed port would fail Envoy's new streams


def run_extproc(settings: Settings, port: int | None = None) -> None:
    with contextlib.suppress(KeyboardInterrupt):
        loop.run(serve(settings, port), settings)
