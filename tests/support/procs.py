"""Start the project's real processes for tests: the scripted backend and the gateway servers.

Everything runs as a subprocess exactly as deployed (console script, environment variables), so the
API tests exercise the same code path a user gets.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
VENV_BIN = Path(sys.executable).parent


# Start-up waits are generous (a process that needs 5 s on a quiet machine needs 30+ under load, with
# xdist's second worker and other jobs on the cores) but failures are found fast: every wait also
# watches the process it waits on and fails the moment it exits (a pool parent exits as soon as one
# of its workers dies, gateway/process/workers.py).
START_TIMEOUT_S = 120.0


def _port_slice() -> tuple[int, int]:
    """The ports this process hands out: below the kernel's ephemeral range (so a client socket's
    local port, drawn from that range, cannot take a port between its choice and the server's bind;
    a port from bind(0) could be), split between xdist's workers (and a spare) so two never pick the same one."""
    low = 32768
    with contextlib.suppress(OSError, ValueError, IndexError):
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    base, top = 20000, max(min(low, 32768), 22000)  # above the gateway's own defaults (8000-10000)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    # xdist names a worker it restarts after a crash past the count (gw2 of two): a spare slice, not
    # the live gw0's
    index = min(int(worker), count) if worker.isdigit() else 0
    width = (top - base) // (count + 1)
    return base + index * width, base + (index + 1) * width


_next_port: list[int] = []  # this process's cursor in its slice: a port is never handed out twice in a row


