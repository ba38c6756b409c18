"""Per-project and per-key rates, monthly budgets, and the chat-completions permission.

`GATEWAY_PROJECT_LIMITS` is JSON keyed by project (`"*"` for every other project), e.g.
`{"free": {"requests_per_minute": 60, "tokens_per_minute": 40000, "monthly_token_budget": 10000000,
"monthly_cost_budget_usd": 50, "chat_completions": false}}`; a key may carry its own
`requests_per_minute` / `tokens_per_minute` (set at creation), checked as well as its project's.

The rates are shared by every process and replica through the database (`gateway.usage.limiter`:
leases of quota, fixed minute windows); a refusal is 429 `rate_limit_exceeded` with `retry-after`,
and every admitted or refused request carries OpenAI's `x-ratelimit-{limit,remaining,reset}-
{requests,tokens}` headers. Tokens are reserved before the backend call (`admit(..., reserve=n)`:
the output cap and prompt estimate of `gateway.usage.reserve`), held by the request as a
`Reservation` (in `RESERVATION` while it runs), drawn on by the usage its calls report (`charge`,
a ledger listener: what goes past the reservation is charged on top), and settled when the request
ends (`settle`, in a `finally` of each door: the unused part goes back, a client gone included).
Budgets (`gateway.usage.budgets`) refuse with 429 `insufficient_quota`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

from gateway.common.errors import APIError, RateLimited
from gateway.usage.admission import RESERVATION, Admission, Reservation
from gateway.usage.budgets import Budgets
from gateway.usage.limiter import SharedLimiter, Verdict, WindowStore
from gateway.usage.prices import Prices
from storage.usage import UsageRecord


class Forbidden(APIError):
    status = 403
    type = "invalid_request_error"


RATE_FIELDS = ("requests_per_minute", "tokens_per_minute")
FIELDS = (*RATE_FIELDS, "monthly_token_budget", "monthly_cost_budget_usd", "chat_completions")


@dataclass(frozen=True)
class Policy:
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    monthly_token_budget: int | None = None
    monthly_cost_budget_usd: float | None = None
    chat_completions: bool = True


def check_policy(value: Any, where: str, allowed: tuple[str, ...] = FIELDS) -> Policy:
    """One project's (or key's) limits, checked: positive integers, a non-negative USD amount."""
    if not isinstance(value, dict) or set(value) - set(allowed):
        raise ValueError(f"{where}: {', '.join(allowed)}")
    for name, v in value.items():
        if name == "chat_completions":
            ok = isinstance(v, bool)
        elif name == "monthly_cost_budget_usd":
            ok = isinstance(v, int | float) and not isinstance(v, bool) and v >= 0
        else:
            ok = v is None or (isinstance(v, int) and not isinstance(v, bool) and v > 0)
        if not ok:
            raise ValueError(f"{where}.{name}: invalid value {v!r}")
    return Policy(**value)


def parse_policies(spec: str | None) -> dict[str, Policy]:
    if not spec:
        return {}
    try:
        raw = json.loads(spec)
    except json.JSONDecodeError as exc:
        raise ValueError(f"GATEWAY_PROJECT_LIMITS is not JSON: {exc}") from exc
    if not isinstance(raw, dict):
        raise ValueError("GATEWAY_PROJECT_LIMITS must be a JSON object keyed by project")
    return {project: check_policy(value, f"GATEWAY_PROJECT_LIMITS[{project!r}]") for project, value in raw.items()}


def _reset(seconds: float) -> str:
    return f"{max(1, math.ceil(seconds))}s"


def _headers(requests: Verdict | None, tokens: Verdict | None) -> dict[str, str]:
    """OpenAI's x-ratelimit-* of the tighter verdict per metric (written out: on every admission)."""
    out: dict[str, str] = {}
    if requests is not None:
        out["x-ratelimit-limit-requests"] = str(requests.limit)
        out["x-ratelimit-remaining-requests"] = str(requests.remaining)
        out["x-ratelimit-reset-requests"] = _reset(requests.reset)
    if tokens is not None:
        out["x-ratelimit-limit-tokens"] = str(tokens.limit)
        out["x-ratelimit-remaining-tokens"] = str(tokens.remaining)
        out["x-ratelimit-reset-tokens"] = _reset(tokens.reset)
    return out


