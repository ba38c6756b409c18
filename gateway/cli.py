"""The `responses-gateway` console script.

serve        the HTTP server (:8082)
extproc      the Envoy external processor (gRPC, :10000)
up           Envoy + ExtProc + HTTP server (+ a local model when no backend URL is set)
local-model  the bundled SmolLM2 model on an OpenAI-compatible server
"""

from __future__ import annotations

import argparse
import logging
import sys

from gateway.config import Settings, load_settings


def _settings(args: argparse.Namespace) -> Settings:
    return load_settings(
        backend_url=getattr(args, "backend_url", None),
        http_port=getattr(args, "port", None),
        host=getattr(args, "host", None),
        data_dir=getattr(args, "data_dir", None),
    )


def cmd_serve(args: argparse.Namespace) -> int:
    from aiohttp import web

    from gateway.http.app import create_app

    settings = _settings(args)
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app = create_app(settings)
    web.run_app(
        app,
        host=settings.host,
        port=settings.http_port,
        access_log=None,
        print=lambda msg: print(
            f"gateway HTTP server on http://{settings.host}:{settings.http_port}", file=sys.stderr, flush=True
        ),
        shutdown_timeout=10,
    )
    return 0


def cmd_extproc(args: argparse.Namespace) -> int:
    from extproc.server import run_extproc

    settings = _settings(args)
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    run_extproc(settings, port=getattr(args, "extproc_port", None))
    return 0


def cmd_up(args: argparse.Namespace) -> int:
    from gateway.supervisor import run_stack

    settings = _settings(args)
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return run_stack(settings)


def cmd_local_model(args: argparse.Namespace) -> int:
    from gateway.local_model import serve_local_model

    serve_local_model(args.host or "127.0.0.1", args.port or load_settings().local_model_port)
    return 0


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
    ):
        p = sub.add_parser(name, help=helptext)
        p.set_defaults(fn=fn)
        p.add_argument("--host", default=None)
        p.add_argument("--port", type=int, default=None)
        if name != "local-model":
            p.add_argument("--backend-url", default=None)
            p.add_argument("--data-dir", default=None)
        if name == "extproc":
            p.add_argument("--extproc-port", type=int, default=None)
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
