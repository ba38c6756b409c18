"""OpenTelemetry tracing (#31), with an in-process OTLP receiver on each protocol (tests/support/otlp_receiver.py)
and the real stack: Envoy (its own tracer), the ExtProc and the HTTP door as subprocesses.

One trace per request through each door; the span tree and GenAI attributes of a run with an MCP
call, a file_search and a client function call; the backend stand-in receives `traceparent` of the
same trace; a background run is linked to the request that queued it; log lines carry the ids; a
collector that is down changes nothing for clients; with no OTEL_* variables nothing is sent.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

from gateway.process.envoy_runner import validate_envoy_config, write_envoy_config
from gateway.telemetry.envoy_tracing import TracingConfigError
from tests.support.mcp_servers import McpServers, mcp_servers
from tests.support.otlp_receiver import Receiver, Span, receiver
from tests.support.procs import ROOT, Backend, Gateway, free_port
from tests.support.retrieval_helpers import retrieval_env, wait_ingested
from tests.support.stack import EnvoyStack, envoy_stack

MODEL = "scripted-model"
TRACEPARENT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$")
POINTS = json.dumps({"a": {"x": 1, "y": 2}, "b": {"x": 3, "y": 4}})


@pytest.fixture(scope="module")
def servers() -> Iterator[McpServers]:
    with mcp_servers() as s:
        yield s


@pytest.fixture(scope="module", params=["grpc", "http/protobuf"])
def otlp(request: pytest.FixtureRequest) -> Iterator[Receiver]:
    with receiver(request.param) as r:
        yield r


@pytest.fixture(scope="module")
def traced(otlp: Receiver, backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EnvoyStack]:
    """Envoy + ExtProc + HTTP door, all tracing to the receiver; on http/protobuf, with message
    content captured (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)."""
    data = tmp_path_factory.mktemp("traced")
    env = otlp.env(**({CAPTURE: "true"} if captures(otlp) else {}))
    with envoy_stack(backend.url, data, **env, **retrieval_env(backend.url)) as stack:
        yield stack


CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


def captures(otlp: Receiver) -> bool:
    return otlp.protocol == "http/protobuf"


def parse_traceparent(request: dict[str, Any]) -> tuple[str, str]:
    headers = {k.lower(): v for k, v in request["headers"].items()}
    found = TRACEPARENT.match(headers.get("traceparent", ""))
    assert found, f"no traceparent in {headers}"
    return found.group(1), found.group(2)


def whole_tree(got: list[Span], trace_id: str, *names: str) -> bool:
    """The trace's spans `names` are in, and so is every parent its spans name: a trace crosses
    processes (and Envoy) that export in batches of their own, so one span's arrival says nothing of
    another's. A name of 16 hex digits is a span id that must be in."""
    mine = [s for s in got if s.trace_id == trace_id]
    ids = {s.span_id for s in mine}
    have = {s.name for s in mine} | ids
    return all(n in have for n in names) and all(not s.parent_id or s.parent_id in ids for s in mine)


def by_name(spans: list[Span], trace_id: str) -> dict[str, list[Span]]:
    out: dict[str, list[Span]] = {}
    for s in spans:
        if s.trace_id == trace_id:
            out.setdefault(s.name, []).append(s)
    return out


def one(spans: dict[str, list[Span]], name: str) -> Span:
    assert len(spans.get(name, [])) == 1, f"{name}: {spans.get(name)} in {sorted(spans)}"
    return spans[name][0]