class _Plan(NamedTuple):
    """What applies to one caller: its rates, whether it reserves tokens, whether budgets are set."""

    rates: tuple[tuple[str, str, int], ...]
    tokens: bool
    budgets: bool
    key_policy: Policy | None  # the key's policy the plan was built with (compared by identity)


def _tighter(a: Verdict | None, b: Verdict) -> Verdict:
    return b if a is None or b.remaining < a.remaining or not b.ok else a


class Limits:
    def __init__(
        self,
        spec: str | None = None,
        store: WindowStore | None = None,
        *,
        prices: Prices | None = None,
        spend: Any = None,
        warn_ratio: float = 0.8,
        reserve_output: int = 1024,
    ) -> None:
        self.policies = parse_policies(spec)
        self.reserve_output = reserve_output  # tokens reserved for a request that sets no output cap
        self._plans: dict[tuple[str, str], _Plan] = {}
        self.shared = SharedLimiter(store)
        self.prices = prices or Prices()
        self.budgets = Budgets(spend, self.prices, warn_ratio)

    def policy(self, project: str) -> Policy:
        return self.policies.get(project) or self.policies.get("*") or Policy()

    def _scopes(self, project: str, key_id: str, key_policy: Policy | None) -> list[tuple[str, Policy]]:
        scopes = []
        if self.policies:
            scopes.append((f"project:{project}", self.policy(project)))
        if key_policy is not None and key_id:
            scopes.append((f"key:{key_id}", key_policy))
        return scopes

    def reserves(self, project: str, key_id: str = "") -> bool:
        """Whether a request of this caller reserves tokens (a `tokens_per_minute` applies)."""
        if not self.policies and not KEY_POLICIES:
            return False
        return self._plan(project, key_id, KEY_POLICIES.get(key_id) if key_id and KEY_POLICIES else None).tokens

    def _plan(self, project: str, key_id: str, key_policy: Policy | None) -> _Plan:
        """(scope, metric, limit) of every rate that applies to this caller (cached: per request,
        building it costs more than the lease it checks). Keyed by the caller's names, the key's
        policy compared by identity: authentication replaces a changed key's policy object, and
        hashing a Policy on every request would cost a microsecond."""
        cached = self._plans.get((project, key_id))
        if cached is not None and cached.key_policy is key_policy:
            return cached
        rates = tuple(
            (scope, metric, limit)
            for scope, policy in self._scopes(project, key_id, key_policy)
            for metric, limit in (("requests", policy.requests_per_minute), ("tokens", policy.tokens_per_minute))
            if limit
        )
        policy = self.policy(project)
        budgets = bool(policy.monthly_token_budget or policy.monthly_cost_budget_usd is not None)
        plan = _Plan(rates, any(metric == "tokens" for _, metric, _ in rates), budgets, key_policy)
        if len(self._plans) >= 10_000:  # bounded (a tenant minting projects)
            self._plans.clear()
        self._plans[(project, key_id)] = plan
        return plan

    async def admit(self, project: str, key_id: str = "", reserve: int = 0, *, requests: bool = True) -> Admission:
        """Count one request (`requests`) and reserve `reserve` tokens against every rate that
        applies, or raise 429. The monthly budgets are checked with the request's count: a second
        call for the same request's tokens (`requests=False`, the doors' step at the body, right
        after the first) does not read them again."""
        key_policy = KEY_POLICIES.get(key_id) if key_id and KEY_POLICIES else None
        if not self.policies and key_policy is None:
            return Admission(None, None)
        counted: Verdict | None = None
        tokens: Verdict | None = None
        taken: list[tuple[str, str, int, int]] = []
        units: list[tuple[str, int]] = []  # the request units counted (scope, window), for `unadmit`
        shared = self.shared
        plan = self._plan(project, key_id, key_policy)
        try:
            for scope, metric, limit in plan.rates:
                if metric == "requests":
                    if not requests:
                        continue
                    need = 1
                elif reserve <= 0:
                    continue
                else:
                    need = reserve
                verdict = shared.spend(scope, metric, limit, need) or await shared.acquire(scope, metric, limit, need)
                if metric == "requests":
                    counted = _tighter(counted, verdict)
                else:
                    tokens = _tighter(tokens, verdict)
                if not verdict.ok:
                    unit = "requests per min (RPM)" if metric == "requests" else "tokens per min (TPM)"
                    asked = "" if metric == "requests" else f", requested {need}"
                    who = scope.replace(":", " ", 1)
                    raise RateLimited(
                        f"Rate limit reached for {who} on {unit}: limit {limit}, remaining "
                        f"{verdict.remaining}{asked}. Please try again in {max(1, math.ceil(verdict.reset))}s.",
                        retry_after=verdict.reset,
                        kind=metric,
                        headers=_headers(counted, tokens),
                    )
                taken.append((scope, metric, need, verdict.window))
                if metric == "requests":
                    units.append((scope, verdict.window))
            if requests and plan.budgets:
                policy = self.policy(project)
                await self.budgets.check(project, policy.monthly_token_budget, policy.monthly_cost_budget_usd)
        except BaseException:  # refused by another limit, or cancelled (client gone): nothing spent
            for scope, metric, n, window in taken:
                shared.release(scope, metric, n, window)
            raise
        reservation = None
        if tokens is not None:
            held = tuple([scope for scope, metric, _, _ in taken if metric == "tokens"])
            reservation = Reservation(project, key_id, held, tokens.window, reserve)
        return Admission(_headers(counted, tokens) or None, reservation, tuple(units) if units else ())

    def unadmit(self, counted: tuple[tuple[str, int], ...]) -> None:
        """Put back the request units an `admit` counted (`Admission.counted`: the request was
        refused later, by its tokens), each to its own minute: a minute that turned meanwhile takes
        nothing back, and the new one gets no unit it never gave."""
        for scope, window in counted:
            self.shared.release(scope, "requests", 1, window)

    async def refund(self, project: str, key_id: str = "") -> None:
        """Undo an admission: the ExtProc hands a request to the HTTP server, which admits it again
        at once, so the unit goes back to the shared window now (not to this process's lease)."""
        key_policy = KEY_POLICIES.get(key_id) if key_id and KEY_POLICIES else None
        for scope, policy in self._scopes(project, key_id, key_policy):
            if policy.requests_per_minute:
                await self.shared.give_back(scope, "requests", 1)

    def settle(self, reservation: Reservation | None) -> None:
        """The request ended: the tokens it reserved and its calls did not spend go back (once)."""
        if reservation is None or not reservation.open:
            return
        reservation.open = False
        left, reservation.held = reservation.held, 0
        for scope in reservation.scopes:
            self.shared.release(scope, "tokens", left, reservation.window, surplus=True)

    def charge(self, rec: UsageRecord) -> None:
        """A ledger listener: the tokens a backend reported, drawn first from the request's reservation."""
        tokens = rec.input_tokens + rec.output_tokens
        self.budgets.add(rec)
        held = RESERVATION.get()
        if held is not None and held.open and held.held and held.project == rec.project:
            drawn = min(tokens, held.held)
            held.held -= drawn
            tokens -= drawn
        if not tokens:
            return
        for scope, policy in (
            (f"project:{rec.project}", self.policy(rec.project) if self.policies else None),
            (f"key:{rec.api_key_id}", KEY_POLICIES.get(rec.api_key_id) if rec.api_key_id else None),
        ):
            if policy is not None and policy.tokens_per_minute:
                self.shared.charge(scope, "tokens", tokens)

    def check_chat(self, project: str) -> None:
        if not self.policy(project).chat_completions:
            raise Forbidden(
                f"Project {project} may not use the chat/completions passthrough.", code="permission_denied"
            )


KEY_POLICIES: dict[str, Policy] = {}  # per-key rates seen by authentication (key id -> policy)
LIMITS = Limits()  # the process's limits; `configure` replaces it at start-up


def configure(
    spec: str | None,
    store: WindowStore | None = None,
    *,
    prices: Prices | None = None,
    spend: Any = None,
    warn_ratio: float = 0.8,
    reserve_output: int = 1024,
) -> Limits:
    global LIMITS
    LIMITS = Limits(spec, store, prices=prices, spend=spend, warn_ratio=warn_ratio, reserve_output=reserve_output)
    return LIMITS
