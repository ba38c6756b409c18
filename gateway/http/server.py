"""Run one HTTP server process, with a graceful drain on SIGTERM.

On SIGTERM (or SIGINT) the process keeps its port open but turns `/ready` to 503 and answers new
requests with 503 `shutting_down`, while requests in flight (SSE streams included) and detached runs
go on for up to `drain_seconds`. Then aiohttp's own shutdown closes the port, cancels what is left
and runs the app's cleanup, which gives any run still going a terminal status. Several workers bind
the same port with SO_REUSEPORT (`gateway/process/workers.py` starts them).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from aiohttp import web

from gateway.auth.authenticator import open_to_network
from gateway.config import Settings
from gateway.http.app import create_app
from gateway.http.guard import GuardedAppRunner
from gateway.http.state import DOOR
from gateway.process import loop
from gateway.process.loop import settle_heap
from gateway.process.workers import wait_for_siblings
from gateway.telemetry import metrics
from gateway.telemetry.logs import announce

log = logging.getLogger(__name__)
SHUTDOWN_TIMEOUT_S = 5.0  # after the drain: handlers still running get this long, then are cancelled


async def drain_app(app: web.Application, seconds: float) -> bool:
    """Refuse new requests and wait for those in flight (and detached runs); True if all finished."""
    door = app[DOOR]
    state = door.drain
    state.draining = True
    metrics.set_draining(True)
    service = door.responses
    service.claiming = False  # a stopping process takes no handed-back runs
    log.info("draining: %d request(s) in flight, up to %.0fs", state.active, seconds)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    idle = await state.wait_idle(seconds)
    while service.running and loop.time() < deadline:  # noqa: ASYNC110 (the service keeps a plain dict)
        await asyncio.sleep(0.05)
    done = idle and not service.running
    if not done:
        log.warning("drain time over: %d request(s) and %d run(s) still going", state.active, len(service.running))
    await wait_for_siblings(deadline)  # workers of one door stop refusing together
    return done


async def serve_http(settings: Settings, *, worker: int = 0, reuse_port: bool = False) -> None:
    app = create_app(settings)
    app[DOOR].worker = worker
    runner = GuardedAppRunner(
        app,
        header_timeout=settings.header_timeout_seconds,
        max_per_client=settings.max_connections_per_client,
        access_log=None,
        handle_signals=False,
        shutdown_timeout=SHUTDOWN_TIMEOUT_S,
    )
    await runner.setup()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        site = web.TCPSite(runner, settings.host, settings.http_port, reuse_port=reuse_port or None)
        # start-up's objects out of the collector's way, before a connection waits on it; its thresholds
        settle_heap(settings.gc_thresholds)
        await site.start()
        announce(f"gateway HTTP server on http://{settings.host}:{settings.http_port} (worker {worker})")
        if worker == 0 and (warning := open_to_network(settings, [settings.host])):
            log.warning(warning)
        await stop.wait()
        await drain_app(app, settings.drain_seconds)
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(sig)
        await runner.cleanup()
        metrics.process_exit()


def run_http(settings: Settings, *, worker: int = 0, reuse_port: bool = False) -> None:
    with contextlib.suppress(KeyboardInterrupt):
        loop.run(serve_http(settings, worker=worker, reuse_port=reuse_port), settings)
