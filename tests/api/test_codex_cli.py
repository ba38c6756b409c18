"""The real Codex CLI (`@openai/codex` from npm, pinned in tests/clients) against the gateway,
through both doors, with the scripted backend as its model: a plain answer and a shell-command
round trip (Codex runs the command the model asked for and sends its output back), an
`apply_patch` round trip (Codex applies the model's patch to its workspace), and auto-compaction
(`model_auto_compact_token_limit` small): a custom provider compacts locally (Codex's own summary
prompt, an ordinary request); a provider named "OpenAI" with the `remote_compaction_v2` feature
sends a `compaction_trigger` and continues from the gateway's compaction item."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.support.procs import AUTH, ROOT, Backend, Gateway
from tests.support.stack import EnvoyStack

CODEX = ROOT / "tests" / "clients" / "node_modules" / ".bin" / "codex"
pytestmark = pytest.mark.slow


def codex(
    base_url: str, prompt: str, tmp_path: Path, *flags: str, name: str = "Responses Gateway", config: str = ""
) -> subprocess.CompletedProcess[str]:
    home, work = tmp_path / "codex-home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    (home / "config.toml").write_text(
        'model = "scripted-model"\n'
        'model_provider = "gateway"\n'
        f"{config}"
        "[model_providers.gateway]\n"
        f'name = "{name}"\n'
        f'base_url = "{base_url}"\n'
        'wire_api = "responses"\n'
        'env_key = "GATEWAY_TEST_KEY"\n'
    )
    env = {
        **os.environ,
        "CODEX_HOME": str(home),
        "GATEWAY_TEST_KEY": AUTH["Authorization"].removeprefix("Bearer "),
        "NO_COLOR": "1",
    }
    return subprocess.run(
        [str(CODEX), "exec", "--skip-git-repo-check", *flags, prompt],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(params=["http", "envoy"])
def base_url(request: pytest.FixtureRequest, http_gateway: Gateway) -> str:
    if request.param == "envoy":
        stack: EnvoyStack = request.getfixturevalue("envoy")
        return stack.url
    return http_gateway.url


def test_codex_exec_plain_answer(base_url: str, backend: Backend, marker: str, tmp_path: Path) -> None:
    backend.script(marker, {"content": f"hello from the gateway {marker}"})
    done = codex(base_url, f"say hello {marker}", tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"hello from the gateway {marker}" in done.stdout
    sent = backend.requests_matching(marker)[0]["body"]
    names = {t["function"]["name"] for t in sent["tools"]}
    assert "exec_command" in names  # Codex's tools reached the model as functions


def test_codex_exec_runs_a_shell_command(base_url: str, backend: Backend, marker: str, tmp_path: Path) -> None:
    call = {"name": "exec_command", "arguments": json.dumps({"cmd": f"echo ran-{marker}"})}
    backend.script(marker, {"tool_calls": [call]}, {"content": f"finished {marker}"})
    done = codex(base_url, f"run it {marker}", tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"finished {marker}" in done.stdout
    second = backend.requests_matching(marker)[-1]["body"]["messages"]
    assert second[-1]["role"] == "tool" and f"ran-{marker}" in second[-1]["content"]  # Codex ran it


def test_codex_exec_applies_a_patch(base_url: str, backend: Backend, marker: str, tmp_path: Path) -> None:
    """The model edits files the way Codex expects: an `apply_patch` patch (Codex's own grammar) that
    Codex parses, applies to its workspace and reports back to the model. Codex offers no separate
    apply_patch tool to a model it has no metadata for, so the patch travels in its shell tool, which
    Codex intercepts; its `workspace-write` sandbox lets it write the workspace."""
    patch = f"*** Begin Patch\n*** Add File: notes.txt\n+written by {marker}\n*** End Patch\n"
    call = {"name": "exec_command", "arguments": json.dumps({"cmd": f"apply_patch <<'EOF'\n{patch}EOF\n"})}
    backend.script(marker, {"tool_calls": [call]}, {"content": f"patched {marker}"})
    done = codex(base_url, f"patch it {marker}", tmp_path, "--sandbox", "workspace-write")
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "work" / "notes.txt").read_text() == f"written by {marker}\n"
    assert f"patched {marker}" in done.stdout
    result = backend.requests_matching(marker)[-1]["body"]["messages"][-1]
    assert result["role"] == "tool" and "Success. Updated the following files:\nA notes.txt" in result["content"]


# -- auto-compaction ---------------------------------------------------------------------------------
COMPACT_SOON = "model_auto_compact_token_limit = 500\n"  # Codex's prompt alone passes it: compacts mid-turn


def texts(body: dict[str, Any]) -> str:
    return json.dumps(body["messages"])


def test_codex_auto_compaction_custom_provider(base_url: str, backend: Backend, marker: str, tmp_path: Path) -> None:
    """Codex's source keeps remote compaction for its own OpenAI provider (and Azure); a custom
    provider compacts locally: its summary prompt is an ordinary request, then the turn goes on
    from the summary."""
    call = {"name": "exec_command", "arguments": json.dumps({"cmd": f"echo ran-{marker}"})}
    summary, done_text = f"SUMMARY-{marker}", f"finished {marker}"
    backend.script(marker, {"tool_calls": [call]}, {"content": summary}, {"content": done_text})
    done = codex(base_url, f"run it {marker}", tmp_path, config=COMPACT_SOON)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done_text in done.stdout
    _first, compacting, after = (r["body"] for r in backend.requests_matching(marker))
    assert "CONTEXT CHECKPOINT COMPACTION" in texts(compacting)  # Codex's own summary prompt
    assert summary in texts(after) and f"ran-{marker}" not in texts(after)


@contextmanager
def recording_proxy(target: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A plain HTTP relay in front of a door that keeps every JSON request body Codex sends."""
    seen: list[dict[str, Any]] = []

    class Relay(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            seen.append({"path": self.path, "body": json.loads(body)})
            skip = ("host", "content-length", "connection")
            headers = {k: v for k, v in self.headers.items() if k.lower() not in skip}
            request = urllib.request.Request(target + self.path, data=body, method="POST", headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=60) as resp:
                    status, kind, data = resp.status, resp.headers.get("content-type", ""), resp.read()
            except urllib.error.HTTPError as err:
                status, kind, data = err.code, err.headers.get("content-type", ""), err.read()
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Relay)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def test_codex_remote_compaction_v2(base_url: str, backend: Backend, marker: str, tmp_path: Path) -> None:
    """Codex's remote compaction v2 (a provider named "OpenAI", the feature on): it sends a
    `compaction_trigger`, takes exactly one compaction item back, and continues from it."""
    call = {"name": "exec_command", "arguments": json.dumps({"cmd": f"echo ran-{marker}"})}
    summary, done_text = f"SUMMARY-{marker}", f"finished {marker}"
    backend.script(marker, {"tool_calls": [call]}, {"content": summary}, {"content": done_text})
    door = base_url.removesuffix("/v1")
    with recording_proxy(door) as (relay, seen):
        config = COMPACT_SOON + "[features]\nremote_compaction_v2 = true\n"
        done = codex(f"{relay}/v1", f"run it {marker}", tmp_path, name="OpenAI", config=config)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done_text in done.stdout
    kinds = [[i.get("type") for i in r["body"]["input"]] for r in seen]
    assert [r["path"] for r in seen] == ["/v1/responses"] * 3
    assert kinds[1][-1] == "compaction_trigger" and "compaction" in kinds[2]  # the item it got back, sent back
    compacting, after = (r["body"] for r in backend.requests_matching(marker)[1:])
    assert "You compact conversations" in texts(compacting) and "compaction_trigger" not in json.dumps(compacting)
    assert summary in texts(after) and f"ran-{marker}" not in texts(after)
    assert "You are a coding agent" in texts(after)  # Codex's instructions (developer messages) stay
