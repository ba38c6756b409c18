"""Every route echoes the request's `x-request-id` through both doors (#25, 5): the id a client
sends (or the one the door made) comes back, so a client can quote it and an operator find the
request's log lines. `POST /v1/responses` through Envoy is answered by the backend via the
ExtProc, not by the HTTP server, and answered without it before."""

from __future__ import annotations

import uuid

import pytest
import requests

MODEL = "scripted-model"


@pytest.mark.parametrize("stream", [False, True])
def test_create_echoes_the_request_id(door: str, session_key: str, stream: bool) -> None:
    rid = f"client-{uuid.uuid4().hex}"
    headers = {"Authorization": f"Bearer {session_key}", "x-request-id": rid}
    body = {"model": MODEL, "input": "echo my id", "stream": stream}
    r = requests.post(door + "/responses", json=body, headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    assert r.headers.get("x-request-id") == rid
    auth_only = {"Authorization": headers["Authorization"]}
    made = requests.post(door + "/responses", json=body, headers=auth_only, timeout=30)
    assert made.status_code == 200 and made.headers.get("x-request-id")  # the door made one


def test_refusals_and_other_routes_echo_it_too(door: str, session_key: str) -> None:
    rid = f"client-{uuid.uuid4().hex}"
    headers = {"Authorization": f"Bearer {session_key}", "x-request-id": rid}
    bad = requests.post(door + "/responses", json={"model": MODEL, "input": 5}, headers=headers, timeout=30)
    assert bad.status_code == 400 and bad.headers.get("x-request-id") == rid
    models = requests.get(door + "/models", headers=headers, timeout=30)
    assert models.status_code == 200 and models.headers.get("x-request-id") == rid
