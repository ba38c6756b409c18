"""The Envoy configuration (envoy/envoy.yaml.tmpl) against the real Envoy 1.40 binary.

Static: rendered variants pass ``envoy --mode validate``. Live: Envoy in front of two tiny
aiohttp servers (standing in for the gateway HTTP server and the inference backend) and a tiny
inline grpc.aio ExternalProcessor, proving the mechanisms the real processor relies on:
re-routing to the gateway cluster, BUFFERED body + :path rewrite, and STREAMED SSE responses.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import grpc
import pytest
import pytest_asyncio
from aiohttp import web

from extproc.pb.envoy.config.core.v3 import base_pb2 as core_pb2
from extproc.pb.envoy.extensions.filters.http.ext_proc.v3 import processing_mode_pb2 as mode_pb2
from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2 as ep
from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as ep_grpc
from gateway.process.envoy_runner import (
    render_envoy_config,
    start_envoy,
    stop_envoy,
    validate_envoy_config,
    wait_envoy_ready,
    write_envoy_config,
)
from tests.support.procs import free_port

PM = mode_pb2.ProcessingMode


# --------------------------------------------------------------------------- static validation


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {
            "envoy_port": 18081,
            "admin_port": 19901,
            "extproc_port": 20000,
            "gateway_port": 18082,
            "backend_url": "http://localhost:8000/v1",
            "listen_host": "0.0.0.0",
            "access_log": True,
        },
        {"backend_url": "https://inference.example.com/openai/v1", "extproc_host": "localhost"},
        {"backend_url": "https://[::1]:8443", "listen_host": "::"},
        {"admin_socket": "/tmp/envoy-admin-test.sock"},
    ],
)
def test_rendered_config_validates(tmp_path: Path, kw: dict[str, Any]) -> None:
    path = write_envoy_config(tmp_path / "envoy.yaml", **kw)
    validate_envoy_config(path)
    text = path.read_text()
    assert "${" not in text
    if str(kw.get("backend_url", "")).startswith("https"):
        assert "UpstreamTlsContext" in text
    else:
        assert "UpstreamTlsContext" not in text
    if "admin_socket" in kw:  # the admin interface is then on no TCP port at all
        assert 'pipe: {path: "/tmp/envoy-admin-test.sock", mode: 384}' in text and "port_value: 9901" not in text


def test_render_rejects_bad_backend_url() -> None:
    with pytest.raises(ValueError):
        render_envoy_config(backend_url="ftp://x/v1")


# --------------------------------------------------------------------------- live fixtures


@dataclass
class Recorder:
    """Requests seen by a test HTTP server: (method, path, headers, body)."""

    seen: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)


async def _sse(request: web.Request, chunks: list[bytes]) -> web.StreamResponse:
    resp = web.StreamResponse(headers={"content-type": "text/event-stream"})
    await resp.prepare(request)
    for i, chunk in enumerate(chunks):
        if i:
            await asyncio.sleep(0.5)
        await resp.write(chunk)
    await resp.write_eof()
    return resp


def _app(name: str, rec: Recorder) -> web.Application:
    async def handle(request: web.Request) -> web.StreamResponse:
        body = await request.read()
        rec.seen.append((request.method, request.path, dict(request.headers), body))
        if request.path == "/v1/models":
            return web.json_response({"object": "list", "data": [], "served_by": name})
        if body and json.loads(body).get("stream"):
            return await _sse(request, [f"data: {name}-1\n\n".encode(), f"data: {name}-2\n\n".encode()])
        return web.json_response({"served_by": name, "path": request.path})

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_route("*", "/{tail:.*}", handle)
    return app


async def _serve(app: web.Application) -> tuple[web.AppRunner, int]:
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, port


def _set(key: str, value: str) -> core_pb2.HeaderValueOption:
    return core_pb2.HeaderValueOption(
        header=core_pb2.HeaderValue(key=key, raw_value=value.encode()),
        append_action=core_pb2.HeaderValueOption.OVERWRITE_IF_EXISTS_OR_ADD,
    )


def _header(headers: ep.HttpHeaders, name: str) -> str:
    for h in headers.headers.headers:
        if h.key == name:
            return h.raw_value.decode() or h.value
    return ""


class Processor(ep_grpc.ExternalProcessorServicer):
    """Test behaviours chosen by the client's ``x-test-mode`` request header.

    reroute-headers: at request headers, set x-gateway-route + clear_route_cache, and skip every
        later phase by mode_override (honoured only in a reply to a headers message).
    reroute-body: at the BUFFERED request body, set x-gateway-route + clear_route_cache, then close
        the gRPC stream cleanly so Envoy consults the processor no more (response not buffered).
    reroute-body-open: the same but keep the stream open and answer the response headers with
        mode_override response_body_mode NONE (a mode_override in a body reply is ignored).
    rewrite: at the request body, :path -> /v1/chat/completions, drop content-length, replace body;
        at response headers switch an SSE response to STREAMED and upper-case every streamed chunk;
        a BUFFERED (JSON) response is wrapped in {"translated": ...} with content-length dropped.
    """

    def __init__(self) -> None:
        self.chunks: list[tuple[float, bytes, bool]] = []
        self.phases: list[str] = []

    async def Process(
        self, request_iterator: AsyncIterator[ep.ProcessingRequest], context: Any
    ) -> AsyncIterator[ep.ProcessingResponse]:
        mode = ""
        streamed = False
        async for req in request_iterator:
            kind = req.WhichOneof("request")
            self.phases.append(kind)
            if kind == "request_headers":
                mode = _header(req.request_headers, "x-test-mode")
                common = ep.CommonResponse()
                override = None
                if mode == "reroute-headers":
                    common.header_mutation.set_headers.append(_set("x-gateway-route", "gateway"))
                    common.clear_route_cache = True
                    override = PM(request_body_mode=PM.NONE, response_header_mode=PM.SKIP, response_body_mode=PM.NONE)
                yield ep.ProcessingResponse(request_headers=ep.HeadersResponse(response=common), mode_override=override)
            elif kind == "request_body":
                common = ep.CommonResponse()
                if mode in ("reroute-body", "reroute-body-open"):
                    common.header_mutation.set_headers.append(_set("x-gateway-route", "gateway"))
                    common.clear_route_cache = True
                    yield ep.ProcessingResponse(request_body=ep.BodyResponse(response=common))
                    if mode == "reroute-body":
                        return  # clean close: Envoy proceeds without the processor
                    continue
                if mode == "rewrite":
                    original = json.loads(req.request_body.body)
                    new = {
                        "rewritten": True,
                        "stream": original.get("stream", False),
                        "original_size": len(req.request_body.body),
                    }
                    common.header_mutation.set_headers.append(_set(":path", "/v1/chat/completions"))
                    common.header_mutation.remove_headers.append("content-length")
                    common.body_mutation.body = json.dumps(new).encode()
                yield ep.ProcessingResponse(request_body=ep.BodyResponse(response=common))
            elif kind == "response_headers":
                override = None
                if mode == "reroute-body-open":
                    override = PM(response_body_mode=PM.NONE)
                elif _header(req.response_headers, "content-type").startswith("text/event-stream"):
                    override = PM(response_body_mode=PM.STREAMED)
                    streamed = True
                yield ep.ProcessingResponse(response_headers=ep.HeadersResponse(), mode_override=override)
            elif kind == "response_body":
                chunk = req.response_body
                common = ep.CommonResponse()
                if not streamed:  # the whole body at once; its length changes
                    common.header_mutation.remove_headers.append("content-length")
                    common.body_mutation.body = json.dumps({"translated": json.loads(chunk.body)}).encode()
                    yield ep.ProcessingResponse(response_body=ep.BodyResponse(response=common))
                    continue
                self.chunks.append((time.monotonic(), chunk.body, chunk.end_of_stream))
                # Exactly one reply per chunk, the empty end-of-stream one included; a mutation of
                # that last (empty) chunk appends bytes to the stream.
                tail = b"data: [END]\n\n" if chunk.end_of_stream else b""
                common.body_mutation.body = chunk.body.upper() + tail
                yield ep.ProcessingResponse(response_body=ep.BodyResponse(response=common))
            else:  # trailers are SKIP in the config
                raise AssertionError(f"unexpected {kind}")


@dataclass
class Stack:
    url: str
    gateway: Recorder
    inference: Recorder
    processor: Processor


async def _start_envoy(
    tmp: Path, *, extproc_port: int, gateway_port: int, backend_port: int
) -> tuple[subprocess.Popen[bytes], int]:
    envoy_port, admin_port = free_port(), free_port()
    cfg = write_envoy_config(
        tmp / "envoy.yaml",
        envoy_port=envoy_port,
        admin_port=admin_port,
        extproc_port=extproc_port,
        gateway_port=gateway_port,
        backend_url=f"http://127.0.0.1:{backend_port}/v1",
    )
    # Called on the event loop's (main) thread: Envoy dies with the thread that started it.
    proc = start_envoy(cfg, log_level="error", concurrency=1, log_path=tmp / "envoy.log")
    try:
        await wait_envoy_ready(admin_port, 15, proc=proc)
    except Exception:
        stop_envoy(proc)
        raise
    return proc, envoy_port


@pytest_asyncio.fixture(scope="module")
async def upstreams() -> AsyncIterator[tuple[Recorder, int, Recorder, int]]:
    gw, inf = Recorder(), Recorder()
    gw_runner, gw_port = await _serve(_app("gateway", gw))
    inf_runner, inf_port = await _serve(_app("inference", inf))
    yield gw, gw_port, inf, inf_port
    await gw_runner.cleanup()
    await inf_runner.cleanup()


@pytest_asyncio.fixture(scope="module")
async def stack(
    upstreams: tuple[Recorder, int, Recorder, int],
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[Stack]:
    gw, gw_port, inf, inf_port = upstreams
    processor = Processor()
    server = grpc.aio.server()
    ep_grpc.add_ExternalProcessorServicer_to_server(processor, server)
    extproc_port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    proc, envoy_port = await _start_envoy(
        tmp_path_factory.mktemp("live"),
        extproc_port=extproc_port,
        gateway_port=gw_port,
        backend_port=inf_port,
    )
    yield Stack(f"http://127.0.0.1:{envoy_port}", gw, inf, processor)
    stop_envoy(proc)
    await server.stop(None)


@pytest.fixture
def fresh(stack: Stack) -> Stack:
    stack.gateway.seen.clear()
    stack.inference.seen.clear()
    stack.processor.chunks.clear()
    stack.processor.phases.clear()
    return stack


# --------------------------------------------------------------------------- live tests


@pytest.mark.slow
async def test_processor_down(fresh: Stack, upstreams: tuple[Recorder, int, Recorder, int], tmp_path: Path) -> None:
    """ext_proc is off per route for everything but POST /v1/responses, which fails cleanly.
    (A second Envoy, running beside the live stack's: hot restart is off, so they coexist.)"""
    gw, gw_port, inf, inf_port = upstreams
    proc, envoy_port = await _start_envoy(
        tmp_path, extproc_port=free_port(), gateway_port=gw_port, backend_port=inf_port
    )
    try:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{envoy_port}") as s:
            async with s.get("/v1/models") as r:
                assert r.status == 200
                assert (await r.json())["served_by"] == "gateway"
            async with s.get("/v1/responses/resp_1") as r:
                assert r.status == 200
            async with s.post("/v1/responses", json={"model": "m", "input": "hi"}) as r:
                # Envoy 1.40 alone: 500 with an empty body; local_reply_config makes it OpenAI-shaped.
                assert r.status == 503
                assert (await r.json())["error"]["code"] == "processor_unavailable"
            # A client-sent x-gateway-route matches route (1), where ext_proc is off too.
            async with s.post("/v1/responses", json={}, headers={"x-gateway-route": "gateway"}) as r:
                assert r.status == 200
                assert (await r.json())["served_by"] == "gateway"
    finally:
        stop_envoy(proc)
    assert [(m, p) for m, p, _, _ in gw.seen] == [
        ("GET", "/v1/models"),
        ("GET", "/v1/responses/resp_1"),
        ("POST", "/v1/responses"),
    ]
    assert inf.seen == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "phases"),
    [
        ("reroute-headers", ["request_headers"]),
        ("reroute-body", ["request_headers", "request_body"]),
        ("reroute-body-open", ["request_headers", "request_body", "response_headers"]),
    ],
)
async def test_reroute_to_gateway_streams(fresh: Stack, mode: str, phases: list[str]) -> None:
    """A processor-set x-gateway-route + clear_route_cache sends POST /v1/responses to the gateway,
    and the gateway's SSE stream reaches the client unbuffered and untouched by the processor."""
    body = {"model": "m", "input": "hi", "stream": True}
    async with aiohttp.ClientSession(fresh.url) as s:
        async with s.post("/v1/responses", json=body, headers={"x-test-mode": mode}) as r:
            assert r.status == 200
            first = await r.content.readuntil(b"\n\n")
            t_first = time.monotonic()
            rest = await r.read()
            t_end = time.monotonic()
    assert first == b"data: gateway-1\n\n" and rest == b"data: gateway-2\n\n"
    assert t_end - t_first > 0.3, "first event was held back until the end of the stream"
    assert fresh.inference.seen == []
    [(method, path, headers, got)] = fresh.gateway.seen
    assert (method, path, json.loads(got)) == ("POST", "/v1/responses", body)
    assert "x-gateway-route" not in {k.lower() for k in headers}
    assert fresh.processor.phases == phases


