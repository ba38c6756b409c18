"""Tokens and cost per project and model in `/metrics`, with bounded label sets.

A ledger listener: each recorded call adds its tokens and cost to Prometheus counters. Projects
and models are labels, so their number is capped per process (`MAX_PROJECTS`, `MAX_MODELS`, the
first seen keep their names, later ones count as `other`): a tenant minting projects or a client
inventing model names cannot grow the scrape without bound. The Usage API has the exact figures.
Calls are summed in a dict and added to the counters when the recorder writes its batch (about once
a second), not per call: a counter's increment in multiprocess mode costs a few microseconds.
"""

from __future__ import annotations

from gateway.telemetry import metrics
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
        self.pending: dict[tuple[str, str], list[float]] = {}

    @staticmethod
    def _label(seen: set[str], value: str, cap: int) -> str:
        if value in seen:
            return value
        if len(seen) >= cap:
            return OTHER
        seen.add(value)
        return value

    def add(self, rec: UsageRecord) -> None:
        """A ledger listener: sums the call under its (bounded) labels."""
        key = (rec.project, rec.model)
        sums = self.pending.get(key)
        if sums is None:
            sums = self.pending[key] = [0, 0, 0, 0, 0.0]
        sums[0] += rec.input_tokens
        sums[1] += rec.cached_tokens
        sums[2] += rec.output_tokens
        sums[3] += rec.reasoning_tokens
        sums[4] += self.prices.cost(rec.model, rec.input_tokens, rec.cached_tokens, rec.output_tokens)

    def flush(self) -> None:
        """Add the sums to the counters (called when the recorder writes a batch)."""
        pending, self.pending = self.pending, {}
        if not metrics.enabled():
            return
        for (project_name, model_name), (inp, cached, out, reasoning, cost) in pending.items():
            project = self._label(self.projects, project_name, MAX_PROJECTS)
            model = self._label(self.models, model_name, MAX_MODELS)
            metrics.usage_tokens(project, model, "input", int(inp))
            metrics.usage_tokens(project, model, "cached_input", int(cached))
            metrics.usage_tokens(project, model, "output", int(out))
            metrics.usage_tokens(project, model, "reasoning", int(reasoning))
            metrics.usage_cost(project, model, cost)