def test_http_door_run_tree_with_mcp_file_search_and_function_call(
    traced: EnvoyStack, otlp: Receiver, backend: Backend, servers: McpServers, marker: str
) -> None:
    client = OpenAI(base_url=traced.http_url, api_key="unused", max_retries=0, timeout=30)
    file_id = client.files.create(file=("fruit.txt", io.BytesIO(b"Mangoes ripen in summer.")), purpose="assistants").id
    store = client.vector_stores.create(name="fruit", file_ids=[file_id])
    wait_ingested(client, store.id)
    backend.script(
        marker,
        {
            "tool_calls": [
                {"name": "plain__add_points", "arguments": POINTS},
                {"name": "file_search", "arguments": json.dumps({"queries": ["mangoes"]})},
            ]
        },
        {"tool_calls": [{"name": "get_weather", "arguments": '{"city": "Paris"}'}]},
    )
    tools: Any = [
        {"type": "mcp", "server_label": "plain", "server_url": servers.url("plain"), "require_approval": "never"},
        {"type": "file_search", "vector_store_ids": [store.id]},
        {"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {}}},
    ]
    trace_id, parent_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    resp = client.responses.create(
        model=MODEL,
        input=f"weather and fruit {marker}",
        tools=tools,
        conversation=client.conversations.create().id,
        extra_headers={"traceparent": f"00-{trace_id}-{parent_id}-01"},
    )
    assert resp.status == "completed"
    assert [o.type for o in resp.output] == ["mcp_list_tools", "mcp_call", "file_search_call", "function_call"]
    function_call = resp.output[-1]

    spans = otlp.wait(lambda got: len(by_name(got, trace_id).get("chat scripted-model", [])) == 2)
    spans = otlp.wait(lambda got: "POST /v1/responses" in by_name(got, trace_id))
    named = by_name(spans, trace_id)
    server = one(named, "POST /v1/responses")
    assert server.parent_id == parent_id and server.kind == "server"  # the client's traceparent is the parent
    assert server.attributes["http.request.method"] == "POST"
    assert server.attributes["http.route"] == "/v1/responses"
    assert server.attributes["http.response.status_code"] == 200
    agent = one(named, "invoke_agent")
    assert agent.parent_id == server.span_id
    assert agent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert agent.attributes["gen_ai.response.id"] == resp.id
    assert agent.attributes["gen_ai.conversation.id"] == resp.conversation.id
    assert agent.attributes["gen_ai.usage.output_tokens"] == resp.usage.output_tokens

    chats = sorted(named["chat scripted-model"], key=lambda s: s.attributes["gen_ai.usage.input_tokens"])
    for chat in chats:
        assert chat.parent_id == agent.span_id and chat.kind == "client"
        attrs = chat.attributes
        assert attrs["gen_ai.operation.name"] == "chat"
        assert attrs["gen_ai.provider.name"] == "vllm"
        assert attrs["gen_ai.request.model"] == MODEL and attrs["gen_ai.response.model"] == MODEL
        assert attrs["gen_ai.response.finish_reasons"] == ["tool_calls"]
        assert attrs["gen_ai.usage.input_tokens"] > 0 and attrs["gen_ai.usage.output_tokens"] >= 0
        assert attrs["server.address"] == "127.0.0.1" and attrs["server.port"] == int(backend.url.split(":")[-1][:-3])
        assert attrs["gen_ai.response.time_to_first_chunk"] > 0
    assert function_call.call_id in chats[1].attributes["gateway.tool_call_ids"]
    if captures(otlp):  # prompts and completions only when asked for
        assert marker in chats[0].attributes["gen_ai.input.messages"]
        assert "get_weather" in chats[1].attributes["gen_ai.output.messages"]
    else:
        content = {"gen_ai.input.messages", "gen_ai.output.messages"}
        assert not any(content & set(c.attributes) for c in chats)

    mcp_tool = one(named, "execute_tool plain__add_points")
    search_tool = one(named, "execute_tool file_search")
    for tool, kind in ((mcp_tool, "extension"), (search_tool, "datastore")):
        assert tool.parent_id == agent.span_id
        assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
        assert tool.attributes["gen_ai.tool.type"] == kind
    assert mcp_tool.attributes["gen_ai.tool.name"] == "plain__add_points"
    assert mcp_tool.attributes["gen_ai.tool.call.id"]
    mcp_call = one(named, "tools/call add_points")
    assert mcp_call.parent_id == mcp_tool.span_id and mcp_call.kind == "client"
    assert mcp_call.attributes["mcp.method.name"] == "tools/call"
    search = one(named, "file_search")
    assert search.parent_id == search_tool.span_id
    assert search.attributes["gen_ai.data_source.id"] == store.id
    assert search.attributes["gateway.file_search.hits"] >= 1
    assert search.attributes["gateway.file_search.ranker"]

    # each backend request carried the traceparent of its own chat span
    sent = [parse_traceparent(r) for r in backend.requests_matching(marker) if r["path"].endswith("/chat/completions")]
    assert sorted(sent) == sorted((trace_id, c.span_id) for c in chats)
    assert all(s.service == "responses-gateway" for s in named["invoke_agent"])


def test_envoy_door_is_one_trace_envoy_extproc_backend(
    traced: EnvoyStack, otlp: Receiver, backend: Backend, marker: str
) -> None:
    backend.script(marker, {"content": "hello through envoy", "chunk_size": 4})
    client = OpenAI(base_url=traced.url, api_key="unused", max_retries=0, timeout=30)
    with client.responses.stream(model=MODEL, input=f"hi {marker}") as stream:
        final = stream.get_final_response()
    assert final.output_text == "hello through envoy"
    (request,) = backend.requests_matching(marker)
    trace_id, upstream_parent = parse_traceparent(request)

    # Envoy flushes its spans every 5 s and the ExtProc's stream span ends after its turn's: wait
    # for the whole tree (the spans named below, every parent, the span the backend was told of)
    process_name = "envoy.service.ext_proc.v3.ExternalProcessor/Process"
    spans = otlp.wait(
        lambda got: whole_tree(got, trace_id, process_name, "invoke_agent", "chat scripted-model", upstream_parent), 20
    )
    ours = [s for s in spans if s.trace_id == trace_id]
    ids = {s.span_id: s for s in ours}
    envoy = [s for s in ours if s.service == "responses-gateway-envoy"]
    assert envoy, "Envoy's spans are in the trace"
    root = [s for s in ours if not s.parent_id]
    assert len(root) == 1 and root[0].service == "responses-gateway-envoy"  # Envoy started the trace
    named = by_name(spans, trace_id)
    process = one(named, process_name)
    assert process.kind == "server" and process.parent_id in ids
    rpc = {"rpc.system": "grpc", "rpc.service": "envoy.service.ext_proc.v3.ExternalProcessor", "rpc.method": "Process"}
    assert rpc.items() <= process.attributes.items()  # (from the server span's preset, encoded once)
    assert ids[process.parent_id].service == "responses-gateway-envoy"  # the ExtProc is Envoy's child
    agent = one(named, "invoke_agent")
    assert agent.parent_id == process.span_id and agent.attributes["gen_ai.response.id"] == final.id
    chat = one(named, "chat scripted-model")
    assert chat.parent_id == agent.span_id
    assert chat.attributes["gen_ai.response.finish_reasons"] == ["stop"]
    assert chat.attributes["gen_ai.usage.output_tokens"] == final.usage.output_tokens
    assert "gen_ai.first_chunk" in chat.events
    # Envoy traces: its ingress span's traceparent reaches the backend (no fleet: no upstream span,
    # #31), written by its router after every filter (the ExtProc adds none then)
    assert upstream_parent == root[0].span_id


def test_envoy_door_without_envoy_tracing_sends_the_chat_span_upstream(
    otlp: Receiver, backend: Backend, tmp_path: Path, marker: str
) -> None:
    """The ExtProc traces, Envoy does not: the backend request carries the ExtProc's `chat` span's
    `traceparent` (a header mutation of its own), so the backend still joins the ExtProc's trace."""
    backend.script(marker, {"content": "no envoy tracer"})
    with envoy_stack(backend.url, tmp_path, envoy_otel_env={}, **otlp.env()) as stack:
        client = OpenAI(base_url=stack.url, api_key="unused", max_retries=0, timeout=30)
        final = client.responses.create(model=MODEL, input=f"hi {marker}")
        assert final.output_text == "no envoy tracer"
        (request,) = backend.requests_matching(marker)
        trace_id, upstream_parent = parse_traceparent(request)
        # the ExtProc's stream span ends after the turn's `chat` span, so it may come in a later batch
        process_name = "envoy.service.ext_proc.v3.ExternalProcessor/Process"
        spans = otlp.wait(lambda got: {"chat scripted-model", process_name} <= set(by_name(got, trace_id)))
        # a client's own `traceparent` is the parent then (read from the request headers Envoy
        # forwards); a malformed one is no parent: the ExtProc starts a trace, the request succeeds
        client_trace, client_span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
        joined: dict[str, str] = {}
        for header in (f"00-{client_trace}-{client_span}-01", f"00-{client_trace.upper()}-{client_span}-01", "junk"):
            mark = f"{marker}-{len(joined)}"
            backend.script(mark, {"content": "parented"})
            reply = client.responses.create(model=MODEL, input=f"hi {mark}", extra_headers={"traceparent": header})
            assert reply.output_text == "parented"
            (sent,) = backend.requests_matching(mark)
            joined[header] = parse_traceparent(sent)[0]
        got = otlp.wait(lambda got: all(process_name in by_name(got, t) for t in joined.values()))
    named = by_name(spans, trace_id)
    chat = one(named, "chat scripted-model")
    assert upstream_parent == chat.span_id
    process = one(named, process_name)
    assert process.parent_id == ""  # no Envoy span above it: the ExtProc started the trace
    assert not any(s.service.endswith("-envoy") for s in spans if s.trace_id == trace_id)
    valid, upper, junk = joined.values()
    assert valid == client_trace and one(by_name(got, valid), process_name).parent_id == client_span
    for started in (upper, junk):  # (W3C: hex is lower case) a new trace, its root the ExtProc's span
        assert started != client_trace and one(by_name(got, started), process_name).parent_id == ""


def test_envoy_door_rerouted_tool_loop_joins_the_trace(
    traced: EnvoyStack, otlp: Receiver, backend: Backend, servers: McpServers, marker: str
) -> None:
    backend.script(marker, {"tool_calls": [{"name": "plain__echo", "arguments": '{"text": "x"}'}]}, {"content": "done"})
    client = OpenAI(base_url=traced.url, api_key="unused", max_retries=0, timeout=30)
    tool: Any = {"type": "mcp", "server_label": "plain", "server_url": servers.url("plain")}
    resp = client.responses.create(model=MODEL, input=f"echo {marker}", tools=[{**tool, "require_approval": "never"}])
    assert resp.status == "completed"
    requests = backend.requests_matching(marker)
    trace_ids = {parse_traceparent(r)[0] for r in requests}
    assert len(trace_ids) == 1  # both backend calls of the loop: one trace
    (trace_id,) = trace_ids
    spans = otlp.wait(lambda got: any(s.service.endswith("-envoy") for s in got if s.trace_id == trace_id), 20)

    def parented(got: list[Span]) -> bool:
        """The HTTP door's server span is in, and so is its parent: Envoy batches its spans (a flush
        every few seconds), so the span above the re-routed request may come in a later export."""
        ids = {s.span_id for s in got if s.trace_id == trace_id}
        servers = by_name(got, trace_id).get("POST /v1/responses", [])
        return bool(servers) and all(x.parent_id in ids for x in servers)

    spans = otlp.wait(parented, 20)
    ours = {s.span_id: s for s in spans if s.trace_id == trace_id}
    named = by_name(spans, trace_id)
    assert "envoy.service.ext_proc.v3.ExternalProcessor/Process" in named  # the ExtProc decided to re-route
    server = one(named, "POST /v1/responses")
    assert ours[server.parent_id].service == "responses-gateway-envoy"  # the HTTP door under Envoy's span
    assert one(named, "invoke_agent").parent_id == server.span_id
    assert len(named["chat scripted-model"]) == 2


def test_background_run_is_its_own_trace_linked_to_the_request(
    traced: EnvoyStack, otlp: Receiver, backend: Backend, marker: str
) -> None:
    backend.script(marker, {"content": "later"})
    client = OpenAI(base_url=traced.http_url, api_key="unused", max_retries=0, timeout=30)
    trace_id = "5bf92f3577b34da6a3ce929d0e0e4736"
    queued = client.responses.create(
        model=MODEL,
        input=f"bg {marker}",
        background=True,
        extra_headers={"traceparent": f"00-{trace_id}-00f067aa0ba902b7-01"},
    )
    for _ in range(200):
        if client.responses.retrieve(queued.id).status == "completed":
            break
        time.sleep(0.05)
    spans = otlp.wait(
        lambda got: any(s.name == "invoke_agent" and s.attributes.get("gen_ai.response.id") == queued.id for s in got)
    )
    agent = next(s for s in spans if s.name == "invoke_agent" and s.attributes.get("gen_ai.response.id") == queued.id)
    assert agent.trace_id != trace_id and agent.parent_id == ""  # a trace of its own ...
    assert agent.links == [trace_id]  # ... linked to the request that queued it
    (request,) = backend.requests_matching(marker)
    assert parse_traceparent(request)[0] == agent.trace_id


def test_collector_down_changes_nothing_and_logs_carry_ids(
    backend: Backend, tmp_path: Path, marker: str, servers: McpServers
) -> None:
    """Both doors and Envoy export to a port nothing listens on: every reply is as without tracing,
    as fast; the JSON log lines name the trace."""
    dead = f"http://127.0.0.1:{free_port()}"
    log_path = tmp_path / "doors.log"
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": dead,
        "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
        "OTEL_BSP_SCHEDULE_DELAY": "50",
        "GATEWAY_LOG_FORMAT": "json",
        "GATEWAY_LOG_LEVEL": "INFO",
    }
    with log_path.open("w") as output, envoy_stack(backend.url, tmp_path / "data", output=output, **env) as stack:
        for door in (stack.url, stack.http_url):
            client = OpenAI(base_url=door, api_key="unused", max_retries=0, timeout=10)
            for n in range(3):
                backend.script(f"{marker}-{n}", {"content": f"fine {n}"})
                began = time.monotonic()
                resp = client.responses.create(model=MODEL, input=f"{marker}-{n}")
                assert resp.status == "completed" and resp.output_text == f"fine {n}"
                assert time.monotonic() - began < 2.0
                with client.responses.stream(model=MODEL, input=f"{marker}-{n}") as stream:
                    assert stream.get_final_response().status == "completed"
                backend.script(f"{marker}-{n}", {"content": f"fine {n}"})
    traced_lines = []
    for line in log_path.read_text().splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            if record.get("logger") == "gateway.access" and record.get("route") == "/v1/responses":
                traced_lines.append(record)
    assert traced_lines and all(re.fullmatch(r"[0-9a-f]{32}", r["trace_id"]) for r in traced_lines)
    assert all(re.fullmatch(r"[0-9a-f]{16}", r["span_id"]) for r in traced_lines)


