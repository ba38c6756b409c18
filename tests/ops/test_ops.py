"""Operations end to end: metrics through each door, JSON logs, graceful drain, several workers.

Each test runs the real processes (scripted backend, ExtProc, HTTP server, Envoy) and reads what an
operator would read: `/metrics`, the log lines, status codes during a SIGTERM.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI
from prometheus_client.parser import text_string_to_metric_families

from storage.sqlite.conn import sqlite3
from tests.support.procs import (
    ROOT,
    START_TIMEOUT_S,
    VENV_BIN,
    Backend,
    free_port,
    free_port_run,
    gateway,
    gateway_env,
    scripted_backend,
    stop,
)
from tests.support.stack import EnvoyStack, envoy_stack
from tests.support.waiting import until

pytestmark = pytest.mark.slow

MODEL = "scripted-model"
CLIENT_KEY = "sk-client-" + "S3CR3T" * 4
BACKEND_KEY = "sk-backend-" + "K3YK3Y" * 4


def sdk(url: str, **headers: str) -> OpenAI:
    return OpenAI(base_url=url, api_key=CLIENT_KEY, max_retries=0, timeout=30, default_headers=headers or None)


def mk() -> str:
    return f"ops-{uuid.uuid4().hex[:10]}"


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def samples(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    status, _h, body = get(base + "/metrics")
    assert status == 200
    out = {}
    for family in text_string_to_metric_families(body.decode()):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def total(values: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return sum(v for (n, ls), v in values.items() if n == name and all((k, labels[k]) in ls for k in labels))


def settled(base: str, done: Callable[[dict[Any, float]], bool], timeout: float = 5.0) -> dict[Any, float]:
    """The metrics once ``done`` holds for them (or after ``timeout``: the caller's asserts then fail)."""
    deadline = time.monotonic() + timeout
    while True:
        values = samples(base)
        if done(values) or time.monotonic() > deadline:
            return values
        time.sleep(0.05)


def access_lines(log: Path, done: Callable[[list[dict[str, Any]]], bool], timeout: float = 5.0) -> list[dict[str, Any]]:
    """Every record of the log once ``done`` holds for them (the access line follows the reply)."""
    deadline = time.monotonic() + timeout
    while True:
        records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
        if done(records) or time.monotonic() > deadline:
            return records
        time.sleep(0.05)


@pytest.fixture(scope="module")
def vllm() -> Iterator[Backend]:
    with scripted_backend(MODEL) as b:
        yield b


@pytest.fixture(scope="module")
def logged(vllm: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EnvoyStack, Path]]:
    """A stack logging JSON at INFO into one file, with a backend key (a secret it must not log)."""
    data = tmp_path_factory.mktemp("ops-stack")
    log = data / "doors.log"
    with (
        log.open("wb") as out,
        envoy_stack(
            vllm.url,
            data / "data",
            output=out,
            GATEWAY_LOG_FORMAT="json",
            GATEWAY_LOG_LEVEL="INFO",
            GATEWAY_BACKEND_API_KEY=BACKEND_KEY,
        ) as stack,
    ):
        yield stack, log


