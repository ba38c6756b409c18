"""What one ext_proc message costs a Python gRPC server before the gateway does anything.

    .venv/bin/python -m bench.bench_grpc_floor [--streams N] [--pace-ms P] [--messages M]

Why: at a GPU's pace every streamed token reaches the ExtProc as its own body chunk, i.e. one gRPC
message in and one out (#19), so the gRPC runtime's cost per message is a floor under the Envoy
door's cost per token that no work in the gateway removes. This measures that floor for the two
servers grpcio offers, on the ExtProc's own protobuf messages: an echo `Process` (each body chunk
answered at once with a body mutation) served by grpc.aio on uvloop (what the ExtProc runs) and by
the synchronous server on a thread pool (the alternative the issue asked to weigh). A grpc.aio
client in this process plays Envoy: N streams, each sending a small SSE chunk, waiting for its reply,
then pausing P ms (a stream's token pace; 0: flat out). Printed: messages/s and the server's CPU per
message (from /proc), for each server, paced and flat out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from bench.measure import cpu_seconds
from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2 as ep
from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as ep_grpc
from tests.procs import free_port

RESULTS = Path(__file__).resolve().parent / "results" / "grpc_floor.json"
SERVERS = ("aio", "sync")
CHUNK = (
    b'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" hi"}}]}\n\n'
)


def _reply(msg: ep.ProcessingRequest) -> ep.ProcessingResponse:
    common = ep.CommonResponse()
    common.body_mutation.body = msg.response_body.body
    return ep.ProcessingResponse(response_body=ep.BodyResponse(response=common))


class AioEcho(ep_grpc.ExternalProcessorServicer):
    async def Process(self, request_iterator: AsyncIterator[ep.ProcessingRequest], context: Any) -> Any:
        async for msg in request_iterator:
            yield _reply(msg)


class SyncEcho(ep_grpc.ExternalProcessorServicer):
    def Process(self, request_iterator: Iterator[ep.ProcessingRequest], context: Any) -> Any:
        for msg in request_iterator:
            yield _reply(msg)


def serve(kind: str, port: int) -> None:
    """The server process (`--serve KIND PORT`): prints "ready" once it listens."""
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


async def drive(port: int, pid: int, streams: int, messages: int, pace: float) -> dict[str, float]:
    import grpc

    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = ep_grpc.ExternalProcessorStub(channel)

        async def one(n: int) -> int:
            async def chunks() -> AsyncIterator[ep.ProcessingRequest]:
                for _ in range(n):
                    yield ep.ProcessingRequest(response_body=ep.HttpBody(body=CHUNK))
                    if pace:
                        await asyncio.sleep(pace)

            return sum([1 async for _ in stub.Process(chunks())])

        await asyncio.gather(*(one(20) for _ in range(streams)))  # warm-up
        cpu0, t0 = cpu_seconds(pid), time.perf_counter()
        done = sum(await asyncio.gather(*(one(messages) for _ in range(streams))))
        wall, cpu = time.perf_counter() - t0, cpu_seconds(pid) - cpu0
    if done != streams * messages:
        raise RuntimeError(f"{done} replies for {streams * messages} messages")
    return {"messages": done, "messages_per_s": round(done / wall), "cpu_us_per_message": round(cpu / done * 1e6, 1)}


def measure(kind: str, streams: int, messages: int, pace: float) -> dict[str, float]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.bench_grpc_floor", "--serve", kind, str(port)],
        stdout=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != b"ready":
            raise RuntimeError(f"the {kind} server did not start")
        return asyncio.run(drive(port, proc.pid, streams, messages, pace))
    finally:
        proc.kill()
        proc.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--streams", type=int, default=16, help="concurrent gRPC streams (Envoy's HTTP streams)")
    ap.add_argument("--pace-ms", type=float, default=1.0, help="pause between a stream's messages (paced rows)")
    ap.add_argument("--messages", type=int, default=1000, help="messages per stream and row")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--serve", nargs=2, metavar=("KIND", "PORT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        serve(args.serve[0], int(args.serve[1]))
        return 0
    rows: dict[str, Any] = {}
    print(f"gRPC floor: echo ext_proc Process, {args.streams} streams, {os.cpu_count()} CPUs shared")
    print(f"  {'server':28s} {'pace':>8s} {'msg/s':>8s}  server CPU us/message")
    for pace in (args.pace_ms, 0.0):
        for kind in SERVERS:
            label = "grpc.aio on uvloop" if kind == "aio" else "grpc sync, thread pool"
            row = measure(kind, args.streams, args.messages * (1 if pace else 5), pace / 1000)
            rows[f"{kind}@{pace:g}ms"] = row
            shown = f"{pace:g} ms" if pace else "flat out"
            print(f"  {label:28s} {shown:>8s} {row['messages_per_s']:>8d}  {row['cpu_us_per_message']:>8.1f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps({"rows": rows, "streams": args.streams, "when": time.strftime("%FT%TZ")}, indent=2) + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
