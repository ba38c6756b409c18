"""`truncation: "auto"`: when the context does not fit the model, drop the oldest conversation.

The gateway cannot count tokens for an arbitrary backend model, so it lets the backend judge: a turn
that comes back with a context-length error is retried with the oldest part of the conversation
dropped. How much to drop comes from the numbers in vLLM's error message (the overflow as a share
of the prompt), with a margin; when the message has no numbers, half. Only whole turns go: the cut
falls just before a user message, so a function call is never separated from its output and the
context never starts with an orphaned assistant or tool message. System and developer messages
stay, and so does the latest user turn: if that alone does not fit, the error stands.

Only what is sent to the model is shortened; the stored inputs and history are never touched.
"""

from __future__ import annotations

import re
from typing import Any

from gateway.common.jsonutil import dumps

MAX_RETRIES = 8
MARGIN = 0.05

# vLLM >= 0.18: "maximum context length is N tokens. However, you requested M output tokens and
# your prompt contains at least T input tokens, ..."
_NEW = re.compile(
    r"maximum context length is (\d+) tokens.*?requested (\d+) output tokens.*?contains at least (\d+) input",
    re.S,
)
# Older vLLM (and OpenAI): "maximum context length is N tokens. However, you requested T tokens
# (P in the messages, C in the completion)."
_OLD = re.compile(r"maximum context length is (\d+) tokens.*?requested (\d+) tokens \((\d+) in the messages", re.S)


def overflow_share(message: str) -> float:
    """The share of the prompt to drop so that it fits, read off a backend's context-length error."""
    if m := _NEW.search(message):
        limit, output, prompt = (int(g) for g in m.groups())
        over = prompt + output - limit
    elif m := _OLD.search(message):
        limit, total, prompt = (int(g) for g in m.groups())
        over = total - limit
    else:
        return 0.5
    if prompt <= 0 or over <= 0:
        return 0.5
    return min(1.0, over / prompt + MARGIN)


def _is_user_message(item: dict[str, Any]) -> bool:
    return item.get("role") == "user" and item.get("type", "message") == "message"


def _is_instruction(item: dict[str, Any]) -> bool:
    return item.get("role") in ("system", "developer") and item.get("type", "message") == "message"


def drop_oldest(context: list[dict[str, Any]], share: float) -> list[dict[str, Any]] | None:
    """`context` without its oldest turns, at least `share` of its size gone; None if nothing can go.

    Cut points are the user messages after the first droppable item, up to the last one; the
    earliest cut that removes enough is taken, else the last one (everything before the latest
    user turn).
    """
    sizes = [0 if _is_instruction(it) else len(dumps(it)) for it in context]
    total = sum(sizes)
    # A cut must drop something: only after the first item that is not an instruction.
    first = next((i for i, it in enumerate(context) if not _is_instruction(it)), len(context))
    cuts = [i for i, it in enumerate(context) if i > first and _is_user_message(it)]
    if not cuts or total == 0:
        return None
    want = share * total
    dropped = 0
    cut = cuts[-1]
    start = 0
    for candidate in cuts:
        dropped += sum(sizes[start:candidate])
        start = candidate
        if dropped >= want:
            cut = candidate
            break
    kept_instructions = [it for it in context[:cut] if _is_instruction(it)]
    return kept_instructions + context[cut:]
