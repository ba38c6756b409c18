"""The real Codex CLI (`@openai/codex` from npm, pinned in tests/clients) against the gateway,
through both doors, with the scripted backend as its model: a plain answer and a shell-command
round trip (Codex runs the command the model asked for and sends its output back) and an
`apply_patch` round trip (Codex applies the model's patch to its workspace)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.procs import AUTH, ROOT, Backend, Gateway
from tests.stack import EnvoyStack

CODEX = ROOT / "tests" / "clients" / "node_modules" / ".bin" / "codex"
pytestmark = pytest.mark.slow


def codex(base_url: str, prompt: str, tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    home, work = tmp_path / "codex-home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    (home / "config.toml").write_text(
        'model = "scripted-model"\n'
        'model_provider = "gateway"\n'
        "[model_providers.gateway]\n"
        'name = "Responses Gateway"\n'
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
