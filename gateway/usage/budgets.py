"""Monthly budgets per project: tokens and USD, from the ledger, enforced by every process.

A project's spend this month (UTC calendar month) is read from the hourly roll-up at most every
`REFRESH_SECONDS` per process and project, plus what this process recorded since that read; once
it reaches `monthly_token_budget` or `monthly_cost_budget_usd`, requests get 429
`insufficient_quota` (OpenAI's code) until the month turns or the budget is raised. So a budget
overshoots by at most the calls in flight and those recorded in the last seconds elsewhere.
The share spent is exported as a gauge, with a warning flag past `GATEWAY_BUDGET_WARN_RATIO`.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from gateway.common.errors import APIError
from gateway.telemetry import metrics
from gateway.usage.prices import Prices
from storage.usage import UsageRecord

REFRESH_SECONDS = 2.0
MAX_SHOWN = 100  # projects whose budget gauges a process exports


class QuotaExceeded(APIError):
    status = 429
    type = "insufficient_quota"

    def __init__(self, message: str) -> None:
        super().__init__(message, code="insufficient_quota", type="insufficient_quota")


class SpendStore(Protocol):
    async def spent(self, project: str, since: int) -> list[tuple[Any, ...]]: ...


def month_start(now: float) -> int:
    day = dt.datetime.fromtimestamp(now, dt.UTC)
    return int(dt.datetime(day.year, day.month, 1, tzinfo=dt.UTC).timestamp())


@dataclass(slots=True)
class _Spend:
    month: int
    tokens: int = 0
    cost: float = 0.0
    read_at: float = 0.0
    local_tokens: int = 0  # recorded here since the last read
    local_cost: float = 0.0
    models: set[str] = field(default_factory=set)


class Budgets:
    def __init__(self, store: SpendStore | None, prices: Prices, warn_ratio: float = 0.8) -> None:
        self.store = store
        self.prices = prices
        self.warn_ratio = warn_ratio
        self.spend: dict[str, _Spend] = {}
        self.shown: set[str] = set()

    async def check(self, project: str, tokens_budget: int | None, cost_budget: float | None) -> None:
        """Refuse with 429 `insufficient_quota` once the project's month is spent."""
        if not tokens_budget and cost_budget is None:
            return
        now = time.time()
        s = self.spend.get(project)
        month = month_start(now)
        if s is None or s.month != month or now - s.read_at >= REFRESH_SECONDS:
            s = await self._read(project, month, now)
        tokens, cost = s.tokens + s.local_tokens, s.cost + s.local_cost
        ratio = max(tokens / tokens_budget if tokens_budget else 0.0, cost / cost_budget if cost_budget else 0.0)
        if project in self.shown or len(self.shown) < MAX_SHOWN:  # bounded labels (a "*" budget: any project)
            self.shown.add(project)
            metrics.budget_used(project, ratio, ratio >= self.warn_ratio)
        if tokens_budget and tokens >= tokens_budget:
            raise QuotaExceeded(
                f"You exceeded your current quota: project {project} has used {tokens} of its monthly budget of "
                f"{tokens_budget} tokens. It resets at the start of next month (UTC)."
            )
        if cost_budget is not None and cost >= cost_budget:
            raise QuotaExceeded(
                f"You exceeded your current quota: project {project} has spent ${cost:.4f} of its monthly budget "
                f"of ${cost_budget:.2f}. It resets at the start of next month (UTC)."
            )

    async def _read(self, project: str, month: int, now: float) -> _Spend:
        s = _Spend(month, read_at=now)
        if self.store is not None:
            for model, inp, cached, out in await self.store.spent(project, month):
                s.tokens += int(inp) + int(out)
                s.cost += self.prices.cost(model, int(inp), int(cached), int(out))
        self.spend[project] = s
        return s

    def add(self, rec: UsageRecord) -> None:
        """A call recorded by this process: counts at once, until the next read includes it."""
        s = self.spend.get(rec.project)
        if s is not None:
            s.local_tokens += rec.input_tokens + rec.output_tokens
            s.local_cost += self.prices.cost(rec.model, rec.input_tokens, rec.cached_tokens, rec.output_tokens)
