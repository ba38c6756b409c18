"""One call's usage admission, the same for the three doors that take Responses calls.

The HTTP middleware, the ExtProc and the WebSocket turn each admit a call the same way, so they
call `admit_call` and hold the `CallAdmission` it returns for the call's life:

1. the request is counted against `requests_per_minute` (and the monthly budgets are read, once)
   before a token-limited body is read or parsed: a tenant over its rate costs no parse;
2. once the body is at hand, `reserve` reserves its tokens (output cap + prompt estimate,
   `gateway.usage.reserve`) against `tokens_per_minute`; a refusal gives the request unit back to
   the minute it was counted in (`Admission.counted`) and carries the request's headers too;
3. `settle` at the call's end (a `finally`, a client gone included) gives back what was reserved
   and not spent.

A door that has the body already (a WebSocket message) passes it to `admit_call`: one admission for
both. The limits themselves (`gateway.auth.limits.Limits`) sit a layer above this package, so they
are named here by what the helper calls (`Admitter`); the reservation types live here, below both.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from gateway.common.errors import RateLimited
from gateway.usage.reserve import reserve_size


@dataclass(slots=True)
class Reservation:
    """Tokens one request reserved in each of its scopes' windows, until it ends.

    The usage its backend calls report is drawn from `held` first (those tokens are in the windows
    already); `settle` gives back what is left. Calls recorded after that (a background run going on
    after its request returned) are charged like any other."""

    project: str
    key_id: str
    scopes: tuple[str, ...]
    window: int
    held: int
    open: bool = True


class Admission(NamedTuple):
    """What `admit` granted: the x-ratelimit-* headers to send, the tokens' reservation (to
    `settle`), and the request units counted as (scope, minute window): `unadmit` gives each back to
    the minute it came from, even when the minute turned since (a slow body read between the two)."""

    headers: dict[str, str] | None
    reservation: Reservation | None
    counted: tuple[tuple[str, int], ...] = ()


# The reservation of the request this task serves (set by the door, read by the ledger listener).
RESERVATION: ContextVar[Reservation | None] = ContextVar("gateway_token_reservation", default=None)

_LATER: Any = object()  # `admit_call` without a body: the tokens are reserved when it is read


class Admitter(Protocol):
    """What the helper calls of the process's limits (`gateway.auth.limits.Limits`)."""

    reserve_output: int

    async def admit(self, project: str, key_id: str = "", reserve: int = 0, *, requests: bool = True) -> Admission: ...

    def reserves(self, project: str, key_id: str = "") -> bool: ...

    def unadmit(self, counted: tuple[tuple[str, int], ...]) -> None: ...

    async def refund(self, project: str, key_id: str = "") -> None: ...

    def settle(self, reservation: Reservation | None) -> None: ...


class CallAdmission:
    """One call's admission from its count to its settlement (see the module's steps)."""

    __slots__ = ("_token", "counted", "headers", "key_id", "limits", "project", "reservation")

    def __init__(self, limits: Admitter, project: str, key_id: str, granted: Admission) -> None:
        self.limits = limits
        self.project = project
        self.key_id = key_id
        self.headers = granted.headers  # x-ratelimit-* for the reply
        self.counted = granted.counted  # the request units counted, to give back on a token refusal
        self.reservation: Reservation | None = None
        self._token: Token[Reservation | None] | None = None
        if granted.reservation is not None:
            self._hold(granted.reservation)

    def reserves(self) -> bool:
        """Whether a `tokens_per_minute` applies: only then does the door read the body here."""
        return self.limits.reserves(self.project, self.key_id)

    async def reserve(self, path: str, body: Any) -> None:
        """Reserve the tokens of the call to `path` with the parsed `body` (when a token limit
        applies), or raise the 429, the request's unit given back and its headers on it."""
        lim = self.limits
        if not lim.reserves(self.project, self.key_id):
            return
        need = reserve_size(path, body, lim.reserve_output)
        try:
            headers, reservation, _ = await lim.admit(self.project, self.key_id, need, requests=False)
        except RateLimited as refused:  # the tokens do not fit: the request counts for nothing
            lim.unadmit(self.counted)  # to the minute it was counted in (the body read may cross one)
            if self.headers:
                refused.headers = {**self.headers, **refused.headers}
            raise
        if headers:
            self.headers = {**self.headers, **headers} if self.headers else headers
        if reservation is not None:
            self._hold(reservation)

    def _hold(self, reservation: Reservation) -> None:
        assert self.reservation is None, "one reservation per call: a second would leak the first"
        self.reservation = reservation
        self._token = RESERVATION.set(reservation)  # drawn on by the usage the call's turns record

    async def refund(self) -> None:
        """Undo the count: the call goes to another door, which admits it again at once."""
        await self.limits.refund(self.project, self.key_id)

    def settle(self) -> None:
        """The call ended: the tokens it reserved and did not spend go back (once)."""
        reservation, token = self.reservation, self._token
        if reservation is None:
            return
        self.limits.settle(reservation)
        if token is not None:
            self._token = None
            try:
                RESERVATION.reset(token)
            except ValueError:  # ended in another context than it began (a stream's last step)
                RESERVATION.set(None)


async def admit_call(
    limits: Admitter, project: str, key_id: str, *, path: str = "/v1/responses", body: Any = _LATER
) -> CallAdmission:
    """Count one call (requests per minute, budgets) or raise the 429. With its `body` at hand (a
    WebSocket turn) its tokens are reserved in the same admission; without, `reserve` does it once
    the door has read the body."""
    need = 0
    if body is not _LATER and limits.reserves(project, key_id):
        need = reserve_size(path, body, limits.reserve_output)
    return CallAdmission(limits, project, key_id, await limits.admit(project, key_id, need))
