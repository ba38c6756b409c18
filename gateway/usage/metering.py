"""Tokens and cost per project and model in `/metrics`, with bounded label sets.

A ledger listener: each recorded call adds its tokens and cost to Prometheus counters. Projects
and models are labels, so their number is capped per process (`MAX_PROJECTS`, `MAX_MODELS`, the
first seen keep their names, later ones count as `other`): a tenant minting projects or a client
inventing model names cannot grow the scrape without bound. The Usage API has the exact figures.
"""

from __future__ import annotations

from gateway import metrics
from gateway.usage.prices import Prices
from storage.usage import UsageRecord

MAX_PROJECTS = 100
MAX_MODELS = 50
OTHER = "other"


class UsageMetrics:
    def __init__(self, prices: Prices) -> None:
        self.prices = prices
        self.projects: set[str] = set()
        self.models: set[str] = set()

    @staticmethod
    def _label(seen: set[str], value: str, cap: int) -> str:
        if value in seen:
            return value
        if len(seen) >= cap:
            return OTHER
        seen.add(value)
        return value

    def add(self, rec: UsageRecord) -> None:
        if not metrics.enabled():
            return
        project = self._label(self.projects, rec.project, MAX_PROJECTS)
        model = self._label(self.models, rec.model, MAX_MODELS)
        metrics.usage_tokens(project, model, "input", rec.input_tokens)
        metrics.usage_tokens(project, model, "cached_input", rec.cached_tokens)
        metrics.usage_tokens(project, model, "output", rec.output_tokens)
        metrics.usage_tokens(project, model, "reasoning", rec.reasoning_tokens)
        metrics.usage_cost(
            project, model, self.prices.cost(rec.model, rec.input_tokens, rec.cached_tokens, rec.output_tokens)
        )
