"""The composition root (#25): one typed `Runtime` per process, one start order, one teardown,
entered by every door.

In-process: the capabilities the settings and the door switch on, the start order and its reverse
teardown (also when a start step fails half way: the usage recorder is flushed and the store closed,
seen in the SQLite file). Through the real processes: the HTTP server, the ExtProc (behind Envoy)
and the stdio MCP server each enter the same Runtime (their lifecycle lines) and its teardown
flushes their usage ledgers on SIGTERM. Statically: no string service keys on the aiohttp app and
no `deps: Any`. docs/ARCHITECTURE.md's "Wiring" tables are compared with the code.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

from gateway import usage
from gateway.config import Settings, load_settings
from gateway.engine.service import ResponsesService
from gateway.runtime import Door, Runtime
from storage.sqlite.conn import sqlite3
from tests.support.procs import ROOT, VENV_BIN, Backend, gateway_env
from tests.support.stack import envoy_stack
from tests.support.waiting import until

MODEL = "scripted-model"
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"


def _settings(tmp_path: Path, backend_url: str = "http://127.0.0.1:9/v1", **extra: Any) -> Settings:
    return load_settings(env={}, backend_url=backend_url, data_dir=str(tmp_path), **extra)


def _ledger(db: Path) -> list[tuple[str, str]]:
    """(door, model) of every usage record in the SQLite file."""
    with closing(sqlite3.connect(db)) as c:
        return [(str(d), str(m)) for d, m in c.execute("SELECT door, model FROM usage_records")]


def _wal(db: Path) -> bool:
    """Whether the SQLite file's WAL is there: SQLite removes it when the last connection closes."""
    return Path(f"{db}-wal").exists()


def _expected(door: Door, tmp_path: Path) -> tuple[list[str], list[str]]:
    """What a door's runtime opens (every step, in order) and closes (those with a close, reversed)."""
    steps = Runtime.build(_settings(tmp_path), door).steps()
    return [s.name for s in steps], [s.name for s in reversed(steps) if s.close is not None]


