"""Prompt templates (`/v1/prompts`) and `responses.create(prompt=…)`, through both front doors.

The SDK has no prompts resource, so the CRUD calls use the client's generic `get/post/delete`; the
rendering is checked where it matters, in what the scripted backend received.
"""

from __future__ import annotations

from typing import Any

import openai
import pytest
from openai import OpenAI

from tests.support.procs import Backend

MODEL = "scripted-model"
PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"


def _post(client: OpenAI, path: str, body: dict[str, Any]) -> Any:
    return client.post(path, body=body, cast_to=object)


def _get(client: OpenAI, path: str, **params: Any) -> Any:
    return client.get(path, cast_to=object, options={"params": params})


def _param(exc: pytest.ExceptionInfo[openai.APIStatusError]) -> Any:
    body = exc.value.body
    return body.get("param") if isinstance(body, dict) else None


def test_prompt_crud_versions_and_default(client: OpenAI) -> None:
    created = _post(client, "/prompts", {"name": "greeter", "instructions": "Greet {{who}} in {{lang}}."})
    pid = created["id"]
    assert pid.startswith("pmpt_") and created["object"] == "prompt"
    assert (created["version"], created["default_version"], created["is_default"]) == ("1", "1", True)
    assert created["variables"] == ["who", "lang"] and created["input"] == []

    # an update adds version 2 and keeps the fields it does not name
    v2 = _post(client, f"/prompts/{pid}", {"input": [{"role": "user", "content": "Hi {{who}}"}]})
    assert (v2["version"], v2["default_version"], v2["name"]) == ("2", "2", "greeter")
    assert v2["instructions"] == created["instructions"] and v2["variables"] == ["who", "lang"]
    assert v2["input"] == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi {{who}}"}]}
    ]
    v3 = _post(client, f"/prompts/{pid}", {"instructions": "Bye {{who}}.", "set_as_default": False})
    assert (v3["version"], v3["default_version"], v3["is_default"]) == ("3", "2", False)

    assert _get(client, f"/prompts/{pid}")["version"] == "2"  # the default
    old = _get(client, f"/prompts/{pid}", version="1")
    assert old["input"] == [] and old["is_default"] is False and old["latest_version"] == "3"

    page = _get(client, f"/prompts/{pid}/versions", limit=2)
    assert [v["version"] for v in page["data"]] == ["3", "2"] and page["has_more"] and page["last_id"] == "2"
    rest = _get(client, f"/prompts/{pid}/versions", limit=2, after=page["last_id"])
    assert [v["version"] for v in rest["data"]] == ["1"] and not rest["has_more"]

    assert _post(client, f"/prompts/{pid}/default_version", {"version": "3"})["default_version"] == "3"
    assert _get(client, f"/prompts/{pid}")["instructions"] == "Bye {{who}}."

    listed = _get(client, "/prompts", limit=100)
    assert listed["object"] == "list" and pid in [p["id"] for p in listed["data"]]
    mine = next(p for p in listed["data"] if p["id"] == pid)
    assert mine["version"] == "3"

    assert client.delete(f"/prompts/{pid}", cast_to=object) == {"id": pid, "object": "prompt.deleted", "deleted": True}
    with pytest.raises(openai.NotFoundError):
        _get(client, f"/prompts/{pid}")


