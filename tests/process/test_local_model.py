"""End to end with a real (tiny) model: SmolLM2-135M served by llama.cpp, as `make run` does offline."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from openai import OpenAI

from tests.support.procs import ROOT, VENV_BIN, free_port, gateway, stop, wait_http

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_model() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [str(VENV_BIN / "responses-gateway"), "local-model", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_http(f"http://127.0.0.1:{port}/v1/models", timeout=60, proc=proc)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop(proc)


def test_real_model_through_the_gateway(local_model: str, tmp_path: Path) -> None:
    with gateway(local_model, tmp_path) as gw:
        client = OpenAI(base_url=gw.url, api_key="x", max_retries=0, timeout=120)
        models = client.models.list().data
        assert models, "the local model server lists its model"
        first = client.responses.create(model=models[0].id, input="Name one colour.", max_output_tokens=8)
        assert first.status in ("completed", "incomplete")
        assert first.output_text.strip()
        assert first.usage is not None and first.usage.output_tokens > 0
        events = list(
            client.responses.create(
                model=models[0].id,
                input="And another?",
                max_output_tokens=6,
                previous_response_id=first.id,
                stream=True,
            )
        )
        assert events[0].type == "response.created"
        assert events[-1].type in ("response.completed", "response.incomplete")
        text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
        assert text and text == events[-1].response.output_text
        assert client.responses.retrieve(events[-1].response.id).output_text == text
