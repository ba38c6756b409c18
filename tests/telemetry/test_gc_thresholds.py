"""The doors' garbage-collector thresholds (`GATEWAY_GC_THRESHOLDS`, #31 twelfth pass): parsed into
settings, set in each door process once it is built (tracing on or off), a bad value refused at
start-up with the setting named."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.config import Settings, load_settings
from gateway.process.workers import child_env
from tests.support.procs import VENV_BIN, Backend, gateway_env, scripted_backend
from tests.support.stack import envoy_stack

MODEL = "scripted-model"
PROBE = Path(__file__).resolve().parents[2] / "bench" / "gc_probe"  # writes each process's thresholds


@pytest.fixture(scope="module")
def vllm() -> Iterator[Backend]:
    with scripted_backend(MODEL) as b:
        yield b


@pytest.mark.parametrize(
    ("given", "parsed"), [("20000,15,30", (20000, 15, 30)), (" 700, 10 ,10 ", (700, 10, 10)), ("1,1,1", (1, 1, 1))]
)
def test_thresholds_are_parsed_from_the_environment(given: str, parsed: tuple[int, int, int]) -> None:
    assert load_settings(env={"GATEWAY_GC_THRESHOLDS": given}).gc_thresholds == parsed


def test_the_default_and_a_yaml_list(tmp_path: Path) -> None:
    assert load_settings(env={}).gc_thresholds == Settings.model_fields["gc_thresholds"].default
    config = tmp_path / "gateway.yaml"
    config.write_text("gc_thresholds: [5000, 20, 40]\n")
    assert load_settings(env={"GATEWAY_CONFIG": str(config)}).gc_thresholds == (5000, 20, 40)


def test_chosen_thresholds_reach_a_pool_s_workers(tmp_path: Path) -> None:
    """A value from the YAML file is handed to the door's worker processes in their environment."""
    config = tmp_path / "gateway.yaml"
    config.write_text("gc_thresholds: [5000, 20, 40]\n")
    chosen = load_settings(env={"GATEWAY_CONFIG": str(config)})
    assert load_settings(env=child_env(chosen, base={})).gc_thresholds == (5000, 20, 40)


@pytest.mark.parametrize("bad", ["0,10,10", "700,10", "700,10,10,10", "a,b,c", "700;10;10", "-1,10,10", "1.5,10,10"])
def test_bad_thresholds_are_refused_naming_the_setting(bad: str) -> None:
    with pytest.raises(ValueError, match="gc_thresholds"):
        load_settings(env={"GATEWAY_GC_THRESHOLDS": bad})


def test_a_bad_value_stops_the_door_at_start_up(vllm: Backend, tmp_path: Path) -> None:
    env = gateway_env(vllm.url, tmp_path, GATEWAY_GC_THRESHOLDS="0,10,10")
    out = subprocess.run([str(VENV_BIN / "responses-gateway"), "serve"], env=env, capture_output=True, timeout=60)
    assert out.returncode != 0
    assert b"gc_thresholds" in out.stderr, out.stderr[-2000:]


def _thresholds(probe: Path, pid: int, want: list[int]) -> list[int] | None:
    """The thresholds the probe last saw in process ``pid`` (it writes every half second)."""
    seen = None
    for _ in range(40):
        try:
            seen = json.loads((probe / f"{pid}.json").read_text())["thresholds"]
        except (OSError, ValueError, KeyError):
            seen = None
        if seen == want:
            break
        time.sleep(0.25)
    return seen


@pytest.mark.parametrize("traced", [False, True])
def test_both_doors_run_with_the_thresholds(vllm: Backend, tmp_path: Path, traced: bool) -> None:
    probe = tmp_path / "gc"
    probe.mkdir()
    extra = {
        "GATEWAY_GC_THRESHOLDS": "12345,11,13",
        "BENCH_GC_PROBE": str(probe),
        "PYTHONPATH": os.pathsep.join(p for p in (str(PROBE), os.environ.get("PYTHONPATH", "")) if p),
    }
    if traced:  # (nothing listens there: the export fails in the background, never the door)
        extra["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:9"
    with envoy_stack(vllm.url, tmp_path / "data", **extra) as stack:
        for pid in (stack.http.proc.pid, stack.extproc.pid):
            assert _thresholds(probe, pid, [12345, 11, 13]) == [12345, 11, 13]