def test_tracing_off_sends_no_traceparent(
    http_gateway: Gateway, session_key: str, backend: Backend, marker: str
) -> None:
    """The session's HTTP door runs without OTEL_* variables: nothing is propagated (nor exported)."""
    client = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0, timeout=30)
    backend.script(marker, {"content": "untraced"})
    assert client.responses.create(model=MODEL, input=marker).output_text == "untraced"
    (request,) = backend.requests_matching(marker)
    assert "traceparent" not in {k.lower() for k in request["headers"]}


@pytest.mark.parametrize("protocol", ["grpc", "http/protobuf"])
def test_envoy_config_traces_only_when_on_and_is_valid(tmp_path: Path, protocol: str) -> None:
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317",
        "OTEL_EXPORTER_OTLP_PROTOCOL": protocol,
        "OTEL_BSP_SCHEDULE_DELAY": "750",
    }
    on = write_envoy_config(tmp_path / "on.yaml", admin_port=9901, otel_env=env)
    validate_envoy_config(on)  # the real Envoy accepts it
    text = on.read_text()
    assert "envoy.tracers.opentelemetry" in text and "otel_collector" in text
    # Envoy batches its exports as the doors do (its own default flushes every 5 spans)
    assert "tracing.opentelemetry.min_flush_spans: 512" in text
    assert "tracing.opentelemetry.flush_interval_ms: 750" in text
    assert ("grpc_service" in text.split("tracing:")[1].split("route_config")[0]) == (protocol == "grpc")
    # a span per upstream attempt only where there can be several (a fleet's retries, #27); with one
    # backend it would be the twin of the ExtProc's `chat` span
    assert "spawn_upstream_span: false" in text
    fleet = [("127.0.0.1", 8001), ("127.0.0.1", 8002)]
    retried = write_envoy_config(tmp_path / "fleet.yaml", admin_port=9901, otel_env=env, fleet_endpoints=fleet)
    validate_envoy_config(retried)
    assert "spawn_upstream_span: true" in retried.read_text()
    off = write_envoy_config(tmp_path / "off.yaml", admin_port=9901, otel_env={})
    assert "tracing:" not in off.read_text() and "otel_collector" not in off.read_text()
    assert "layered_runtime" not in off.read_text()
    with pytest.raises(TracingConfigError):
        write_envoy_config(
            tmp_path / "tls.yaml", admin_port=9901, otel_env={"OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector:4318"}
        )


