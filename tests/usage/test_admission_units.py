"""The two admission calls of one request (requests at the headers, tokens at the body).

Both doors count the request first and reserve its tokens once its body is read; a request refused
for its tokens gives its request unit back (`Limits.unadmit`). The body read may cross a minute:
the unit must go back to the minute it was taken from, not to the new one (which would then admit
one request more than its `requests_per_minute`). The monthly budgets are read with the count only.
The limiter's clock is set by the test (the minute's turn is the subject); the windows are the
in-process ones a single process keeps (`MemoryWindows`).
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from gateway.auth.limits import Limits
from gateway.common.errors import RateLimited
from gateway.usage import limiter
from gateway.usage.admission import RESERVATION, admit_call

MINUTE = 1_800_000_000 // 60 * 60  # a minute's start


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [MINUTE + 59.5]  # half a second before the minute turns
    monkeypatch.setattr(limiter, "time", SimpleNamespace(time=lambda: now[0]))
    return now


async def test_a_unit_given_back_after_the_minute_turned_stays_in_its_own_minute(clock: list[float]) -> None:
    lim = Limits(json.dumps({"p": {"requests_per_minute": 2, "tokens_per_minute": 100}}))
    try:
        slow = await lim.admit("p")  # counted at its headers; its body arrives after the turn
        clock[0] += 1.0
        await lim.admit("p")  # another request, in the new minute
        with pytest.raises(RateLimited):  # the slow one's tokens do not fit
            await lim.admit("p", reserve=1000, requests=False)
        lim.unadmit(slow.counted)  # its unit goes back to the old minute, gone with it
        await lim.admit("p")  # the new minute's second request
        with pytest.raises(RateLimited) as over:  # and no third (before: the unit landed here)
            await lim.admit("p")
        assert over.value.code == "rate_limit_exceeded"
    finally:
        await lim.shared.stop()


async def test_a_unit_given_back_within_its_minute_admits_another(clock: list[float]) -> None:
    clock[0] = MINUTE + 10.0
    lim = Limits(json.dumps({"p": {"requests_per_minute": 1, "tokens_per_minute": 100}}))
    try:
        refused = await lim.admit("p")
        with pytest.raises(RateLimited):
            await lim.admit("p", reserve=1000, requests=False)
        lim.unadmit(refused.counted)  # the request counts for nothing
        await lim.admit("p")
        with pytest.raises(RateLimited):
            await lim.admit("p")
    finally:
        await lim.shared.stop()


async def test_the_budgets_are_read_once_per_request(clock: list[float]) -> None:
    policy = {"requests_per_minute": 10, "tokens_per_minute": 10_000, "monthly_token_budget": 10**6}
    lim = Limits(json.dumps({"p": policy}))
    checks = 0
    real = lim.budgets.check

    async def counted(*args: Any) -> None:
        nonlocal checks
        checks += 1
        await real(*args)

    lim.budgets.check = counted  # type: ignore[method-assign,assignment]
    try:
        await lim.admit("p")  # at the headers: the request, and the budgets
        admitted = await lim.admit("p", reserve=100, requests=False)  # at the body: the tokens only
        assert admitted.reservation is not None and checks == 1
    finally:
        await lim.shared.stop()


async def test_the_doors_helper_gives_the_unit_back_on_a_token_refusal_with_the_requests_headers(
    clock: list[float],
) -> None:
    """`admit_call` + `CallAdmission.reserve`, what the HTTP middleware and the ExtProc run: a body
    whose tokens do not fit is a 429 carrying the request's x-ratelimit-* too, and its unit is back."""
    clock[0] = MINUTE + 10.0
    lim = Limits(json.dumps({"p": {"requests_per_minute": 1, "tokens_per_minute": 100}}))
    try:
        call = await admit_call(lim, "p", "")
        assert call.reserves() and call.headers is not None
        with pytest.raises(RateLimited) as refused:
            await call.reserve("/v1/responses", {"input": "hi", "max_output_tokens": 1000})
        assert refused.value.headers["x-ratelimit-limit-requests"] == "1"
        assert refused.value.headers["x-ratelimit-limit-tokens"] == "100"
        assert RESERVATION.get() is None
        call.settle()  # nothing reserved: nothing to give back
        fits = await admit_call(lim, "p", "")  # the unit came back: the minute's one request
        await fits.reserve("/v1/responses", {"input": "hi", "max_output_tokens": 10})
        assert fits.reservation is not None and RESERVATION.get() is fits.reservation
        assert fits.headers is not None and fits.headers["x-ratelimit-remaining-tokens"] == "89"
        fits.settle()
        assert RESERVATION.get() is None and not fits.reservation.open
        with pytest.raises(RateLimited):
            await admit_call(lim, "p", "")
    finally:
        await lim.shared.stop()


async def test_the_doors_helper_with_the_body_at_hand_admits_once(clock: list[float]) -> None:
    """A WebSocket turn's body is at hand: one admission counts it and reserves its tokens; a refusal
    counts nothing."""
    clock[0] = MINUTE + 10.0
    lim = Limits(json.dumps({"p": {"requests_per_minute": 1, "tokens_per_minute": 100}}))
    try:
        with pytest.raises(RateLimited):
            await admit_call(lim, "p", "", body={"input": "hi", "max_output_tokens": 1000})
        call = await admit_call(lim, "p", "", body={"input": "hi", "max_output_tokens": 50})
        assert call.reservation is not None and call.reservation.held == 51
        call.settle()
        with pytest.raises(RateLimited):  # the minute's one request was the admitted turn
            await admit_call(lim, "p", "", body={"input": "hi"})
    finally:
        await lim.shared.stop()
