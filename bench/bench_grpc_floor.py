"""The Envoy door's floor: what a streamed token costs Envoy and a do-nothing Python ExtProc.

    .venv/bin/python -m bench.bench_grpc_floor [--clients N] [--streams M] [--deltas K] [--pace-ms P]

Why: at a GPU's pace every streamed token reaches the ExtProc as a body chunk of its own, i.e. one
gRPC message in and one out (#19). What the gRPC runtime and Envoy's ext_proc client cost per
message is then a floor under the Envoy door's cost per token that no work in the gateway removes.
This measures it with the real parts: the stand-in backend streams chat completions through an
Envoy whose ext_proc filter sends every response body chunk (`STREAMED`, nothing else) to an echo
processor that answers each with a body mutation of the same bytes, as the ExtProc does with its
translation. The echo runs on grpc.aio with uvloop (what the ExtProc runs) and on grpc's sync server
on a thread pool (the alternative the issue asked to weigh). N clients x M streams x K+1 deltas,
paced P ms per delta like a GPU's streams, then flat out; per row: tokens/s, CPU per token of the
processor and of Envoy (from /proc), and the inter-token gap p50/p99 the client saw. Compare with
`bench.bench_stream` (the same load through the real Envoy door): the difference is the gateway's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from bench.bench_envoy import PLAIN_ENVOY_YAML, _BenchEnvoy
from bench.bench_gateway import HOST, MODEL
from bench.bench_stream import PACED, one_round
from bench.loadgen import CHAT_TOKEN, Target
from bench.measure import stats
from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2 as ep
from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as ep_grpc
from tests.support.procs import free_port, scripted_backend

RESULTS = Path(__file__).resolve().parent / "results" / "grpc_floor.json"
SERVERS = {"aio": "echo on grpc.aio + uvloop", "sync": "echo on grpc sync, threads"}

EXT_PROC_FILTER = """\
          - name: envoy.filters.http.ext_proc
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor
              grpc_service:
                envoy_grpc: {{cluster_name: echo}}
              message_timeout: 5s
              processing_mode:
                request_header_mode: SKIP
                response_header_mode: SKIP
                request_trailer_mode: SKIP
                response_trailer_mode: SKIP
                request_body_mode: NONE
                response_body_mode: STREAMED
"""
ECHO_CLUSTER = """\
  - name: echo
    type: STATIC
    connect_timeout: 5s
    typed_extension_protocol_options:
      envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
        "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
        explicit_http_config: {{http2_protocol_options: {{}}}}
    load_assignment:
      cluster_name: echo
      endpoints:
      - lb_endpoints:
        - endpoint:
            address:
              socket_address: {{address: 127.0.0.1, port_value: {echo_port}}}
