"""`GATEWAY_WORKERS`: several processes per door, one per core.

Python runs one core per process, so each door runs `workers` processes, all on the one SQLite
database (WAL; one writer connection per process, `busy_timeout` between them):

- HTTP server: every worker binds the same port with SO_REUSEPORT; the kernel spreads connections.
- ExtProc: worker i listens on `extproc_port + i` and Envoy's `extproc` cluster lists them all, so
  Envoy balances gRPC streams per request (one HTTP/2 connection per worker would defeat the
  kernel's per-connection spreading).

`responses-gateway serve|extproc` with `workers > 1` becomes this small parent: it starts the
workers (`GATEWAY_WORKER_INDEX=i`), forwards SIGTERM/SIGINT to them (each drains on its own) and
exits when they have; if one dies, the others are stopped and the parent exits non-zero, so the
supervisor (or Kubernetes) restarts the door whole.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from types import FrameType
from typing import Any

from gateway.config import Settings

WORKER_ENV = "GATEWAY_WORKER_INDEX"
POLL_S = 0.1


def worker_index() -> int | None:
    """This process's worker index when a pool started it, else None."""
    value = os.environ.get(WORKER_ENV)
    return int(value) if value and value.isdigit() else None


def extproc_ports(settings: Settings) -> list[int]:
    return [settings.extproc_port + i for i in range(settings.workers)]


def run_pool(command: str, settings: Settings, extra_wait_s: float = 15.0) -> int:
    """Run `workers` copies of `responses-gateway <command>` until a signal or a worker's exit."""
    from gateway.supervisor import child_env, die_with_parent

    env = child_env(settings)
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
                    [sys.executable, "-m", "gateway.cli", command],
                    env={**env, WORKER_ENV: str(i)},
                    stdin=subprocess.DEVNULL,
                    preexec_fn=die_with_parent if sys.platform.startswith("linux") else None,
                )
            )
        while not stopping:
            if any(p.poll() is not None for p in procs):
                code = 1
                break
            time.sleep(POLL_S)
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)  # each worker drains, then exits
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