def test_prompt_api_errors(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as exc:
        _post(client, "/prompts", {"name": "empty"})
    assert _param(exc) == "instructions"
    with pytest.raises(openai.BadRequestError) as exc:
        _post(client, "/prompts", {"instructions": "x", "colour": "red"})
    assert _param(exc) == "colour"
    with pytest.raises(openai.BadRequestError) as exc:
        _post(
            client,
            "/prompts",
            {"instructions": "x", "input": [{"type": "function_call_output", "call_id": "c", "output": "o"}]},
        )
    assert _param(exc) == "input[0].type"
    pid = _post(client, "/prompts", {"instructions": "x"})["id"]
    with pytest.raises(openai.BadRequestError) as exc:
        _post(client, f"/prompts/{pid}/default_version", {"version": "7"})
    assert _param(exc) == "version"
    with pytest.raises(openai.NotFoundError):
        _get(client, f"/prompts/{pid}", version="7")
    with pytest.raises(openai.NotFoundError):
        _post(client, "/prompts/pmpt_nope", {"instructions": "y"})


def test_prompt_renders_into_the_context(client: OpenAI, backend: Backend, marker: str) -> None:
    prompt = _post(
        client,
        "/prompts",
        {
            "instructions": "You answer questions about {{topic}}.",
            "input": [
                {"role": "user", "content": "Tell me about {{ topic }} in {{city}}."},
                {"role": "assistant", "content": "Gladly: {{topic}}."},
            ],
            "temperature": 0.25,
        },
    )
    variables = {"topic": marker, "city": {"type": "input_text", "text": "Paris"}}
    resp = client.responses.create(
        model=MODEL,
        prompt={"id": prompt["id"], "variables": variables},
        input="and the weather?",
        instructions="Be brief.",
    )
    assert resp.status == "completed"
    assert resp.prompt is not None and (resp.prompt.id, resp.prompt.version) == (prompt["id"], "1")
    assert resp.instructions == f"You answer questions about {marker}.\n\nBe brief."
    sent = backend.requests_matching(marker)[-1]["body"]
    assert sent["messages"] == [
        {"role": "system", "content": f"You answer questions about {marker}.\n\nBe brief."},
        {"role": "user", "content": f"Tell me about {marker} in Paris."},
        {"role": "assistant", "content": f"Gladly: {marker}."},
        {"role": "user", "content": "and the weather?"},
    ]
    assert sent["temperature"] == 0.25  # from the prompt, since the request left it unset
    # the template's messages are context, not the response's stored input
    assert [i.content[0].text for i in client.responses.input_items.list(resp.id)] == ["and the weather?"]  # type: ignore[union-attr]

    # a pinned older version renders as it was; the prompt alone (no input) is a valid request
    _post(client, f"/prompts/{prompt['id']}", {"instructions": "Changed {{topic}}.", "input": []})
    old = client.responses.create(model=MODEL, prompt={"id": prompt["id"], "version": "1", "variables": variables})
    assert old.prompt is not None and old.prompt.version == "1"
    assert backend.requests_matching(marker)[-1]["body"]["messages"][0]["content"].startswith("You answer")
    new = client.responses.create(model=MODEL, prompt={"id": prompt["id"], "variables": {"topic": marker}}, input="hi")
    assert new.prompt is not None and new.prompt.version == "2"
    assert backend.requests_matching(marker)[-1]["body"]["messages"][0] == {
        "role": "system",
        "content": f"Changed {marker}.",
    }


def test_prompt_image_and_file_variables(client: OpenAI, backend: Backend, marker: str) -> None:
    prompt = _post(
        client, "/prompts", {"input": [{"role": "user", "content": "Compare {{photo}} with {{doc}} for {{who}}."}]}
    )
    resp = client.responses.create(
        model=MODEL,
        prompt={
            "id": prompt["id"],
            "variables": {
                "photo": {"type": "input_image", "image_url": PNG, "detail": "low"},
                "doc": {"type": "input_file", "file_data": "data:text/plain;base64,aGk=", "filename": "a.txt"},
                "who": marker,
            },
        },
    )
    assert resp.status == "completed"
    content = backend.requests_matching(marker)[-1]["body"]["messages"][0]["content"]
    assert content == [
        {"type": "text", "text": "Compare "},
        {"type": "image_url", "image_url": {"url": PNG, "detail": "low"}},
        {"type": "text", "text": " with "},
        {"type": "file", "file": {"file_data": "data:text/plain;base64,aGk=", "filename": "a.txt"}},
        {"type": "text", "text": f" for {marker}."},
    ]


def test_prompt_reference_errors(client: OpenAI) -> None:
    pid = _post(
        client, "/prompts", {"instructions": "About {{topic}}.", "input": [{"role": "user", "content": "{{q}}"}]}
    )["id"]
    ok = {"topic": "t", "q": "q"}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"id": "pmpt_missing", "variables": ok}, "prompt.id"),
        ({"id": pid, "version": "9", "variables": ok}, "prompt.version"),
        ({"id": pid, "version": "latest", "variables": ok}, "prompt.version"),
        ({"id": pid, "variables": {"topic": "t"}}, "prompt.variables.q"),
        ({"id": pid, "variables": {**ok, "extra": "x"}}, "prompt.variables.extra"),
        (
            {"id": pid, "variables": {**ok, "topic": {"type": "input_image", "image_url": PNG}}},
            "prompt.variables.topic",
        ),
        ({"id": pid, "variables": {**ok, "q": ["not", "a", "part"]}}, "prompt.variables.q"),
    ]
    for ref, param in cases:
        with pytest.raises(openai.BadRequestError) as exc:
            client.responses.create(model=MODEL, prompt=ref)  # type: ignore[arg-type]
        assert _param(exc) == param, (ref, exc.value.body)
