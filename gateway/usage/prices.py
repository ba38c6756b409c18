"""Per-model prices (`GATEWAY_MODEL_PRICES`): what the Costs API and cost budgets multiply by.

JSON keyed by model (`"*"` for every other model), USD per million tokens:
`{"llama-3-70b": {"input": 0.6, "cached_input": 0.3, "output": 0.9}}`. `input` prices the uncached
input tokens (a call's input tokens include its cached ones, as in OpenAI's usage); `cached_input`
defaults to `input`. A model without a price costs nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

FIELDS = ("input", "cached_input", "output")


@dataclass(frozen=True, slots=True)
class Price:
    input: float = 0.0
    cached_input: float = 0.0
    output: float = 0.0

    def cost(self, input_tokens: int, cached_tokens: int, output_tokens: int) -> float:
        """USD for these tokens (`input_tokens` includes `cached_tokens`)."""
        uncached = max(0, input_tokens - cached_tokens)
        return (uncached * self.input + cached_tokens * self.cached_input + output_tokens * self.output) / 1e6


class Prices:
    def __init__(self, spec: str | None = None) -> None:
        self.by_model: dict[str, Price] = {}
        if not spec:
            return
        try:
            raw = json.loads(spec)
        except json.JSONDecodeError as exc:
            raise ValueError(f"GATEWAY_MODEL_PRICES is not JSON: {exc}") from exc
        if not isinstance(raw, dict):
            raise ValueError("GATEWAY_MODEL_PRICES must be a JSON object keyed by model")
        for model, value in raw.items():
            if (
                not isinstance(value, dict)
                or set(value) - set(FIELDS)
                or not all(isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in value.values())
            ):
                raise ValueError(
                    f"GATEWAY_MODEL_PRICES[{model!r}]: input, cached_input, output (USD per million tokens, >= 0)"
                )
            given: dict[str, float] = {k: float(v) for k, v in value.items()}
            self.by_model[model] = Price(
                given.get("input", 0.0), given.get("cached_input", given.get("input", 0.0)), given.get("output", 0.0)
            )

    def price(self, model: str) -> Price:
        return self.by_model.get(model) or self.by_model.get("*") or Price()

    def cost(self, model: str, input_tokens: int, cached_tokens: int, output_tokens: int) -> float:
        return self.price(model).cost(input_tokens, cached_tokens, output_tokens)
