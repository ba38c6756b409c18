"""What a backend reports of one model call: deltas of its own, whatever the wire format.

An adapter (`chat_completions`, `responses_api`, the fleet that routes to them, and the ExtProc's
body translator through `chat_translate`) turns what the inference server sends into these few
values and yields them, one list per read of the body (what a read carried leaves together). The
engine's `TurnAssembler` (`gateway/engine/turn.py`) consumes them and makes the Responses items and
events; the backends import nothing of the engine (an import-linter contract in pyproject.toml).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the answer's text, with its tokens' logprobs when they were asked for."""

    text: str
    logprobs: list[dict[str, Any]] | None = None


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of the tool call at `index` (the wire's own key): its id and name come first, the
    arguments in pieces."""

    index: int
    call_id: str | None = None
    name: str | None = None
    arguments: str | None = None


@dataclass(frozen=True, slots=True)
class Finished:
    """The call ended (`stop`, `length`, `tool_calls`; None: the backend gave no reason)."""

    reason: str | None
    model: str | None = None  # the model the backend says answered (tracing)


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts in the chat completions shape (`prompt_tokens`, `completion_tokens`, details)."""

    usage: dict[str, Any]


Delta = TextDelta | ReasoningDelta | ToolCallDelta | Finished | Usage


class Progress:
    """What an adapter must know of the deltas it yielded: whether the call finished (a stream that
    ends before is cut) and whether it called a tool (the finish reason some wire formats leave out)."""

    def __init__(self) -> None:
        self.finish_reason: str | None = None
        self.called = False

    def see(self, deltas: list[Delta]) -> list[Delta]:
        for delta in deltas:
            if isinstance(delta, ToolCallDelta):
                self.called = True
            elif isinstance(delta, Finished) and delta.reason:
                self.finish_reason = delta.reason
        return deltas
