"""Usage, costs, shared limits and budgets (#30).

    recorder.py  the ledger's writer: `record()` queues a model call, a task writes batches
    limiter.py   requests/tokens per minute shared by every process through the database (leases)
    admission.py one call's admission (count, token reservation, settlement), for the three doors
    budgets.py   monthly token and cost budgets per project
    prices.py    GATEWAY_MODEL_PRICES: USD per million tokens per model
    api.py       the Usage and Costs APIs' pages, in OpenAI's shapes

The call sites (engine turns, research, passthroughs) make one call: `usage.record(...)`.
"""

from __future__ import annotations

import time
from typing import Any

from gateway.common.jsonutil import dumps
from gateway.usage import recorder as _recorder
from gateway.usage.recorder import caller_key, entry_door, estimate_tokens, parse_usage
from storage.scope import current_project, owning_project
from storage.usage import UsageRecord

__all__ = ["caller_key", "record"]


def _chars(value: Any) -> int:
    if value is None:
        return 0
    return estimate_tokens(value if isinstance(value, str | int) else len(dumps(value)))


def record(
    model: str | None,
    usage: dict[str, Any] | None,
    *,
    source: str,
    kind: str = "completions",
    estimate: tuple[Any, Any] = (None, None),
    requests: int = 1,
    pool: str = "",
    project: str | None = None,
    api_key_id: str | None = None,
) -> None:
    """Record one backend call of the current caller (project from the scope, key from `caller_key`).

    `usage` is what the backend reported (chat-completions or Responses shape); without it the
    tokens are estimated from `estimate` (what went in, what came out: text, or JSON measured only
    then) and the record is marked estimated.
    """
    rec = _recorder.RECORDER
    if usage:
        inp, cached, out, reasoning = parse_usage(usage)
        estimated = False
    else:
        inp, cached, out, reasoning = _chars(estimate[0]), 0, _chars(estimate[1]), 0
        estimated = True
    rec.add(
        UsageRecord(
            time.time(),
            kind,
            project or (current_project() or owning_project()),
            caller_key.get() if api_key_id is None else api_key_id,
            model or "unknown",
            pool,
            rec.replica,
            entry_door.get() or rec.door,
            source,
            inp,
            cached,
            out,
            reasoning,
            requests,
            estimated,
        )
    )
