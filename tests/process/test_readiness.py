"""Readiness covers every process Envoy routes to (#25, 7): with `GATEWAY_READY_CHECKS_EXTPROC`
(what `up` sets), `/ready` — direct and through Envoy — is 503 while an ExtProc worker is down."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.support.procs import Backend, scripted_backend
from tests.support.stack import EnvoyStack, envoy_stack
from tests.support.waiting import until

MODEL = "scripted-model"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Backend, EnvoyStack]]:
    data = tmp_path_factory.mktemp("ready")
    with scripted_backend(MODEL) as b, envoy_stack(b.url, data / "data", GATEWAY_READY_CHECKS_EXTPROC="1") as s:
        yield b, s


def _ready(url: str) -> tuple[int, dict[str, bool]]:
    r = requests.get(url + "/ready", timeout=10)
    return r.status_code, r.json().get("checks", {})


def test_ready_follows_the_extproc(stack: tuple[Backend, EnvoyStack], tmp_path: Path) -> None:
    _, s = stack
    direct, through_envoy = f"http://127.0.0.1:{s.http_port}", s.base
    assert _ready(direct) == (200, {"storage": True, "backend": True, "extproc": True, "accepting": True})
    assert _ready(through_envoy)[0] == 200
    s.stop_extproc()
    try:
        status, checks = _ready(direct)
        assert status == 503 and checks["extproc"] is False
        assert _ready(through_envoy)[0] == 503
    finally:
        s.start_extproc()
    until(lambda: _ready(direct)[0], lambda code: code == 200, timeout=30, what="ready again once the ExtProc serves")
