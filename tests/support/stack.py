"""The whole front door for tests: ExtProc + gateway HTTP server + Envoy, as real subprocesses.

    with scripted_backend() as backend, envoy_stack(backend.url, data_dir) as stack:
        OpenAI(base_url=stack.url, ...)        # through Envoy (:8081 in production)
        OpenAI(base_url=stack.http_url, ...)   # the HTTP server directly (:8082)

The three processes start at once (Envoy's clusters are static, so it does not need its upstreams
up to be ready) and the stack is handed out when all three answer. Envoy is started from the
calling thread, which must outlive it (Envoy 1.40 sets PR_SET_PDEATHSIG): use the context manager
from pytest's main thread (a session fixture is fine).
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.config import load_settings
from gateway.process.envoy_runner import fleet_endpoints, start_envoy, write_envoy_config
from tests.support.procs import (
    ROOT,
    START_TIMEOUT_S,
    VENV_BIN,
    Gateway,
    free_port,
    free_port_run,
    gateway_env,
    stop,
    wait_http,
)


def wait_port(port: int, timeout: float = START_TIMEOUT_S, proc: subprocess.Popen[Any] | None = None) -> None:
    """Until something accepts TCP connections on 127.0.0.1:port (the ExtProc binds when ready)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before port {port} opened")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port} after {timeout}s")


@dataclass
class EnvoyStack:
    envoy_port: int
    admin_port: int
    extproc_port: int
    http_port: int
    data_dir: Path
    envoy: subprocess.Popen[bytes]
    extproc: subprocess.Popen[Any]
    http: Gateway
    config_path: Path
    env: dict[str, str]

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.envoy_port}"

    @property
    def url(self) -> str:
        """What an OpenAI client uses: Envoy's /v1."""
        return self.base + "/v1"

    @property
    def http_url(self) -> str:
        return self.http.url

    def stop_extproc(self) -> None:
        stop(self.extproc)

    def start_extproc(self) -> None:
        """(Re)start the ExtProc on the same port (after stop_extproc)."""
        self.extproc = _start_extproc(self.env, self.extproc_port)
        wait_port(self.extproc_port, proc=self.extproc)


def _start_extproc(env: dict[str, str], port: int, output: Any = None) -> subprocess.Popen[Any]:
    return subprocess.Popen(
        [str(VENV_BIN / "responses-gateway"), "extproc"],
        cwd=ROOT,
        env={**env, "GATEWAY_EXTPROC_PORT": str(port)},
        stderr=output,
    )


@contextmanager
def envoy_stack(
    backend_url: str,
    data_dir: Path,
    http_gateway: Gateway | None = None,
    *,
    envoy_log_level: str = "error",
    output: Any = None,
    envoy_otel_env: dict[str, str] | None = None,
    **extra_env: str,
) -> Iterator[EnvoyStack]:
    """Start the ExtProc, an HTTP server (or reuse ``http_gateway``, which must share ``data_dir``)
    and Envoy on free ports; stop what was started here on exit (Envoy first).

    ``GATEWAY_WORKERS`` in ``extra_env`` starts that many ExtProc (on consecutive ports) and HTTP
    processes; ``output`` (a file) receives both doors' stderr (their logs). ``envoy_otel_env``, when
    given, is what Envoy's tracer is rendered from instead of the doors' environment (a benchmark
    prices Envoy's tracer apart from the doors' spans)."""
    if http_gateway is not None and Path(http_gateway.data_dir).resolve() != Path(data_dir).resolve():
        raise ValueError("the HTTP gateway must use the same data_dir as the ExtProc")
    data_dir.mkdir(parents=True, exist_ok=True)
    workers = int(extra_env.get("GATEWAY_WORKERS", "1"))
    extproc_port, envoy_port, admin_port = free_port_run(workers), free_port(), free_port()
    http_port = http_gateway.port if http_gateway is not None else free_port()
    env = gateway_env(
        backend_url,
        data_dir,
        GATEWAY_HTTP_PORT=str(http_port),
        GATEWAY_EXTPROC_PORT=str(extproc_port),
        GATEWAY_ENVOY_PORT=str(envoy_port),
        GATEWAY_ENVOY_ADMIN_PORT=str(admin_port),
        **extra_env,
    )
    cfg = write_envoy_config(
        data_dir / f"envoy-{envoy_port}.yaml",
        envoy_port=envoy_port,
        admin_port=admin_port,
        extproc_port=extproc_port,
        extproc_workers=workers,
        gateway_port=http_port,
        backend_url=backend_url,
        backend_read_timeout_s=float(extra_env.get("GATEWAY_BACKEND_READ_TIMEOUT", "300")),
        otel_env=env if envoy_otel_env is None else envoy_otel_env,  # Envoy traces when the doors do
        fleet_endpoints=fleet_endpoints(pools) if (pools := load_settings(env=env).backends) else None,
        dns_resolver=env.get("GATEWAY_BACKEND_DNS_RESOLVER"),
    )
    procs: list[subprocess.Popen[Any]] = []  # stopped in reverse: Envoy, HTTP server, ExtProc
    stack: EnvoyStack | None = None
    try:
        # Start everything, then wait for everything: the three start-ups overlap.
        extproc = _start_extproc(env, extproc_port, output)
        procs.append(extproc)
        http = http_gateway
        if http is None:
            proc = subprocess.Popen([str(VENV_BIN / "responses-gateway"), "serve"], cwd=ROOT, env=env, stderr=output)
            procs.append(proc)
            http = Gateway(proc, http_port, data_dir, env)
        log_path = data_dir / f"envoy-{envoy_port}.log"
        envoy = start_envoy(cfg, log_level=envoy_log_level, concurrency=1, log_path=log_path)
        procs.append(envoy)
        wait_http(f"http://127.0.0.1:{admin_port}/ready", proc=envoy)
        for i in range(workers):
            wait_port(extproc_port + i, proc=extproc)
        if http_gateway is None:
            wait_http(f"http://127.0.0.1:{http_port}/health", proc=http.proc)
        stack = EnvoyStack(
            envoy_port=envoy_port,
            admin_port=admin_port,
            extproc_port=extproc_port,
            http_port=http_port,
            data_dir=data_dir,
            envoy=envoy,
            extproc=extproc,
            http=http,
            config_path=cfg,
            env=env,
        )
        yield stack
    finally:
        if stack is not None:  # a test may have restarted the ExtProc
            procs[0] = stack.extproc
        for proc in reversed(procs):
            stop(proc)