def free_port_run(n: int) -> int:
    """A port p such that p … p+n-1 are all free now (the ExtProc's workers listen on consecutive ports)."""
    lo, hi = _port_slice()
    if not _next_port:
        _next_port.append(random.randrange(lo, hi - n))  # another session on the machine starts elsewhere
    for _ in range((hi - lo) // max(n, 1)):
        base = _next_port[0]
        if base + n > hi:
            base = lo
        _next_port[0] = base + n
        socks = []
        try:
            for i in range(n):
                s = socket.socket()  # no SO_REUSEADDR: a port still in TIME_WAIT is skipped too
                socks.append(s)
                s.bind(("127.0.0.1", base + i))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError(f"no run of {n} free ports in {lo}-{hi}")


def free_port() -> int:
    return free_port_run(1)


def wait_http(url: str, timeout: float = START_TIMEOUT_S, proc: subprocess.Popen[Any] | None = None) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before {url} answered")
        try:
            with urllib.request.urlopen(url, timeout=1.0) as resp:
                if resp.status < 500:
                    return
        except (urllib.error.URLError, OSError) as exc:
            last = exc
        time.sleep(0.05)
    raise TimeoutError(f"{url} did not answer within {timeout}s: {last}")


def stop(proc: subprocess.Popen[Any], sig: int = signal.SIGTERM, timeout: float = 10.0) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def http_json(method: str, url: str, body: Any = None, timeout: float = 30.0) -> Any:
    """A tiny JSON client for control endpoints (the SDK is what tests use for the API itself)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        raw = resp.read()
    return json.loads(raw) if raw else None


class Backend:
    """The scripted vLLM stand-in, running as its own process."""

    def __init__(self, proc: subprocess.Popen[Any], port: int, host: str = "127.0.0.1") -> None:
        self.proc, self.port = proc, port
        self.base = f"http://{host}:{port}"
        self.url = self.base + "/v1"

    def script(self, match: str, *replies: dict[str, Any]) -> None:
        http_json("POST", self.base + "/_script", {"match": match, "replies": list(replies)})

    def requests(self) -> list[dict[str, Any]]:
        return list(http_json("GET", self.base + "/_requests"))

    def requests_matching(self, marker: str) -> list[dict[str, Any]]:
        return [r for r in self.requests() if marker in json.dumps(r.get("body"))]


@contextmanager
def scripted_backend(model: str = "scripted-model", port: int = 0, host: str = "127.0.0.1") -> Iterator[Backend]:
    """A scripted backend on `port` (0: a free one; a fixed one brings a stopped replica back) of
    loopback address `host` (another 127.x address gives a second replica on the same port)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.scripted_backend", "--host", host, "--port", str(port), "--model", model],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("READY"):
        proc.kill()
        raise RuntimeError(f"scripted backend did not start: {line!r}")
    try:
        yield Backend(proc, int(line.split()[1]), host)
    finally:
        stop(proc)


class Gateway:
    def __init__(self, proc: subprocess.Popen[Any], port: int, data_dir: Path, env: dict[str, str]) -> None:
        self.proc, self.port, self.data_dir, self.env = proc, port, data_dir, env
        self.base = f"http://127.0.0.1:{port}"
        self.url = self.base + "/v1"


# Test services a client names by URL (MCP servers, web pages) listen on this loopback address and the
# test stacks allowlist it, the way an operator opens an internal host; 127.0.0.1 (Envoy's admin, the
# gateway itself) stays refused, as in a default deployment.
SERVICES_HOST = "127.0.0.2"


def gateway_env(backend_url: str, data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(
        {
            "GATEWAY_BACKEND_URL": backend_url,
            "GATEWAY_DATA_DIR": str(data_dir),
            "GATEWAY_LOG_LEVEL": "WARNING",
            # one process per door keeps the suite's many stacks lean; tests of workers set more
            "GATEWAY_WORKERS": "1",
            "GATEWAY_MCP_ALLOWED_HOSTS": SERVICES_HOST,
            "GATEWAY_CRAWL_ALLOWED_HOSTS": SERVICES_HOST,
            **extra,
        }
    )
    return env


def start_gateway(backend_url: str, data_dir: Path, **extra: str) -> Gateway:
    port = free_port()
    env = gateway_env(backend_url, data_dir, GATEWAY_HTTP_PORT=str(port), **extra)
    proc = subprocess.Popen([str(VENV_BIN / "responses-gateway"), "serve"], cwd=ROOT, env=env)
    wait_http(f"http://127.0.0.1:{port}/health", proc=proc)
    return Gateway(proc, port, data_dir, env)


@contextmanager
def gateways(backend_url: str, data_dirs: list[Path], **extra: str) -> Iterator[list[Gateway]]:
    """Several HTTP servers (one per data dir, the same dir twice for two processes on one database),
    started together and handed out when all answer: their start-ups overlap instead of queueing."""
    started: list[Gateway] = []
    try:
        for data_dir in data_dirs:
            port = free_port()
            env = gateway_env(backend_url, data_dir, GATEWAY_HTTP_PORT=str(port), **extra)
            proc = subprocess.Popen([str(VENV_BIN / "responses-gateway"), "serve"], cwd=ROOT, env=env)
            started.append(Gateway(proc, port, data_dir, env))
        for gw in started:
            wait_http(f"{gw.base}/health", proc=gw.proc)
        yield started
    finally:
        for gw in started:  # SIGTERM to all first: their drains overlap too
            if gw.proc.poll() is None:
                gw.proc.send_signal(signal.SIGTERM)
        for gw in started:
            stop(gw.proc)


@contextmanager
def gateway(backend_url: str, data_dir: Path, **extra: str) -> Iterator[Gateway]:
    gw = start_gateway(backend_url, data_dir, **extra)
    try:
        yield gw
    finally:
        stop(gw.proc)


# --- API keys (#16): the session's gateways run with GATEWAY_AUTH=keys; raw requests add AUTH
ADMIN_KEY = "admin-test-key-0123456789"
KEYS_ENV = {"GATEWAY_AUTH": "keys", "GATEWAY_ADMIN_KEY": ADMIN_KEY}
AUTH: dict[str, str] = {}  # {"Authorization": "Bearer <the session key>"} once the session gateway is up


def create_key(backend_url: str, data_dir: Path, project: str, *extra_args: str) -> dict[str, Any]:
    """Mint a key with the real CLI (`responses-gateway keys create`) on `data_dir`'s database."""
    env = gateway_env(backend_url, data_dir)
    out = subprocess.run(
        [str(VENV_BIN / "responses-gateway"), "keys", "create", "--project", project, *extra_args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return dict(json.loads(out.stdout))
