"""The `kg` ranker's signal weights (`GATEWAY_KG_WEIGHTS`), parsed where settings are validated."""

from __future__ import annotations

SIGNALS = ("vector", "graph", "keyword", "recency", "title")
DEFAULT_WEIGHTS = "vector=0.35,graph=0.4,keyword=0.1,recency=0.05,title=0.1"


def parse_weights(value: str | None) -> dict[str, float]:
    """`vector=0.35,graph=0.4,...` → weights (signals left out weigh 0); they must sum to 1."""
    weights = dict.fromkeys(SIGNALS, 0.0)
    for part in (value or DEFAULT_WEIGHTS).split(","):
        name, sep, number = part.partition("=")
        name = name.strip()
        if name not in weights or not sep:
            raise ValueError(f"expected signal=weight with a signal of {', '.join(SIGNALS)}, got {part.strip()!r}")
        try:
            weights[name] = float(number)
        except ValueError:
            raise ValueError(f"the weight of {name!r} is not a number: {number.strip()!r}") from None
        if not 0 <= weights[name] <= 1:
            raise ValueError(f"the weight of {name!r} must be between 0 and 1")
    if abs(sum(weights.values()) - 1.0) > 1e-6:
        raise ValueError(f"the weights sum to {sum(weights.values()):g}, not 1")
    return weights
