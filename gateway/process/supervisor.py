"""`responses-gateway up`: the whole stack as one command.

    [local model :8000]  ->  HTTP server :8082 + ExtProc :10000  ->  Envoy :8081 (the entrypoint)

Children get the same settings through `GATEWAY_*` variables. Envoy is started from this (main)
thread, which stays alive in the supervision loop: Envoy 1.40 sets PR_SET_PDEATHSIG and would die
with the thread that started it. The Python children get PR_SET_PDEATHSIG too (Linux), so nothing
outlives a supervisor that is killed outright. SIGINT/SIGTERM or any child exiting stops everything: the
HTTP server and ExtProc drain first (readiness 503, new requests 503, streams in flight finish within
`drain_seconds`) while Envoy still carries those streams; then Envoy and the model stop.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from gateway.config import Settings
from gateway.process.envoy_runner import (
    JSON_LOG_FORMAT,
    EnvoyError,
    admin_ready,
    fleet_endpoints,
    start_envoy,
    validate_envoy_config,
    write_envoy_config,
)
from gateway.process.workers import child_env, die_with_parent, extproc_ports, extproc_serving
from gateway.telemetry.logs import announce

POLL_S = 0.05
START_TIMEOUT_S = 60.0
MODEL_START_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 10.0
_LINUX = sys.platform.startswith("linux")


class _Stop(Exception):
    """A signal asked the stack to stop."""


class _ChildFailed(Exception):
    """A child exited on its own."""


def _connect_host(host: str) -> str:
    """Where to reach a server bound to ``host`` (a wildcard bind is reached on loopback)."""
    return {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1.0) as resp:
            return int(resp.status) < 400
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class Stack:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # the HTTP server's /ready covers the ExtProc workers Envoy routes to
        self.env = child_env(settings.model_copy(update={"ready_checks_extproc": True}))
        self.children: list[tuple[str, subprocess.Popen[Any]]] = []  # in start order
        self.stop_signal: int | None = None

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stop_signal = signum

    def _spawn(self, name: str, *args: str) -> subprocess.Popen[Any]:
        cmd = [sys.executable, "-m", "gateway.process.cli", *args]
        proc = subprocess.Popen(
            cmd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            process_group=0,  # Ctrl-C reaches the supervisor only; it stops the children in order
            preexec_fn=die_with_parent if _LINUX else None,  # single-threaded here
        )
        self.children.append((name, proc))
        return proc

    def _check(self) -> None:
        if self.stop_signal is not None:
            raise _Stop
        for name, proc in self.children:
            code = proc.poll()
            if code is not None:
                raise _ChildFailed(f"{name} exited with code {code}")

    def _wait(self, ready: Callable[[], bool], what: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            self._check()
            if ready():
                return
            if time.monotonic() > deadline:
                raise _ChildFailed(f"{what} did not become ready within {timeout:.0f}s")
            time.sleep(POLL_S)

    def start(self) -> None:
        s = self.settings
        local = _connect_host(s.host)
        if not s.external_backend:
            self._spawn("local model", "local-model", "--port", str(s.local_model_port))
            self._wait(
                lambda: _http_ok(f"http://127.0.0.1:{s.local_model_port}/v1/models"),
                f"the local model on :{s.local_model_port}",
                MODEL_START_TIMEOUT_S,
            )
        self._spawn("HTTP server", "serve")
        self._spawn("ExtProc", "extproc")
        # Envoy last: it answers clients as soon as it listens, so both doors must serve first
        # (every ExtProc worker answering its gRPC health check: a port merely open may be another
        # process's, and a worker that failed would leave Envoy routing to nobody).
        health = f"http://{_url_host(local)}:{s.http_port}/health"
        self._wait(lambda: _http_ok(health), "the HTTP server", START_TIMEOUT_S)
        ports = extproc_ports(s)
        self._wait(lambda: all(extproc_serving(local, p) for p in ports), "the ExtProc", START_TIMEOUT_S)
        admin: int | Path = s.envoy_admin_port if s.envoy_admin_port is not None else s.envoy_admin_socket
        if isinstance(admin, Path):
            admin.unlink(missing_ok=True)  # a socket left by a crashed Envoy would block the bind
        config = write_envoy_config(
            Path(s.data_dir) / "envoy.yaml",
            envoy_port=s.envoy_port,
            admin_port=s.envoy_admin_port,
            admin_socket=None if s.envoy_admin_port is not None else admin,
            listen_host=s.host,
            extproc_host=local,
            extproc_port=s.extproc_port,
            extproc_workers=s.workers,
            gateway_host=local,
            gateway_port=s.http_port,
            backend_url=s.backend_base,
            fleet_endpoints=fleet_endpoints(s.backends) if s.backends else None,
            dns_resolver=s.backend_dns_resolver,
            buffer_limit_bytes=max(s.max_body_bytes, 1024 * 1024),
            backend_read_timeout_s=s.backend_read_timeout,
            backend_connect_timeout_s=s.backend_connect_timeout,
        )
        validate_envoy_config(config)
        envoy_level = "info" if s.log_level.upper() == "DEBUG" else "warning"
        envoy = start_envoy(
            config,
            log_level=envoy_level,
            preexec_fn=die_with_parent if _LINUX else None,
            log_format=JSON_LOG_FORMAT if s.log_format == "json" else None,
        )
        self.children.append(("Envoy", envoy))
        self._wait(lambda: admin_ready(admin), "Envoy", START_TIMEOUT_S)

    def supervise(self) -> None:
        while True:
            self._check()
            time.sleep(0.2)

    def stop(self) -> None:
        """The doors drain first while Envoy still carries their streams; then Envoy, then the model."""
        doors = [proc for name, proc in self.children if name in DOORS]
        for proc in doors:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + self.settings.drain_seconds + STOP_TIMEOUT_S
        for proc in doors:
            _reap(proc, max(0.1, deadline - time.monotonic()))
        for name, proc in reversed(self.children):
            if name not in DOORS and proc.poll() is None:
                proc.terminate()
                _reap(proc, STOP_TIMEOUT_S)


DOORS = ("HTTP server", "ExtProc")


def _reap(proc: subprocess.Popen[Any], timeout: float) -> None:
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_stack(settings: Settings) -> int:
    """Run the stack until a signal (exit 0) or a child's exit (exit 1)."""
    stack = Stack(settings)
    previous = {sig: signal.signal(sig, stack._on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    code = 0
    try:
        stack.start()
        s = settings
        host = _url_host(_connect_host(s.host))
        announce(
            f"Responses Gateway ready on http://{host}:{s.envoy_port}/v1 (Envoy); "
            f"HTTP server http://{host}:{s.http_port}/v1, ExtProc {host}:{s.extproc_port} "
            f"({s.workers} worker(s) each), backend {s.backend_base}"
        )
        stack.supervise()
    except _Stop:
        code = 0
    except (_ChildFailed, EnvoyError, OSError, ValueError) as exc:
        logging.getLogger(__name__).error("responses-gateway up: %s", exc)
        code = 1
    finally:
        stack.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return code