"""


def _reply(msg: ep.ProcessingRequest) -> ep.ProcessingResponse:
    reply = ep.ProcessingResponse()
    reply.response_body.response.body_mutation.body = msg.response_body.body
    return reply


class AioEcho(ep_grpc.ExternalProcessorServicer):
    async def Process(self, request_iterator: AsyncIterator[ep.ProcessingRequest], context: Any) -> Any:
        async for msg in request_iterator:
            yield _reply(msg)


class SyncEcho(ep_grpc.ExternalProcessorServicer):
    def Process(self, request_iterator: Iterator[ep.ProcessingRequest], context: Any) -> Any:
        for msg in request_iterator:
            yield _reply(msg)


def serve(kind: str, port: int) -> None:
    """The processor process (`--serve KIND PORT`): prints "ready" once it listens."""
    import grpc
    import uvloop

    if kind == "sync":
        from concurrent import futures

        server = grpc.server(futures.ThreadPoolExecutor(max_workers=64))
        ep_grpc.add_ExternalProcessorServicer_to_server(SyncEcho(), server)
        server.add_insecure_port(f"127.0.0.1:{port}")
        server.start()
        print("ready", flush=True)
        server.wait_for_termination()
        return

    async def main() -> None:
        server = grpc.aio.server()
        ep_grpc.add_ExternalProcessorServicer_to_server(AioEcho(), server)
        server.add_insecure_port(f"127.0.0.1:{port}")
        await server.start()
        print("ready", flush=True)
        await server.wait_for_termination()

    uvloop.run(main())  # as the ExtProc runs by default (GATEWAY_EVENT_LOOP=uvloop)


class EchoEnvoy(_BenchEnvoy):
    """The minimal Envoy of `bench.bench_envoy` with an ext_proc filter to the echo processor."""

    def __init__(self, backend_port: int, echo_port: int, workdir: Path) -> None:
        super().__init__()
        text = PLAIN_ENVOY_YAML.replace("          http_filters:\n", "          http_filters:\n" + EXT_PROC_FILTER)
        text = text.replace("  clusters:\n", "  clusters:\n" + ECHO_CLUSTER)
        config = workdir / f"envoy-echo-{self.port}.yaml"
        config.write_text(
            text.format(port=self.port, admin_port=self.admin_port, backend_port=backend_port, echo_port=echo_port)
        )
        self._start(config, log_path=workdir / f"envoy-echo-{self.port}.log")


def start_echo(kind: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.bench_grpc_floor", "--serve", kind, str(port)], stdout=subprocess.PIPE
    )
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != b"ready":
        proc.kill()
        raise RuntimeError(f"the {kind} echo processor did not start")
    return proc, port


def measure(
    kind: str, args: argparse.Namespace, backend_port: int, pids: dict[str, int], workdir: Path, pace: float
) -> dict[str, Any]:
    proc, port = start_echo(kind)
    envoy = EchoEnvoy(backend_port, port, workdir)
    prompt = " ".join(["hi"] * args.deltas)
    chat = {
        "model": MODEL,
        "messages": [{"role": "user", "content": f"{PACED} {prompt}" if pace else prompt}],
        "stream": True,
    }
    target = Target(SERVERS[kind], HOST, envoy.port, "/v1/chat/completions", chat, True, CHAT_TOKEN, b"data: [DONE]")
    procs = {**pids, "processor": proc.pid, "envoy": envoy.proc.pid}
    acc: dict[str, Any] = {"wall": 0.0, "tokens": 0, "cpu": {}, "gaps": [], "samples": []}
    try:
        asyncio.run(one_round(target, 2, 1, {"wall": 0.0, "tokens": 0, "cpu": {}, "gaps": [], "samples": []}, procs))
        asyncio.run(one_round(target, args.clients, args.streams, acc, procs))
    finally:
        envoy.stop()
        proc.kill()
        proc.wait()
    bad = sum(1 for s in acc["samples"] if not s.ok)
    if bad:
        raise RuntimeError(f"{kind}: {bad} streams failed")
    toks = max(1, acc["tokens"])
    return {
        "tokens": acc["tokens"],
        "tokens_per_s": round(acc["tokens"] / acc["wall"]),
        "cpu_us_per_token": {n: round(acc["cpu"][n] / toks * 1e6, 1) for n in ("processor", "envoy", "backend")},
        "gap_ms": stats(acc["gaps"]),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=16, help="concurrent clients (N)")
    ap.add_argument("--streams", type=int, default=4, help="streams per client (M)")
    ap.add_argument("--deltas", type=int, default=200, help="text deltas per stream - 1 (K)")
    ap.add_argument("--pace-ms", type=float, default=1.0, help="the stand-in's pause between deltas in paced rows")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--serve", nargs=2, metavar=("KIND", "PORT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        serve(args.serve[0], int(args.serve[1]))
        return 0
    rows: dict[str, Any] = {}
    load = f"{args.clients} clients x {args.streams} streams x {args.deltas + 1} deltas"
    print(f"Envoy door floor: Envoy + echo ext_proc, {load}, {os.cpu_count()} CPUs shared")
    print(f"  {'processor':28s} {'pace':>8s} {'tok/s':>8s}  CPU us/token: processor  Envoy  backend   gap p50/p99 ms")
    with tempfile.TemporaryDirectory(prefix="bench-grpc-floor-") as tmp, scripted_backend(MODEL) as backend:
        reply = {"content": " ".join(["hi"] * (args.deltas + 1)), "chunk_delay": args.pace_ms / 1000}
        backend.script(PACED, *[reply] * (len(SERVERS) * (2 + args.clients * args.streams)))
        for pace in (args.pace_ms, 0.0) if args.pace_ms else (0.0,):
            for kind in SERVERS:
                row = measure(kind, args, backend.port, {"backend": backend.proc.pid}, Path(tmp), pace)
                rows[f"{kind}@{pace:g}ms"] = row
                cpu, gap = row["cpu_us_per_token"], row["gap_ms"]
                shown = f"{pace:g} ms" if pace else "flat out"
                print(
                    f"  {SERVERS[kind]:28s} {shown:>8s} {row['tokens_per_s']:>8d}  {cpu['processor']:>22.1f}"
                    f" {cpu['envoy']:>6.1f} {cpu['backend']:>8.1f}   {gap['p50']:.3f} / {gap['p99']:.3f}"
                )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"clients": args.clients, "streams": args.streams, "deltas": args.deltas, "pace_ms": args.pace_ms}
    args.out.write_text(
        json.dumps({"rows": rows, **meta, "when": time.strftime("%FT%TZ", time.gmtime())}, indent=2) + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
