"""What the engine asks of an inference backend.

`TurnRequest` is one model call of the tool loop, independent of wire format; an adapter turns it
into a backend request and yields the model's output as the backends' own deltas
(`gateway/inference/deltas.py`), which the engine assembles into items and events.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from gateway.common.errors import APIError, BackendError, InvalidRequest, NotFound
from gateway.common.jsonutil import JSONDecodeError, loads
from gateway.common.redact import hide_internal
from gateway.inference.deltas import Delta
from gateway.inference.picker import Affinity

log = logging.getLogger(__name__)


@dataclass(slots=True)
class TurnRequest:
    model: str
    instructions: str | None
    items: list[dict[str, Any]]
    # Responses-style function tools ({"type": "function", "name", "parameters", ...}), client- and server-side
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_choice: Any = None
    parallel_tool_calls: bool | None = None
    temperature: float | None = None
    top_p: float | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    max_output_tokens: int | None = None
    text: dict[str, Any] | None = None
    reasoning: dict[str, Any] | None = None
    user: str | None = None
    top_logprobs: int | None = None
    logprobs: bool = False  # include has "message.output_text.logprobs"
    extras: dict[str, Any] = field(default_factory=dict)
    # Whether anyone watches this turn's output as it is made. A non-streaming client does not, so its
    # turns are one JSON reply: the backend writes one body instead of a chunk per token and the
    # gateway parses one document instead of hundreds of SSE events.
    stream: bool = True
    # The chain this call continues (its hash key and stored replica): the fleet keeps a chain on one
    # replica, whose prefix cache holds its history, and sets the replica that served it (#27).
    affinity: Affinity | None = None


class Backend(Protocol):
    def turn_stream(self, turn: TurnRequest) -> AsyncIterator[list[Delta]]:
        """Run one model call, yielding the deltas of each piece of output as it arrives."""
        ...

    async def list_models(self) -> list[dict[str, Any]]: ...

    async def count_tokens(self, turn: TurnRequest) -> int:
        """The input tokens `turn` would cost, counted by the backend's own tokenizer."""
        ...

    async def ping(self) -> bool: ...

    async def close(self) -> None: ...


def map_backend_error(status: int, body: bytes) -> APIError:
    """Map a backend's error reply to what the gateway's client should see.

    Client mistakes the backend detects (context too long, unknown model, bad sampling values) stay
    4xx; anything else is the gateway's upstream failing, a 502.
    """
    message = body.decode("utf-8", "replace")[:2000] or f"backend answered HTTP {status}"
    try:
        parsed = loads(body)
        err = parsed.get("error", parsed) if isinstance(parsed, dict) else {}
        if isinstance(err, dict) and err.get("message"):
            message = str(err["message"])
        elif isinstance(err, str):
            message = err
    except (JSONDecodeError, ValueError, AttributeError):
        pass
    message = message[:2000]
    if status >= 500:
        log.warning("the inference backend answered HTTP %d: %s", status, message)  # hosts and all
    message = hide_internal(message)  # a backend's or proxy's words may name the hosts behind us
    lowered = message.lower()
    if status in (400, 413, 422) and (
        "context length" in lowered or "maximum context" in lowered or "too long" in lowered
    ):
        return InvalidRequest(message, param="input", code="context_length_exceeded")
    if status == 404:
        return NotFound(message, param="model", code="model_not_found")
    if status in (400, 422):
        return InvalidRequest(message, code="invalid_request")
    if status == 429:
        return APIError(message, status=429, type="rate_limit_error", code="rate_limit_exceeded")
    return BackendError(f"inference backend error (HTTP {status}): {message}")
