"""The Envoy external processor: POST /v1/responses translated inside Envoy's filter chain.

One gRPC stream per HTTP request; everything the request needs (the prepared request, the run, the
SSE parser) lives in an `Exchange` owned by that stream, so nothing travels in headers.

    request_headers   continue (an empty body is a 400 at once)
    request_body      validate and prepare with the engine; either
                      - re-route to the gateway HTTP cluster (tool loop, background, a Responses
                        backend: several backend calls or a detached run cannot ride one upstream
                        request) and end the gRPC stream, so the gateway's SSE passes unbuffered, or
                      - start the run and rewrite the body into a streamed chat completion request
    response_headers  200 + SSE for a streaming client: switch the body to STREAMED; otherwise keep
                      it BUFFERED (errors and non-streaming replies are rendered from the whole body)
    response_body     chat chunks -> Responses events (one reply per message; the parser holds a
                      partial SSE event until the next chunk); the terminal events ride the reply to
                      the final, empty end-of-stream chunk

Whatever happens (client gone, Envoy reset, a bug) the run ends with a terminal status in storage.

The stream's state and its phases live in `exchange.py` (`Exchange`, over `request_phase.py`), the
protobuf replies in `replies.py`; this module is the gRPC servicer: the per-process configuration,
the stream loop (tracing, drain, the key watcher) and what ends a run whose stream ended first.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from extproc import tracing as extproc_tracing
from extproc.exchange import Exchange
from extproc.fleet import EndpointPicker
from extproc.keywatch import watch_silence
from extproc.ops import SHUTTING_DOWN, Observation
from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2 as ep
from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as ep_grpc
from extproc.replies import backend_timed_out, immediate, set_header
from gateway.auth.authenticator import Authenticator
from gateway.auth.slots import TenantSlots
from gateway.engine.context import EngineDeps, Prepared
from gateway.engine.run_lifecycle import interrupted
from gateway.engine.service import ResponsesService
from gateway.inference.client import BackendClient
from gateway.research.models import is_research
from gateway.telemetry import tracing
from gateway.tools.tool_search import is_server_search
from storage.scope import act_for, project_scope

ROUTE_HEADER = "x-gateway-route"  # matched by route (1) of envoy/envoy.yaml.tmpl
# Client credentials for the gateway must not reach the inference backend.
_CLIENT_HEADERS = ("authorization", "openai-organization", "openai-project")


class ExternalProcessor(ep_grpc.ExternalProcessorServicer):
    """What Envoy's ext_proc filter calls: one `Process` stream per `POST /v1/responses`."""

    def __init__(
        self,
        deps: EngineDeps,
        service: ResponsesService,
        auth: Authenticator,
        client: BackendClient | None = None,
    ) -> None:
        self.deps = deps
        self.service = service
        settings = deps.settings
        self.auth = auth
        self.backend = settings.backend_base
        self.chat_path = (urlsplit(settings.backend_base).path.rstrip("/") or "") + "/chat/completions"
        self.translate = settings.backend_api == "chat_completions" or bool(settings.backends)
        self.fleet = bool(settings.backends)
        # The request mutation is the same for every request: build it once, copy it per request.
        m = ep.HeaderMutation(
            set_headers=[set_header(":path", self.chat_path), set_header("content-type", "application/json")],
            remove_headers=["content-length"],
        )
        if settings.backend_api_key:
            m.set_headers.append(set_header("authorization", f"Bearer {settings.backend_api_key}"))
            m.remove_headers.extend(h for h in _CLIENT_HEADERS if h != "authorization")
        else:
            m.remove_headers.extend(_CLIENT_HEADERS)
        m.remove_headers.append(settings.auth_project_header.lower())  # the caller's, not the backend's business
        self.request_mutation = m
        # A fleet (#27): this process picks the replica with the gateway's policy and names it to Envoy
        # (extproc/fleet.py); without the client (a bare processor) a fleet's turns go to the HTTP server.
        self.endpoints = EndpointPicker(client, m) if client is not None and self.fleet else None
        self.reroute_mutation = ep.HeaderMutation(set_headers=[set_header(ROUTE_HEADER, "gateway")])
        self._finishing: set[asyncio.Task[Any]] = set()
        self.draining = False  # SIGTERM: new requests get 503, streams in flight go on
        # open requests per tenant (#26): the streams this process serves itself never reach the HTTP
        # server's count; a request it sends there is released here when its stream ends (at once)
        self.slots = TenantSlots(settings.max_concurrent_per_tenant)
        self.active = 0

    def needs_gateway(self, prepared: Prepared) -> bool:
        """Requests one upstream request cannot serve go to the gateway HTTP server instead."""
        req = prepared.req
        # truncation "auto" may need a second backend call with a shorter context: the HTTP
        # server's run can make it, a request already forwarded by Envoy cannot.
        if req.background or not self.translate or req.truncation == "auto" or is_research(req.model):
            return True
        if prepared.compact_now or req.compact_threshold is not None:  # a summary call before (or instead of) the turn
            return True
        if self.fleet and (self.endpoints is None or self.endpoints.pool(prepared.response["model"]) is None):
            return True  # a Responses-API pool, an unknown model, replicas named by host: the HTTP server
        tools = self.deps.tools
        return any(tools.is_server_side(t) or is_server_search(t) for t in req.tools or [])

    async def Process(
        self, request_iterator: AsyncIterator[ep.ProcessingRequest], context: Any
    ) -> AsyncIterator[ep.ProcessingResponse]:
        ex = Exchange(self)
        obs = Observation()
        self.active += 1
        act_for(None)  # this stream's task acts for the caller's project once its headers were read
        span = token = None
        handler = asyncio.current_task()
        watch: asyncio.Task[None] | None = None
        try:
            try:
                async for msg in request_iterator:
                    ex.reading = False
                    began = time.perf_counter()
                    if tracing.ON and span is None:  # the stream's span, current while it lasts
                        span, ex.envoy_traces = extproc_tracing.server_span(context, msg)
                        ex.span = span
                        token = tracing.attach(span)
                    if self.draining and ex.run is None:
                        reply, last = immediate(503, SHUTTING_DOWN), True
                    else:
                        project = ex.project
                        reply, last = await ex.handle(msg)
                        if ex.project != project:
                            act_for(ex.project)
                    obs.saw(msg, reply, last, began)
                    if ex.run is not None:
                        obs.response_status(ex.run.id, ex.status, ex.streamed)
                        if watch is None and handler is not None and self.auth.enabled and not last:
                            # the key is re-checked while the backend is silent too (extproc/keywatch.py)
                            period = max(0.1, self.auth.ttl)
                            watch = asyncio.get_running_loop().create_task(watch_silence(ex, period, handler))
                    yield reply
                    if last:
                        return
                    ex.reading = True
            except asyncio.CancelledError:
                if ex.revoked is None or handler is None:
                    raise
                handler.uncancel()  # cancelled by the watcher: the key was revoked while Envoy sent nothing
                yield await ex.end_revoked(ex.revoked)
        finally:
            if watch is not None:
                watch.cancel()
            self.active -= 1
            if ex.admission is not None:  # whatever ended the stream: the unspent tokens go back
                ex.admission.settle()
            if ex.tenant is not None:
                self.slots.release(ex.tenant)
            if ex.replica is not None:
                EndpointPicker.done(ex.replica)
            obs.done()
            if ex.run is not None and not ex.run.finished:
                self._finish_abandoned(ex)
            if span is not None:
                ex.end_chat(None)
                tracing.detach(token)
                span.end()

    def _finish_abandoned(self, ex: Exchange) -> None:
        """The stream ended before the response did (client gone, Envoy reset, shutdown).

        Runs in its own task: this may be a cancelled handler, which must not await any more.
        """
        run, turn = ex.run, ex.turn
        assert run is not None
        if turn is not None and not turn.closed:
            turn.abort()
        # Envoy ends a stream whose backend stayed silent for the read timeout (the route's
        # idle_timeout) without saying why; the silence tells it apart from a client that left.
        silent = time.monotonic() - ex.last_seen
        timeout = self.deps.settings.backend_read_timeout
        err = interrupted() if silent < timeout * 0.9 else backend_timed_out(timeout)
        ex.end_chat(err)
        with project_scope(ex.project):
            task = asyncio.get_running_loop().create_task(run.finish("failed", error=err), name=f"finish-{run.id}")
        self._finishing.add(task)
        task.add_done_callback(self._finishing.discard)

    async def drain(self) -> None:
        """Wait for abandoned runs to be stored (at shutdown)."""
        while self._finishing:
            await asyncio.gather(*list(self._finishing), return_exceptions=True)