# -- capabilities ----------------------------------------------------------------------------------
def test_the_door_switches_the_optional_capabilities_on_and_off(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    http, extproc, mcp, cli = (Runtime.build(settings, d) for d in (Door.HTTP, Door.EXTPROC, Door.MCP, Door.CLI))
    assert http.responses is not None and http.ingestion is not None and http.research is not None
    assert extproc.responses is not None and extproc.ingestion is None and extproc.research is None
    assert mcp.responses is None and mcp.ingestion is not None and mcp.research is None
    assert cli.responses is None and cli.ingestion is None and cli.research is None
    for rt in (http, extproc, mcp, cli):  # the engine's view is the runtime's own parts, not copies
        assert rt.engine.stores is rt.stores and rt.engine.retrieval is rt.retrieval
        assert rt.engine.mcp_sessions is rt.mcp_sessions and rt.engine.research is rt.research
        assert rt.retrieval.kg is rt.knowledge and rt.tools is rt.engine.tools
        assert rt.backend.http is rt.backend_client  # one backend client for every inference call
        assert {"file_search_call", "web_search_call", "mcp_call"} <= set(rt.tools.converters)
        assert rt.tracing is False  # no OTEL_* endpoint in this process


def test_the_settings_choose_the_store_and_the_backend(tmp_path: Path) -> None:
    sqlite_rt = Runtime.build(_settings(tmp_path), Door.HTTP)
    assert type(sqlite_rt.store).__name__ == "SQLiteStore" and sqlite_rt.engine.stores is sqlite_rt.stores
    assert type(sqlite_rt.backend).__name__ == "ChatCompletionsBackend"
    # building opens nothing: an unreachable database is fine until the runtime runs
    pg = Runtime.build(_settings(tmp_path, database_url="postgresql://u@127.0.0.1:9/none"), Door.HTTP)
    assert type(pg.store).__name__ == "PostgresStore"
    assert type(pg.usage.ledger).__name__ == "PostgresUsageStore" and type(pg.keys).__name__ == "PostgresKeyStore"
    assert type(pg.retrieval.files).__name__ == "PostgresFileStore"  # every family on the one database
    responses = Runtime.build(_settings(tmp_path, backend_api="responses"), Door.EXTPROC)
    assert type(responses.backend).__name__ == "ResponsesBackend"
    fleet = Runtime.build(
        _settings(tmp_path, backends=[{"name": "a", "urls": ["http://127.0.0.1:9/v1"], "models": ["m"]}]), Door.HTTP
    )
    assert type(fleet.backend).__name__ == "FleetBackend"


# -- one start order, one teardown -----------------------------------------------------------------
async def test_teardown_closes_in_reverse_and_flushes_the_ledger(tmp_path: Path, backend: Backend) -> None:
    settings = _settings(tmp_path, backend.url, usage_flush_seconds=60)  # no periodic flush in the test
    opened, closed = _expected(Door.HTTP, tmp_path)
    async with Runtime.start(settings, Door.HTTP) as rt:
        assert rt.opened == opened and rt.closed == []
        assert await rt.store.ping()
        usage.record(MODEL, {"prompt_tokens": 3, "completion_tokens": 4}, source="test")
    assert rt.closed == closed
    assert closed[0] == "responses" and closed[-1] == "stores" and closed.index("usage") == len(closed) - 2
    assert not _wal(settings.db_path)  # the last connection closed (SQLite removes the WAL)
    assert [m for _d, m in _ledger(settings.db_path)] == [MODEL]


async def test_a_start_step_failing_half_way_closes_what_opened(
    tmp_path: Path, backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Responses service fails to start (the last step): everything before it is closed in
    reverse, the usage recorded meanwhile is written, the store is closed, and the error surfaces."""

    async def failing_start(self: ResponsesService) -> list[str]:
        usage.record(MODEL, {"prompt_tokens": 1, "completion_tokens": 2}, source="test")
        raise RuntimeError("the service could not start")

    monkeypatch.setattr(ResponsesService, "start", failing_start)
    settings = _settings(tmp_path, backend.url, usage_flush_seconds=60)
    opened, closed = _expected(Door.HTTP, tmp_path)
    rt = Runtime.build(settings, Door.HTTP)
    with pytest.raises(RuntimeError, match="could not start"):
        async with rt.run():
            raise AssertionError("the body must not run")
    assert rt.opened == opened[:-1]  # every step before `responses`
    assert rt.closed == [name for name in closed if name != "responses"]
    assert not _wal(settings.db_path)
    assert [m for _d, m in _ledger(settings.db_path)] == [MODEL]


# -- every door enters it --------------------------------------------------------------------------
def _lines(text: str, door: str) -> tuple[list[str], list[str]]:
    """The steps a door's lifecycle lines name: `runtime (door) opened: a, b` / `closed: ...`."""
    found: dict[str, list[str]] = {}
    for what in ("opened", "closed"):
        m = re.search(rf"runtime \({door}\) {what}: ([a-z_, ]*)", text)
        assert m is not None, f"no `runtime ({door}) {what}` line in:\n{text[-3000:]}"
        found[what] = [s.strip() for s in m.group(1).split(",") if s.strip()]
    return found["opened"], found["closed"]


@pytest.mark.slow
def test_both_doors_enter_the_runtime_and_flush_their_ledger_on_stop(
    backend: Backend, tmp_path: Path, marker: str
) -> None:
    """A turn through Envoy (the ExtProc) and one through the HTTP server, then SIGTERM: each door's
    teardown writes its queued usage (60 s flush period: only the stop writes it)."""
    backend.script(marker, {"content": "hello"}, {"content": "hello"})
    log = tmp_path / "doors.log"
    with log.open("w") as out, envoy_stack(backend.url, tmp_path, output=out, GATEWAY_USAGE_FLUSH_SECONDS="60") as st:
        for base in (st.url, st.http_url):
            client = OpenAI(base_url=base, api_key="x", max_retries=0)
            assert client.responses.create(model=MODEL, input=f"hi {marker}").output_text == "hello"
        assert _ledger(tmp_path / "gateway.db") == []  # queued, not yet written
    # the ledger's door label: "envoy" for what came in through Envoy (the ExtProc's turns), "http" direct
    assert sorted(door for door, _m in _ledger(tmp_path / "gateway.db")) == ["envoy", "http"]
    text = log.read_text()
    for door in (Door.HTTP, Door.EXTPROC):
        assert _lines(text, door) == _expected(door, tmp_path)


@pytest.mark.slow
def test_the_stdio_mcp_server_enters_the_runtime(backend: Backend, tmp_path: Path) -> None:
    env = gateway_env(backend.url, tmp_path)
    proc = subprocess.Popen(
        [str(VENV_BIN / "responses-gateway"), "mcp"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stderr is not None
    first = until(
        lambda: proc.stderr.readline() if proc.stderr else "",
        lambda line: "runtime (mcp)" in line,
        timeout=60,
        what="the stdio server's runtime opening",
    )
    proc.stdin.close()  # end of the protocol stream: the server stops, the runtime closes
    rest = proc.stderr.read()
    assert proc.wait(30) == 0
    assert _lines(first + rest, "mcp") == _expected(Door.MCP, tmp_path)


# -- statically ------------------------------------------------------------------------------------
STRING_KEY = re.compile(r"""\bapp\[\s*["']|\bapp\.get\(\s*["']|["']\w+["']\s+(not\s+)?in\s+(request\.)?app\b""")
UNTYPED = re.compile(r"\b(deps|runtime|rt|service|store|retrieval|models|queue)\s*:\s*Any\b|\bsetattr\(")


def _product_sources() -> list[Path]:
    return [p for top in ("gateway", "extproc") for p in (ROOT / top).rglob("*.py") if "/pb/" not in str(p)]


def test_no_string_service_keys_no_untyped_deps_no_setattr() -> None:
    offending = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
        for p in _product_sources()
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if STRING_KEY.search(line) or UNTYPED.search(line)
    ]
    assert offending == []


# -- docs/ARCHITECTURE.md's Wiring section ---------------------------------------------------------
def _table(heading: str) -> list[list[str]]:
    """The rows (cells stripped of backticks) of the first table after `heading` in ARCHITECTURE."""
    text = ARCHITECTURE.read_text()
    start = text.index(heading)
    rows: list[list[str]] = []
    for line in text[start:].splitlines()[1:]:
        if line.startswith("|"):
            cells = [c.strip().strip("`").replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
            if not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif rows:
            break
    return rows[1:]  # without the header


def test_architecture_lists_every_runtime_field(tmp_path: Path) -> None:
    rows = _table("#### Runtime fields")
    fields = {f.name: f for f in dataclasses.fields(Runtime)}
    assert [r[0] for r in rows] == list(fields)
    for name, type_name, *_ in rows:  # the type column is the annotation
        assert type_name == fields[name].type, name


def test_architecture_lists_the_start_order_and_who_enters(tmp_path: Path) -> None:
    rows = _table("#### Start order")
    steps = {d: Runtime.build(_settings(tmp_path), d).steps() for d in Door}
    assert [r[0] for r in rows] == [s.name for s in steps[Door.HTTP]]
    for name, opens, closes, doors in rows:  # "-" where the step does nothing at that end, for every door
        of_name = {d: next(s for s in steps[d] if s.name == name) for d in Door}
        assert (opens.split(" ")[0] == "-") == all(s.open is None for s in of_name.values()), name
        assert (closes.split(" ")[0] == "-") == all(s.close is None for s in of_name.values()), name
        active = [d.value for d, s in of_name.items() if s.open is not None or s.close is not None]
        assert doors == ("all" if len(active) == len(Door) else ", ".join(active)), name
    for door, module, *_ in _table("#### Doors"):
        source = (ROOT / module).read_text()
        assert f"Door.{Door(door).name}" in source and "Runtime." in source, (door, module)