def test_a_request_through_each_door_moves_the_counters(vllm: Backend, logged: tuple[EnvoyStack, Path]) -> None:
    stack, _log = logged
    base = stack.http.base
    before = samples(base)
    m = mk()
    vllm.script(m, {"content": "one two three", "usage": {"completion_tokens": 3}})
    assert sdk(stack.http_url).responses.create(model=MODEL, input=m).status == "completed"
    m2 = mk()
    vllm.script(m2, {"content": "four five six seven"})
    events = list(sdk(stack.url).responses.create(model=MODEL, input=m2, stream=True))
    assert events[-1].type == "response.completed"
    tokens = events[-1].response.usage.output_tokens
    m3 = mk()
    vllm.script(m3, {"status": 500, "error": "the GPU fell over"})
    failed = post(stack.url + "/responses", {"model": MODEL, "input": m3})
    assert failed[0] == 502
    # a door records a request as its reply leaves, which may be just after the client has it
    after = settled(base, lambda s: total(s, "gateway_requests_total") - total(before, "gateway_requests_total") >= 3)

    def moved(name: str, **labels: str) -> float:
        return total(after, name, **labels) - total(before, name, **labels)

    req = "gateway_requests_total"
    assert moved(req, door="http", route="/v1/responses", method="POST", status="200") == 1
    assert moved(req, door="extproc", route="/v1/responses", method="POST", status="200") == 1
    assert moved(req, door="extproc", route="/v1/responses", status="502") == 1
    assert moved("gateway_request_duration_seconds_count", door="extproc", route="/v1/responses") == 2
    assert moved("gateway_added_latency_seconds_count", door="http") == 1
    assert moved("gateway_time_to_first_event_seconds_count", door="extproc") == 1
    assert moved("gateway_streamed_tokens_total", door="extproc") == tokens > 0
    assert moved("gateway_backend_errors_total", door="extproc") == 1
    assert total(after, "gateway_active_streams") == 0
    for name in ("gateway_background_queue", "gateway_ingestion_backlog", "gateway_research_queue"):
        assert any(n == name for n, _ in after), name
    # a streamed response through the HTTP door: active while open, first event timed
    m4 = mk()
    vllm.script(m4, {"content": "a b c d e f", "chunk_delay": 0.1})
    seen_active: list[float] = []
    for event in sdk(stack.http_url).responses.create(model=MODEL, input=m4, stream=True):
        if event.type == "response.output_text.delta" and not seen_active:
            seen_active.append(total(samples(base), "gateway_active_streams", door="http"))
    assert seen_active == [1]
    final = settled(base, lambda s: total(s, "gateway_active_streams") == 0)
    assert total(final, "gateway_time_to_first_event_seconds_count", door="http") >= 1
    assert total(final, "gateway_active_streams") == 0


def test_json_logs_parse_carry_ids_and_hold_no_secret(vllm: Backend, logged: tuple[EnvoyStack, Path]) -> None:
    stack, log = logged
    m = mk()
    vllm.script(m, {"content": "logged"})
    rid = f"rid-{uuid.uuid4().hex[:8]}"
    direct = sdk(stack.http_url, **{"x-request-id": rid}).responses.create(model=MODEL, input=m)
    m2 = mk()
    vllm.script(m2, {"content": "logged too"})
    via_envoy = sdk(stack.url).responses.create(model=MODEL, input=m2)
    bad = post(stack.url + "/responses", {"model": MODEL, "input": m, "tools": [{"type": "nope"}]})
    assert bad[0] == 400
    records = access_lines(  # every line is one JSON object
        log,
        lambda rs: (
            {direct.id, via_envoy.id} <= {r.get("response_id") for r in rs if r["logger"] == "gateway.access"}
            and any(r.get("status") == "400" for r in rs)
        ),
    )
    text = log.read_text()
    for secret in (CLIENT_KEY, BACKEND_KEY, "S3CR3T", "K3YK3Y"):
        assert secret not in text
    access = [r for r in records if r["logger"] == "gateway.access"]
    mine = [r for r in access if r.get("request_id") == rid]
    assert len(mine) == 1
    assert mine[0] | {"duration_ms": 0} == mine[0] | {
        "door": "http",
        "route": "/v1/responses",
        "method": "POST",
        "status": 200,
        "response_id": direct.id,
        "duration_ms": 0,
    }
    ext = [r for r in access if r.get("response_id") == via_envoy.id]
    assert len(ext) == 1 and ext[0]["door"] == "extproc" and ext[0]["status"] == "200"
    assert len(ext[0]["request_id"]) >= 16  # Envoy's x-request-id
    assert any(r["door"] == "extproc" and r["status"] == "400" for r in access)
    for r in records:
        assert {"ts", "level", "logger", "msg"} <= r.keys()