@pytest.mark.slow
async def test_rewrite_buffered_body_and_path(fresh: Stack) -> None:
    """BUFFERED request body (over 1 MiB) rewritten with :path; the route stays on inference."""
    body = {"model": "m", "input": "x" * (2 * 1024 * 1024)}
    async with aiohttp.ClientSession(fresh.url) as s:
        async with s.post("/v1/responses", json=body, headers={"x-test-mode": "rewrite"}) as r:
            assert r.status == 200, await r.text()
            expected = {"served_by": "inference", "path": "/v1/chat/completions"}
            assert await r.json() == {"translated": expected}
    assert fresh.gateway.seen == []
    [(method, path, _, got)] = fresh.inference.seen
    assert (method, path) == ("POST", "/v1/chat/completions")
    assert json.loads(got) == {"rewritten": True, "stream": False, "original_size": len(json.dumps(body))}


@pytest.mark.slow
async def test_sse_response_switched_to_streamed(fresh: Stack) -> None:
    """mode_override STREAMED at response headers: each chunk passes the processor as it comes,
    and the reply to the final (empty, end_of_stream) chunk can append bytes."""
    async with aiohttp.ClientSession(fresh.url) as s:
        async with s.post("/v1/responses", json={"stream": True}, headers={"x-test-mode": "rewrite"}) as r:
            assert r.status == 200
            first = await r.content.readuntil(b"\n\n")
            t_first = time.monotonic()
            rest = await r.read()
            t_end = time.monotonic()
    assert first == b"DATA: INFERENCE-1\n\n" and rest == b"DATA: INFERENCE-2\n\ndata: [END]\n\n"
    assert t_end - t_first > 0.3, "first chunk was held back until the end of the stream"
    assert [p for _, p, _, _ in fresh.inference.seen] == ["/v1/chat/completions"]
    bodies = [(b, eos) for _, b, eos in fresh.processor.chunks]
    assert b"".join(b for b, _ in bodies) == b"data: inference-1\n\ndata: inference-2\n\n"
    assert bodies[-1][1] is True and len(bodies) >= 2