def test_off_imports_nothing_of_opentelemetry() -> None:
    """Without an endpoint, set-up leaves tracing off and no OpenTelemetry module is loaded by the
    doors' code (the no-op path is a module-global test per call site)."""
    code = (
        "import sys, gateway.http.app, extproc.processor, gateway.telemetry.tracing as t\n"
        "assert t.setup('http', {'OTEL_SERVICE_NAME': 'x'}) is False and not t.ON\n"
        "h = {'a': 'b'}; assert t.inject(h) is h and t.carrier() == {} and t.current_ids() is None\n"
        "assert not [m for m in sys.modules if m.startswith('opentelemetry')], 'imported'\n"
        "off = {'OTEL_EXPORTER_OTLP_ENDPOINT': 'http://127.0.0.1:1', 'OTEL_SDK_DISABLED': 'true'}\n"
        "assert t.setup('http', off) is False and not t.ON\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


KEPT_REASONS = ("stop",)  # a finish reasons tuple kept as `spans._reasons` keeps it (untracked once collected)


def lean_spans(limit: int = 4) -> list[Any]:
    """Ended `LeanSpan`s covering what the encoder must carry: a remote parent with a trace state, a
    local parent, roots, a link with attributes, events, str/int/negative/float/bool/bytes/array/
    mapping/non-ASCII attributes, a None value (never recorded), an error status, a span over its
    attribute limit, a renamed span; spans started from a shared `Preset` (their own attributes
    after it, one setting a preset's key, one over the limit) and ended with `end_with`, the last
    with an error status and a kept finish reasons tuple (a record, once `KEPT_REASONS` is untracked)."""
    from opentelemetry import trace
    from opentelemetry.trace import SpanContext, TraceFlags, TraceState

    from gateway.telemetry.lean_tracer import KINDS, LeanSpan, LeanTracer, Sampler
    from gateway.telemetry.presets import Preset

    tracer = LeanTracer(Sampler("always_on"))
    state = TraceState.from_header(["k=v,x=y"])
    remote = SpanContext(0x4BF92F3577B34DA6A3CE929D0E0E4736, 0x00F067AA0BA902B7, True, TraceFlags(1), state)
    previous = LeanSpan.limit
    LeanSpan.limit = limit
    try:
        server = tracer.start("server", KINDS["server"], {"s": "x", "i": 3, "f": 0.5, "neg": -7}, remote)
        child = tracer.start(
            "child",
            KINDS["client"],
            {"list": ["a", "b"], "ints": [1, 2], "flag": True, "none": None},
            server,
            [trace.Link(server.get_span_context(), {"why": "because"})],
        )
        child.set_attributes({"many": 1, "more": 2, "over": 3})  # over the limit of 4: dropped, counted
        child.add_event("first_chunk")
        child.add_event("with", {"n": 1, "ratio": 1.0, "yes": True})
        child.set_status(trace.Status(trace.StatusCode.ERROR, "boom"))
        child.end()
        server.set_attribute("http.response.status_code", 200)
        server.end()
        root = tracer.start("root", KINDS["internal"], {"café": "crème", "b": b"\x00\x01", "m": {"k": [1]}}, None)
        root.update_name("renamed")
        root.end()
        empty = tracer.start("", KINDS["consumer"], None, None)
        empty.end()
        shared = Preset("chat m", {"p": "x", "q": 1, "gone": None})
        plain = tracer.start(shared.name, KINDS["client"], {"own": 2}, server, preset=shared)
        plain.end_with({"later": 3}, ("gen_ai.first_chunk", 1_700_000_000_000_000_123))
        overridden = tracer.start(shared.name, KINDS["client"], None, server, preset=shared)
        overridden.set_attribute("q", 5)  # a preset's key: the span takes the preset's attributes as its own
        overridden.end_with({"p": "y", "t": 0.25})
        assert shared.attributes == {"p": "x", "q": 1}  # the preset itself is never changed
        full = tracer.start(shared.name, KINDS["client"], {"own": 2}, None, preset=shared)
        full.end_with({"a": 1, "b": 2})  # 2 + 1 + 2 over the limit of 4: the last one dropped
        ended = tracer.start(shared.name, KINDS["client"], None, server, preset=shared)
        ended.end_with({"q": 7})  # a preset's key set at the end
        finished = tracer.start(shared.name, KINDS["client"], {"own": 3}, server, preset=shared)
        finished.set_status(trace.Status(trace.StatusCode.ERROR, "x"))
        finished.end_with({"gen_ai.response.finish_reasons": KEPT_REASONS}, ("gen_ai.first_chunk", 5))
    finally:
        LeanSpan.limit = previous
    return [child, server, root, empty, plain, overridden, full, ended, finished]


def test_lean_encoding_matches_the_sdk_encoder() -> None:
    """`gateway.telemetry.otlp_encode` (what both exporters send) writes the very bytes the OpenTelemetry
    exporters' own encoder serialises for the same spans, given as SDK `ReadableSpan`s; twice (the
    second time from its memo)."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope

    from gateway.telemetry import otlp_encode
    from gateway.telemetry.readable import to_readable

    spans = lean_spans()
    assert spans[0].dropped_attributes == 3 and len(spans[0].attributes) == 4
    resource = Resource.create({"service.name": "svc", "gateway.door": "http", "n": 1}, "https://schema")
    scope = InstrumentationScope("gateway")
    parts = otlp_encode.resource_part(resource.attributes, resource.schema_url), otlp_encode.scope_part("gateway")
    library = encode_spans([to_readable(s, resource, scope) for s in spans]).SerializeToString()
    assert otlp_encode.encode_batch([otlp_encode.span_bytes(s) for s in spans], *parts) == library
    assert otlp_encode.encode_batch([otlp_encode.span_bytes(s) for s in spans], *parts) == library
    decoded = ExportTraceServiceRequest.FromString(library).resource_spans[0].scope_spans[0].spans
    assert [s.name for s in decoded] == ["child", "server", "renamed", "", *["chat m"] * 5]
    assert [kv.key for kv in decoded[4].attributes] == ["p", "q", "own", "later"] and decoded[4].events
    assert {kv.key: kv.value for kv in decoded[5].attributes}["q"].int_value == 5
    assert len(decoded[6].attributes) == 4 and decoded[6].dropped_attributes_count == 1
    assert [(kv.key, kv.value.int_value) for kv in decoded[7].attributes][1] == ("q", 7)
    assert decoded[1].trace_state == "k=v,x=y" and decoded[0].status.message == "boom"
    assert (decoded[8].status.code, decoded[8].status.message) == (2, "x")
    assert decoded[8].attributes[-1].value.array_value.values[0].string_value == "stop"


def test_lean_sampler_decides_as_the_sdk_samplers() -> None:
    """`OTEL_TRACES_SAMPLER`/`_ARG` in the lean tracer: the SDK's decision for every one of its six
    samplers, with and without a (sampled or not) parent, over many trace ids."""
    import random

    from opentelemetry import trace
    from opentelemetry.sdk.trace import sampling
    from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

    from gateway.telemetry.lean_tracer import Sampler

    sdk = {
        "always_on": sampling.ALWAYS_ON,
        "always_off": sampling.ALWAYS_OFF,
        "traceidratio": sampling.TraceIdRatioBased(0.25),
        "parentbased_always_on": sampling.DEFAULT_ON,
        "parentbased_always_off": sampling.DEFAULT_OFF,
        "parentbased_traceidratio": sampling.ParentBasedTraceIdRatio(0.25),
    }
    rng = random.Random(31)
    for name, reference in sdk.items():
        ours = Sampler(name, "0.25")
        for _ in range(300):
            trace_id = rng.getrandbits(128)
            for parent_sampled in (None, True, False):
                parent = None
                if parent_sampled is not None:
                    flags = TraceFlags(TraceFlags.SAMPLED if parent_sampled else TraceFlags.DEFAULT)
                    parent = trace.set_span_in_context(NonRecordingSpan(SpanContext(trace_id, 7, True, flags)))
                expected = reference.should_sample(parent, trace_id, "x").decision.is_sampled()
                assert ours.sampled(trace_id, parent_sampled) == expected, (name, parent_sampled)
    assert Sampler("nonsense").parent_based and Sampler("traceidratio", "2").bound == 1 << 64


def test_lean_span_is_an_api_span_and_not_sampled_spans_propagate() -> None:
    """A lean span works through the OpenTelemetry API (current span, the W3C propagator), and an
    unsampled trace still carries its ids with the sampled flag off, recording nothing."""
    from opentelemetry import context, trace
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    from gateway.telemetry.lean_tracer import KINDS, LeanSpan, LeanTracer, Sampler

    span = LeanTracer(Sampler("always_on")).start("s", KINDS["internal"], None, None)
    assert isinstance(span, LeanSpan) and isinstance(span, trace.Span) and span.is_recording()
    token = context.attach(trace.set_span_in_context(span))
    try:
        assert trace.get_current_span() is span
        out: dict[str, str] = {}
        TraceContextTextMapPropagator().inject(out)
        assert out["traceparent"] == f"00-{span.trace_id:032x}-{span.span_id:016x}-01"
    finally:
        context.detach(token)
    span.end()
    span.set_attribute("late", 1)
    assert not span.is_recording() and "late" not in span.attributes
    off = LeanTracer(Sampler("always_off")).start("s", KINDS["internal"], {"a": 1}, None)
    assert not isinstance(off, LeanSpan) and not off.is_recording()
    assert not off.get_span_context().trace_flags.sampled and off.get_span_context().is_valid
    off.end_with({"b": 2}, ("e", 1))  # what the call sites end every span with: nothing to record


def test_recorder_batches_bounds_and_drains() -> None:
    """The export queue: batches of at most the batch size, a full queue drops (and counts) rather
    than grows, a full batch wakes the export thread before its delay, `stop` exports the rest."""
    import threading

    from gateway.telemetry.lean_tracer import Recorder

    batches: list[list[int]] = []
    exported = threading.Event()

    def export(batch: list[Any]) -> None:
        batches.append(list(batch))
        exported.set()

    recorder = Recorder(export, delay_s=3600, max_queue=10, max_batch=4)
    for i in range(3):
        recorder.add(i, _as_is)
    assert not exported.wait(0.2)  # under a batch, before the delay: nothing sent
    recorder.add(3, _as_is)  # a full batch wakes the thread
    assert exported.wait(5)
    for i in range(4, 20):
        recorder.add(i, _as_is)
    recorder.stop()
    sent = [i for batch in batches for i in batch]
    assert all(len(b) <= 4 for b in batches)
    assert sent == sorted(sent) and len(sent) + recorder.dropped == 20 and recorder.dropped > 0


def _as_is(span: Any) -> Any:
    """The recorder's encoder in tests of the queue alone: the "span" is what gets queued."""
    return span


def test_a_full_queue_drops_a_span_before_encoding_it_and_a_bad_span_alone() -> None:
    """A dead collector fills the queue: each further span is dropped before the encoding work
    (the event loop's cost of a span then is nothing), and a span that fails to encode is dropped
    alone (counted with them), the next one still queued (#31)."""
    from gateway.telemetry.lean_tracer import Recorder

    encoded: list[Any] = []

    def encode(span: Any) -> bytes:
        encoded.append(span)
        if span == "bad":
            raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")
        return str(span).encode()

    recorder = Recorder(lambda batch: None, delay_s=3600, max_queue=2, max_batch=100)
    try:
        for span in ("a", "bad", "b", "c", "d"):
            recorder.add(span, encode)
        assert list(recorder.queue) == [b"a", b"b"]
        assert encoded == ["a", "bad", "b"] and recorder.dropped == 3  # bad, then c and d
    finally:
        recorder.stop()


def test_an_ended_span_leaves_nothing_the_collector_tracks() -> None:
    """A span waits in the export queue for its batch (up to `OTEL_BSP_SCHEDULE_DELAY`): what waits
    is its OTLP bytes, which the garbage collector never tracks, not the span with its dicts and
    lists, which outlived the young collections and fed the full ones (#31). The span itself is
    freed as soon as its caller lets go of it."""
    import gc
    import weakref

    from gateway.telemetry import otlp_encode
    from gateway.telemetry.lean_tracer import KINDS, LeanSpan, LeanTracer, Recorder, Sampler
    from gateway.telemetry.presets import Preset

    recorder = Recorder(lambda batch: None, delay_s=3600, max_queue=100, max_batch=100)
    previous = LeanSpan.recorder
    LeanSpan.recorder = recorder
    try:
        tracer = LeanTracer(Sampler("always_on"))
        server = tracer.start("server", KINDS["server"], {"url.path": "/v1/responses", "list": ["a"]}, None)
        chat = tracer.start("chat m", KINDS["client"], {"own": 1}, server, preset=Preset("chat m", {"p": "x"}))
        chat.end_with({"gen_ai.response.finish_reasons": ["stop"], "n": 3}, ("gen_ai.first_chunk", 1))
        server.add_event("with", {"k": [1, 2]})
        server.end()
        expected = [otlp_encode.span_bytes(chat), otlp_encode.span_bytes(server)]
        gone = weakref.ref(chat), weakref.ref(server)
        del chat, server
        assert [ref() for ref in gone] == [None, None]
        queued = list(recorder.queue)
        assert queued == expected
        assert not any(gc.is_tracked(item) for item in queued)
    finally:
        LeanSpan.recorder = previous
        recorder.stop()


def test_recorder_sends_full_batches_while_spans_keep_coming() -> None:
    """Spans that arrive while a batch is on the wire wait for the next full batch (or the
    schedule's tick), as the SDK's batch processor does: draining until the queue was empty sent a
    stream of exports of a span or two under load, each costing an HTTP request's CPU (#31)."""
    import threading

    from gateway.telemetry.lean_tracer import Recorder

    sizes: list[int] = []
    done = threading.Event()  # never set: waited on for a while
    recorder: Recorder

    def export(batch: list[Any]) -> None:  # traffic goes on during the first two exports: a span each
        sizes.append(len(batch))
        if len(sizes) <= 2:
            recorder.add(len(sizes), _as_is)

    recorder = Recorder(export, delay_s=3600, max_queue=1000, max_batch=4)
    for i in range(4):
        recorder.add(i, _as_is)  # a full batch wakes the thread
    assert not done.wait(0.5)
    assert sizes == [4]  # the one span that came during the export waits for a batch of its own
    for i in range(3):
        recorder.add(i, _as_is)
    assert not done.wait(0.5)
    assert sizes == [4, 4]
    recorder.stop()  # the final flush sends the rest, whatever its size
    assert sizes == [4, 4, 1]


def test_extract_and_inject_match_the_api_propagator() -> None:
    """The W3C fast paths (`tracing.extract` of a lone `traceparent`, `tracing.inject` under a lean
    span) give what the API's `TraceContextTextMapPropagator` gives, malformed headers included."""
    code = """
from opentelemetry import trace
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
import gateway.telemetry.tracing as t
assert t.setup("http", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
api = TraceContextTextMapPropagator()
ok = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
cases = [ok, ok[:-2] + "00", " " + ok, ok.upper(), "ff" + ok[2:], ok + "-x", "01" + ok[2:] + "-x",
         "00-" + "0" * 32 + "-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-" + "0" * 16 + "-01",
         "junk", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "x" * 600]
# the canonical length (55), where a header is read by slicing: what `int(x, 16)` would accept
# and the pattern does not (a sign, "0x", "_", spaces, upper case), dashes moved, other flags
tid, sid = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
cases += [f"00-{tid}-{sid}-{f}" for f in ("03", "ff", "fe", "0F", "0g", "+1", " 1")]
cases += [f"00-{t_}-{sid}-01" for t_ in ("+" + tid[1:], "-" + tid[1:], "0x" + tid[2:], tid[:8] + "_" + tid[9:],
                                          " " + tid[1:], tid[:-1] + " ", tid[:5] + "A" + tid[6:])]
cases += [f"00-{tid}-{s_}-01" for s_ in ("+" + sid[1:], "0x" + sid[2:], sid[:4] + "_" + sid[5:], "0" * 15 + "1")]
cases += ["00_" + ok[3:], ok[:35] + "_" + ok[36:], ok[:52] + "x" + ok[53:], "01" + ok[2:], "0f" + ok[2:], "ff" + ok[2:]]
assert sum(len(c) == 55 for c in cases) >= 25
for header in cases:
    ours = t.extract({"traceparent": header})
    theirs = trace.get_current_span(api.extract({"traceparent": header})).get_span_context()
    assert (ours if ours is not None else trace.INVALID_SPAN_CONTEXT) == theirs, header
    if ours is not None:
        assert ours.is_remote and ours.trace_flags == theirs.trace_flags and ours.is_valid
        assert type(ours.trace_flags) is type(theirs.trace_flags) and ours.trace_state == theirs.trace_state
state = t.extract({"traceparent": ok, "tracestate": "k=v"})
assert state is not None and state.trace_state.to_header() == "k=v"
span = t.start_span("s", parent=state)
token = t.attach(span)
expected = {}
api.inject(expected)
assert t.carrier() == expected and expected["tracestate"] == "k=v", (t.carrier(), expected)
t.detach(token)
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_start_under_a_traceparent_is_start_span_under_extract() -> None:
    """`tracing.start_under` (the ExtProc's server span: Envoy's `traceparent` read without a
    `SpanContext`) makes the span `start_span(parent=extract(...))` makes, for every header shape
    (malformed, all-zero ids, unsampled flags, a `tracestate`, none) and sampler."""
    code = """
import gateway.telemetry.tracing as t
from gateway.telemetry import lean_tracer
assert t.setup("extproc", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
ok = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
cases = [(ok, ""), (ok[:-2] + "00", ""), (ok[:-2] + "03", ""), (ok[:-2] + "02", ""), (" " + ok, ""), (ok.upper(), ""),
         ("ff" + ok[2:], ""), (ok + "-x", ""), ("01" + ok[2:] + "-x", ""), ("00-" + "0" * 32 + ok[35:], ""),
         (ok[:36] + "0" * 16 + "-01", ""), ("junk", ""), (ok[:-3], ""), ("", ""), (None, ""), (ok, "k=v"),
         (ok[:-2] + "00", "k=v"), (None, "k=v")]
p = t.preset("s", {"rpc.system": "grpc"})
def shape(span):
    if isinstance(span, lean_tracer.LeanSpan):
        s = span
        return ("lean", s.trace_id, s.parent_id, s.parent_remote, s.kind, s.trace_state_header, s.attributes)
    ctx = span.get_span_context()  # (an unsampled span's type too: the call sites end it with `end_with`)
    return ("off", type(span).__name__, ctx.trace_id, ctx.trace_flags, ctx.trace_state.to_header(), span.is_recording())
for sampler, arg in (("always_on", None), ("parentbased_always_on", None), ("always_off", None),
                     ("parentbased_traceidratio", "0.5"), ("traceidratio", "0.0")):
    t._tracer.sampler = lean_tracer.Sampler(sampler, arg)
    for header, state in cases:
        ours = t.start_under("s", "server", {"a": 1}, header, state)
        carrier = {k: v for k, v in (("traceparent", header), ("tracestate", state)) if v}
        parent = t.extract(carrier)
        if parent is None:  # a new trace (random ids: a ratio sampler decides by them), its root
            assert not isinstance(ours, lean_tracer.LeanSpan) or (ours.parent_id, ours.parent_remote) == (0, None)
            continue
        theirs = t.start_span("s", "server", {"a": 1}, parent=parent)
        assert shape(ours) == shape(theirs), (sampler, header, state, shape(ours), shape(theirs))
        # from a preset (the ExtProc's server span): the same span, the preset's attributes first
        ours = t.start_under("s", "server", {}, header, state, p)
        theirs = t.start_span("s", "server", None, parent=parent, preset=p)
        assert shape(ours) == shape(theirs), (sampler, header, state)
        if isinstance(ours, lean_tracer.LeanSpan):
            ours.set_attribute("a", 1)
            assert (ours.preset, ours.all_attributes()) == (p, {"rpc.system": "grpc", "a": 1})
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_encoded_attributes_match_the_library_on_edge_values() -> None:
    """The attribute encoding of presets, the resource, events and links writes the library's bytes
    where equal values encode apart (0.0 and -0.0) and drops an int protobuf cannot carry (beyond
    int64), as the library drops it, instead of wrapping it (a span's own attributes: below)."""
    from opentelemetry.exporter.otlp.proto.common._internal import _encode_attributes
    from opentelemetry.proto.resource.v1.resource_pb2 import Resource as PB2Resource

    from gateway.telemetry import otlp_encode

    cases: list[dict[str, Any]] = [
        {"z": 0.0},
        {"z": -0.0},
        {"z": 0.0},
        {"big": 2**63, "ok": 1},
        {"small": -(2**63) - 1, "edge": 2**63 - 1},
        {"edge": -(2**63)},
        {"huge": 2**64 + 5},
    ]
    for attrs in cases:
        library = PB2Resource(attributes=_encode_attributes(attrs)).SerializeToString()
        assert b"".join(otlp_encode.attributes(b"\x0a", attrs)) == library, attrs


def test_span_attributes_match_the_library_through_each_memo_path() -> None:
    """A span's own attributes (`otlp_encode.span_attributes`, a memo per key) encode as the library
    does whether a value is met first, again (memoised) or past a key's memo bound (written out):
    equal values of other types (1, 1.0, True), 0.0 and -0.0, strings whose UTF-8 length differs
    from their length, at and across the one-byte length limit, ints beyond int64 dropped."""
    from opentelemetry.exporter.otlp.proto.common._internal import _encode_attributes
    from opentelemetry.proto.trace.v1.trace_pb2 import Span as PB2Span

    from gateway.telemetry import otlp_encode

    cases: list[dict[str, Any]] = [
        {"n": 1, "b": True},
        {"n": 1.0, "b": 1},
        {"n": True, "b": 1.0},
        {"z": 0.0, "w": -0.0, "nan": float("nan")},
        {"z": -0.0},
        {"s": "café", "k€y": "€" * 40},
        {"s": "x" * 100, "t": ("stop", "length"), "u": ("a", 1)},
        {"s": "y" * 300, "long key " * 20: "v"},
        {"big": 2**63, "ok": -5, "l": ["a", "b"]},
    ]
    for attrs in cases * 2:  # met first, then from the memo
        library = PB2Span(attributes=_encode_attributes(attrs)).SerializeToString()
        assert b"".join(otlp_encode.span_attributes(tuple(attrs), tuple(attrs.values()))) == library, attrs
    for i in range(otlp_encode._KEY_VALUES + 5):  # past the key's bound: written out, not memoised
        attrs = {"id": f"resp_{i:040d}", "count": i}
        library = PB2Span(attributes=_encode_attributes(attrs)).SerializeToString()
        assert b"".join(otlp_encode.span_attributes(tuple(attrs), tuple(attrs.values()))) == library, attrs


def test_span_attributes_match_the_library_when_the_memo_bounds_are_small(monkeypatch: Any) -> None:
    """With the memo's bounds shrunk (a few keys, values and heads), every path past a bound (a key's
    memo full and started again, a key's heads full, the key table cleared) still writes the library's
    bytes, for strings at the one-, two- and three-byte length limits, bools, ints, tuples and floats;
    and a full key's memo starts again rather than keeping its first values for good."""
    import random

    from opentelemetry.exporter.otlp.proto.common._internal import _encode_attributes
    from opentelemetry.proto.trace.v1.trace_pb2 import Span as PB2Span

    from gateway.telemetry import otlp_encode

    monkeypatch.setattr(otlp_encode, "_KEYS_MAX", 3)
    monkeypatch.setattr(otlp_encode, "_KEY_VALUES", 5)
    monkeypatch.setattr(otlp_encode, "_KEY_HEADS", 3)
    monkeypatch.setattr(otlp_encode, "_by_key", {})
    rng = random.Random(31)
    lengths = [0, 1, 127, 128, 200, 16383, 16384, 70000]
    values: list[Any] = [True, False, 0, 1, -1, 2**40, 0.5, -0.0, ("stop",), ("a", "b"), "é" * 70]
    for _ in range(600):
        attrs: dict[str, Any] = {}
        for key in rng.sample(["k0", "k1", "k2", "k3", "k4"], 3):
            attrs[key] = rng.choice(values) if rng.random() < 0.4 else "x" * rng.choice(lengths)
        library = PB2Span(attributes=_encode_attributes(attrs)).SerializeToString()
        assert b"".join(otlp_encode.span_attributes(tuple(attrs), tuple(attrs.values()))) == library, attrs
    monkeypatch.setattr(otlp_encode, "_by_key", {})
    for i in range(12):
        otlp_encode.span_attributes(("id",), (f"v{i}",))
    memo = otlp_encode._by_key["id"][0]
    assert "v0" not in memo and "v11" in memo and len(memo) <= 5
