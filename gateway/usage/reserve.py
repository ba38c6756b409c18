"""How many tokens a request reserves against `tokens_per_minute` before its backend call (#30).

A request reserves what it may spend before the backend says what it did: its output cap
(`max_output_tokens` for Responses, `max_completion_tokens` / `max_tokens` for the passthroughs;
`GATEWAY_RESERVE_OUTPUT_TOKENS` when it sets none) plus an estimate of its prompt from the text it
sends (about four characters a token, `estimate_tokens`; images, files and earlier turns of a
conversation are not counted here and are debited when the backend reports them). Embeddings have
no output: their input's estimate is the reservation. Both doors call `reserve_size` on the parsed
body; it reads only a few fields, so it costs microseconds.
"""

from __future__ import annotations

from typing import Any

from gateway.usage.recorder import estimate_tokens

# the paths whose requests call a model (what the HTTP door reserves for; the Envoy door: /v1/responses)
RESERVING = frozenset({"/v1/responses", "/v1/chat/completions", "/v1/completions", "/v1/embeddings"})
MAX_PARTS = 256  # parts of a prompt looked at (the rest is debited when the backend reports)


def _text_chars(value: Any) -> int:
    """Characters of text in a prompt: a string, a list of messages/parts/strings, token ids."""
    if type(value) is str:
        return len(value)
    if type(value) is not list:
        return 0
    chars = 0
    for part in value[:MAX_PARTS]:
        if isinstance(part, str):
            chars += len(part)
        elif isinstance(part, int):  # a token id (completions, embeddings): four "characters"
            chars += 4
        elif isinstance(part, dict):
            content = part.get("content", part.get("text"))
            if isinstance(content, str):
                chars += len(content)
            elif isinstance(content, list):
                texts = (p.get("text") for p in content[:MAX_PARTS] if isinstance(p, dict))
                chars += sum(len(t) for t in texts if isinstance(t, str))
        elif isinstance(part, list):  # a batch of token-id prompts
            chars += 4 * len(part)
    return chars


# the output cap's fields and the prompt's, per path (Responses; chat/completions; completions)
_FIELDS = {
    "/v1/responses": (("max_output_tokens",), ("input", "instructions")),
    "/v1/chat/completions": (("max_completion_tokens", "max_tokens"), ("messages",)),
    "/v1/completions": (("max_tokens",), ("prompt",)),
}


def reserve_size(path: str, body: Any, default_output: int) -> int:
    """The tokens a request to `path` with the JSON `body` reserves (at least one). Runs on every
    request with a token limit, so plain lookups: a few microseconds."""
    if type(body) is not dict:
        return 1
    fields = _FIELDS.get(path)
    if fields is None:  # embeddings: no output, the input's estimate
        return max(1, estimate_tokens(_text_chars(body.get("input"))))
    caps, prompts = fields
    output = default_output
    for name in caps:
        cap = body.get(name)
        if type(cap) is int and cap > 0:
            output = cap
            break
    prompt = 0
    for name in prompts:
        prompt += _text_chars(body.get(name))
    return output + (prompt + 3) // 4  # estimate_tokens, inlined
