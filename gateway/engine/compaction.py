"""Compaction: a long history folded into one `compaction` item, three ways.

Why: a client (Codex CLI, for one) that nears the context window has its history summarised and
continues from the summary. As at OpenAI:
- `POST /v1/responses/compact` answers with the history's user messages then one compaction item;
- a `compaction_trigger` input item (Codex's remote compaction v2) makes an ordinary
  `POST /v1/responses` answer with exactly one compaction item (`compaction_run.py`);
- `context_management: [{"type": "compaction", "compact_threshold": N}]` compacts inside a normal
  turn when the rendered input reaches N tokens (`compaction_run.py`).
What the model then sees of a compaction item is the summary the backend model wrote, and nothing
of what came before the latest compaction item but the client's messages sent with it (`prune`): that
is the compaction. The item's `encrypted_content` is the summary sealed under the deployment's key
(`compaction_seal.py`): any replica opens it, a changed, forged or foreign one is a 400.
"""

from __future__ import annotations

import time
from typing import Any

from gateway.common.errors import InvalidRequest
from gateway.common.ids import item_id, response_id
from gateway.engine.compaction_seal import seal, unseal

TRIGGER = "compaction_trigger"
INSTRUCTIONS = (
    "You compact conversations. Write a summary of the conversation so far that lets it continue "
    "without the original turns: the user's goals and constraints, facts and names established, "
    "decisions made, work done (files, commands, results) and what is still open. Be complete "
    "but terse; write only the summary."
)
REQUEST = "Summarize the conversation above now, as instructed."


def compaction_item(summary: str) -> dict[str, Any]:
    return {"id": item_id("compaction"), "type": "compaction", "encrypted_content": seal(summary)}


def _latest(items: list[dict[str, Any]]) -> int | None:
    for i in range(len(items) - 1, -1, -1):
        if items[i].get("type") == "compaction":
            return i
    return None


def prune(history: list[dict[str, Any]], inputs: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The context from the latest compaction item on: what came before it is in its summary.

    One exception: the messages that are not the model's (user, developer, system) a client sends
    ahead of the compaction item in the same input stay: the shape `/v1/responses/compact` returns,
    and what Codex keeps of its history (its instructions are developer messages). A stored chain
    (`previous_response_id`, conversation) is cut whole."""
    inputs = inputs or []
    at = _latest(inputs)
    if at is not None:
        kept = [it for it in inputs[:at] if it.get("type") == "message" and it.get("role") != "assistant"]
        return kept + inputs[at:]
    at = _latest(history)
    return history[at:] + inputs if at is not None else history + inputs


def check_items(items: list[dict[str, Any]], param: str = "input") -> None:
    """Every compaction item in `items` opens under this deployment's key (400 otherwise), so a bad
    one is refused before any output, through either door."""
    for i, item in enumerate(items):
        if item.get("type") == "compaction":
            unseal(item.get("encrypted_content", ""), f"{param}[{i}].encrypted_content")


def summary_instructions(session: str | None) -> str:
    if not session:
        return INSTRUCTIONS
    return f"{INSTRUCTIONS}\n\nThe session's own instructions, for context:\n{session}"


def replay(item: dict[str, Any]) -> list[dict[str, Any]]:
    """What the model sees of a compaction item in a later request: the summary, as context."""
    summary = unseal(str(item.get("encrypted_content", "")), "input")
    text = f"Summary of the earlier conversation (compacted):\n{summary}"
    return [{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": text}]}]


def summary_request(body: dict[str, Any]) -> dict[str, Any]:
    """The create request whose answer is the summary: the client's history and input, our instructions."""
    if not body.get("model"):
        raise InvalidRequest("Missing required parameter: 'model'.", param="model", code="missing_required_parameter")
    unknown = set(body) - {"model", "input", "instructions", "previous_response_id", "prompt_cache_key", "service_tier"}
    if unknown:
        key = sorted(unknown)[0]
        raise InvalidRequest(f"Unknown parameter: '{key}'.", param=key, code="unknown_parameter")
    given = body.get("input")
    items = [{"role": "user", "content": given}] if isinstance(given, str) else list(given or [])
    instructions = summary_instructions(body.get("instructions"))
    return {
        "model": body["model"],
        "input": [*items, {"role": "user", "content": REQUEST}],
        "instructions": instructions,
        "previous_response_id": body.get("previous_response_id"),
        "store": False,
    }


def compacted(history: list[dict[str, Any]], summary: str, usage: dict[str, Any] | None) -> dict[str, Any]:
    """OpenAI's `CompactedResponse`: the user messages of the history, then the compaction item."""
    users = [
        item
        for item in history
        if item.get("type") == "message" and item.get("role") == "user" and _text(item) != REQUEST
    ]
    return {
        "id": response_id(),
        "object": "response.compaction",
        "created_at": int(time.time()),
        "output": [*users, compaction_item(summary)],
        "usage": usage,
    }


def _text(item: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for p in item.get("content", []) if isinstance(p, dict))
