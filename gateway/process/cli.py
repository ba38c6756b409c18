"""The `responses-gateway` console script.

serve        the HTTP server (:8082)
extproc      the Envoy external processor (gRPC, :10000)
up           Envoy + ExtProc + HTTP server (+ a local model when no backend URL is set)
local-model  the bundled SmolLM2 model on an OpenAI-compatible server
healthcheck  exit 0 when the stack answers /health (or /ready) through Envoy (the image's HEALTHCHECK)
keys         create, list and revoke API keys (`keys create --project P`)
mcp          the knowledge-base MCP server on stdin/stdout (Claude Desktop, Codex), same database
"""

from __future__ import annotations

import argparse
import sys

from gateway.config import Settings, load_settings
from gateway.process.workers import run_pool, worker_index
from gateway.telemetry import logs, metrics, tracing


def _settings(args: argparse.Namespace) -> Settings:
    return load_settings(
        backend_url=getattr(args, "backend_url", None),
        http_port=getattr(args, "port", None),
        host=getattr(args, "host", None),
        data_dir=getattr(args, "data_dir", None),
    )


def _door_process(settings: Settings, door: str) -> None:
    """Logging and metrics first: prometheus_client must see its directory before it is imported."""
    logs.configure(settings)
    metrics.init(metrics.metrics_dir(settings.data_dir, settings.metrics_dir), door)
    tracing.setup(door)  # OpenTelemetry, when the OTEL_* variables name an endpoint


def cmd_serve(args: argparse.Namespace) -> int:
    settings = _settings(args)
    index = worker_index()
    if settings.workers > 1 and index is None:
        logs.configure(settings)
        return run_pool("serve", settings)
    _door_process(settings, "http")
    from gateway.http.server import run_http

    run_http(settings, worker=index or 0, reuse_port=settings.workers > 1)
    return 0


def cmd_extproc(args: argparse.Namespace) -> int:
    settings = _settings(args)
    index = worker_index()
    port = getattr(args, "extproc_port", None)
    if settings.workers > 1 and index is None and port is None:
        logs.configure(settings)
        return run_pool("extproc", settings)
    _door_process(settings, "extproc")
    from extproc.server import run_extproc

    run_extproc(settings, port=port if port is not None else settings.extproc_port + (index or 0))
    return 0


def cmd_up(args: argparse.Namespace) -> int:
    from gateway.process.supervisor import run_stack

    settings = _settings(args)
    logs.configure(settings)
    return run_stack(settings)


def cmd_healthcheck(args: argparse.Namespace) -> int:
    """GET /health (or /ready with --ready) through Envoy on this machine; exit 0 on HTTP 200."""
    import urllib.error
    import urllib.request

    settings = load_settings()
    url = args.url or f"http://127.0.0.1:{settings.envoy_port}/{'ready' if args.ready else 'health'}"
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return 0 if resp.status == 200 else 1
    except (urllib.error.URLError, OSError, ValueError) as exc:
        print(f"healthcheck {url}: {exc}", file=sys.stderr)
        return 1


def cmd_mcp(args: argparse.Namespace) -> int:
    """The MCP server over stdio: logs on stderr (stdout carries the protocol)."""
    settings = _settings(args)
    logs.configure(settings)
    from gateway.mcp_server.stdio import run_stdio

    return run_stdio(settings, args.project)


def cmd_local_model(args: argparse.Namespace) -> int:
    from gateway.process.local_model import serve_local_model

    serve_local_model(args.host or "127.0.0.1", args.port or load_settings().local_model_port)
    return 0


def cmd_keys(args: argparse.Namespace) -> int:
    from gateway.auth.cli import run_keys

    return run_keys(_settings(args), args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="responses-gateway", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, fn, helptext in (
        ("serve", cmd_serve, "run the HTTP server"),
        ("extproc", cmd_extproc, "run the Envoy external processor"),
        ("up", cmd_up, "run Envoy, the ExtProc and the HTTP server together"),
        ("local-model", cmd_local_model, "serve the bundled small model"),
        ("healthcheck", cmd_healthcheck, "probe the running stack (exit 0 when healthy)"),
        ("mcp", cmd_mcp, "serve the knowledge base to an MCP client over stdio"),
    ):
        p = sub.add_parser(name, help=helptext)
        p.set_defaults(fn=fn)
        if name == "healthcheck":
            p.add_argument("--ready", action="store_true", help="ask /ready (database, backend, not draining)")
            p.add_argument("--url", default=None)
            continue
        if name == "mcp":
            p.add_argument("--data-dir", default=None)
            p.add_argument("--project", default="default", help="the project whose stores it serves (API keys)")
            continue
        p.add_argument("--host", default=None)
        p.add_argument("--port", type=int, default=None)
        if name != "local-model":
            p.add_argument("--backend-url", default=None)
            p.add_argument("--data-dir", default=None)
        if name == "extproc":
            p.add_argument("--extproc-port", type=int, default=None)
    from gateway.auth.cli import add_parser as add_keys_parser

    add_keys_parser(sub).set_defaults(fn=cmd_keys)
    args = parser.parse_args(argv)
    try:
        return int(args.fn(args))
    except ValueError as exc:
        print(f"responses-gateway: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
