"""Per-project and per-key rates, monthly budgets, and the chat-completions permission.

`GATEWAY_PROJECT_LIMITS` is JSON keyed by project (`"*"` for every other project), e.g.
`{"free": {"requests_per_minute": 60, "tokens_per_minute": 40000, "monthly_token_budget": 10000000,
"monthly_cost_budget_usd": 50, "chat_completions": false}}`; a key may carry its own
`requests_per_minute` / `tokens_per_minute` (set at creation), checked as well as its project's.

The rates are shared by every process and replica through the database (`gateway.usage.limiter`:
leases of quota, fixed minute windows); a refusal is 429 `rate_limit_exceeded` with `retry-after`,
and every admitted or refused request carries OpenAI's `x-ratelimit-{limit,remaining,reset}-
{requests,tokens}` headers. Tokens are reserved at admission (the request's `max_output_tokens` when
the door knows it, else one) and charged when the backend reports usage (`charge`, a ledger
listener). Budgets (`gateway.usage.budgets`) refuse with 429 `insufficient_quota`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from gateway.errors import APIError, RateLimited
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


_NAMES = {m: tuple(f"x-ratelimit-{h}-{m}" for h in ("limit", "remaining", "reset")) for m in ("requests", "tokens")}


def _headers(requests: Verdict | None, tokens: Verdict | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for metric, v in (("requests", requests), ("tokens", tokens)):
        if v is not None:
            limit, remaining, reset = _NAMES[metric]
            out[limit] = str(v.limit)
            out[remaining] = str(v.remaining)
            out[reset] = _reset(v.reset)
    return out


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
    ) -> None:
        self.policies = parse_policies(spec)
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

    async def admit(self, project: str, key_id: str = "", reserve: int = 1) -> dict[str, str] | None:
        """Count one request against every rate that applies, or raise 429; the headers to send."""
        key_policy = KEY_POLICIES.get(key_id) if key_id and KEY_POLICIES else None
        if not self.policies and key_policy is None:
            return None
        requests: Verdict | None = None
        tokens: Verdict | None = None
        taken: list[tuple[str, str, int]] = []
        try:
            for scope, policy in self._scopes(project, key_id, key_policy):
                for metric, limit, need in (
                    ("requests", policy.requests_per_minute, 1),
                    ("tokens", policy.tokens_per_minute, max(1, reserve)),
                ):
                    if not limit:
                        continue
                    verdict = await self.shared.acquire(scope, metric, limit, need)
                    if metric == "requests":
                        requests = _tighter(requests, verdict)
                    else:
                        tokens = _tighter(tokens, verdict)
                    if not verdict.ok:
                        unit = "requests per min (RPM)" if metric == "requests" else "tokens per min (TPM)"
                        who = scope.replace(":", " ", 1)
                        raise RateLimited(
                            f"Rate limit reached for {who} on {unit}: limit {limit}. "
                            f"Please try again in {max(1, math.ceil(verdict.reset))}s.",
                            retry_after=verdict.reset,
                            kind=metric,
                            headers=_headers(requests, tokens),
                        )
                    taken.append((scope, metric, need))
            policy = self.policy(project)
            await self.budgets.check(project, policy.monthly_token_budget, policy.monthly_cost_budget_usd)
        except APIError:
            for scope, metric, n in taken:  # refused by another limit: this request spent nothing
                self.shared.release(scope, metric, n)
            raise
        return _headers(requests, tokens) or None

    async def refund(self, project: str, key_id: str = "") -> None:
        """Undo an admission: the ExtProc hands a request to the HTTP server, which admits it again
        at once, so the unit goes back to the shared window now (not to this process's lease)."""
        key_policy = KEY_POLICIES.get(key_id) if key_id and KEY_POLICIES else None
        for scope, policy in self._scopes(project, key_id, key_policy):
            if policy.requests_per_minute:
                await self.shared.give_back(scope, "requests", 1)
            if policy.tokens_per_minute:
                await self.shared.give_back(scope, "tokens", 1)

    def charge(self, rec: UsageRecord, reserved: int = 1) -> None:
        """A ledger listener: the tokens a backend reported, less the unit reserved at admission."""
        tokens = rec.input_tokens + rec.output_tokens - reserved
        self.budgets.add(rec)
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
) -> Limits:
    global LIMITS
    LIMITS = Limits(spec, store, prices=prices, spend=spend, warn_ratio=warn_ratio)
    return LIMITS
