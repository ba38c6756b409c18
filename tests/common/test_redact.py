"""No secret leaves the gateway: not in error bodies, stored responses, echoed tools, connectors or logs.

Through both doors, with every process's log captured: a backend whose error text quotes the
gateway's own backend key (a value that does not look like a key at all), and MCP server URLs that
carry credentials in the userinfo and the query.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from openai import OpenAI

from gateway.common.redact import REDACTED, redact, redact_url, register
from tests.support.mcp_servers import McpServers, mcp_servers
from tests.support.procs import Backend
from tests.support.stack import EnvoyStack, envoy_stack

MODEL = "scripted-model"
BACKEND_KEY = "plainvalue-backend-credential-31337"
URL_PASSWORD = "hunter2-url-password"
URL_TOKEN = "query-token-8c41f"


@pytest.fixture(scope="module")
def servers() -> Iterator[McpServers]:
    with mcp_servers() as s:
        yield s


@pytest.fixture(scope="module")
def stack(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EnvoyStack, Path]]:
    data = tmp_path_factory.mktemp("redact")
    log = data / "doors.log"
    with (
        log.open("w") as out,
        envoy_stack(backend.url, data, output=out, GATEWAY_BACKEND_API_KEY=BACKEND_KEY, GATEWAY_LOG_LEVEL="INFO") as s,
    ):
        yield s, log


def test_backend_error_quoting_the_key_is_redacted(stack: tuple[EnvoyStack, Path], backend: Backend) -> None:
    s, log = stack
    for n, url in enumerate((s.http_url, s.url)):
        marker = f"leak-{n}"
        backend.script(marker, *[{"status": 500, "error": f"upstream rejected Authorization with {BACKEND_KEY}"}] * 2)
        c = OpenAI(base_url=url, api_key="x", max_retries=0)
        with pytest.raises(openai.APIStatusError) as info:
            c.responses.create(model=MODEL, input=marker)
        text = json.dumps(info.value.body)
        assert BACKEND_KEY not in text and REDACTED in text, text
        events = list(c.responses.create(model=MODEL, input=marker, stream=True))
        assert BACKEND_KEY not in json.dumps([e.model_dump() for e in events])
        stored = c.responses.retrieve(events[-1].response.id)  # type: ignore[union-attr]
        assert stored.status == "failed" and stored.error is not None
        assert BACKEND_KEY not in stored.error.message
    assert BACKEND_KEY not in log.read_text()


def test_mcp_url_credentials_are_used_but_never_shown(
    stack: tuple[EnvoyStack, Path], backend: Backend, servers: McpServers
) -> None:
    s, log = stack
    port = servers.ports["plain"]
    secret_url = f"http://alice:{URL_PASSWORD}@127.0.0.2:{port}/mcp?token={URL_TOKEN}&x=1"
    down_url = f"http://alice:{URL_PASSWORD}@127.0.0.2:{servers.down_port}/mcp?token={URL_TOKEN}"
    for n, url in enumerate((s.http_url, s.url)):
        c = OpenAI(base_url=url, api_key="x", max_retries=0)
        marker = f"creds-{n}"
        backend.script(
            marker, {"tool_calls": [{"name": "plain__echo", "arguments": '{"text": "hi"}'}]}, {"content": "ok"}
        )
        tool = {"type": "mcp", "server_label": "plain", "server_url": secret_url, "require_approval": "never"}
        r = c.responses.create(model=MODEL, input=marker, tools=[tool])  # type: ignore[list-item]
        assert [o.type for o in r.output] == ["mcp_list_tools", "mcp_call", "message"]  # the URL worked
        shown = json.dumps(r.model_dump()) + json.dumps(c.responses.retrieve(r.id).model_dump())
        assert URL_PASSWORD not in shown and URL_TOKEN not in shown, shown
        assert r.tools[0].server_url == f"http://[redacted]@127.0.0.2:{port}/mcp?token=[redacted]&x=1"  # type: ignore[union-attr]
        # a server that cannot be reached: the error item names the URL without its credentials
        backend.script(f"down-{n}", {"content": "no tools"})
        down = {**tool, "server_url": down_url, "server_label": "down"}
        failed = c.responses.create(model=MODEL, input=f"down-{n}", tools=[down])  # type: ignore[list-item]
        text = json.dumps(failed.model_dump())
        assert URL_PASSWORD not in text and URL_TOKEN not in text
        conn = c.post("/connectors", body={"name": f"c{n}", "server_url": secret_url}, cast_to=dict)
        got = c.get(f"/connectors/{conn['id']}", cast_to=dict)
        assert URL_PASSWORD not in json.dumps([conn, got]) and URL_TOKEN not in json.dumps([conn, got])
        backend.script(
            f"conn-{n}", {"tool_calls": [{"name": "c__echo", "arguments": '{"text": "x"}'}]}, {"content": "ok"}
        )
        via = {"type": "mcp", "server_label": "c", "connector_id": conn["id"], "require_approval": "never"}
        used = c.responses.create(model=MODEL, input=f"conn-{n}", tools=[via])  # type: ignore[list-item]
        assert [o.type for o in used.output] == ["mcp_list_tools", "mcp_call", "message"]  # real URL kept
    logged = log.read_text()
    assert URL_PASSWORD not in logged and URL_TOKEN not in logged


def test_redaction_rules() -> None:
    register(["configured-secret-value"])
    assert redact("x configured-secret-value y") == f"x {REDACTED} y"
    assert "abc.def" not in redact("Authorization: Bearer abc.def") and redact("Bearer abc.def") == f"Bearer {REDACTED}"
    assert redact("key sk-proj-abcdef123456") == f"key {REDACTED}"
    assert redact("see https://bob:pw@host/x") == f"see https://{REDACTED}@host/x"
    assert redact('{"api_key": "v1", "access_token": "v2", "monkey": "ok"}') == (
        f'{{"api_key": "{REDACTED}", "access_token": "{REDACTED}", "monkey": "ok"}}'
    )
    assert (
        redact_url("https://u:p@h.example:8443/p?token=t&page=2")
        == f"https://{REDACTED}@h.example:8443/p?token={REDACTED}&page=2"
    )
    assert redact_url("https://h.example/p?q=plain") == "https://h.example/p?q=plain"


def test_internal_addresses_are_hidden_from_clients_and_public_ones_kept() -> None:
    """`hide_internal` (a backend's words on their way to a client): internal URLs, non-global
    addresses, cluster names and the configured upstreams' hosts go; public hosts, version numbers,
    times and the software's name stay."""
    from gateway.common.redact import INTERNAL, hide_internal, register_hosts

    register_hosts(["http://inference-svc:8000/v1", "https://embedder.corp.example/v1"])
    hidden = {
        "connect to http://vllm-0.vllm.svc.cluster.local:8000/v1/chat failed": "vllm-0",
        "Cannot connect to host inference-svc:8000 ssl:default": "inference-svc:8000",
        "remote 10.2.3.4:8000 reset": "10.2.3.4",
        "peer 172.20.0.5 and 192.168.1.9": "172.20.0.5",
        "ipv6 [fd00::1]:8000": "fd00::1",
        "node ip-10-0-0-1.ec2.internal down": "ec2.internal",
        "embedder.corp.example:443 said no": "embedder.corp.example",
        "see http://127.0.0.1:9/x": "127.0.0.1",
        "connection refused by 10.0.0.5.": "10.0.0.5",  # a full stop after an address is the sentence's
        "Could not resolve host vllm-0.vllm.svc.cluster.local.": "vllm-0",
        "mapped [::ffff:10.0.0.1]:80": "10.0.0.1",
    }
    for text, gone in hidden.items():
        shown = hide_internal(text)
        assert gone not in shown and INTERNAL in shown, (text, shown)
    kept_texts = (
        "resolver 8.8.8.8 said no",
        "see https://docs.vllm.ai/en/latest",
        "vLLM 0.10.2 at 12:30:45",
        "in threading.local and torch.internal",
        "a :: b and pi is 3.14159.",
    )
    for kept in kept_texts:
        assert hide_internal(kept) == kept
    assert hide_internal("the inference-svc model") == "the inference-svc model"  # a bare name needs its port


def test_hiding_internal_addresses_stays_linear_on_hostile_text() -> None:
    """A backend's body is not ours to trust: runs of dots, colons or hyphens must not make the
    patterns backtrack quadratically (an unbounded URL scheme did: 20,000 chars took 2 s)."""
    import time

    from gateway.common.redact import hide_internal

    for text in ("a." * 100_000, "a-" * 100_000, "a:" * 100_000, "1." * 100_000, "fd00:" * 40_000):
        started = time.perf_counter()
        hide_internal(text)
        assert time.perf_counter() - started < 5.0, text[:10]  # quadratic: minutes; linear: ~0.1 s
