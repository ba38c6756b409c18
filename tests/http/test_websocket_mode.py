"""WebSocket mode of `/v1/responses` through both doors, with the openai SDK's own client
(`client.responses.connect()`): events on the socket, store:false continuation local to the
connection, errors as error events, and the connection staying usable after an error."""

from __future__ import annotations

from typing import Any

from openai import OpenAI

from tests.support.procs import Backend

MODEL = "scripted-model"


def turn(conn: Any, **body: Any) -> list[Any]:
    conn.response.create(**body)
    events = []
    for event in conn:
        events.append(event)
        if event.type in ("response.completed", "response.failed", "response.incomplete", "error"):
            return events
    raise AssertionError("the socket closed mid-response")


def test_websocket_mode(client: OpenAI, backend: Backend, marker: str) -> None:
    backend.script(marker, {"content": "first answer"}, {"content": "second answer"})
    with client.responses.connect() as conn:
        first = turn(conn, model=MODEL, input=f"one {marker}", store=False)
        types = [e.type for e in first]
        assert types[0] == "response.created" and types[-1] == "response.completed"
        assert "response.output_text.delta" in types
        rid = first[-1].response.id
        # continued on the same connection although nothing was stored
        second = turn(conn, model=MODEL, input=f"two {marker}", store=False, previous_response_id=rid)
        done = second[-1].response
        assert done.output_text == "second answer" and done.previous_response_id == rid
        sent = backend.requests_matching(f"two {marker}")[-1]["body"]["messages"]
        assert [m["content"] for m in sent if m["role"] == "assistant"] == ["first answer"]
        missing = turn(conn, model=MODEL, input="x", previous_response_id="resp_unknown")
        assert missing[-1].type == "error"
        assert missing[-1].error.code == "previous_response_not_found"  # type: ignore[union-attr]
        again = turn(conn, model=MODEL, input=f"three {marker}")  # still usable after an error
        assert again[-1].type == "response.completed"
    # a store:false response lives only on its connection
    with client.responses.connect() as other:
        elsewhere = turn(other, model=MODEL, input="y", previous_response_id=rid)
        assert elsewhere[-1].type == "error"


def test_failed_continuation_evicts_the_cached_turn(client: OpenAI, backend: Backend, marker: str) -> None:
    """A store:false continuation that fails evicts the turn it continued: continuing from it again
    is `previous_response_not_found` (Open Responses: websocket-failed-continuation-evicts-cache)."""
    backend.script(marker, {"content": "first answer"}, {"status": 500, "error": "the backend fell over"})
    with client.responses.connect() as conn:
        first = turn(conn, model=MODEL, input=f"one {marker}", store=False)
        assert first[-1].type == "response.completed"
        rid = first[-1].response.id
        conn.response.create(model=MODEL, input=f"two {marker}", store=False, previous_response_id=rid)
        failed = []
        for event in conn:  # an `error` event, then the response's own end
            failed.append(event.type)
            if event.type == "response.failed":
                break
        assert "response.completed" not in failed
        again = turn(conn, model=MODEL, input=f"three {marker}", store=False, previous_response_id=rid)
        assert again[-1].type == "error", again
        assert again[-1].error.code == "previous_response_not_found"  # type: ignore[union-attr]
        fresh = turn(conn, model=MODEL, input=f"four {marker}", store=False)  # the connection still works
        assert fresh[-1].type == "response.completed"