def test_drain_lets_streams_finish_and_refuses_new_requests(vllm: Backend, tmp_path: Path) -> None:
    with envoy_stack(vllm.url, tmp_path / "data", GATEWAY_DRAIN_SECONDS="150") as stack:
        # a drain far longer than the exit is waited for: a door that waited out its drain after its
        # streams finished (instead of exiting with them) fails the wait below
        for door, proc, url in (
            ("http", stack.http.proc, stack.http_url),
            ("extproc", stack.extproc, stack.url),
        ):
            m = mk()
            vllm.script(m, {"content": "slow words keep coming for a while now", "chunk_delay": 0.15})
            events: list[Any] = []
            reader = threading.Thread(
                target=lambda url=url, m=m, events=events: events.extend(
                    sdk(url).responses.create(model=MODEL, input=m, stream=True)
                )
            )
            reader.start()
            deadline = time.monotonic() + 10
            while not any(e.type == "response.output_text.delta" for e in list(events)):
                assert time.monotonic() < deadline, door
                time.sleep(0.02)
            proc.send_signal(signal.SIGTERM)
            # a request sent before the signal is handled is still served; once draining, every one is refused
            late = {"model": MODEL, "input": "after the signal"}
            status, body = until(lambda u=url, b=late: post(u + "/responses", b), lambda r: r[0] != 200, what="drain")
            assert (status, body["error"]["code"]) == (503, "shutting_down")
            if door == "http":
                assert get(stack.http.base + "/ready")[0] == 503
                assert get(stack.http.base + "/health")[0] == 200
            reader.join(20)
            assert events[-1].type == "response.completed", door
            assert events[-1].response.output_text == "slow words keep coming for a while now"
            assert proc.wait(60) == 0, door  # a clean exit once the stream ends, not at the drain's end
        # the streamed responses were stored completed: nothing left in progress
        with sqlite3.connect(stack.data_dir / "gateway.db") as db:
            statuses = {s for (s,) in db.execute("SELECT status FROM responses")}
        assert statuses == {"completed"}


def test_two_workers_share_the_port_and_the_database(vllm: Backend, tmp_path: Path) -> None:
    with gateway(vllm.url, tmp_path / "http", GATEWAY_WORKERS="2") as gw:
        seen: dict[str, str] = {}
        m = mk()
        vllm.script(m, {"content": "made by one worker"})
        deadline = time.monotonic() + 60  # until the kernel has spread connections to both workers
        created: dict[str, Any] | None = None
        while time.monotonic() < deadline and (created is None or len(seen) < 2):
            if created is None:
                req = urllib.request.Request(
                    gw.url + "/responses",
                    data=json.dumps({"model": MODEL, "input": m}).encode(),
                    headers={"Content-Type": "application/json"},
                )
                with urllib.request.urlopen(req, timeout=10) as resp:
                    created = json.loads(resp.read())
                    seen[resp.headers["x-gateway-worker"]] = "create"
                continue
            status, headers, body = get(f"{gw.url}/responses/{created['id']}")  # a new connection each time
            assert status == 200
            worker = headers["x-gateway-worker"]
            if worker not in seen:
                seen[worker] = "read"
                assert json.loads(body)["output"][0]["content"][0]["text"] == "made by one worker"
        assert sorted(seen) == ["0", "1"] and sorted(seen.values()) == ["create", "read"]


def test_two_extproc_workers_behind_envoy(vllm: Backend, tmp_path: Path) -> None:
    # the ExtProc workers listen on extproc_port and extproc_port + 1; Envoy balances per request
    with envoy_stack(vllm.url, tmp_path / "data", GATEWAY_WORKERS="2") as stack:
        ids = []
        for i in range(6):
            m = mk()
            vllm.script(m, {"content": f"answer {i}"})
            ids.append(sdk(stack.url).responses.create(model=MODEL, input=m).id)
        for rid in ids:  # written by either ExtProc worker, read through either HTTP worker
            assert sdk(stack.url).responses.retrieve(rid).status == "completed"
        _s, _h, clusters = get(f"http://127.0.0.1:{stack.admin_port}/clusters")
        served = {
            line.split("::")[1]: int(line.rsplit("::", 1)[1])
            for line in clusters.decode().splitlines()
            if line.startswith("extproc::") and "::rq_total::" in line
        }
        assert len(served) == 2 and all(n >= 1 for n in served.values()), served
        assert total(samples(stack.http.base), "gateway_requests_total", door="extproc", status="200") == 6


