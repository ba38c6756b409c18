"""Checks shared by the chain-question tests: each question's answer page first under kg and not
first under hybrid search, and the same answer through a `file_search` tool call."""

from __future__ import annotations

import json
from typing import Any

from openai import OpenAI

from tests.support.procs import Backend
from tests.support.retrieval_helpers import Uploaded


def assert_kg_answers_first(
    client: OpenAI, store_id: str, names: dict[str, str], questions: dict[str, str], kg: dict[str, Any]
) -> None:
    """`names` maps file ids to file names; `questions` maps a question to its answer's file name."""
    for question, answer in questions.items():
        page = client.vector_stores.search(store_id, query=question, ranking_options=kg)  # type: ignore[arg-type]
        ranked = list(dict.fromkeys(names[h.file_id] for h in page.data))
        assert ranked[0] == answer, (question, ranked)
        hybrid = client.vector_stores.search(store_id, query=question)
        assert names[hybrid.data[0].file_id] != answer, question


def assert_file_search_answers_first(
    client: OpenAI,
    backend: Backend,
    marker: str,
    *,
    model: str,
    store_id: str,
    kg: dict[str, Any],
    question: str,
    answer_id: str,
    names: dict[str, str],
) -> None:
    """The model calls `file_search` with `question`; its first result is the file `answer_id`."""
    _, fs = file_search_call(client, backend, marker, model=model, store_id=store_id, kg=kg, question=question)
    assert fs.results[0].file_id == answer_id, [names[r.file_id] for r in fs.results]


def file_search_call(
    client: OpenAI, backend: Backend, marker: str, *, model: str, store_id: str, kg: dict[str, Any], question: str
) -> tuple[Any, Any]:
    """The model calls `file_search` with `question` (ranked by `kg`): the completed response and
    its `file_search_call` item, which found something."""
    call = {"name": "file_search", "arguments": json.dumps({"queries": [question]})}
    backend.script(marker, {"tool_calls": [call]}, {"content": "Found it [1].", "chunk_size": 4})
    tool = {"type": "file_search", "vector_store_ids": [store_id], "ranking_options": kg}
    resp = client.responses.create(
        model=model,
        input=f"{question} {marker}",
        tools=[tool],  # type: ignore[list-item]
        include=["file_search_call.results"],
    )
    fs = resp.output[0]
    assert resp.status == "completed" and fs.type == "file_search_call" and fs.status == "completed", resp
    assert fs.results
    return resp, fs


def assert_chain_answers_first(
    client: OpenAI,
    backend: Backend,
    marker: str,
    store: Uploaded,
    questions: dict[str, str],
    *,
    via_file_search: str,
    model: str,
    kg: dict[str, Any],
) -> None:
    """Every question's answer first under kg and not under hybrid search (`assert_kg_answers_first`),
    and the question `via_file_search` answered first through a `file_search` call too."""
    assert_kg_answers_first(client, store.id, store.names, questions, kg)
    assert_file_search_answers_first(
        client,
        backend,
        marker,
        model=model,
        store_id=store.id,
        kg=kg,
        question=via_file_search,
        answer_id=store.ids[questions[via_file_search]],
        names=store.names,
    )
