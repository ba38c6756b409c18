"""`POST /v1/responses/compact`: a long history folded into one `compaction` item.

Why: a client (Codex CLI, for one) that nears the context window asks for a compacted history and
sends it back as input in place of the turns it replaces. As at OpenAI, the compacted output is
every user message of the history followed by one `compaction` item; what the model then sees of
that item is a summary the backend model wrote. The item's `encrypted_content` is this gateway's
own encoding of the summary (versioned, base64url): opaque to clients, decodable by any replica,
and not a secret (it holds what the client already sent); an item another server encrypted is
refused with a 400 rather than silently dropped.
"""

from __future__ import annotations

import base64
import time
from typing import Any

import orjson

from gateway.errors import InvalidRequest
from gateway.ids import item_id, response_id

PREFIX = "rgw-compaction-v1:"
INSTRUCTIONS = (
    "You compact conversations. Write a summary of the conversation so far that lets it continue "
    "without the original turns: the user's goals and constraints, facts and names established, "
    "decisions made, work done (files, commands, results) and what is still open. Be complete "
    "but terse; write only the summary."
)
REQUEST = "Summarize the conversation above now, as instructed."


def encode(summary: str) -> str:
    return PREFIX + base64.urlsafe_b64encode(orjson.dumps({"summary": summary})).decode()


def decode(content: str, param: str) -> str:
    """The summary in a compaction item this gateway produced; a 400 for anything else."""
    if not content.startswith(PREFIX):
        raise InvalidRequest(
            f"Invalid value for '{param}': this compaction item was not produced by this gateway.", param=param
        )
    try:
        summary = orjson.loads(base64.urlsafe_b64decode(content[len(PREFIX) :]))["summary"]
    except (ValueError, KeyError, TypeError):
        raise InvalidRequest(f"Invalid value for '{param}': the compaction item is damaged.", param=param) from None
    if not isinstance(summary, str):
        raise InvalidRequest(f"Invalid value for '{param}': the compaction item is damaged.", param=param)
    return summary


def compaction_item(summary: str) -> dict[str, Any]:
    return {"id": item_id("compaction"), "type": "compaction", "encrypted_content": encode(summary)}


def replay(item: dict[str, Any]) -> list[dict[str, Any]]:
    """What the model sees of a compaction item in a later request: the summary, as context."""
    summary = decode(str(item.get("encrypted_content", "")), "input")
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
    instructions = INSTRUCTIONS
    if body.get("instructions"):
        instructions += f"\n\nThe session's own instructions, for context:\n{body['instructions']}"
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
