"""The truncation policy's arithmetic and cut points (the API behaviour is in test_api_responses.py)."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.engine.truncation import drop_oldest, overflow_share


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": text}


def assistant(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": text}


def test_overflow_share_reads_vllm_messages() -> None:
    new = (
        "This model's maximum context length is 4096 tokens. However, you requested 100 output tokens and "
        "your prompt contains at least 5000 input tokens, for a total of at least 5100 tokens."
    )
    assert overflow_share(new) == pytest.approx(1004 / 5000 + 0.05)
    old = (
        "This model's maximum context length is 4096 tokens. However, you requested 6000 tokens "
        "(5000 in the messages, 1000 in the completion)."
    )
    assert overflow_share(old) == pytest.approx(1904 / 5000 + 0.05)
    assert overflow_share("prompt too long") == 0.5


def test_drop_oldest_cuts_before_a_user_message_and_keeps_instructions() -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "x" * 50}
    system = {"type": "message", "role": "system", "content": "be brief"}
    context = [system, user("a" * 100), call, output, assistant("b" * 100), user("c" * 100), assistant("d"), user("e")]
    # A small share: the first turn (with its call and output) goes, nothing more.
    assert drop_oldest(context, 0.1) == [system, user("c" * 100), assistant("d"), user("e")]
    # A share larger than everything droppable: all but the latest user turn.
    assert drop_oldest(context, 1.0) == [system, user("e")]
    # Only the latest turn: nothing can go.
    assert drop_oldest([user("a" * 10_000)], 0.5) is None
    assert drop_oldest([system, user("a")], 0.5) is None
