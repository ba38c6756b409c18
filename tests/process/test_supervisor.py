"""What `responses-gateway up` hands its children: the settings that were chosen, no more (#25, 2)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from gateway.config import load_settings
from gateway.process.supervisor import child_env
from tests.support.procs import ROOT, scripted_backend
from tests.support.stack import free_port, free_port_run

MODEL = "scripted-model"

# What a child process decides from its environment: its settings, and the vector backend they pick.
CHILD = """
import json
from gateway.config import load_settings
from vectorstore.backends import build_vector_backend
s = load_settings()
backend = build_vector_backend(s, s.db_path).name
print(json.dumps({"backend": backend, "set": sorted(s.model_fields_set), "http_port": s.http_port,
                  "workers": s.workers}))
"""


def _child(env: dict[str, str]) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def test_children_of_up_on_postgres_default_to_pgvector(tmp_path: Path) -> None:
    """With `GATEWAY_DATABASE_URL` and no vector backend named, `serve` picks pgvector (replicas share
    the chunks); the children `up` starts must decide the same, not receive `sqlite-vec` as if chosen."""
    base = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    parent = {**base, "GATEWAY_DATABASE_URL": "postgresql://u@localhost/db", "GATEWAY_DATA_DIR": str(tmp_path)}
    settings = load_settings(env=parent)
    env = child_env(settings, base=parent)
    assert "GATEWAY_VECTOR_BACKEND" not in env
    child = _child(env)
    assert child["backend"] == "pgvector"
    assert child["set"] == sorted(settings.model_fields_set)


def test_chosen_settings_and_overrides_reach_the_children(tmp_path: Path) -> None:
    """A setting from the config file (not passed on: the child reads no file) or a command-line
    override arrives; one the child's inherited environment names but the parent did not choose
    is dropped (the parent's settings are the truth)."""
    config = tmp_path / "gateway.yaml"
    config.write_text("workers: 3\nvector_backend: sqlite-vec\n")
    base = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    settings = load_settings(env={**base, "GATEWAY_CONFIG": str(config)}, http_port=18099)
    env = child_env(settings, base={**base, "GATEWAY_CONFIG": str(config), "GATEWAY_LOG_LEVEL": ""})
    assert "GATEWAY_CONFIG" not in env and "GATEWAY_LOG_LEVEL" not in env
    child = _child(env)
    assert (child["workers"], child["http_port"], child["backend"]) == (3, 18099, "sqlite-vec")
    assert child["set"] == sorted(settings.model_fields_set)


def test_up_fails_loudly_when_an_extproc_port_is_taken(tmp_path: Path) -> None:
    """A taken ExtProc worker port stops `up` with an error (exit 1), and Envoy never answers
    meanwhile: before, the worker died while `up` ran on, answering `/v1/models` and `/ready` with
    most creates through Envoy failing."""
    extproc, envoy = free_port_run(2), free_port()
    with scripted_backend(MODEL) as backend, socket.socket() as blocker:
        blocker.bind(("127.0.0.1", extproc + 1))  # a stranger on worker 1's port
        blocker.listen()
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "GATEWAY_BACKEND_URL": backend.url,
            "GATEWAY_DATA_DIR": str(tmp_path),
            "GATEWAY_WORKERS": "2",
            "GATEWAY_EXTPROC_PORT": str(extproc),
            "GATEWAY_HTTP_PORT": str(free_port()),
            "GATEWAY_ENVOY_PORT": str(envoy),
            "GATEWAY_ENVOY_ADMIN_PORT": str(free_port()),
            # a drain longer than `up`'s start-up limit (60 s): a pool that kept its survivor draining
            # after a worker died would have `up` time out ("did not become ready") instead of naming
            # the death; short enough that such a survivor, orphaned when `up` is killed, ends soon
            "GATEWAY_DRAIN_SECONDS": "90",
        }
        env.pop("GATEWAY_CONFIG", None)
        proc = subprocess.Popen(
            [sys.executable, "-m", "gateway.process.cli", "up"], env=env, stderr=subprocess.PIPE, text=True, cwd=ROOT
        )
        answered = False
        try:
            deadline = time.monotonic() + 75
            while proc.poll() is None and time.monotonic() < deadline:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", envoy), timeout=0.2):
                    answered = True
                time.sleep(0.2)
        finally:
            if proc.poll() is None:
                proc.terminate()
            try:
                _, err = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:  # a stop stuck draining: fail, leaving nothing behind
                proc.kill()
                _, err = proc.communicate()
    assert proc.returncode == 1, err[-2000:]
    # the reason, said by the worker, its pool and `up`: the pool stops at once (the surviving worker
    # is not kept draining for the dead one's report), so `up` fails without waiting out its limit
    assert f"could not bind the ExtProc to 127.0.0.1:{extproc + 1}" in err, err[-2000:]
    assert "extproc worker 1 exited with code 1" in err, err[-2000:]
    assert "responses-gateway up: ExtProc exited with code 1" in err, err[-2000:]
    assert "did not become ready" not in err, err[-2000:]
    assert not answered, "Envoy listened although a door was not serving"