def test_the_images_healthcheck_command(logged: tuple[EnvoyStack, Path]) -> None:
    """`responses-gateway healthcheck` (the Dockerfile's HEALTHCHECK) against a live stack and a dead port."""
    stack, _log = logged
    env = {**stack.env, "GATEWAY_ENVOY_PORT": str(stack.envoy_port)}
    cmd = [str(VENV_BIN / "responses-gateway"), "healthcheck"]
    assert subprocess.run(cmd, env=env, capture_output=True, timeout=30, check=False).returncode == 0
    assert subprocess.run([*cmd, "--ready"], env=env, capture_output=True, timeout=30, check=False).returncode == 0
    dead = {**env, "GATEWAY_ENVOY_PORT": str(free_port())}
    assert subprocess.run(cmd, env=dead, capture_output=True, timeout=30, check=False).returncode == 1


def test_up_with_workers_drains_in_order_and_logs_only_json(vllm: Backend, tmp_path: Path) -> None:
    """The supervisor: 2 workers per door, JSON logs from every process (Envoy's too); SIGTERM
    during a stream through Envoy: new requests are refused, the stream completes, `up` exits 0."""
    names = ("ENVOY_PORT", "HTTP_PORT", "ENVOY_ADMIN_PORT")
    ports = {name: free_port() for name in names}
    ports["EXTPROC_PORT"] = free_port_run(2)  # two workers: two consecutive ports
    env = gateway_env(
        vllm.url,
        tmp_path / "data",
        GATEWAY_WORKERS="2",
        # far longer than the exit is waited for: a pool that kept its workers draining after their
        # streams finished fails the wait, instead of exiting 0 at the drain's end
        GATEWAY_DRAIN_SECONDS="150",
        GATEWAY_LOG_FORMAT="json",
        GATEWAY_LOG_LEVEL="INFO",
        GATEWAY_BACKEND_API_KEY=BACKEND_KEY,
        **{f"GATEWAY_{k}": str(v) for k, v in ports.items()},
    )
    log = tmp_path / "up.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(VENV_BIN / "responses-gateway"), "up"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S  # start-up under load; a child's exit fails at once
        while "ready on" not in log.read_text():
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        url = f"http://127.0.0.1:{ports['ENVOY_PORT']}/v1"
        m = mk()
        vllm.script(m, {"content": "the supervisor waits for this stream", "chunk_delay": 0.15})
        events: list[Any] = []
        reader = threading.Thread(
            target=lambda: events.extend(sdk(url).responses.create(model=MODEL, input=m, stream=True))
        )
        reader.start()
        while not any(e.type == "response.output_text.delta" for e in list(events)):
            assert time.monotonic() < deadline + 10
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        # a request sent before the signal is handled is still served; once draining, every one is refused
        status, body = until(
            lambda: post(url + "/responses", {"model": MODEL, "input": "too late"}), lambda r: r[0] != 200, what="drain"
        )
        assert (status, body["error"]["code"]) == (503, "shutting_down")
        reader.join(20)
        assert events[-1].type == "response.completed"
        assert proc.wait(60) == 0
    finally:
        stop(proc, timeout=5)
    text = log.read_text()
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert BACKEND_KEY not in text and CLIENT_KEY not in text
    assert any(r["logger"] == "gateway.lifecycle" and "worker 1" in r["msg"] for r in records)
    assert any(r.get("door") == "extproc" and r.get("status") == "503" for r in records)
