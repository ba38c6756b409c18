"""A reasoning backend's thinking reaches Responses clients (Codex) as the reasoning item's summary
when they ask for one (`reasoning.summary`), with the summary events, through both doors; without
the request the summary stays empty, as at OpenAI."""

from __future__ import annotations

from openai import OpenAI

from tests.support.procs import Backend

MODEL = "scripted-model"


def test_reasoning_as_summary_when_asked(client: OpenAI, backend: Backend, marker: str) -> None:
    thought = f"first I consider the question {marker}"
    backend.script(marker, *[{"reasoning": thought, "content": "42"}] * 2)
    events = list(client.responses.create(model=MODEL, input=f"q {marker}", stream=True, reasoning={"summary": "auto"}))
    kinds = [e.type for e in events]
    for kind in (
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
    ):
        assert kind in kinds, kind
    streamed = "".join(e.delta for e in events if e.type == "response.reasoning_summary_text.delta")  # type: ignore[union-attr]
    assert streamed == thought
    item = events[-1].response.output[0]  # type: ignore[union-attr]
    assert item.type == "reasoning" and [s.text for s in item.summary] == [thought]
    assert events[-1].response.output_text == "42"  # type: ignore[union-attr]
    plain = client.responses.create(model=MODEL, input=f"q {marker}")
    assert plain.output[0].type == "reasoning" and plain.output[0].summary == []  # type: ignore[union-attr]
