"""`GATEWAY_WORKERS`: several processes per door, one per core.

Python runs one core per process, so each door runs `workers` processes, all on the one SQLite
database (WAL; one writer connection per process, `busy_timeout` between them):

- HTTP server: every worker binds the same port with SO_REUSEPORT; the kernel spreads connections.
- ExtProc: worker i listens on `extproc_port + i` and Envoy's `extproc` cluster lists them all, so
  Envoy balances gRPC streams per request (one HTTP/2 connection per worker would defeat the
  kernel's per-connection spreading).

`responses-gateway serve|extproc` with `workers > 1` becomes this small parent: it starts the
workers (`GATEWAY_WORKER_INDEX=i`), forwards SIGTERM/SIGINT to them and exits when they have; if
one dies, the others are stopped and the parent exits non-zero, so the supervisor (or Kubernetes)
restarts the door whole.

The drain is door-wide: a worker whose own requests have finished keeps its port open, refusing
new requests with 503 `shutting_down`, until every sibling has finished too (each reports on a pipe
to the parent, which then releases them all with SIGUSR1) or the drain time is over. Otherwise an
idle ExtProc worker would exit at once and Envoy, still balancing over every port, would send new
requests to a closed port (a `processor_unavailable` instead of a clean refusal).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import json
import logging
import os
import select
import signal
import subprocess
import sys
import time
from types import FrameType
from typing import Any

from gateway.config import Settings

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1
WORKER_ENV = "GATEWAY_WORKER_INDEX"
EXTPROC_SERVICE = "envoy.service.ext_proc.v3.ExternalProcessor"  # what the ExtProc's health check names
DONE_FD_ENV = "GATEWAY_WORKER_DONE_FD"  # a pipe to the parent: a worker writes its index (one byte) when idle
POLL_S = 0.1


def child_env(settings: Settings, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment that gives a child process exactly these settings: a `GATEWAY_*` variable
    for each setting that was set (file, environment or override), none for the others. A default
    passed as if chosen would change what the child decides from what was chosen: with
    `GATEWAY_DATABASE_URL` the vector backend defaults to pgvector unless one was named, and an
    explicit `GATEWAY_VECTOR_BACKEND=sqlite-vec` kept each replica's vectors in its own file."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if k != "GATEWAY_CONFIG"}
    chosen = settings.model_fields_set
    for name in Settings.model_fields:
        key = "GATEWAY_" + name.upper()
        value = getattr(settings, name)
        if name in chosen and value is not None:
            if isinstance(value, list):  # GATEWAY_BACKENDS: JSON, as an operator writes it
                value = json.dumps([v.model_dump(exclude_none=True) if hasattr(v, "model_dump") else v for v in value])
            env[key] = str(value)
        else:
            env.pop(key, None)
    return env


def die_with_parent() -> None:  # pragma: no cover - runs in the forked child
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def worker_index() -> int | None:
    """This process's worker index when a pool started it, else None."""
    value = os.environ.get(WORKER_ENV)
    return int(value) if value and value.isdigit() else None


def extproc_ports(settings: Settings) -> list[int]:
    return [settings.extproc_port + i for i in range(settings.workers)]


def extproc_serving(host: str, port: int) -> bool:
    """An ExtProc worker answers on `port`: its gRPC health check says SERVING."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    try:
        with grpc.insecure_channel(f"{host if ':' not in host else '[' + host + ']'}:{port}") as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            reply = stub.Check(health_pb2.HealthCheckRequest(service=EXTPROC_SERVICE), timeout=1.0)
            return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)
    except grpc.RpcError:
        return False


def _release_when_idle(procs: list[subprocess.Popen[Any]], done_r: int, deadline: float) -> None:
    """Wait until every live worker has reported that it is idle (or the deadline), then let them
    all exit together (SIGUSR1).

    A report names its worker (one byte, the index), so a worker that died (one that failed to start,
    whose death stopped the pool) is simply not waited for: counting anonymous reports against dead
    workers had the survivors wait out the whole drain time, and `up` with them."""
    reported: set[int] = set()
    while time.monotonic() < deadline:
        live = [i for i, p in enumerate(procs) if p.poll() is None]
        if not live:
            return
        if reported.issuperset(live):
            break
        ready, _, _ = select.select([done_r], [], [], POLL_S)
        if ready:
            chunk = os.read(done_r, 64)
            if not chunk:
                break
            reported.update(chunk)
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGUSR1)


async def wait_for_siblings(deadline: float) -> None:
    """In a pool worker whose drain is done: report idle, then keep refusing new requests until the
    parent releases every worker (SIGUSR1) or ``deadline`` (the event loop's clock) passes."""
    fd = os.environ.get(DONE_FD_ENV)
    if not fd or not fd.isdigit():
        return
    loop = asyncio.get_running_loop()
    released = asyncio.Event()
    loop.add_signal_handler(signal.SIGUSR1, released.set)
    try:
        os.write(int(fd), bytes([worker_index() or 0]))  # which worker is idle
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(released.wait(), max(0.0, deadline - loop.time()))
    except OSError:
        pass  # the parent is gone: nothing to wait for
    finally:
        loop.remove_signal_handler(signal.SIGUSR1)
        # a release sent after the wait ended (past the deadline) must not kill the worker mid-cleanup
        # with SIGUSR1's default action
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)


def run_pool(command: str, settings: Settings, extra_wait_s: float = 15.0) -> int:
    """Run `workers` copies of `responses-gateway <command>` until a signal or a worker's exit."""
    env = child_env(settings)
    done_r, done_w = os.pipe()
    procs: list[subprocess.Popen[Any]] = []
    stopping: list[int] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.append(signum)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    code = 0
    try:
        for i in range(settings.workers):
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "gateway.process.cli", command],
                    env={**env, WORKER_ENV: str(i), DONE_FD_ENV: str(done_w)},
                    pass_fds=(done_w,),
                    stdin=subprocess.DEVNULL,
                    preexec_fn=die_with_parent if sys.platform.startswith("linux") else None,
                )
            )
        os.close(done_w)
        done_w = -1
        while not stopping:
            dead = [(i, p.returncode) for i, p in enumerate(procs) if p.poll() is not None]
            if dead:
                # said at once, before the others drain: the reason a door (and `up`) stops
                log.error(
                    "%s worker %d exited with code %s; stopping the other worker(s)", command, dead[0][0], dead[0][1]
                )
                code = 1
                break
            time.sleep(POLL_S)
    finally:
        if done_w >= 0:
            os.close(done_w)
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)  # each worker drains
        _release_when_idle(procs, done_r, time.monotonic() + settings.drain_seconds + 1.0)
        os.close(done_r)
        deadline = time.monotonic() + settings.drain_seconds + extra_wait_s
        for p in procs:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return code
